"""The one hover engine for plot tooltips (the roofline and every chapter's charts).

    tips = HoverTips(plot_widget, log_x=True, log_y=True, radius_px=13)
    tips.clear(); tips.point(x, y, text); tips.line([(x, y), …], text); tips.rect(x0, y0, x1, y1, text)

Items take data coordinates; ui.plotting.coords.Axes (the one log–log transform) turns them
into view coordinates (log10 of the data on a log axis).
Distances are measured in screen (scene) pixels after ViewBox.mapViewToScene, so log axes
work. The nearest item within ``radius_px`` wins, points before lines before bars: a line
counts LINE_PENALTY_PX farther than it is, a bar RECT_PENALTY_PX; on a tie the item
registered first wins. Elsewhere the plot's own toolTip() (a whole-plot summary) shows.

MarkerTips (below) is the chapters' flavour: the same engine, their 10 px radius, and their
``points`` / ``rects`` lists.
"""
from __future__ import annotations

import math
from typing import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, Signal
from PySide6.QtWidgets import QToolTip

from ui.plotting.coords import Axes
from ui.kit.dialog_buttons import tip_text
LINE_PENALTY_PX = 4.0
RECT_PENALTY_PX = 1.0


def _written(text) -> str:
    return text() if callable(text) else text


def _seg_dist(px: float, py: float, a: QPointF, b: QPointF) -> float:
    ax, ay, bx, by = a.x(), a.y(), b.x(), b.y()
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    u = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(ax + u * dx - px, ay + u * dy - py)


class HoverTips(QObject):
    """Tooltips per item on one pyqtgraph PlotWidget (see the module docstring). An item registered
    with a readout ``key`` is also clickable: a click on it emits ``explain_requested(key)``."""

    explain_requested = Signal(str)

    def __init__(self, plot: pg.PlotWidget, log_x: bool = False, log_y: bool = False, radius_px: float = 10.0):
        super().__init__(plot)
        self.plot = plot
        self.vb = plot.getPlotItem().vb
        self.axes = Axes(bool(log_x), bool(log_y))
        self.radius_px = radius_px
        self.items: list[tuple[str, tuple, object]] = []  # (kind, view coordinates, text or its writer)
        self.keys: dict[int, str] = {}                     # index in items → the readout a click explains
        self.shown = ""
        plot.setMouseTracking(True)
        plot.scene().sigMouseMoved.connect(self._moved)
        plot.viewport().installEventFilter(self)

    # ---------------------------------------------------------------- registering
    def clear(self) -> None:
        self.items.clear()
        self.keys.clear()

    def _keyed(self, key: str) -> None:
        if key:
            self.keys[len(self.items) - 1] = key

    def _v(self, x: float, y: float) -> tuple[float, float] | None:
        return self.axes.view(x, y)

    def point(self, x: float, y: float, text: str | Callable[[], str], key: str = "") -> None:
        """``text``: the words, or a function that writes them when the point is hovered (a plot
        with many points need not write every tooltip at every change)."""
        v = self._v(x, y)
        if v is not None:
            self.items.append(("point", v, text))
            self._keyed(key)

    def line(self, points, text: str, key: str = "") -> None:
        vs = [v for v in (self._v(x, y) for x, y in points) if v is not None]
        if len(vs) == 1:
            self.items.append(("point", vs[0], text))
        elif vs:
            self.items.append(("line", tuple(vs), text))
        if vs:
            self._keyed(key)

    def rect(self, x0: float, y0: float, x1: float, y1: float, text: str, key: str = "") -> None:
        a, b = self._v(x0, y0), self._v(x1, y1)
        if a is not None and b is not None:
            self.items.append(("rect", (a, b), text))
            self._keyed(key)

    @property
    def texts(self) -> list[str]:
        return [_written(t) for _, _, t in self.items]

    # ---------------------------------------------------------------- geometry
    def scene_pos(self, x: float, y: float) -> QPointF:
        """Where a data point (x, y) lands in the plot's scene (= the plot widget's pixels)."""
        v = self._v(x, y) or (0.0, 0.0)
        return self.vb.mapViewToScene(QPointF(*v))

    def _distance(self, kind: str, v, px: float, py: float) -> float:
        m = self.vb.mapViewToScene
        if kind == "point":
            p = m(QPointF(*v))
            return math.hypot(p.x() - px, p.y() - py)
        if kind == "line":
            sp = [m(QPointF(*q)) for q in v]
            return min(_seg_dist(px, py, a, b) for a, b in zip(sp, sp[1:])) + LINE_PENALTY_PX
        a, b = m(QPointF(*v[0])), m(QPointF(*v[1]))
        dx = max(min(a.x(), b.x()) - px, 0.0, px - max(a.x(), b.x()))
        dy = max(min(a.y(), b.y()) - py, 0.0, py - max(a.y(), b.y()))
        return math.hypot(dx, dy) + RECT_PENALTY_PX

    def _nearest(self, scene_pos) -> int:
        """Index of the nearest item within radius_px of scene_pos (-1: none)."""
        px, py = scene_pos.x(), scene_pos.y()
        best, best_d = -1, self.radius_px
        for i, (kind, v, _text) in enumerate(self.items):
            d = self._distance(kind, v, px, py)
            if d < best_d:
                best, best_d = i, d
        return best

    def text_at(self, scene_pos) -> str:
        """The text of the nearest item to scene_pos ('' when none is within radius_px)."""
        i = self._nearest(scene_pos)
        return _written(self.items[i][2]) if i >= 0 else ""

    def key_at(self, scene_pos) -> str:
        """The readout a click at scene_pos explains ('' when the nearest item has none)."""
        return self.keys.get(self._nearest(scene_pos), "")

    def tip_at(self, scene_pos) -> str:
        """What hovering there shows: the nearest item's text, else the whole plot's tooltip."""
        return self.text_at(scene_pos) or self.plot.toolTip()

    # ---------------------------------------------------------------- showing
    def _moved(self, pos) -> None:
        text = self.text_at(pos)
        if text:
            if text != self.shown:
                QToolTip.showText(self.plot.mapToGlobal(self.plot.mapFromScene(pos)), tip_text(text), self.plot.viewport())
        elif self.shown:
            QToolTip.hideText()
        self.shown = text

    def eventFilter(self, obj, ev) -> bool:
        if ev.type() == QEvent.MouseButtonPress and self.keys:
            key = self.key_at(self.plot.mapToScene(ev.position().toPoint()))
            if key:
                self.explain_requested.emit(key)
                return True
        if ev.type() == QEvent.ToolTip:       # the mouse rests: an item's text beats the plot's
            text = self.text_at(self.plot.mapToScene(ev.pos()))
            if text:
                QToolTip.showText(ev.globalPos(), tip_text(text), self.plot.viewport())
                self.shown = text
                return True
        return False


CHAPTER_HOVER_PX = 10.0     # the chapters' radius (screen pixels)


class MarkerTips(HoverTips):
    """The chapters' hover tooltips: HoverTips with their radius. ``points`` and ``rects`` list
    what is registered, in view coordinates (log10 of the data on a log axis). A chapter module
    switches to the one engine with ``from ui.plotting.hover import MarkerTips``."""

    def __init__(self, plot: pg.PlotWidget, log_x: bool = False, log_y: bool = False):
        super().__init__(plot, log_x, log_y, radius_px=CHAPTER_HOVER_PX)

    @property
    def points(self) -> list[tuple[float, float, str]]:
        return [(v[0], v[1], _written(text)) for kind, v, text in self.items if kind == "point"]

    @property
    def rects(self) -> list[tuple[float, float, float, float, str]]:
        return [(*v[0], *v[1], _written(text)) for kind, v, text in self.items if kind == "rect"]
