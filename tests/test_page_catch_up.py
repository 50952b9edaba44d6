"""Explore's roofline and gauges skip estimates while the Lessons page hides them and catch up
when Explore shows again, before its first paint (ui/kit/page_catch_up.py; glide speed)."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject

from model.readouts.numbers import readouts
from qt_events import deliver


def test_hidden_explore_panels_skip_estimates_and_catch_up_before_their_first_paint(main_window, qtbot):
    w = main_window
    roof, gauges = w.roofline, w.gauges
    own = w.controller.scenario
    w.show_lessons(6)
    deliver()
    assert not roof.isVisible()
    before_title, before_value = roof.title.text(), gauges.value_text("ms_per_token")
    w.controller.set(gpu="b200-180gb", batch=64)
    w.controller.flush()
    e = w.controller.estimate
    assert e.scenario.gpu == "b200-180gb"
    # nothing redrawn on the hidden page
    assert roof.title.text() == before_title
    assert gauges.value_text("ms_per_token") == before_value

    seen = {}

    class AtPaint(QObject):
        def eventFilter(self, obj, ev):
            if ev.type() == QEvent.Paint and "title" not in seen:
                seen.update(title=roof.title.text(), value=gauges.value_text("ms_per_token"))
            return False
    probe = AtPaint()
    roof.installEventFilter(probe)
    w.show_explore()
    deliver()                                                        # its layouts and its first paint
    roof.removeEventFilter(probe)
    assert w.controller.scenario == own                              # Explore: the user's own scenario again
    back = w.controller.estimate
    assert "B200" not in seen["title"] and back.gpu_name.split()[1] in seen["title"]   # … at the first paint
    assert seen["value"] == readouts(back)["decode_time"].text != readouts(e)["decode_time"].text


def test_a_window_not_on_screen_draws_every_estimate():
    from model import Scenario
    from ui.shell.app import build_window
    w = build_window(Scenario(), st=None)                            # never shown (tests, offscreen renders)
    try:
        w.controller.set(gpu="b200-180gb")
        w.controller.flush()
        assert "B200" in w.roofline.title.text()
        assert w.gauges.value_text("ms_per_token") == readouts(w.controller.estimate)["decode_time"].text
    finally:
        w.deleteLater()


def test_a_panel_drawn_again_while_hidden_shows_the_newest_snapshot(main_window):
    """Presenter mode on the Plan page, a new scenario, then the window's theme redrawn (entering
    or leaving presenter mode, leaving the chip's focus view): each panel drew again the snapshot it
    had drawn last, which replaced the one it had missed, and Explore showed the previous scenario."""
    w = main_window
    w.show_plan()
    deliver()
    assert not w.roofline.isVisible()
    w.controller.set(gpu="b200-180gb", batch=64)
    w.controller.flush()
    w.apply_theme(force=True)
    w.show_explore()
    deliver()
    snap = w.controller.snapshot
    assert snap.estimate.scenario.gpu == "b200-180gb"
    assert w.roofline._snap.estimate is snap.estimate and w.gauges._snap.estimate is snap.estimate
