"""A chapter's page is built before its first visit while the app is idle: the first chapter's a
moment after the Lessons page is made, the next chapter's a moment after each chapter shows,
never in the middle of a glide or a drag, and without repainting the page on screen
(ui/lessons/page.py; chapter switching on stage).

"A moment" is ui.lessons.page.WARM_AFTER_MS, a Qt single shot. Here ui.lessons.page's QTimer is a stand-in
that keeps each single shot until the test fires it, so what is built when never depends on how
long the machine took (a real 400 ms timer fires inside any wait once the machine is busy enough);
that the delay asked for is WARM_AFTER_MS is checked on each."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QWidget

import ui.lessons.page
from model import Scenario
from qt_events import deliver, drive
from ui.shell.app import build_window
from ui.lessons.page import WARM_AFTER_MS


class HeldTimers:
    """Stands in for QTimer in ui.lessons.page: a single shot waits for ``fire()``."""

    def __init__(self):
        self.pending: list[tuple[int, object]] = []

    def singleShot(self, ms, _context, fn) -> None:   # noqa: N802 (Qt name)
        self.pending.append((ms, fn))

    def fire(self) -> int:
        """Run every single shot asked for so far (not those they ask for); how many ran."""
        due, self.pending = self.pending, []
        assert all(ms == WARM_AFTER_MS for ms, _ in due), [ms for ms, _ in due]
        for _ms, fn in due:
            fn()
        deliver()
        return len(due)


@pytest.fixture
def timers(monkeypatch):
    held = HeldTimers()
    monkeypatch.setattr(ui.lessons.page, "QTimer", held)
    return held


@pytest.fixture
def window(timers, qtbot):
    """The main window, shown at 1600×900 with the queue delivered; its Lessons page not built yet."""
    w = build_window(Scenario(), st=None)
    qtbot.addWidget(w)
    w.resize(1600, 900)
    w._later.clear()                  # the page is built by the test (w.lessons), not after the first paint
    w.show()
    deliver()
    assert not w.lessons_built()
    return w


def test_the_first_and_the_next_chapters_are_built_while_idle(window, timers):
    lessons = window.lessons                          # the page, with no chapter built yet
    assert lessons.views == {} and len(timers.pending) == 1
    assert timers.fire() == 1
    assert set(lessons.views) == {1}
    window.show_chapter(3, 0)
    assert 4 not in lessons.views                     # not at once: the switch itself comes first
    assert timers.fire() == 1
    assert set(lessons.views) == {1, 3, 4}            # only the next one: 2 waits for its visit


def test_no_page_is_built_while_a_glide_runs(window, timers):
    lessons = window.lessons
    timers.fire()
    window.show_chapter(5, 0)                         # warms 6 …
    deliver()
    lessons.show_chapter(5, 1)                        # … and glides (the page is visible): warms 6 again
    assert lessons.glide.running
    drive(lessons.glide.anim, to_ms=lessons.glide.anim.duration() // 2)
    assert timers.fire() == 2
    assert lessons.glide.running and 6 not in lessons.views
    assert len(timers.pending) == 2                   # each asks again, a moment later
    drive(lessons.glide.anim)
    assert not lessons.glide.running
    timers.fire()
    assert 6 in lessons.views


def test_the_last_chapter_warms_nothing(window, timers):
    lessons = window.lessons
    timers.fire()
    window.show_chapter(8, 0)
    assert timers.pending == []
    assert set(lessons.views) == {1, 8}


def test_no_page_is_built_while_a_mouse_button_is_down(window, timers, monkeypatch):
    """A slider being dragged: the build waits (a page takes ~30–80 ms to build)."""
    lessons = window.lessons
    timers.fire()
    monkeypatch.setattr(QApplication, "mouseButtons", staticmethod(lambda: Qt.LeftButton))
    window.show_chapter(2, 0)
    assert timers.fire() == 1
    assert 3 not in lessons.views and len(timers.pending) == 1
    monkeypatch.setattr(QApplication, "mouseButtons", staticmethod(lambda: Qt.NoButton))
    timers.fire()
    assert 3 in lessons.views


def test_a_page_built_ahead_repaints_nothing_on_screen(window, timers, qapp):
    """A page made hidden joins the stack at 0×0: at its default 640×480 it repainted that much of
    the chapter on screen, 400 ms after every visit (and inside any count of a switch's repaints
    on a busy machine: tests/test_repaint.py)."""
    window.resize(1920, 1080)
    window.hierarchy.pause()
    window.hierarchy._timer.stop()
    lessons = window.lessons
    timers.fire()
    window.show_chapter(3, 0)
    deliver()
    painted: list[str] = []

    class Paints(QObject):
        def eventFilter(self, obj, ev) -> bool:     # noqa: N802 (Qt name)
            if ev.type() == QEvent.Paint and isinstance(obj, QWidget) and obj.window() is window:
                painted.append(type(obj).__name__)
            return False

    paints = Paints()
    qapp.installEventFilter(paints)
    try:
        assert timers.fire() == 1
    finally:
        qapp.removeEventFilter(paints)
    assert 4 in lessons.views
    assert painted == []
    window.show_chapter(4, 0)                         # and it lays out to the page's size when shown
    deliver()
    page = lessons.view(4)
    assert page.size() == lessons.stack.size() and page.isVisible()


def test_a_chapter_switch_draws_the_page_once_with_the_new_estimate(window, timers):
    """Showing the page, taking the state and the new estimate each redrew it (three times a
    switch); now the state's scenario goes first and the page draws once, with its estimate."""
    lessons = window.lessons
    window.show_chapter(3, 0)
    window.show_chapter(4, 0)
    deliver()
    page = lessons.view(3)
    drawn = []
    original = page.refresh

    def counting(e=None):
        drawn.append(e if e is not None else window.controller.estimate)
        return original(e)
    page.refresh = counting
    window.show_chapter(3, 1)
    deliver()
    assert len(drawn) == 1
    assert drawn[0].scenario == page.chapter.states[1].scenario.with_(
        kv_precision=drawn[0].scenario.kv_precision)          # the state's own scenario
