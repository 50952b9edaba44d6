"""Presenter view on two screens. Run by tests/test_two_screens.py in a subprocess whose Qt
offscreen platform has two screens, "laptop" (primary) and "projector" (to its right):

    QT_QPA_PLATFORM='offscreen:configfile=screens.json' python -m pytest tests/two_screens_cases.py

(not collected by a plain pytest run: its name does not start with test_).
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from qt_events import EVENTUALLY_MS, deliver


@pytest.fixture
def window(lessons_window, qtbot):
    names = [s.name() for s in QGuiApplication.screens()]
    assert names == ["laptop", "projector"], f"this file needs the two-screen platform, got {names}"
    yield lessons_window
    lessons_window.presenter.leave()


def screen_name(widget) -> str:
    return widget.windowHandle().screen().name()


def fills(widget, screen) -> bool:
    """Full screen there (the offscreen platform may offset a window by its frame margin)."""
    return widget.size() == screen.size() and screen.geometry().contains(widget.geometry().center())


def present(window, qtbot):
    qtbot.keyClick(window.controls, Qt.Key_F5)
    stage = window.presenter.stage
    deliver()
    assert stage.speaker_window is not None and stage.speaker_window.isVisible()
    return stage


def test_f5_puts_the_audience_view_on_the_projector_and_the_speaker_window_on_the_laptop(window, qtbot):
    stage = present(window, qtbot)
    assert stage.mode == "dual"
    assert window.presenter.active and window.isFullScreen()
    assert screen_name(window) == "projector"
    laptop, projector = QGuiApplication.screens()
    assert fills(window, projector)
    sw = stage.speaker_window
    assert screen_name(sw) == "laptop" and sw.isFullScreen() and fills(sw, laptop)
    assert stage.speaker.isVisible() and stage.speaker.window() is sw
    sp = stage.speaker
    # both drawn by real timers (the mirror after its 350 ms, the preview on a later turn): waited for, not timed
    qtbot.waitUntil(lambda: sp.mirrors > 0 and sp.now.pixmap is not None, timeout=EVENTUALLY_MS)  # "now": the audience view
    qtbot.waitUntil(lambda: sp.next.pixmap is not None, timeout=EVENTUALLY_MS)                     # "next": its preview


def test_keys_in_either_window_advance_both(window, qtbot):
    stage = present(window, qtbot)
    last = len(window.lessons.chapters[1].states) - 1
    window.show_chapter(2, last - 1)
    sp = stage.speaker
    qtbot.keyClick(sp.notes, Qt.Key_PageDown)          # a key in the speaker window …
    assert (window.lessons.number, window.lessons.index) == (2, last)
    assert "2 · " in sp.title.text() and f"step {last + 1} of" in sp.title.text()
    assert sp.next_state == (3, 0)
    qtbot.keyClick(window.lessons, Qt.Key_Right)       # … and one in the audience window
    assert (window.lessons.number, window.lessons.index) == (3, 0)
    assert sp.next_state == (3, 1) and "3 · " in sp.title.text()
    qtbot.keyClick(sp.chapter_list, Qt.Key_Left)       # the chapter list does not eat the arrows
    assert (window.lessons.number, window.lessons.index) == (2, last)
    qtbot.keyClick(sp, Qt.Key_5)
    assert window.lessons.number == 5 and sp.chapter_list.currentRow() == 4
    qtbot.keyClick(sp, Qt.Key_B)                       # blanking is the audience's, from either window
    assert window.presenter.blanked
    qtbot.keyClick(sp, Qt.Key_X)
    assert not window.presenter.blanked


def test_unplugging_the_projector_leaves_one_working_window(window, qtbot):
    """qoffscreen can only drop a screen through its C++ native interface (not reachable from
    Python), so the test sends QGuiApplication.screenRemoved itself: the same signal, and the
    same handler, that a real unplug reaches before Qt moves windows off the screen."""
    stage = present(window, qtbot)
    window.show_chapter(4, 1)
    projector = QGuiApplication.screens()[1]
    QGuiApplication.instance().screenRemoved.emit(projector)
    assert stage.mode == "single"
    assert window.presenter.active and window.isVisible() and window.isFullScreen()
    assert screen_name(window) == "laptop"
    assert not stage.speaker_window.isVisible()
    assert (window.lessons.number, window.lessons.index) == (4, 1)     # the talk did not stop
    qtbot.keyClick(window.lessons, Qt.Key_PageDown)
    assert (window.lessons.number, window.lessons.index) == (4, 2)
    QGuiApplication.instance().screenAdded.emit(projector)           # plugged back in
    assert stage.mode == "dual" and screen_name(window) == "projector"


def test_the_speaker_can_pick_the_audience_screen(window, qtbot):
    stage = present(window, qtbot)
    box = stage.speaker.screen_box
    assert box.isVisibleTo(stage.speaker) and box.count() == 3
    box.activated.emit(box.findData("laptop"))
    assert screen_name(window) == "laptop" and screen_name(stage.speaker_window) == "projector"
    box.activated.emit(0)                               # automatic: not the primary
    assert screen_name(window) == "projector"


def test_esc_leaves_and_the_window_comes_back_to_the_laptop(window, qtbot):
    stage = present(window, qtbot)
    qtbot.keyClick(stage.speaker, Qt.Key_Escape)
    assert not window.presenter.active and not window.isFullScreen()
    assert not stage.speaker_window.isVisible()
    assert screen_name(window) == "laptop"


def test_closing_the_main_window_closes_the_speaker_window(window, qtbot):
    stage = present(window, qtbot)
    sw = stage.speaker_window
    assert sw.parent() is window and sw.isWindow()      # its own window, owned by the main one
    window.close()
    assert not sw.isVisible()
