"""Readable from the back of the room: every chapter state in presenter mode.

At 1920×1080 every visible text (labels, buttons, plot text items, axis titles, axis tick
labels) is at least 18 px and each key number at least 40 px; at 1920×1080 and 1280×720
no text overlaps another and none is clipped by its parent (tests/stage_text.py measures
them). Also: the lessons page never shows the Explore footer, presenter mode hides the
control panel until C, and every control is reachable by keyboard with an accessible name.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QAbstractSlider, QApplication, QWidget

from model.lessons.chapters import default_chapters
from qt_events import deliver
from deck_drawing import check_plots
from stage_text import problems, texts

CHAPTERS = default_chapters()
MIN_PX, KEY_PX = 18, 40


@pytest.fixture
def stage(shared_window):
    """The module's window (reset before each test: tests/conftest.py), in presenter mode."""
    shared_window.enter_presenter(fullscreen=False)
    return shared_window


@pytest.fixture
def own_stage(lessons_window):
    """A window of its own in presenter mode (for a test that breaks what it shows)."""
    lessons_window.enter_presenter(fullscreen=False)
    return lessons_window


def settle(w, number, index):
    w.show_chapter(number, index)
    w.controller.flush()
    v = w.lessons.current_view
    v.ensure_fresh()
    deliver()
    assert v.error_text == "", v.error_text
    return v


@pytest.mark.slow          # a walk over every chapter's states at two sizes (~40-65 s): make test runs it, test-fast not
@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
@pytest.mark.parametrize("number", range(1, 9))
def test_every_state_is_readable_on_stage(stage, qtbot, number, size):
    stage.resize(*size)
    deliver()
    assert stage.size().width() == size[0]
    big = size[0] >= 1920
    for index in range(len(CHAPTERS[number - 1].states)):
        v = settle(stage, number, index)
        found = texts(stage)
        assert any(t.key for t in found), "the key number is on screen"
        assert any(t.kind == "tick" for t in found) and any(t.kind == "item" for t in found)
        bad = problems(stage, MIN_PX if big else 0, KEY_PX if big else 0)
        assert not bad, f"chapter {number} state {index + 1} at {size}:\n" + "\n".join(bad)
        v.details_button.setChecked(True)            # the details fit too, when shown
        deliver()
        head = v.details_label.text()[:30]
        bad = [b for b in problems(stage, MIN_PX if big else 0) if repr(head)[1:-1][:20] in b]
        v.details_button.setChecked(False)
        assert not bad, f"details of chapter {number} state {index + 1} at {size}:\n" + "\n".join(bad)


@pytest.mark.parametrize("size", [(1920, 1080), (1024, 768)])
def test_explore_serve_and_plan_are_readable_on_stage(stage, size):
    """Presenter mode on a 1080p and on a 1024×768 projector: every text of Explore, Serve and Plan
    at 18 px or more, none clipped or over another; on the small screen Explore shows the roofline
    and gauges (ui.kit.theme.compact_stage) and Ctrl+H the chip alone, which fits too. The queue's
    painted words (lane titles, counts, legend, clock) stay inside the view and off each other. The
    roofline and the Plan chart pass the lessons' drawing checker (every colour named in a key, no
    text over a marker or a line, ticks apart: tests/deck_drawing.check_plots)."""
    from PySide6.QtCore import QRectF
    w = stage
    w.resize(*size)
    deliver()
    from ui.kit.theme import STAGE_ROOM_PX
    small = size[0] < STAGE_ROOM_PX[0]
    for page in ("explore", "serve", "plan"):
        getattr(w, f"show_{page}")()
        w.controller.flush()
        if page == "serve":
            w.serve.settle(60)
        elif page == "plan":
            w.plan.settle()
        deliver()
        bad = problems(w, MIN_PX)
        assert not bad, f"{page} at {size}:\n" + "\n".join(bad)
        plots = {"explore": [w.roofline.plot], "plan": [w.plan.chart.plot]}.get(page, [])
        drawn = check_plots(plots, w.theme, f"{page} at {size}")      # the lessons' drawing checker
        assert not drawn, "\n".join(map(str, drawn))
        if page == "explore":
            assert w.chip_area.isVisible() is not small and w.right.isVisible()
        if page == "serve":
            view = w.serve.queue
            boxes = view.painted_boxes()
            assert len(boxes) >= 8 and all(QRectF(view.rect()).contains(r) for _, r in boxes), boxes
            assert not [(a, b) for i, (a, ra) in enumerate(boxes) for b, rb in boxes[i + 1:]
                        if ra.adjusted(1, 1, -1, -1).intersects(rb.adjusted(1, 1, -1, -1))]
    w.set_chip_focus(True)
    deliver()
    assert w.chip_area.isVisible() and not w.right.isVisible()
    assert not problems(w, MIN_PX), "\n".join(problems(w, MIN_PX))
    w.set_chip_focus(False)
    w.presenter.leave()
    deliver()
    assert w.chip_area.isVisible() and w.right.isVisible() and w.theme.min_px < MIN_PX


def test_the_checker_finds_what_it_must(own_stage):
    """The stage check is not vacuous: a shrunken, overlapping text is caught."""
    stage = own_stage
    v = settle(stage, 4, 0)
    v.key_label.setStyleSheet("font-size: 12px;")
    deliver()
    bad = problems(stage, MIN_PX, KEY_PX)
    assert any("key number too small" in b for b in bad) and any("too small" in b for b in bad)
    v.key_label.setStyleSheet("")
    v.labels["dot"].setPos(v.labels["ridge"].pos())    # one plot label over another
    assert any(b.startswith("overlap") for b in problems(stage))


def test_lessons_hide_the_explore_footer_and_presenter_hides_the_controls(shared_window, qtbot):
    w = shared_window
    footer = w.findChild(QWidget, "footer")
    w.show_explore()
    assert footer.isVisible()
    w.show_lessons()
    assert not footer.isVisible()
    w.show_explore()
    assert footer.isVisible()
    w.enter_presenter(fullscreen=False)
    assert not footer.isVisible() and not w.controls_scroll.isVisible()
    w.presenter.handle_key(Qt.Key_C)
    assert w.controls_scroll.isVisible()
    w.presenter.handle_key(Qt.Key_C)
    assert not w.controls_scroll.isVisible()
    w.presenter.leave()
    assert not footer.isVisible()                     # still on the lessons page


@pytest.mark.parametrize("number", range(1, 9))
def test_chapter_controls_are_keyboard_reachable_and_named(shared_window, number):
    w = shared_window
    w.show_lessons()
    v = settle(w, number, 0)
    controls = [c for c in v.findChildren(QWidget) if isinstance(c, (QAbstractButton, QAbstractSlider))
                and c.isVisibleTo(w)]
    assert v.details_button in controls
    for c in controls:
        assert c.focusPolicy() & Qt.TabFocus, c
        assert c.accessibleName() or (isinstance(c, QAbstractButton) and c.text()), c
    assert ":focus" in v.styleSheet()                  # a visible focus ring
    assert v.chart.accessibleName() and v.key_label.text() in v.chart.accessibleDescription()
    for p in v.plots:
        assert p.accessibleDescription() == v.chart.accessibleDescription()


def _ring_pixels(strip, colour) -> int:
    """How many pixels of the focus ring's colour the strip shows."""
    from PySide6.QtGui import QColor
    img = strip.grab().toImage()
    want = QColor(colour).rgb() & 0xFFFFFF
    return sum((img.pixel(x, y) & 0xFFFFFF) == want for x in range(0, img.width()) for y in range(0, img.height(), 2))


def test_the_chapter_strip_is_keyboard_reachable_named_and_shows_a_focus_ring(shared_window, qtbot):
    from ui.lessons.keys import ChapterKey
    w = shared_window
    w.show_lessons()
    w.activateWindow()
    lv, strip = w.lessons, w.lessons.strip
    settle(w, 1, 0)
    names = [k.accessibleName() for k in strip.keys]
    assert len(names) == len(CHAPTERS) == len(set(names))
    assert all(f"Chapter {c.number} of {len(CHAPTERS)}" in n for c, n in zip(CHAPTERS, names))
    assert [bool(k.focusPolicy() & Qt.TabFocus) for k in strip.keys] == [True] + [False] * (len(CHAPTERS) - 1)
    assert strip.keys[0].accessibleDescription().startswith("current chapter")
    w.mode_bar.lessons_button.setFocus()
    deliver()
    assert w.mode_bar.lessons_button.hasFocus()
    for _ in range(30):                                   # Tab on until the strip's key has the focus
        if isinstance(QApplication.focusWidget(), ChapterKey):
            break
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key_Tab)
    assert QApplication.focusWidget() is strip.keys[0], QApplication.focusWidget()
    ring = _ring_pixels(strip, w.theme.op_point)
    qtbot.keyClick(strip.keys[0], Qt.Key_Right)
    qtbot.keyClick(strip.keys[1], Qt.Key_Right)
    assert strip.keys[2].hasFocus() and lv.number == 1          # arrows move the focus, not the chapter
    qtbot.keyClick(strip.keys[2], Qt.Key_Return)
    assert (lv.number, lv.index) == (3, 0) and strip.keys[2].hasFocus()
    qtbot.keyClick(strip.keys[2], Qt.Key_Left)
    qtbot.keyClick(strip.keys[1], Qt.Key_Space)
    assert lv.number == 2 and strip.keys[1].hasFocus()
    qtbot.keyClick(strip.keys[1], Qt.Key_End)
    assert strip.keys[-1].hasFocus()
    assert ring > 50, "a focused chapter key draws a visible ring"
    strip.keys[-1].clearFocus()
    assert _ring_pixels(strip, w.theme.op_point) < ring / 4, "no ring without focus"


def test_presenter_arrows_step_states_even_when_the_strip_has_focus(shared_window, qtbot):
    w = shared_window
    w.enter_presenter(fullscreen=False)
    w.activateWindow()
    settle(w, 2, 0)
    key = w.lessons.strip.keys[1]
    key.setFocus()
    deliver()
    assert key.hasFocus()
    qtbot.keyClick(key, Qt.Key_Right)
    assert (w.lessons.number, w.lessons.index) == (2, 1)        # the presenter's step, not a focus move
    qtbot.keyClick(w.lessons.strip.keys[1], Qt.Key_Left)
    assert (w.lessons.number, w.lessons.index) == (2, 0)
    w.presenter.leave()
    qtbot.keyClick(w.lessons.strip.keys[1], Qt.Key_Right)       # outside presenter mode the key keeps its arrows
    assert (w.lessons.number, w.lessons.index) == (2, 0) and w.lessons.strip.keys[2].hasFocus()
