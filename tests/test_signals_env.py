"""Signals and environments: Ctrl+C closes the window cleanly (settings saved, exit 130) and ends a
command with one line and exit 130, leaving no partial file; with no proper home folder nothing
of the user's is written and one line says so; an unreachable display is one line and exit 2
(not Qt's abort); a closed stdout exits quietly."""
from __future__ import annotations

import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _env(tmp_path, **extra) -> dict:
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    env.update(extra)
    return {k: v for k, v in env.items() if v is not None}


def _cpu_s(pid: int) -> float:
    """The child's CPU seconds so far (Linux /proc): how a test knows it is past its start."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _said(err: str) -> int:
    """Lines on stderr besides the progress lines (cli/progress.py: "main.py calibrate: … [3/6]")."""
    return sum(1 for line in err.splitlines() if not re.search(r"\[\d+/\d+\]$", line))


def _interrupt_when(proc, ready) -> tuple[int, str]:
    while proc.poll() is None and not ready():
        time.sleep(0.05)                     # waiting for the child to be busy; not part of any verdict
    assert proc.poll() is None, "the command ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    return proc.returncode, err


def test_ctrl_c_ends_calibrate_with_one_line_and_no_file(tmp_path):
    out = tmp_path / "mine.json"
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "calibrate", "--quick", "-o", str(out)],
                            cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stderr.readline()                   # "main.py calibrate: … [1/N]": measuring has begun
    assert first.startswith("main.py calibrate: ") and "[1/" in first
    rc, err = _interrupt_when(proc, lambda: True)
    assert rc == 130 and _said(err) == 1 and "interrupted" in err and "Traceback" not in err, err
    assert not out.exists() and not list(tmp_path.glob("*.json*"))


def test_ctrl_c_ends_serve_with_one_line(tmp_path):
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "serve", "--rate", "1000", "--requests", "1000000"],
                            cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rc, err = _interrupt_when(proc, lambda: _cpu_s(proc.pid) > 2.0)
    assert rc == 130 and err.count("\n") == 1 and "interrupted" in err, err


def test_ctrl_c_ends_a_recording_with_one_line_and_no_file(tmp_path):
    out = tmp_path / "long.gif"
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "--record", str(out), "--seconds", "100",
                             "--size", "320x240", "--fps", "20"], cwd=tmp_path, env=_env(tmp_path, QT_QPA_PLATFORM="offscreen"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rc, err = _interrupt_when(proc, lambda: any(p.stat().st_size > 0 for p in tmp_path.glob(".memory-wall-*.tmp.gif")))
    assert rc == 130 and _said(err) == 1 and "interrupted" in err and "Traceback" not in err, (rc, err)
    assert not [p for p in tmp_path.iterdir() if p.name not in ("config", "data")]


def test_ctrl_c_closes_the_window_and_saves_its_settings(tmp_path, monkeypatch):
    """The real window's run(): SIGINT arrives from another thread while Qt's loop waits."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from model import Scenario
    from ui.shell import app as ui_app
    from ui.kit.qt_app import ensure_app
    from PySide6.QtCore import QTimer
    qapp = ensure_app()
    kill = threading.Thread(target=lambda: os.kill(os.getpid(), signal.SIGINT))
    QTimer.singleShot(0, kill.start)                  # once the loop runs
    net = QTimer()                                    # a safety net: a missing wake-up fails, not hangs
    net.setSingleShot(True)
    net.timeout.connect(lambda: qapp.exit(99))
    net.start(120_000)
    previous = signal.getsignal(signal.SIGINT)
    rc = ui_app.run(Scenario(batch=8))
    net.stop()                                        # (it would end a later test's event loop)
    kill.join()
    assert rc == 130
    ini = next((tmp_path / "config").rglob("*.ini"))
    assert "batch" in ini.read_text() and "8" in ini.read_text()      # the window's scenario was saved
    assert signal.getsignal(signal.SIGINT) is previous                 # the handler is put back
    for w in qapp.topLevelWidgets():
        w.close()                                     # (deleteLater here crashed the next test's window)


def _free_display_number() -> int:
    n = 987
    while os.path.exists(f"/tmp/.X11-unix/X{n}"):
        n += 1
    return n


def test_an_unreachable_display_is_one_line_and_exit_2(tmp_path):
    env = _env(tmp_path, DISPLAY=f":{_free_display_number()}", QT_QPA_PLATFORM=None, WAYLAND_DISPLAY=None)
    r = subprocess.run([sys.executable, str(ROOT / "main.py")], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "display" in r.stderr, r.stderr
    assert not (tmp_path / "config").exists()


def test_a_display_that_answers_is_no_problem(monkeypatch):
    from ui.kit.qt_app import display_problem
    n = _free_display_number()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(f"\0/tmp/.X11-unix/X{n}")              # an abstract socket, as an X server has
    server.listen(1)
    try:
        monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        monkeypatch.setenv("DISPLAY", f":{n}")
        assert display_problem() is None
        monkeypatch.setenv("DISPLAY", f":{n + 1}")
        assert "cannot open the display" in display_problem()
        monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
        assert display_problem() is None                  # not probed: Qt will not use X
    finally:
        server.close()


def test_a_stale_wayland_display_is_one_line_and_exit_2(tmp_path):
    """$WAYLAND_DISPLAY naming no compositor (an ssh session, a desktop logged out): Qt's plugin
    dump and an abort (134) before, since only X11 was probed."""
    env = _env(tmp_path, WAYLAND_DISPLAY="wayland-stale", XDG_RUNTIME_DIR=str(tmp_path), DISPLAY=None,
               QT_QPA_PLATFORM=None)
    r = subprocess.run([sys.executable, str(ROOT / "main.py")], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Wayland" in r.stderr, r.stderr
    assert not (tmp_path / "config").exists()


def test_a_wayland_display_that_answers_or_a_stale_one_beside_x11(monkeypatch, tmp_path):
    from ui.kit.qt_app import display_problem
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")
    compositor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    compositor.bind(str(tmp_path / "wayland-test"))
    compositor.listen(1)
    n = _free_display_number()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(f"\0/tmp/.X11-unix/X{n}")
    server.listen(1)
    try:
        assert display_problem() is None                          # a compositor answers
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-gone")
        assert "Wayland" in display_problem()                    # stale, and no X11 to fall back on
        monkeypatch.setenv("DISPLAY", f":{n}")
        assert display_problem() is None and os.environ["QT_QPA_PLATFORM"] == "xcb"   # straight to X11
    finally:
        compositor.close()
        server.close()


def _unusable_home(monkeypatch, cwd, home: str | None, xdg: str) -> None:
    """HOME unset (None) or set to ``home``, the XDG folder unset, the current folder ``cwd``."""
    monkeypatch.chdir(cwd)
    monkeypatch.delenv(xdg, raising=False)
    if home is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", home)


@pytest.mark.parametrize("home", [None, "", "/", "relative/home"])
def test_no_proper_home_writes_nothing_and_says_so(tmp_path, monkeypatch, home):
    from model.errors import ModelError
    from model.files.hardware_file import export_document
    from model.catalog.active import default_catalog
    from ui.custom import store as custom_store
    _unusable_home(monkeypatch, tmp_path, home, "XDG_DATA_HOME")
    with pytest.raises(custom_store.NoDataFolder) as exc:
        custom_store.data_dir()
    assert "\n" not in str(exc.value) and "not kept" in str(exc.value)
    problems = custom_store.load_saved()
    assert len(problems) == 1 and "HOME" in problems[0]
    hw = default_catalog().gpu("h100")
    with pytest.raises(ModelError):
        custom_store.save_hardware(export_document(hw), hw)
    assert not list(tmp_path.iterdir())                  # nothing under the current folder
    assert "not kept" in custom_store.data_dir_text()


@pytest.mark.parametrize("home", [None, "", "/", "relative/home"])
def test_no_proper_home_keeps_no_settings(tmp_path, monkeypatch, home):
    from ui.shell.settings import open_settings
    _unusable_home(monkeypatch, tmp_path, home, "XDG_CONFIG_HOME")
    st, note = open_settings()
    assert st is None and note and "\n" not in note
    assert not list(tmp_path.iterdir())


def test_a_closed_stdout_exits_quietly(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "list"], cwd=tmp_path, env=_env(tmp_path),
                       stderr=subprocess.PIPE, text=True, timeout=300, preexec_fn=lambda: os.close(1))
    assert r.returncode == 0 and r.stderr == "", r.stderr
