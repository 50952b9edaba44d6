"""Every output flag the same way (cli/output.py): "-" is standard output, an empty name is refused,
a refused path exits 2 before any work and a write that fails under way exits 1, for every
command; and a report that cannot be written (a full disk) never exits 0."""
import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import main as entry  # noqa: E402

SMALL_PLAN = ["plan", "--model", "llama-3.1-8b", "--gpus-available", "h100:1", "--no-disaggregated", "--no-spec"]
OUTPUTS = {          # command and flag → how to give it a path
    "per-request": (["serve", "--requests", "20", "--per-request"], "request,replica,"),
    "csv": ([*SMALL_PLAN, "--csv"], "setup,batch cap,"),
    "export": (["hardware", "export", "h100", "-o"], '"memory_wall_hardware": 1'),
}
TOO_LONG = "a" * 300


def _run(argv, cwd, stdout=subprocess.PIPE, timeout=300):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], cwd=cwd, stdout=stdout,
                          stderr=subprocess.PIPE, env=env, timeout=timeout)


@pytest.mark.parametrize("argv", [["list"], ["list", "gpus", "--json"], ["estimate"], ["sweep", "--max-batch", "2"],
                                  ["serve", "--requests", "20"], SMALL_PLAN, ["hardware", "export", "h100"],
                                  ["--version"]], ids=" ".join)
def test_a_report_that_cannot_be_written_exits_non_zero(argv, tmp_path):
    """`main.py list > /dev/full`: one line on stderr and exit 1, so `… > out.csv && …` stops."""
    with open("/dev/full", "w") as full:
        out = _run(argv, tmp_path, stdout=full)
    assert out.returncode == 1, out.stderr
    assert out.stderr.decode().strip().splitlines()[-1] == "error: could not write the output (No space left on device)"
    assert b"Traceback" not in out.stderr


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_a_dash_is_standard_output_and_nothing_is_left_on_disk(name, tmp_path):
    argv, head = OUTPUTS[name]
    out = _run([*argv, "-"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert head in out.stdout.decode() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("flag, suffix, magic", [("--screenshot", ".png", b"\x89PNG"), ("--record", ".gif", b"GIF8")])
def test_the_windows_outputs_take_a_dash_too(flag, suffix, magic, tmp_path):
    extra = ["--seconds", "0.2", "--fps", "5", "--size", "320x240"] if flag == "--record" else ["--size", "640x400"]
    out = _run([flag, "-", *extra], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(magic) and "wrote standard output" in out.stderr.decode()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", sorted(OUTPUTS) + ["screenshot", "record"])
def test_an_empty_name_is_refused_in_one_line(name, tmp_path):
    argv = OUTPUTS[name][0] if name in OUTPUTS else [f"--{name}"]
    out = _run([*argv, ""], tmp_path)
    err = out.stderr.decode().strip()
    assert out.returncode == 2 and len(err.splitlines()) == 1 and out.stdout == b"", err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", sorted(OUTPUTS) + ["screenshot", "record", "calibrate"])
def test_a_name_too_long_is_a_refused_path_for_every_flag(name, tmp_path):
    """-o, --record, calibrate -o and plan --csv exited 1 and serve --per-request 2: now all 2,
    and before any work (calibrate measures nothing)."""
    argv = (OUTPUTS[name][0] + [TOO_LONG + ".x"] if name in OUTPUTS else ["calibrate", "-o", TOO_LONG + ".json"]
            if name == "calibrate" else [f"--{name}", TOO_LONG + (".png" if name == "screenshot" else ".gif")])
    out = _run(argv, tmp_path)
    err = out.stderr.decode().strip()
    assert out.returncode == 2, err
    assert err.splitlines()[-1].endswith("File name too long") and "Traceback" not in err


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_a_write_that_fails_under_way_exits_1(name, tmp_path, monkeypatch, capsys):
    argv, _ = OUTPUTS[name]

    def full(*_a):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    rc = entry.main([*argv, str(tmp_path / "out.txt")])
    last = capsys.readouterr().err.strip().splitlines()[-1]          # (after plan's progress lines)
    assert rc == 1 and last.endswith("out.txt: No space left on device")
    assert not (tmp_path / "out.txt").exists()
