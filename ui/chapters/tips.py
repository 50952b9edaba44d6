"""Hover tooltips per data marker on a chapter's plots, and the text of a published marker.

Every plot from ChapterView.make_plot() carries ``plot.tips`` (MarkerTips): the chapter registers
each data marker with its own tooltip text in update_view(); hovering within HOVER_PX screen
pixels of a marker shows that marker's text, anywhere else the plot's own setToolTip() text.
"""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF
from PySide6.QtWidgets import QToolTip


def log10(x: float) -> float:
    return math.log10(max(float(x), 1e-300))


HOVER_PX = 10.0      # how near (screen pixels) the mouse must be to a marker for its own tooltip


def measured_tip(row, lines) -> str:
    """A published measurement's hover text: where it comes from, how it was run, then ``lines``
    (measured vs model, with the error)."""
    b = "max (in-flight, not reported)" if row.batch is None else f"{row.batch:,}"
    gpus = f"{row.n_gpus} GPU{'s' if row.n_gpus != 1 else ''}"
    return "\n".join([f"★ Published: {row.model} {row.precision} on {row.n_gpus}× {row.gpu}",
                      f"Source: {row.source}",
                      f"Framework: {row.framework}",
                      f"Conditions: {gpus}, batch {b}, {row.input_len:,} input / {row.output_len:,} output tokens",
                      *lines])


def error_text(err: float) -> str:
    """The model's error against a measurement: predicted ÷ measured − 1."""
    return f"model error {err:+.1%}" if err is not None and math.isfinite(err) else "model error —"


class MarkerTips(QObject):
    """Hover tooltips per data marker on one PlotWidget, the idea of ui.roofline_plot's hover.

    point(x, y, text) and rect(x0, y0, x1, y1, text) take data coordinates; on a log axis the
    view coordinate is log10 of the data, and distances are measured in screen pixels after
    ViewBox.mapViewToScene, so log axes work. The nearest point within HOVER_PX wins; a bar
    (rect) answers when the mouse is on it and no point is near. Elsewhere the plot's own
    toolTip() (set by the chapter) shows as before.
    """

    def __init__(self, plot: pg.PlotWidget, log_x: bool = False, log_y: bool = False):
        super().__init__(plot)
        self.plot = plot
        self.vb = plot.getPlotItem().vb
        self.log_x, self.log_y = log_x, log_y
        self.points: list[tuple[float, float, str]] = []               # view coordinates
        self.rects: list[tuple[float, float, float, float, str]] = []
        self.shown = ""
        plot.setMouseTracking(True)
        plot.scene().sigMouseMoved.connect(self._moved)
        plot.viewport().installEventFilter(self)

    def clear(self) -> None:
        self.points.clear()
        self.rects.clear()

    def _vx(self, x: float) -> float:
        return log10(x) if self.log_x else float(x)

    def _vy(self, y: float) -> float:
        return log10(y) if self.log_y else float(y)

    def point(self, x: float, y: float, text: str) -> None:
        if all(v is not None and math.isfinite(float(v)) for v in (x, y)) and \
                (not self.log_x or x > 0) and (not self.log_y or y > 0):
            self.points.append((self._vx(x), self._vy(y), text))

    def rect(self, x0: float, y0: float, x1: float, y1: float, text: str) -> None:
        self.rects.append((self._vx(x0), self._vy(y0), self._vx(x1), self._vy(y1), text))

    def scene_pos(self, x: float, y: float) -> QPointF:
        """Where a data point (x, y) lands in the plot's scene (= the plot widget's pixels)."""
        return self.vb.mapViewToScene(QPointF(self._vx(x), self._vy(y)))

    def text_at(self, scene_pos) -> str:
        """The tooltip of the marker under scene_pos ('' when none is near)."""
        px, py = scene_pos.x(), scene_pos.y()
        best, best_d = "", HOVER_PX
        for vx, vy, text in self.points:
            p = self.vb.mapViewToScene(QPointF(vx, vy))
            d = math.hypot(p.x() - px, p.y() - py)
            if d < best_d:
                best, best_d = text, d
        if best:
            return best
        for x0, y0, x1, y1, text in self.rects:
            a = self.vb.mapViewToScene(QPointF(x0, y0))
            b = self.vb.mapViewToScene(QPointF(x1, y1))
            dx = max(min(a.x(), b.x()) - px, 0.0, px - max(a.x(), b.x()))
            dy = max(min(a.y(), b.y()) - py, 0.0, py - max(a.y(), b.y()))
            d = math.hypot(dx, dy) + 1.0          # points win over bars at the same distance
            if d < best_d:
                best, best_d = text, d
        return best

    def tip_at(self, scene_pos) -> str:
        """What hovering there shows: the nearest marker's text, else the whole plot's tooltip."""
        return self.text_at(scene_pos) or self.plot.toolTip()

    def _moved(self, pos) -> None:
        text = self.text_at(pos)
        if text:
            if text != self.shown:
                QToolTip.showText(self.plot.mapToGlobal(self.plot.mapFromScene(pos)), text, self.plot.viewport())
        elif self.shown:
            QToolTip.hideText()
        self.shown = text

    def eventFilter(self, obj, ev) -> bool:
        if ev.type() == QEvent.ToolTip:       # the mouse rests: a marker's text beats the plot's
            text = self.text_at(self.plot.mapToScene(ev.pos()))
            if text:
                QToolTip.showText(ev.globalPos(), text, self.plot.viewport())
                self.shown = text
                return True
        return False
