"""Lesson 2: GPU shape — throughput over latency.

One chart: the share of cycles one scheduler issues maths against the warps in flight
(model.lessons.ch2_gpu_shape.warp_curve: busy = min(1, W·C / (C + L)), L = the GPU's HBM latency
in cycles), the current warps as a large dot, the warps needed to hide the wait as a
dotted line, and, when branches diverge, the share of lane-cycles doing useful work as a
dashed line. Every line has a word label beside it, not only a colour.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QLabel, QSlider

from model.readouts.format import percent
from model.lessons.ch2_gpu_shape import MAX_WARPS, warp_curve
from model.lessons.ch2_gpu_shape import hbm_latency_cycles, latency_hiding
from ui import theme as th
from ui.pens import brush, pen, set_symbol_style
from ui.chapters.base import ChapterView, text_font


class GpuShapeChapter(ChapterView):
    def build(self) -> None:
        self.result = None
        self.curve_data = None
        self.title_row = self.add_chart_title()
        p = self.plot = self.make_plot("Warps in flight on one scheduler", "% of cycles")
        self.chart_lay.addWidget(p, 1)
        self.busy_line = p.plot()
        self.lane_line = p.plot()
        self.needed_line = pg.InfiniteLine(angle=90, movable=False)
        p.addItem(self.needed_line, ignoreBounds=True)
        self.dot = p.plot(pen=None, symbol="o", symbolSize=22)
        self.dot.setZValue(10)
        self.labels = {k: pg.TextItem(anchor=a) for k, a in
                       (("busy", (1, 1.2)), ("lane", (1, -0.2)), ("needed", (0, 0)), ("dot", (0, 1.2)))}
        for lab in self.labels.values():
            p.addItem(lab, ignoreBounds=True)

        self.warps_label = QLabel("")
        self.warps_label.setObjectName("controlLabel")
        self.side_lay.addWidget(self.warps_label)
        self.warps_slider = QSlider(Qt.Horizontal)
        self.warps_slider.setRange(1, MAX_WARPS)
        self.warps_slider.setAccessibleName("Warps in flight")
        self.warps_slider.valueChanged.connect(lambda v: self.set_params(warps=int(v)))
        self.side_lay.addWidget(self.warps_slider)
        self.div_label = QLabel("")
        self.div_label.setObjectName("controlLabel")
        self.side_lay.addWidget(self.div_label)
        self.div_slider = QSlider(Qt.Horizontal)
        self.div_slider.setRange(0, 100)
        self.div_slider.setAccessibleName("Divergent branches, percent")
        self.div_slider.valueChanged.connect(lambda v: self.set_params(divergence=v / 100.0))
        self.side_lay.addWidget(self.div_slider)

    def sync_controls(self) -> None:
        w = int(round(self.params.get("warps", 1)))
        d = float(self.params.get("divergence", 0.0))
        with QSignalBlocker(self.warps_slider):
            self.warps_slider.setValue(w)
        with QSignalBlocker(self.div_slider):
            self.div_slider.setValue(int(round(d * 100)))
        self.warps_label.setText(f"Warps in flight: {w}")
        self.div_label.setText(f"Divergent branches: {percent(d)}")

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.busy_line.setPen(pen(th.BLUISH_GREEN, width=3))
        self.lane_line.setPen(pen(th.ORANGE, width=3, style=Qt.DashLine))
        self.needed_line.setPen(pen(t.secondary, width=1, style=Qt.DotLine))
        set_symbol_style(self.dot, pen(t.op_outline, width=2), brush(t.op_point))
        for k, lab in self.labels.items():
            lab.setFont(text_font(t, 15, bold=True))

    def update_view(self, e) -> None:
        t = self.theme
        hw = self.catalog.gpu(e.scenario.gpu)
        lat = hbm_latency_cycles(hw)
        w = int(round(self.params.get("warps", 1)))
        d = float(self.params.get("divergence", 0.0))
        r = self.result = latency_hiding(w, d, latency_cycles=lat)
        c = self.curve_data = warp_curve(lat, d)
        self.busy_line.setData(c.warps, 100 * c.issue_busy)
        diverged = d > 0
        self.lane_line.setData(c.warps if diverged else [], 100 * c.lane_use if diverged else [])
        y_now = 100 * (r.lane_use if diverged else r.issue_busy)
        self.dot.setData([float(w)], [y_now])
        self.needed_line.setValue(c.warps_needed)
        vb = self.plot.getPlotItem().vb
        vb.setRange(xRange=(0, MAX_WARPS + 0.5), yRange=(0, 118), padding=0)
        ax = self.plot.getPlotItem().getAxis("left")
        ax.setTicks([[(v, f"{v}%") for v in (0, 25, 50, 75, 100)]])
        self.plot.getPlotItem().getAxis("bottom").setTicks([[(v, str(v)) for v in (1, 4, 8, 16, 24, 32)]])
        L = self.labels
        L["busy"].setText("scheduler issuing")
        L["busy"].setColor(th.BLUISH_GREEN)
        L["busy"].setPos(MAX_WARPS, 100)
        L["lane"].setText("lanes doing useful work (divergent)" if diverged else "")
        L["lane"].setColor(th.ORANGE)
        L["lane"].setPos(MAX_WARPS, 100 * c.lane_use[-1])
        L["needed"].setText(f"{c.warps_needed} warps hide the wait")
        L["needed"].setColor(t.text)
        L["needed"].setPos(c.warps_needed + 0.3, 114)
        L["dot"].setText(f"{w} warp{'s' if w != 1 else ''}: {percent(y_now / 100)}")
        L["dot"].setColor(t.op_point)
        right = w > MAX_WARPS * 0.6
        L["dot"].setAnchor((1, 1.2) if right else (0, 1.2))
        L["dot"].setPos(w + (-0.6 if right else 0.6), y_now if y_now < 80 else y_now - 22)
        self.title_row.setText(f"ONE SCHEDULER ON {hw.short_name.upper()}: {r.compute_cycles} CYCLES OF MATHS, "
                               f"THEN A {lat}-CYCLE HBM LOAD")
        tips = self.plot.tips
        tips.clear()
        for k, x in enumerate(c.warps):
            tips.point(x, 100 * c.issue_busy[k], f"{int(x)} warps: the scheduler issues {percent(c.issue_busy[k])} "
                                                 f"of cycles = min(1, {int(x)} × {r.compute_cycles} ÷ "
                                                 f"({r.compute_cycles} + {lat}))")
        self.plot.setToolTip(f"HBM latency {lat} cycles on {hw.short_name} (measured ns × clock); each warp "
                             f"computes {r.compute_cycles} cycles per load")

    def csv_rows(self):
        c, r = self.curve_data, self.result
        header = ["warps", "scheduler_issue_busy", "lane_use", "warps_needed", "latency_cycles", "divergence"]
        return header, [[int(w), float(b), float(u), c.warps_needed, r.latency_cycles, r.divergence]
                        for w, b, u in zip(c.warps, c.issue_busy, c.lane_use)]

