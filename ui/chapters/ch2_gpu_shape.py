"""Lesson 2: GPU shape — throughput over latency.

One chart (model.lessons.ch2_gpu_shape.warp_chart): the share of cycles one scheduler issues
maths against the warps in flight (busy = min(1, W·C / (C + L)), L = the GPU's HBM latency
in cycles), the current warps as a large dot, the warps needed to hide the wait as a
dotted line, and, when branches diverge, the share of lane-cycles doing useful work as a
dashed line. Every line has a word label beside it, not only a colour.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QSlider

from model.lessons.ch2_gpu_shape import MAX_WARPS, divergence_control_text, warps_control_text
from ui.kit import theme as th
from ui.kit.steady_label import WrapLabel
from ui.chapters.base import ChapterView
from ui.chapters.look import LABEL, text_font
from ui.kit.pens import brush, pen, set_symbol_style
from ui.plotting.coords import padded, shift
from ui.plotting.labels import (add_text, avoid_labels, avoid_line, avoid_marker, avoid_polyline, covers,
                                place_in_forms, set_fonts, show_text, view_pixels)
from ui.plotting.placement import spots
from ui.kit.slider_maps import percent_slider, slider_fraction

X_RANGE, Y_RANGE = padded(0, MAX_WARPS, above=1.2), (0, 118)    # room for half the last tick's number
NEEDED_Y = 114                 # the "warps hide the wait" words, near the top,
NEEDED_SPOTS = (((0, 0), 0.3, NEEDED_Y), ((1, 0), -0.3, NEEDED_Y),   # … right of their line, else left of it,
                ((0, 0.5), 0.3, 50))                                # … else under the curves' top, right of it
DOT_PX = 22
DOT_RADIUS_PX = 12            # (its half, and a pixel)
DOT_SPOTS = (*spots(("above-right", "above-left", "below-right", "below-left"), 17),   # clear of the dot,
             *spots(("right", "below-right", "below", "above-left", "left"), 48),     # else farther off the curves
             *spots(("below-right", "below", "right"), 96))


class GpuShapeChapter(ChapterView):
    def build(self) -> None:
        self.title_row = self.add_chart_title()
        p = self.plot = self.make_plot("Warps in flight on one scheduler", "% of cycles")
        self.add_legend(p)
        self.chart_lay.addWidget(p, 1)
        self.busy_line = p.plot()
        self.lane_line = p.plot()
        self.needed_line = pg.InfiniteLine(angle=90, movable=False)
        p.addItem(self.needed_line, ignoreBounds=True)
        self.dot = p.plot(pen=None, symbol="o", symbolSize=DOT_PX)
        self.dot.setZValue(10)
        self.labels = {k: add_text(p, a) for k, a in
                       (("busy", (1, 1.2)), ("lane", (1, -0.2)), ("needed", (0, 0)), ("dot", (0, 1)))}

        self.warps_label = WrapLabel("")
        self.warps_label.setObjectName("controlLabel")
        self.side_lay.addWidget(self.warps_label)
        self.warps_slider = QSlider(Qt.Horizontal)
        self.warps_slider.setRange(1, MAX_WARPS)
        self.warps_slider.setAccessibleName("Warps in flight")
        self.warps_slider.valueChanged.connect(lambda v: self.set_params(warps=int(v)))
        self.side_lay.addWidget(self.warps_slider)
        self.div_label = WrapLabel("")
        self.div_label.setObjectName("controlLabel")
        self.side_lay.addWidget(self.div_label)
        self.div_slider = QSlider(Qt.Horizontal)
        self.div_slider.setRange(0, 100)
        self.div_slider.setAccessibleName("Divergent branches, percent")
        self.div_slider.valueChanged.connect(lambda v: self.set_params(divergence=slider_fraction(v)))
        self.side_lay.addWidget(self.div_slider)

    @property
    def result(self):
        return self.figure.result if self.figure is not None else None

    @property
    def curve_data(self):
        return self.figure.curve if self.figure is not None else None

    def sync_controls(self) -> None:
        w = int(self.params.get("warps", 1))
        d = float(self.params.get("divergence", 0.0))
        with QSignalBlocker(self.warps_slider):
            self.warps_slider.setValue(w)
        with QSignalBlocker(self.div_slider):
            self.div_slider.setValue(percent_slider(d))
        self.warps_label.setText(warps_control_text(w))
        self.div_label.setText(divergence_control_text(d))

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.busy_line.setPen(pen(th.BLUISH_GREEN, width=3))
        self.lane_line.setPen(pen(th.ORANGE, width=3, style=Qt.DashLine))
        self.needed_line.setPen(pen(t.secondary, width=2, style=Qt.DotLine))
        set_symbol_style(self.dot, pen(t.op_outline, width=2), brush(t.op_point))
        set_fonts(self.labels.values(), text_font(t, LABEL, bold=True))

    def update_view(self, e) -> None:
        t = self.theme
        f = self.figure
        self.busy_line.setData(f.warps, f.busy_pct)
        self.lane_line.setData(f.warps if len(f.lane_pct) else [], f.lane_pct)
        self.lane_line.setVisible(bool(f.lane_end.label))      # (an empty setData keeps the old curve)
        self.dot.setData([f.now.x], [f.now.y])
        self.needed_line.setValue(f.needed.x)
        pi = self.plot.getPlotItem()
        pi.vb.setRange(xRange=X_RANGE, yRange=Y_RANGE, padding=0)
        pi.getAxis("left").setTicks([[(k.value, k.text) for k in f.y_ticks]])
        pi.getAxis("bottom").setTicks([[(k.value, k.text) for k in f.x_ticks]])
        L = self.labels
        for k in ("busy", "lane"):          # the curves are named in the key above the plot
            L[k].setVisible(False)
        show_text(L["needed"], f.needed.label, t.text, shift((f.needed.x, NEEDED_Y), dx=NEEDED_SPOTS[0][1]))
        show_text(L["dot"], f.now.label, t.op_point, (f.now.x, f.now.y))
        self.title_row.setText(f.title)
        colours = {"busy": th.BLUISH_GREEN, "lane": th.ORANGE}
        self.set_legend(self.plot, [(colours[k], w, {"busy": "line", "lane": "dashed"}[k]) for k, w in f.legend])
        tips = self.plot.tips
        tips.clear()
        for m in f.points:
            tips.point(m.x, m.y, m.tip)
        self.plot.setToolTip(f.tooltip)

    def place_labels(self) -> None:
        """The current warps' words: beside the dot, inside the plot, off the other words and the curves."""
        f = self.figure
        px = view_pixels(self.plot.getPlotItem().vb)
        L = self.labels
        (_x0, _x1), (y0, y1) = self.plot.getPlotItem().vb.viewRange()
        self._place_needed(px)
        avoid = [*avoid_labels((L["busy"], L["lane"], L["needed"]), px),
                 *avoid_polyline(px, f.warps, f.busy_pct), *avoid_polyline(px, f.warps, f.lane_pct),
                 avoid_line(px, (f.needed.x, y0), (f.needed.x, y1))]           # the warps that hide the wait
        words = f.now.label                       # on one line, else its number under its name
        place_in_forms(L["dot"], px, (f.now.x, f.now.y), DOT_SPOTS, avoid, (words, words.replace(": ", ":\n", 1)))

    def _place_needed(self, px) -> None:
        """The "warps hide the wait" words right of their line near the top, or left of it where a
        short plot brings them down onto the dot (or a curve) there, or half-way down."""
        f, lab = self.figure, self.labels["needed"]
        clear = [avoid_marker(px, (f.now.x, f.now.y), DOT_RADIUS_PX), *avoid_polyline(px, f.warps, f.busy_pct),
                 *avoid_polyline(px, f.warps, f.lane_pct)]
        for anchor, dx, y in (*NEEDED_SPOTS, NEEDED_SPOTS[0]):     # where none is clear: the first
            lab.setAnchor(anchor)
            lab.setPos(*shift((f.needed.x, y), dx=dx))
            if not covers(lab, px, clear):
                return

    def csv_rows(self):
        c, r = self.curve_data, self.result
        header = ["warps", "scheduler_issue_busy", "lane_use", "warps_needed", "latency_cycles", "divergence"]
        return header, [[int(w), float(b), float(u), c.warps_needed, r.latency_cycles, r.divergence]
                        for w, b, u in zip(c.warps, c.issue_busy, c.lane_use)]
