"""model/files/safe_io.py: every guarded read and write refuses hostile input with one line."""
import os
import stat
import threading

import pytest

from model.files.safe_io import SafeIOError, TargetExistsError, atomic_write_text, json_depth, loads_json, read_json, read_text


def _one_line(exc_info) -> str:
    text = str(exc_info.value)
    assert text and "\n" not in text
    return text


@pytest.mark.parametrize("text,needle", [
    ('{"batch": ' + "9" * 400 + "}", "400-digit number"),
    ('{"batch": -' + "1" * 5000 + "}", "5000-digit number"),
    ("[" * 100_000 + "]" * 100_000, "nested 100000 levels deep"),
    ("{" + '"a":{' * 70 + "}" * 71, "nested 71 levels"),
    ('{"batch": NaN}', "NaN"),
    ('{"batch": -Infinity}', "-Infinity"),
    ("{ not json", "not valid JSON"),
])
def test_hostile_json_text_is_refused_in_one_line(text, needle):
    with pytest.raises(SafeIOError) as exc:
        loads_json(text, "x.json")
    assert needle in _one_line(exc)


def test_brackets_inside_strings_do_not_count_as_depth():
    assert json_depth('{"a": "[[[[\\"{{{", "b": [[1]]}') == 3
    assert json_depth('["ends in a backslash \\\\", "[[", [1]]') == 2    # \\" closes the string
    assert json_depth('"\\\\\\"[[[["') == 0                               # \\\" does not
    assert loads_json('{"a": "' + "[" * 500 + '"}') == {"a": "[" * 500}
    assert loads_json('{"n": 123456789012345678901234567890}')["n"] == 123456789012345678901234567890


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "x.json"
    os.mkfifo(fifo)
    result = []
    t = threading.Thread(target=lambda: result.append(pytest.raises(SafeIOError, read_json, fifo)), daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "reading a FIFO blocked"
    assert "not a regular file" in str(result[0].value)


@pytest.mark.parametrize("path,needle", [("/dev/zero", "not a regular file"), ("/", "is a folder"),
                                         ("/no/such/file.json", "no such file"), ("", "no file name")])
def test_special_missing_and_empty_paths_are_refused(path, needle):
    with pytest.raises(SafeIOError) as exc:
        read_json(path)
    assert needle in _one_line(exc)


def test_size_limit_and_bad_encoding(tmp_path):
    big = tmp_path / "big.json"
    big.write_text(" " * 2000)
    with pytest.raises(SafeIOError, match="too large"):
        read_json(big, max_bytes=1000)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"a": "\xe9"}')
    with pytest.raises(SafeIOError, match="not UTF-8"):
        read_text(latin)


def test_write_keeps_the_umask_and_refuses_read_only_and_existing(tmp_path):
    old = os.umask(0o027)
    try:
        p = tmp_path / "s.json"
        atomic_write_text(p, "{}")
        assert stat.S_IMODE(p.stat().st_mode) == 0o640
    finally:
        os.umask(old)
    with pytest.raises(TargetExistsError) as exc:
        atomic_write_text(p, "[]", overwrite=False)
    assert "already exists" in _one_line(exc)
    p.chmod(0o444)
    with pytest.raises(SafeIOError) as exc:
        atomic_write_text(p, "[]")
    assert "read-only" in _one_line(exc)
    assert p.read_text() == "{}"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["s.json"], "temporary file left behind"


@pytest.mark.parametrize("target,needle", [("", "no file name"), ("missing/x.json", "does not exist"),
                                           (".", "is a folder")])
def test_bad_write_targets_are_refused(tmp_path, monkeypatch, target, needle):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SafeIOError) as exc:
        atomic_write_text(target, "{}")
    assert needle in _one_line(exc)
