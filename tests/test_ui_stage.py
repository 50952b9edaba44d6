"""Issue 13 in the window: settings that cannot be kept, bad stored scenarios, hostile files,
exports and saves that fail, and one locale for every number."""
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from model import Scenario
from qt_events import deliver
from ui.shell import app as uiapp
from ui.shell import settings as app_settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fresh HOME with no XDG_CONFIG_HOME: where the .ini would go by default."""
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path



def start_app(qtbot, monkeypatch):
    """uiapp.run(None) as a user's start, without entering the event loop: the window it built."""
    shown = []
    real_build = uiapp.build_window
    monkeypatch.setattr(uiapp, "build_window", lambda *a, **k: shown.append(real_build(*a, **k)) or shown[-1])
    monkeypatch.setattr(type(uiapp.ensure_app()), "exec", lambda self: 0)
    assert uiapp.run(None) == 0
    qtbot.addWidget(shown[0])
    return shown[0]

@pytest.mark.parametrize("value", ["", "relative/home", "/"])
def test_no_proper_home_means_no_settings_and_no_write_at_the_root(home, monkeypatch, value):
    monkeypatch.setenv("HOME", value)
    st, note = app_settings.open_settings()
    assert st is None and note.startswith("settings are not saved:") and "\n" not in note


def test_the_ini_being_a_folder_or_a_fifo_is_said_once(home):
    ini = home / ".config" / "MemoryWall" / "MemoryWall.ini"
    ini.mkdir(parents=True)
    st, note = app_settings.open_settings()
    assert st is None and "is a folder" in note
    ini.rmdir()
    os.mkfifo(ini)
    st, note = app_settings.open_settings()             # must not block
    assert st is None and "not a regular file" in note


def test_a_read_only_home_or_a_home_that_is_a_file(home, monkeypatch):
    home.chmod(0o555)
    try:
        st, note = app_settings.open_settings()
        assert st is None and "read-only" in note and not (home / ".config").exists()
    finally:
        home.chmod(0o755)
    f = home / "plain-file"
    f.write_text("")
    monkeypatch.setenv("HOME", str(f))
    st, note = app_settings.open_settings()
    assert st is None and "Not a directory" in note


@pytest.mark.parametrize("raw", ['{"batch": ' + "9" * 400 + "}", "[" * 100_000 + "]" * 100_000,
                                 '{"batch": ' + "1" * 5000 + "}", '{"gpu": 5}', '{"gpu": "no-such-gpu"}',
                                 "{not json"])
def test_a_bad_stored_scenario_is_set_aside_and_the_app_starts(home, qtbot, monkeypatch, raw):
    st, note = app_settings.open_settings()
    assert note is None
    st.setValue("scenario", raw)
    st.sync()
    w = start_app(qtbot, monkeypatch)
    assert w.controller.scenario == Scenario()
    message = w.statusBar().currentMessage()
    assert "the saved scenario could not be used" in message and "starting on defaults" in message
    kept = sorted((home / ".config" / "MemoryWall").glob("scenario-set-aside-*.json"))
    assert len(kept) == 1 and kept[0].read_text() == raw and str(kept[0]) in message
    st2, _ = app_settings.open_settings()
    assert st2.value("scenario") is None
    w.close()


def test_settings_that_cannot_be_kept_are_said_once_in_the_status_bar(home, qtbot, monkeypatch, capsys):
    (home / ".config" / "MemoryWall" / "MemoryWall.ini").mkdir(parents=True)
    w = start_app(qtbot, monkeypatch)
    assert w.settings is None
    assert w.statusBar().currentMessage().startswith("settings are not saved:")
    assert "is a folder" in w.statusBar().currentMessage()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "settings are not saved" in err[0]
    w.close()                                            # saving nothing, quietly
    assert (home / ".config" / "MemoryWall" / "MemoryWall.ini").is_dir()


def test_a_file_that_names_a_chapter_keeps_its_scenario_in_the_window(main_window):
    s = Scenario(gpu="h200-sxm-141gb", model="llama-3.1-8b", precision="fp8", batch=64)
    uiapp._open_lessons(main_window, 6, False, False, scenario=s)
    main_window.controller.flush()
    assert main_window.lessons_visible() and main_window.lessons.number == 6
    assert main_window.controller.scenario == s


def test_opening_a_fifo_or_device_in_the_window_is_one_line(main_window, tmp_path):
    fifo = tmp_path / "x.json"
    os.mkfifo(fifo)
    before = main_window.controller.scenario
    for path in (str(fifo), "/dev/zero"):
        assert not main_window.open_scenario(path)
        text = main_window.file_status
        assert "not a regular file" in text and "\n" not in text
    assert main_window.controller.scenario == before


def test_failed_saves_and_exports_are_one_line_and_keep_files(lessons_window, tmp_path):
    w = lessons_window
    w.show_chapter(4)
    lessons = w.lessons
    assert not lessons.export("SVG", str(tmp_path / "missing" / "x.svg"))
    assert "does not exist" in lessons.status.text()
    assert not w.save_scenario_to("")
    assert "no file name" in lessons.status.text()
    mine = tmp_path / "mine.json"
    mine.write_text('{"keep": "me"}')
    assert not w.save_scenario_to(str(mine))                 # not asked: not overwritten
    assert "already exists" in lessons.status.text()
    mine.chmod(0o444)
    assert not w.save_scenario_to(str(mine), overwrite=True)  # read-only: refused
    assert "read-only" in lessons.status.text()
    assert mine.read_text() == '{"keep": "me"}'
    old = os.umask(0o002)
    try:
        assert w.save_scenario_to(str(tmp_path / "new.json"))
    finally:
        os.umask(old)
    assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o664


def test_one_locale_for_every_number(main_window):
    from PySide6.QtCore import QLocale
    main_window.controller.set(input_len=32768)
    main_window.controller.flush()
    assert QLocale().toString(32768) == "32,768"
    assert main_window.controls.input_len.text() == "32,768"


def test_a_german_locale_starts_without_qt_warnings(tmp_path):
    env = dict(os.environ, LC_ALL="de_DE.UTF-8", LANG="de_DE.UTF-8", QT_QPA_PLATFORM="offscreen",
               XDG_CONFIG_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "main.py", "--screenshot", str(tmp_path / "de.png"), "--input-len",
                          "32768"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0 and out.stderr == "", out.stderr


def test_a_batch_change_redraws_only_what_moves(main_window):
    """Speed: roofs, grid and the batch trail do not depend on the batch, so a batch
    change leaves them as drawn; a GPU change redraws them."""
    r, c = main_window.roofline, main_window.controller
    trail, roofs = r._drawn_trail, r._drawn_roofs
    c.set(batch=16)
    c.flush()
    assert r._drawn_trail is trail and r._drawn_roofs is roofs
    x, _ = r.op.getData()                                  # (log axes: the item holds log10 values)
    assert x[0] == pytest.approx(math.log10(c.estimate.arithmetic_intensity_flops_per_byte))
    c.set(gpu="mi300x-192gb")
    c.flush()
    assert r._drawn_roofs is not roofs and r._drawn_trail is not trail
    ys = [y for item in (r.active_roof, r.roof_lines) for y in (item.getData()[1] if item.getData()[1] is not None
                                                                   else [])]
    assert max(ys) == pytest.approx(math.log10(r._drawn_roofs[0][0].peak_flops))   # the top roof is drawn


def test_the_app_icon_comes_after_the_first_paint(qapp, qtbot):
    """Start-up: the icon's SVG rendering waits for the window's first paint; then it has every size."""
    from PySide6.QtGui import QIcon
    qapp.setWindowIcon(QIcon())
    w = uiapp.build_window(None, st=None)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    assert qapp.windowIcon().isNull()
    w.show()
    deliver()                                 # the first paint, then each later step (posted, no timer)
    assert w.built
    sizes = {(s.width(), s.height()) for s in qapp.windowIcon().availableSizes()}
    assert {(16, 16), (48, 48), (256, 256)} <= sizes
