"""A chapter's page is built before its first visit while the app is idle: the first chapter's a
moment after the Lessons page is made, the next chapter's a moment after each chapter shows,
never in the middle of a glide (ui/lessons.py; chapter switching on stage)."""
from __future__ import annotations

from ui.lessons import WARM_AFTER_MS


def test_the_first_and_the_next_chapters_are_built_while_idle(main_window, qtbot):
    lessons = main_window.lessons                     # the page, with no chapter built yet
    assert lessons.views == {} or set(lessons.views) == {1}
    qtbot.waitUntil(lambda: 1 in lessons.views, timeout=WARM_AFTER_MS + 2000)
    assert set(lessons.views) == {1}
    main_window.show_chapter(3, 0)
    assert 4 not in lessons.views                     # not at once: the switch itself comes first
    qtbot.waitUntil(lambda: 4 in lessons.views, timeout=WARM_AFTER_MS + 2000)
    assert set(lessons.views) == {1, 3, 4}            # only the next one: 2 waits for its visit


def test_no_page_is_built_while_a_glide_runs(main_window, qtbot):
    lessons = main_window.lessons
    lessons.glide.duration_ms = 3 * WARM_AFTER_MS     # a glide longer than the wait
    main_window.show_chapter(5, 0)
    qtbot.wait(50)
    lessons.show_chapter(5, 1)                        # glides (the page is visible)
    assert lessons.glide.running
    qtbot.wait(WARM_AFTER_MS + 100)
    assert lessons.glide.running and 6 not in lessons.views
    qtbot.waitUntil(lambda: not lessons.glide.running, timeout=5000)
    qtbot.waitUntil(lambda: 6 in lessons.views, timeout=WARM_AFTER_MS + 2000)


def test_the_last_chapter_warms_nothing(main_window, qtbot):
    lessons = main_window.lessons
    main_window.show_chapter(8, 0)
    before = set(lessons.views)
    qtbot.wait(WARM_AFTER_MS + 200)
    assert set(lessons.views) - before <= {1}         # (chapter 1 from the page's own start)


def test_no_page_is_built_while_a_mouse_button_is_down(main_window, qtbot, monkeypatch):
    """A slider being dragged: the build waits (a page takes ~30–80 ms to build)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication
    lessons = main_window.lessons
    qtbot.waitUntil(lambda: 1 in lessons.views, timeout=WARM_AFTER_MS + 2000)
    monkeypatch.setattr(QApplication, "mouseButtons", staticmethod(lambda: Qt.LeftButton))
    main_window.show_chapter(2, 0)
    qtbot.wait(2 * WARM_AFTER_MS + 100)
    assert 3 not in lessons.views
    monkeypatch.setattr(QApplication, "mouseButtons", staticmethod(lambda: Qt.NoButton))
    qtbot.waitUntil(lambda: 3 in lessons.views, timeout=WARM_AFTER_MS + 2000)


def test_a_chapter_switch_draws_the_page_once_with_the_new_estimate(main_window, qtbot):
    """Showing the page, taking the state and the new estimate each redrew it (three times a
    switch); now the state's scenario goes first and the page draws once, with its estimate."""
    lessons = main_window.lessons
    main_window.show_chapter(3, 0)
    main_window.show_chapter(4, 0)
    qtbot.wait(10)
    page = lessons.view(3)
    drawn = []
    original = page.refresh

    def counting(e=None):
        drawn.append(e if e is not None else main_window.controller.estimate)
        return original(e)
    page.refresh = counting
    main_window.show_chapter(3, 1)
    qtbot.wait(50)
    assert len(drawn) == 1
    assert drawn[0].scenario == page.chapter.states[1].scenario.with_(
        kv_precision=drawn[0].scenario.kv_precision)          # the state's own scenario
