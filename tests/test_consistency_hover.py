"""The one hover engine (ui.plotting.hover): the roofline uses it; chapters switch with one import."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF

from ui.plotting.hover import LINE_PENALTY_PX, HoverTips, MarkerTips


def plot(shown, log=True):
    p = shown(pg.PlotWidget(), (400, 300))
    p.getPlotItem().setLogMode(x=log, y=log)
    p.getPlotItem().vb.setRange(xRange=(0, 3), yRange=(0, 3), padding=0)
    return p


def test_points_beat_lines_and_the_radius_holds(shown, qtbot):
    p = plot(shown)
    tips = HoverTips(p, log_x=True, log_y=True, radius_px=13)
    tips.line([(1, 10), (1000, 10)], "line")
    tips.point(100, 10, "point")
    at = tips.scene_pos(100, 10)
    assert tips.text_at(at) == "point"
    assert tips.text_at(at + QPointF(0, 12)) == "point"                     # within 13 px
    assert tips.text_at(tips.scene_pos(10, 10) + QPointF(0, 13 - LINE_PENALTY_PX - 1)) == "line"
    assert tips.text_at(tips.scene_pos(10, 10) + QPointF(0, 13 - LINE_PENALTY_PX + 1)) == ""
    assert tips.tip_at(at + QPointF(0, 80)) == p.toolTip()
    tips.clear()
    assert tips.texts == [] and tips.text_at(at) == ""


def test_marker_tips_keep_the_chapters_interface(shown, qtbot):
    p = plot(shown, log=False)
    tips = MarkerTips(p)
    tips.point(1, 1, "a")
    tips.rect(2, 0, 2.5, 2, "bar")
    tips.point(-1, float("nan"), "ignored")
    assert [t for *_, t in tips.points] == ["a"] and [t for *_, t in tips.rects] == ["bar"]
    assert tips.text_at(tips.scene_pos(2.2, 1)) == "bar"
    assert tips.text_at(tips.scene_pos(1, 1)) == "a"
