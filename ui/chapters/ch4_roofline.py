"""Lesson 4: arithmetic intensity and the roofline.

One chart (model.lessons.ch4_roofline.roofline_chart): attainable FLOP/s against intensity,
the same chip with twice the compute (the dashed roof), both ridges, and the chosen
intensity on both roofs. Drag the vertical line (or the slider) along the intensity axis.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QSlider

from model.lessons.ch4_roofline import INTENSITY_RANGE
from ui.kit import theme as th
from ui.kit.steady_label import WrapLabel
from ui.chapters.base import ChapterView
from ui.chapters.look import LABEL, text_font
from ui.kit.pens import brush, pen, set_symbol_style
from ui.plotting.coords import Box, decades, padded, shift
from ui.plotting.labels import (ALONG_LINE, LEFT_OF_LINE, add_text, avoid_labels, avoid_line, avoid_marker,
                                avoid_polyline, covers, place_in_forms, show_text, view_pixels)
from ui.plotting.placement import Avoid, Spot, spots
from ui.kit.slider_maps import LogSlider

SLIDER = LogSlider(*INTENSITY_RANGE, 600)
LO, HI = INTENSITY_RANGE
DOT_SPOTS = (*spots(("below-right", "above-left", "above-right", "below-left"), 16),   # clear of the 22 px dot,
             *spots(("below-right", "below-left", "below", "above-left", "left"), 56),   # else farther off the roofs
             *spots(("below-right", "below-left", "below", "above-left", "above-right"), 110))
BIG = ("dot", "mem", "cmp")
SIDEWAYS = tuple(Spot((0.5, 0.5), (dx, dy)) for dy in (0, -40, 60, 120, 180, 240, 300)
                 for dx in (0, 30, -30, 60, -60, 120, -120, 240, -240))
# a region's name: on its side of the ridges, off the roofs, the handle and the other words
ROOF_SWATCH = {"roof": "line", "roof2": "dashed"}


class RooflineChapter(ChapterView):
    def build(self) -> None:
        self.title_row = self.add_chart_title()
        p = self.plot = self.make_plot("Arithmetic intensity (FLOP per byte, log)", "Attainable FLOP/s (log)",
                                       log_x=True, log_y=True, y_unit="FLOP/s")
        self.add_legend(p)
        self.chart_lay.addWidget(p, 1)
        self.roof = p.plot()
        self.roof2 = p.plot()
        self.ridge = p.plot()
        self.ridge2 = p.plot()
        self.double = p.plot(pen=None, symbol="o", symbolSize=16)
        self.dot = p.plot(pen=None, symbol="o", symbolSize=22)
        self.dot.setZValue(10)
        self._mem_at = self._cmp_at = (0.0, 0.0)
        self.handle = pg.InfiniteLine(angle=90, movable=True)
        self.handle.setZValue(5)
        p.addItem(self.handle, ignoreBounds=True)
        self.handle.sigPositionChanged.connect(self._dragged)
        self.labels = {k: add_text(p, a) for k, a in
                       (("ridge", LEFT_OF_LINE), ("ridge2", ALONG_LINE),
                        ("dot", (0, 1.1)), ("mem", (0.5, 0.5)), ("cmp", (0.5, 0.5)))}
        for k in ("ridge", "ridge2"):
            self.labels[k].setAngle(90)         # up along its line, never across the other
        self.side_lay.addWidget(self._cl("Arithmetic intensity (or drag the line)"))
        self.slider = QSlider(Qt.Horizontal)
        self.slider.setRange(0, SLIDER.steps)
        self.slider.setAccessibleName("Arithmetic intensity, FLOP per byte")
        self.slider.valueChanged.connect(lambda v: self.set_params(intensity=SLIDER.value(v)))
        self.side_lay.addWidget(self.slider)

    @property
    def point(self):
        return self.figure.point if self.figure is not None else None

    @property
    def curve(self):
        return self.figure.curve if self.figure is not None else ()

    def _cl(self, text):
        lab = WrapLabel(text)
        lab.setObjectName("controlLabel")
        return lab

    def _dragged(self, line) -> None:
        x = SLIDER.clamp(self.plot.axes.data_x(line.value()))
        if not self.plot.axes.same_x(x, self.params.get("intensity", 1.0)):
            self.set_params(intensity=x)

    def sync_controls(self) -> None:
        x = float(self.params.get("intensity", 1.0))
        with QSignalBlocker(self.slider):
            self.slider.setValue(SLIDER.position(x))
        with QSignalBlocker(self.handle):
            self.handle.setValue(self.plot.axes.x(x))

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.roof.setPen(pen(th.BLUISH_GREEN, width=2))
        self.roof2.setPen(pen(th.BLUISH_GREEN, width=2, style=Qt.DashLine))
        self.ridge.setPen(pen(t.text, width=2, style=Qt.DotLine))
        self.ridge2.setPen(pen(t.secondary, width=2, style=Qt.DotLine))
        set_symbol_style(self.dot, pen(t.op_outline, width=2), brush(t.op_point))
        set_symbol_style(self.double, pen(th.BLUISH_GREEN, width=1), brush(t.bg))
        self.handle.setPen(pen(t.op_point, width=2, style=Qt.DashLine))
        self.handle.setHoverPen(pen(t.op_point, width=3))
        for k, lab in self.labels.items():
            lab.setFont(text_font(t, LABEL, bold=k in BIG))

    def update_view(self, e) -> None:
        t = self.theme
        f = self.figure
        axes = self.plot.axes
        self.roof.setData(f.intensity, f.roof)
        self.roof2.setData(f.intensity, f.roof2)
        y_range = padded(axes.y(f.lowest_flops), axes.y(f.ridge2.y), below=decades(2), above=decades(30))   # room above the roofs for words
        bottom = axes.data_y(y_range[0])
        self.ridge.setData([f.ridge.x, f.ridge.x], [bottom, f.ridge.y])
        self.ridge2.setData([f.ridge2.x, f.ridge2.x], [bottom, f.ridge2.y])
        self.dot.setData([f.dot.x], [f.dot.y])
        self.double.setData([f.double.x], [f.double.y])
        self.plot.getPlotItem().vb.setRange(xRange=(axes.x(LO), axes.x(HI)), yRange=y_range, padding=0)
        with QSignalBlocker(self.handle):
            self.handle.setValue(axes.x(f.dot.x))
        L = self.labels
        self.set_legend(self.plot, [(th.BLUISH_GREEN, w, ROOF_SWATCH[k]) for k, w in f.legend])
        show_text(L["ridge"], f.ridge.label, t.text, shift(axes.point(f.ridge.x, bottom), dy=0.1))
        show_text(L["ridge2"], f.ridge2.label, t.secondary, shift(axes.point(f.ridge2.x, bottom), dy=0.1))
        show_text(L["dot"], f.dot.label, t.op_point, axes.point(f.dot.x, f.dot.y))
        self._mem_at = shift((axes.mid_x(LO, f.ridge.x), axes.y(f.ridge.y)), dy=0.75)
        self._cmp_at = shift((axes.mid_x(f.ridge2.x, HI), axes.y(f.ridge.y)), dy=0.75)
        show_text(L["mem"], f.memory_bound, th.ORANGE, self._mem_at)
        show_text(L["cmp"], f.compute_bound, th.BLUISH_GREEN, self._cmp_at)
        self.title_row.setText(f.title)
        tips = self.plot.tips
        tips.clear()
        for m in (f.dot, f.double, f.ridge, f.ridge2):
            tips.point(m.x, m.y, m.tip)
        self.plot.setToolTip(f.tooltip)

    def place_labels(self) -> None:
        """The chosen intensity's words beside its dot, inside the plot, off the roofs, the lines and
        the twice-the-compute marker; then each region's name on its side, off all of them (on two
        lines where one does not fit, left out where neither does: the key number says the bound)."""
        f = self.figure
        axes = self.plot.axes
        px = view_pixels(self.plot.getPlotItem().vb)
        L = self.labels
        (_x0, _x1), (y0, y1) = self.plot.getPlotItem().vb.viewRange()
        walls = [avoid_line(px, (self.handle.value(), y0), (self.handle.value(), y1)),
                 avoid_line(px, axes.point(f.ridge2.x, f.lowest_flops), axes.point(f.ridge2.x, f.ridge2.y)),
                 avoid_marker(px, axes.point(f.double.x, f.double.y), 9),
                 avoid_marker(px, axes.point(f.dot.x, f.dot.y), 12)]
        roofs = [*avoid_polyline(px, axes.xs(f.intensity), axes.ys(f.roof)),
                 *avoid_polyline(px, axes.xs(f.intensity), axes.ys(f.roof2))]
        ridge = avoid_line(px, axes.point(f.ridge.x, f.lowest_flops), axes.point(f.ridge.x, f.ridge.y))
        self._place_ridge2(px, [walls[0], ridge, *roofs])
        fixed = avoid_labels((L["ridge"], L["ridge2"]), px)
        x_ridge, x_ridge2 = px.to_px(axes.x(f.ridge.x), 0.0)[0], px.to_px(axes.x(f.ridge2.x), 0.0)[0]
        sides = {"mem": Avoid(box=Box(x_ridge, -1e6, 1e6, 1e6), weight=100.0),       # past its own ridge
                 "cmp": Avoid(box=Box(-1e6, -1e6, x_ridge2, 1e6), weight=100.0)}
        words = f.dot.label                        # as the model writes it, else its unit on a line of its own
        place_in_forms(L["dot"], px, axes.point(f.dot.x, f.dot.y), DOT_SPOTS, [*walls, ridge, *roofs, *fixed],
                       (words, "\n".join(words.rsplit(" ", 1))))
        for k, at, words in (("mem", self._mem_at, f.memory_bound), ("cmp", self._cmp_at, f.compute_bound)):
            others = [*fixed, *avoid_labels((L["dot"], *((L["mem"],) if k == "cmp" else ())), px), sides[k]]
            forms = (words, words.replace("-", "-\n"))           # on one line, else on two, else not at all
            L[k].setVisible(place_in_forms(L[k], px, at, SIDEWAYS, [*walls, ridge, *roofs, *others], forms))

    def _place_ridge2(self, px, lines) -> None:
        """The twice-the-compute ridge's words along its line, right of it, else left of it; where
        both touch the handle, the other ridge or a roof, on one line (up to the plot's height)."""
        lab = self.labels["ridge2"]
        lines = [*lines, *avoid_labels((self.labels["ridge"],), px)]
        width = lab.textItem.textWidth()
        for anchor, one_line in ((ALONG_LINE, False), (LEFT_OF_LINE, False), (ALONG_LINE, True), (LEFT_OF_LINE, True)):
            lab.setAnchor(anchor)
            if one_line:
                lab.setTextWidth(-1)
            if not covers(lab, px, lines):
                return
        lab.setAnchor(ALONG_LINE)
        lab.setTextWidth(width)

    def csv_rows(self):
        header = ["intensity_flops_per_byte", "attainable_flops", "attainable_with_double_compute",
                  "ridge_flops_per_byte", "bound"]
        pt = self.point
        rows = [[pt.intensity_flops_per_byte, pt.attainable_flops, pt.attainable_with_double_compute,
                 pt.ridge_flops_per_byte, pt.bound]]
        for c in self.curve:
            rows.append([c.intensity_flops_per_byte, c.attainable_flops, c.attainable_with_double_compute,
                         c.ridge_flops_per_byte, c.bound])
        return header, rows
