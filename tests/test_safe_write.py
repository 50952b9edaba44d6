"""Issue 27, items 1-2 (model and command line): one atomic-write path that never replaces without
asking, keeps the old file on failure, uses unique temporary names and cleans its own stale ones;
custom entries carried by a scenario file never replace your own."""
from __future__ import annotations

import errno
import json
import os
import pathlib
import time

import pytest

import main
from model import Scenario
from model.catalog.active import default_catalog, set_default_catalog, shipped_catalog
from model.errors import ModelError
from model.files import safe_io
from model.files.custom_catalog import add_to_default
from model.files.hardware_file import document_text, export_document, hardware_from_document
from model.files.safe_io import (SafeIOError, TargetExistsError, atomic_write_bytes, atomic_write_text,
                                 atomic_write_with, clean_stale_temps, new_temp_file)
from model.files.scenario_file import load_scenario_with_chapter, save_scenario

CONFIGS = pathlib.Path(__file__).resolve().parent / "data" / "hf_configs"


@pytest.fixture(autouse=True)
def _fresh_catalog():
    set_default_catalog(None)
    yield
    set_default_catalog(None)


def _one_line(exc) -> str:
    text = str(exc.value)
    assert text and "\n" not in text, text
    return text


def test_an_existing_file_is_kept_unless_the_caller_says_overwrite(tmp_path):
    p = tmp_path / "mine.csv"
    p.write_text("mine")
    for write in (lambda: atomic_write_text(p, "new"), lambda: atomic_write_bytes(p, b"new"),
                  lambda: atomic_write_with(p, lambda tmp: open(tmp, "w").write("new"))):
        with pytest.raises(TargetExistsError) as exc:
            write()
        assert "already exists" in _one_line(exc)
        assert p.read_text() == "mine"
    atomic_write_text(p, "new", overwrite=True)
    assert p.read_text() == "new"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["mine.csv"]


@pytest.mark.parametrize("where", ["os.replace", "os.link", "os.fsync"])
def test_a_full_disk_keeps_the_old_file_and_says_so_in_one_line(tmp_path, monkeypatch, where):
    p = tmp_path / "scenario.json"
    p.write_text("old and whole")

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, where.split(".")[1], full)
    with pytest.raises(SafeIOError) as exc:
        atomic_write_text(p, "x" * 10_000, overwrite=where != "os.link")
    assert "No space left" in _one_line(exc) or "already exists" in _one_line(exc)
    monkeypatch.undo()
    assert p.read_text() == "old and whole"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["scenario.json"], "temporary file left behind"
    fresh = tmp_path / "new.json"
    monkeypatch.setattr(os, where.split(".")[1], full)
    with pytest.raises(SafeIOError) as exc:
        atomic_write_text(fresh, "{}", overwrite=where != "os.link")
    assert "No space left" in _one_line(exc)
    monkeypatch.undo()
    assert not fresh.exists() and sorted(f.name for f in tmp_path.iterdir()) == ["scenario.json"]


def test_a_writer_that_fails_or_writes_nothing_leaves_nothing(tmp_path):
    p = tmp_path / "chart.svg"
    p.write_text("<svg>old</svg>")
    with pytest.raises(SafeIOError, match="nothing was written"):
        atomic_write_with(p, lambda tmp: None, overwrite=True)
    with pytest.raises(SafeIOError, match="could not be written"):
        atomic_write_with(p, lambda tmp: False, overwrite=True)

    def disk_full(tmp):
        open(tmp, "w").write("<svg>half")
        raise OSError(errno.ENOSPC, "No space left on device")
    with pytest.raises(SafeIOError, match="No space left"):
        atomic_write_with(p, disk_full, overwrite=True)
    assert p.read_text() == "<svg>old</svg>"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["chart.svg"]


def test_temporary_names_never_collide_and_keep_the_extension(tmp_path):
    target = tmp_path / "talk.gif"
    names = {new_temp_file(target) for _ in range(200)}
    assert len(names) == 200
    for n in names:
        base = os.path.basename(n)
        assert base.startswith(safe_io.TEMP_PREFIX) and base.endswith(".tmp.gif") and safe_io.is_own_temp_name(base)
    assert not target.exists()


def _own(tmp_path, part: str, ext: str = "") -> pathlib.Path:
    """A temporary file as new_temp_file names it (its random part and its mark)."""
    return tmp_path / f"{safe_io.TEMP_PREFIX}{part}-{safe_io._mark(part)}.tmp{ext}"


def test_stale_temporaries_are_cleaned_and_nothing_else(tmp_path):
    old = time.time() - 2 * safe_io.STALE_TEMP_S
    stale, stale_gif, fresh = _own(tmp_path, "abcd1234"), _own(tmp_path, "zz09abcd", ".gif"), _own(tmp_path, "fresh123")
    look_alikes = [tmp_path / ".memory-wall-abcd1234.tmp", tmp_path / ".memory-wall-zz_9abcd.tmp.gif",
                   tmp_path / ".memory-wall-XXXXXXXX.tmp.csv",                    # the user's, of the old pattern
                   tmp_path / f".memory-wall-abcd1234-{'0' * 8}.tmp",              # the pattern, not the mark
                   tmp_path / ".scenario.json.k2j4h5g6.tmp"]
    unrelated = [tmp_path / "talk.gif.part.gif", tmp_path / "NAME.part.gif", tmp_path / "notes.tmp",
                 tmp_path / ".memory-wall-notes.txt", tmp_path / "hardware.json"]
    for f in (stale, stale_gif, fresh, *look_alikes, *unrelated):
        f.write_text("x")
    for f in (stale, stale_gif, *look_alikes, *unrelated):
        os.utime(f, (old, old))
    folder = _own(tmp_path, "dir12345")
    folder.mkdir()                                                   # a folder of that name: not ours to remove
    os.utime(folder, (old, old))
    link = _own(tmp_path, "link1234")
    link.symlink_to(tmp_path / "hardware.json")
    removed = clean_stale_temps([tmp_path, tmp_path / "missing"])
    assert sorted(os.path.basename(r) for r in removed) == sorted(f.name for f in (stale, stale_gif))
    assert fresh.exists() and all(f.exists() for f in look_alikes + unrelated)
    assert folder.is_dir() and link.is_symlink()


def test_a_look_alike_of_anothers_temporary_survives(tmp_path, monkeypatch):
    """The mark holds the user's id: a file named as another user's temporary is not this one's."""
    old = time.time() - 2 * safe_io.STALE_TEMP_S
    theirs = _own(tmp_path, "abcd1234")
    theirs.write_text("x")
    os.utime(theirs, (old, old))
    monkeypatch.setattr(safe_io, "_uid", lambda: 4242)
    assert clean_stale_temps([tmp_path]) == [] and theirs.exists()


def test_a_save_clears_its_own_stale_temporaries_beside_it(tmp_path):
    old = time.time() - 2 * safe_io.STALE_TEMP_S
    stale, other = _own(tmp_path, "killed99", ".gif"), tmp_path / ".memory-wall-killed99.tmp.gif"
    for f in (stale, other):
        f.write_text("x")
        os.utime(f, (old, old))
    atomic_write_text(tmp_path / "chart.csv", "a,b\n")
    assert not stale.exists() and other.read_text() == "x"


def test_hardware_export_needs_force_to_replace(tmp_path, capsys):
    out = tmp_path / "mine.json"
    out.write_text("my own notes")
    assert main.main(["hardware", "export", "h100", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--force" in err
    assert out.read_text() == "my own notes"
    assert main.main(["hardware", "export", "h100", "-o", str(out), "--force"]) == 0
    assert json.loads(out.read_text())["based_on"] == "h100-sxm5-80gb"


def test_record_refuses_an_existing_file_without_force(tmp_path, capsys):
    out = tmp_path / "talk.gif"
    out.write_bytes(b"my own gif")
    assert main.main(["--record", str(out), "--seconds", "0.5", "--size", "320x240", "--fps", "10"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "already exists" in err and "--force" in err
    assert out.read_bytes() == b"my own gif"


def test_a_recording_never_touches_a_file_named_like_its_old_temporary(tmp_path, capsys):
    out, part = tmp_path / "talk.gif", tmp_path / "talk.gif.part.gif"
    part.write_bytes(b"an unrelated file of yours")
    argv = ["--record", str(out), "--seconds", "0.5", "--size", "320x240", "--fps", "10"]
    assert main.main(argv) == 0, capsys.readouterr().err
    assert out.read_bytes()[:6] == b"GIF89a" and part.read_bytes() == b"an unrelated file of yours"
    first = out.read_bytes()
    out.write_bytes(b"old")
    assert main.main(argv + ["--force"]) == 0
    assert out.read_bytes() == first                             # replaced, as asked
    assert sorted(p.name for p in tmp_path.iterdir()) == ["talk.gif", "talk.gif.part.gif"]


# ---------------------------------------------------------------- custom entries in scenario files

def _mine(ident: str = "my-gpu", base: str = "mi300x", bw: float | None = None) -> dict:
    doc = export_document(shipped_catalog().gpu(base))
    doc.update(id=ident, name=f"{ident} (mine)")
    if bw is not None:
        doc["memory"]["hbm"]["bandwidth_bytes_per_s"] = bw
    return doc


def _scenario_file(tmp_path, doc: dict, name: str = "theirs.json", **extra) -> str:
    """A colleague's scenario file on their own hardware ``doc``."""
    set_default_catalog(None)
    add_to_default(hw=hardware_from_document(doc), text=document_text(doc))
    path = tmp_path / name
    save_scenario(path, Scenario(gpu=doc["id"], model="llama-3.1-8b"), chapter=2)
    saved = json.loads(path.read_text())
    saved.update(extra)
    path.write_text(json.dumps(saved))
    set_default_catalog(None)
    return str(path)


def _install_mine(doc: dict) -> None:
    add_to_default(hw=hardware_from_document(doc), text=document_text(doc))


def test_a_carried_entry_with_your_id_is_renamed_and_yours_stays(tmp_path):
    theirs = _scenario_file(tmp_path, _mine(bw=9.9e12))
    _install_mine(_mine())
    mine_before = default_catalog().gpu("my-gpu")
    s, chapter = load_scenario_with_chapter(theirs)
    cat = default_catalog()
    assert s.gpu == "my-gpu-2" and chapter == 2
    assert cat.gpu("my-gpu") == mine_before                         # yours, untouched
    assert cat.gpu("my-gpu-2").hbm_bandwidth_bytes_per_s == 9.9e12    # theirs, beside it
    assert json.loads(cat.custom_document("my-gpu", "hardware"))["memory"]["hbm"]["bandwidth_bytes_per_s"] != 9.9e12
    again, _ = load_scenario_with_chapter(theirs)                     # the same file again: the same entry
    assert again.gpu == "my-gpu-2" and "my-gpu-3" not in {i for _k, i, _d in default_catalog().custom_documents}


def test_the_same_entry_is_not_renamed(tmp_path):
    theirs = _scenario_file(tmp_path, _mine())
    _install_mine(_mine())
    s, _ = load_scenario_with_chapter(theirs)
    assert s.gpu == "my-gpu" and [i for k, i, _ in default_catalog().custom_documents] == ["my-gpu"]


def test_nothing_is_installed_from_a_refused_file(tmp_path):
    theirs = _scenario_file(tmp_path, _mine(bw=9.9e12), chapter=99)
    _install_mine(_mine())
    before = default_catalog()
    with pytest.raises(ModelError) as exc:
        load_scenario_with_chapter(theirs)
    assert "chapter" in _one_line(exc)
    assert default_catalog() is before
    broken = json.loads(open(theirs).read())
    broken["chapter"] = 2
    broken["scenario"]["batch"] = -5                      # refused by resolve, after the entries were read
    open(theirs, "w").write(json.dumps(broken))
    with pytest.raises(ModelError):
        load_scenario_with_chapter(theirs)
    assert default_catalog() is before


def test_two_entries_with_one_id_are_refused_naming_it(tmp_path):
    theirs = _scenario_file(tmp_path, _mine())
    doc = json.loads(open(theirs).read())
    twin = json.loads(json.dumps(doc["custom_entries"][0]))
    twin["document"]["memory"]["hbm"]["bandwidth_bytes_per_s"] = 1e12
    doc["custom_entries"].append(twin)
    open(theirs, "w").write(json.dumps(doc))
    before = default_catalog()
    with pytest.raises(ModelError) as exc:
        load_scenario_with_chapter(theirs)
    assert "two hardware entries" in _one_line(exc) and "'my-gpu'" in _one_line(exc)
    assert default_catalog() is before


def test_a_model_and_a_hardware_with_one_id_live_apart():
    from model.files.hf_config import llm_from_config
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    llm = llm_from_config(cfg, "same")
    _install_mine(_mine("same"))
    add_to_default(llm=llm, text=json.dumps(cfg))
    cat = default_catalog()
    assert cat.gpu("same").name == "same (mine)" and cat.model("same").id == "same"
    assert json.loads(cat.custom_document("same", "hardware"))["memory_wall_hardware"] == 1
    assert json.loads(cat.custom_document("same", "model"))["hidden_size"] == cfg["hidden_size"]
    only_model = cat.without_custom("same", "hardware")
    assert only_model.is_custom("same", "model") and not only_model.is_custom("same", "hardware")
    assert only_model.model("same") == llm
    with pytest.raises(ModelError):
        only_model.gpu("same")
