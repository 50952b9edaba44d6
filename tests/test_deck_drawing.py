"""The lesson deck draws what its numbers say (tests/deck_drawing.py): every prepared state at
1920×1080, 1280×720 and 1024×768 in presenter mode, and with the controls open; and the
checker catches each fault planted in a drawing that passed."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QLabel

from deck_drawing import check_view, contrast, counts
from deck_walk import SIZES, open_state, settle_window, walk
from ui.kit import theme as th
from ui.chapters.ch6_batching import ALONG_LINE
from ui.kit.pens import pen


@pytest.fixture(scope="module")
def presenting(qapp):
    from ui.shell.app import build_window
    w = build_window(None, st=None)
    w.resize(1920, 1080)
    w.show()
    w.lessons.glide.duration_ms = 0
    w.show_chapter(1, 0)
    w.enter_presenter(fullscreen=False)
    yield w
    w.presenter.leave()
    w.close()
    w.deleteLater()


def kinds(findings) -> set[str]:
    return {f.kind for f in findings}


def test_every_state_at_every_size_draws_its_numbers(presenting):
    found = walk(presenting, SIZES)
    assert not found, f"{counts(found)}\n" + "\n".join(str(f) for f in found[:25])


@pytest.mark.slow          # a walk over every state at every size (~20-35 s): make test runs it, test-fast not
def test_with_the_controls_open_every_state_still_draws_its_numbers(presenting):
    """The controls beside the slide at every size: at 1024×768 they leave it ~700 px, and the
    slide's type shrinks to that room (ui.kit.theme.slide_scale), tabs and all, rather than cut."""
    w = presenting
    w.toggle_presenter_controls()
    try:
        found = [f for f in walk(w, SIZES) if f.kind not in ("small text", "title lines")]
        assert w.lessons.theme.scale < w.theme.scale                  # 1024×768: the slide's own, smaller
    finally:
        w.toggle_presenter_controls()
    settle_window(w, (1024, 768))
    assert w.lessons.theme.scale == w.theme.scale                     # closed: the window's type scale again
    assert w.lessons.theme.min_px < w.theme.min_px                    # (the slides keep their type: no stage floor)
    assert not found, f"{counts(found)}\n" + "\n".join(str(f) for f in found[:25])


REHEARSAL_SIZES = ((1920, 1080), (1366, 768), (1280, 720), (1024, 768))


@pytest.mark.slow          # a walk over every state at four sizes (~20-35 s)
def test_in_the_rehearsal_view_every_state_still_draws_its_numbers(presenting):
    """S docks the speaker view beside the audience view (ui/present/stage.py): the audience view is
    ~64% of a laptop's width; under 1200 px it docks under it as a low strip, and the slide keeps
    the window's width. Still nothing is cut, crossed or overlapping (its claim may take two
    lines, as with the controls open)."""
    from ui.present.stage import REHEARSAL_UNDER_FRACTION
    w = presenting
    stage = w.presenter.stage
    stage.toggle_rehearsal()
    try:
        assert stage.mode == "rehearsal"
        found = [f for f in walk(w, REHEARSAL_SIZES) if f.kind not in ("small text", "title lines")]
        central, dock = w.centralWidget().geometry(), stage.dock.geometry()     # 1024×768, the last size
        assert w.dockWidgetArea(stage.dock) == Qt.BottomDockWidgetArea and central.width() == w.width()
        assert dock.bottom() < w.height() and dock.height() <= REHEARSAL_UNDER_FRACTION * w.height() + 1
    finally:
        stage.toggle_rehearsal()
        settle_window(w, (1920, 1080))
    assert stage.mode != "rehearsal"
    assert not found, f"{counts(found)}\n" + "\n".join(str(f) for f in found[:25])


def test_a_slide_shrinks_its_type_only_where_its_room_is_short():
    assert th.slide_scale(1.35, 1920, 1080) == 1.35 and th.slide_scale(0.95, 1008, 720) == 0.95
    narrow, short = th.slide_scale(0.95, 707, 710), th.slide_scale(0.95, 1008, 500)
    assert th.SLIDE_MIN_SCALE <= narrow < 0.95 and th.SLIDE_MIN_SCALE <= short < 0.95
    assert th.slide_scale(0.95, 0, 0) == 0.95                          # not laid out yet: the window's


def test_the_theme_text_colours_are_clear_on_the_background():
    for t in (th.DARK, th.LIGHT):
        for colour in (t.text, t.secondary):
            assert contrast(colour, t.bg) >= 4.5 and contrast(colour, t.panel) >= 4.5, (t, colour)


# ---------------------------------------------------------------- planted faults
def clean(w, number, index):
    v = open_state(w, number, index, (1920, 1080))
    assert check_view(v) == []
    return v


def test_a_dropped_bar_segment_is_caught(presenting):
    v = clean(presenting, 8, 0)
    try:
        v.comm_bars.setOpts(width=[0.0] * len(v.figure.comm))        # the all-reduces not drawn
        assert "bar sum" in kinds(check_view(v))
    finally:
        v.refresh()


def test_a_moved_threshold_label_is_caught(presenting):
    v = clean(presenting, 6, 2)
    try:
        lab = v.labels["ideal"]
        lab.setPos(v.lines["real"].value(), lab.pos().y())              # at the other line
        assert "label off its line" in kinds(check_view(v))
    finally:
        v.refresh()


def test_overlapping_and_clipped_texts_are_caught(presenting):
    v = clean(presenting, 8, 0)
    try:
        a, b = v.end_labels[0], v.end_labels[1]
        b.setPos(a.pos())
        assert "text overlap" in kinds(check_view(v))
        (_x0, x1), _y = v.plot.getPlotItem().vb.viewRange()
        a.setPos(x1, a.pos().y())                                     # starting at the plot's right edge
        assert "clipped" in kinds(check_view(v))
    finally:
        v.refresh()


def test_a_text_on_a_marker_or_crossed_by_a_line_is_caught(presenting):
    v = clean(presenting, 6, 1)
    try:
        lab = v.labels["real"]
        x, y = v.now.getData()
        lab.setAnchor((0.5, 0.5))
        lab.setPos(float(x[0]), float(y[0]))                          # over the dot, across the curve
        assert {"text on marker", "text on line"} <= kinds(check_view(v))
    finally:
        lab.setAnchor(ALONG_LINE)
        v.refresh()


def test_a_point_in_a_region_its_claim_forbids_is_caught(presenting):
    v = clean(presenting, 6, 3)
    try:
        lo, _hi = v.over.getRegion()
        v.now.setData([10 ** (lo + 0.3)], [v.figure.now.y])            # inside "KV cache full"
        assert "point in region" in kinds(check_view(v))
    finally:
        v.refresh()


def test_a_colour_without_a_legend_entry_is_caught(presenting):
    v = clean(presenting, 8, 0)
    try:
        v.plot.legend_label.setText("")
        assert "colour no legend" in kinds(check_view(v))
    finally:
        v.refresh()


def test_a_legend_swatch_unlike_its_drawing_is_caught(presenting):
    v = clean(presenting, 6, 1)
    try:
        v.set_legend(v.plot, [(th.BLUISH_GREEN, "realistic"), (v.theme.secondary, "at peak numbers", "dashed")])
        found = [f for f in check_view(v) if f.kind == "legend swatch"]
        assert len(found) == 1 and "square" in found[0].text      # a square for the realistic curve
    finally:
        v.refresh()


def test_crowded_cut_and_dropped_tick_labels_are_caught(presenting):
    v = clean(presenting, 3, 0)
    axis = v.names
    ticks = list(enumerate(v.figure.names))
    axis.fit_names = lambda: None                   # the axis's own fitting off: the planted ticks stay as planted
    try:
        axis.setTicks([[(i, n + " memory level") for i, n in ticks]])    # too long for their places, on one line
        found = [f.text for f in check_view(v) if f.kind == "tick labels"]
        assert any("px apart" in t for t in found) and not any("cut by" in t for t in found), found
        axis.setTicks([[*ticks[:-1], (ticks[-1][0], "Host RAM over the PCIe link")]])   # past the plot's edge
        found = [f.text for f in check_view(v) if f.kind == "tick labels"]
        assert found and all("'Host RAM over the PCIe link' does not fit" in t for t in found), found
        line = QFontMetrics(axis.style["tickFont"]).height()
        axis.setStyle(tickTextHeight=round(0.9 * line))                  # the axis a little short for its words
        axis.setTicks([ticks])
        QApplication.processEvents()                                     # the plot laid out again
        found = [f.text for f in check_view(v) if f.kind == "tick labels"]
        assert len(found) == len(ticks) and all("cut by the plot's edge" in t for t in found), found
        del axis.fit_names
        axis.set_names([n + " memory level" for _i, n in ticks])         # its own fitting: two lines each
        assert axis.lines == 2 and all("\n" in name for _place, name in axis._broken)
    finally:
        axis.__dict__.pop("fit_names", None)
        v.set_theme(v.theme)                                             # the axis's own height again
        v.refresh()
    assert axis.lines == 1 and check_view(v) == []


def test_a_number_that_is_not_the_models_is_caught(presenting):
    v = clean(presenting, 5, 0)
    try:
        QLabel.setText(v.caption_label, "Llama 3.1 70B reads 99.9 GB a token")
        assert "number not model's" in kinds(check_view(v))
    finally:
        v.refresh()


def test_a_thin_reference_line_and_a_two_line_title_are_caught(presenting):
    v = clean(presenting, 6, 2)
    try:
        v.lines["real"].setPen(pen(th.BLUISH_GREEN, width=1, style=Qt.DashLine))
        QLabel.setText(v.caption_label, "Batch 1,024 " + "is compute-bound, " * 12)
        v.caption_label.adjustSize()
        found = kinds(check_view(v))
        assert "thin line" in found and "title lines" in found
    finally:
        v.apply_plot_theme(v.theme)
        v.refresh()


# ---------------------------------------------------------------- recordings
def test_every_held_frame_of_a_recorded_glide_is_the_states_screenshot(qapp):
    """ui/present/offscreen.py show_between: once a glide has landed (f = 1), the frame is the prepared
    state itself (lesson 6 held "batch of 63" where batch 64 was prepared)."""
    from ui.present.offscreen import OffscreenChapter
    t = th.get_theme("dark", th.type_scale(360, False))
    glide, shot = OffscreenChapter(6, t, (640, 360)), OffscreenChapter(6, t, (640, 360))
    try:
        glide.show_state(0)
        for b in range(1, len(glide.states)):
            glide.show_between(b - 1, b, 0.6)
            glide.show_between(b - 1, b, 1.0)
            held = glide.image()
            shot.show_state(b)
            assert glide.view.caption == shot.view.caption and glide.view.key_label.text() == shot.view.key_label.text()
            assert held == shot.image(), f"state {b + 1}: the held frame is not its screenshot"
    finally:
        glide.close()
        shot.close()


def test_the_first_f5_of_a_session_shows_lesson_one_with_its_toggles_chosen(main_window, qtbot):
    w = main_window
    qtbot.keyClick(w, Qt.Key_F5)
    v = w.lessons.current_view
    assert w.presenter.active and v.chapter.number == 1
    assert [b.isChecked() for b in v.line_pick.buttons.values()] == [True, False]
    assert [b.isChecked() for b in v.show_pick.buttons.values()] == [True, False]
    w.presenter.leave()


def test_explore_keeps_the_users_scenario_across_a_visit_to_the_lessons(main_window):
    w = main_window
    w.controller.set(gpu="b200-180gb", batch=32)
    w.controller.flush()
    own = w.controller.scenario
    w.show_chapter(5, 1)
    assert w.controller.scenario != own
    w.show_explore()
    assert w.controller.scenario == own


def test_larger_text_at_1366x768_cuts_no_words(qapp):
    """Larger text on a 1366×768 laptop, presenting: no text is cut, crossed or overlapping."""
    from ui.shell.app import build_window
    w = build_window(None, st=None, large_text=True)
    try:
        w.resize(1366, 768)
        w.show()
        w.lessons.glide.duration_ms = 0
        w.show_chapter(1, 0)
        w.enter_presenter(fullscreen=False)
        found = [f for f in walk(w, ((1366, 768),)) if f.kind not in ("small text", "title lines")]
        assert found == [], "\n".join(map(str, found))
    finally:
        w.presenter.leave()
        w.close()
        w.deleteLater()
