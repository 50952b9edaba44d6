"""packaging/ensure-system-deps: `make run` / `make test` install Qt's system libraries when missing."""
import os
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "packaging" / "ensure-system-deps"


def stub(folder: Path, name: str, body: str) -> None:
    p = folder / name
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)


def run(tmp_path, *, installed: bool, root: bool, sudo_ok: bool):
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "log"
    stub(bin_, "dpkg", "exit 0" if installed else "exit 1")
    stub(bin_, "id", "echo 0" if root else "echo 1000")
    stub(bin_, "sudo", f'[ "$1" = -n ] && shift; {"" if sudo_ok else "exit 1;"} "$@"')
    stub(bin_, "apt-get", f'echo "apt-get $*" >> {log}')
    env = {"PATH": f"{bin_}:/usr/bin:/bin", "PY": "/bin/true"}
    out = subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    return out, (log.read_text() if log.exists() else "")


def test_nothing_happens_when_everything_is_there(tmp_path):
    out, log = run(tmp_path, installed=True, root=False, sudo_ok=False)
    assert out.returncode == 0 and out.stderr == "" and log == ""


def test_root_installs_the_missing_libraries(tmp_path):
    out, log = run(tmp_path, installed=False, root=True, sudo_ok=False)
    assert out.returncode == 0 and "apt-get update" in log
    assert "install" in log and "libxcb-cursor0" in log and "xvfb" in log


def test_a_user_with_sudo_installs_through_sudo(tmp_path):
    out, log = run(tmp_path, installed=False, root=False, sudo_ok=True)
    assert "libxcb-cursor0" in log


def test_without_root_or_sudo_it_says_what_to_run_in_one_line(tmp_path):
    out, log = run(tmp_path, installed=False, root=False, sudo_ok=False)
    assert out.returncode == 0 and log == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "sudo apt-get install" in lines[0] and "libxcb-cursor0" in lines[0]


def test_make_runs_it_before_run_and_test_and_ci_only_calls_make_test():
    make = (ROOT / "Makefile").read_text()
    assert "run: system-deps" in make and "test: system-deps" in make
    ci = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines() if ln and not ln.startswith("#")]
    assert ci[-1] == "make test" and not any("apt-get" in ln for ln in ci)
    assert os.access(SCRIPT, os.X_OK)
