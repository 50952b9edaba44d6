"""Lesson 4: arithmetic intensity and the roofline.

model.lessons.roofline_point(hw, compute dtype, intensity): attainable FLOP/s at the chosen
intensity, the same with twice the compute (the dashed roof), and the ridge. Drag the
vertical line (or the slider) along the intensity axis.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QLabel, QSlider

from model.readouts.format import si, sig3
from model.lessons.ch4_roofline import roofline_point
from ui import theme as th
from ui.pens import brush, pen, set_symbol_style
from ui.chapters.base import ChapterView, log10, text_font

X_MIN, X_MAX = 0.1, 1e5       # the intensity axis (FLOP/byte)
SLIDER_STEPS = 600


def slider_to_intensity(v: int) -> float:
    return 10 ** (math.log10(X_MIN) + (math.log10(X_MAX) - math.log10(X_MIN)) * v / SLIDER_STEPS)


def intensity_to_slider(x: float) -> int:
    f = (math.log10(x) - math.log10(X_MIN)) / (math.log10(X_MAX) - math.log10(X_MIN))
    return int(round(max(0.0, min(1.0, f)) * SLIDER_STEPS))


class RooflineChapter(ChapterView):
    def build(self) -> None:
        self.point = None
        self.curve_x = np.geomspace(X_MIN, X_MAX, 121)
        self.title_row = self.add_chart_title()
        p = self.plot = self.make_plot("Arithmetic intensity (FLOP per byte, log)", "Attainable FLOP/s (log)",
                                       log_x=True, log_y=True, y_unit="FLOP/s")
        self.chart_lay.addWidget(p, 1)
        self.roof = p.plot()
        self.roof2 = p.plot()
        self.ridge = p.plot()
        self.ridge2 = p.plot()
        self.double = p.plot(pen=None, symbol="o", symbolSize=16)
        self.dot = p.plot(pen=None, symbol="o", symbolSize=22)
        self.dot.setZValue(10)
        self.handle = pg.InfiniteLine(angle=90, movable=True)
        self.handle.setZValue(5)
        p.addItem(self.handle, ignoreBounds=True)
        self.handle.sigPositionChanged.connect(self._dragged)
        self.labels = {k: pg.TextItem(anchor=a) for k, a in
                       (("roof", (1, 1)), ("roof2", (1, 1)), ("ridge", (0, 1)), ("ridge2", (0, 1)),
                        ("dot", (0, 1.1)), ("mem", (0.5, 0.5)), ("cmp", (0.5, 0.5)))}
        for lab in self.labels.values():
            p.addItem(lab, ignoreBounds=True)
        self.side_lay.addWidget(self._cl("Arithmetic intensity (or drag the line)"))
        self.slider = QSlider(Qt.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setAccessibleName("Arithmetic intensity, FLOP per byte")
        self.slider.valueChanged.connect(lambda v: self.set_params(intensity=slider_to_intensity(v)))
        self.side_lay.addWidget(self.slider)

    def _cl(self, text):
        lab = QLabel(text)
        lab.setObjectName("controlLabel")
        return lab

    def _dragged(self, line) -> None:
        x = 10 ** float(line.value())
        x = min(X_MAX, max(X_MIN, x))
        if abs(math.log10(x) - math.log10(self.params.get("intensity", 1.0))) > 1e-9:
            self.set_params(intensity=x)

    def sync_controls(self) -> None:
        x = float(self.params.get("intensity", 1.0))
        with QSignalBlocker(self.slider):
            self.slider.setValue(intensity_to_slider(x))
        with QSignalBlocker(self.handle):
            self.handle.setValue(log10(x))

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.roof.setPen(pen(th.BLUISH_GREEN, width=2))
        self.roof2.setPen(pen(th.BLUISH_GREEN, width=1, style=Qt.DashLine))
        self.ridge.setPen(pen(t.secondary, width=1, style=Qt.DotLine))
        self.ridge2.setPen(pen(t.roof_dim, width=1, style=Qt.DotLine))
        set_symbol_style(self.dot, pen(t.op_outline, width=2), brush(t.op_point))
        set_symbol_style(self.double, pen(th.BLUISH_GREEN, width=1), brush(t.bg))
        self.handle.setPen(pen(t.op_point, width=1, style=Qt.DashLine))
        self.handle.setHoverPen(pen(t.op_point, width=3))
        for k, lab in self.labels.items():
            lab.setFont(text_font(t, 16 if k in ("dot", "mem", "cmp") else 14, bold=k in ("dot", "mem", "cmp")))

    def update_view(self, e) -> None:
        t = self.theme
        hw = self.catalog.gpu(e.scenario.gpu)
        dtype = e.compute_dtype
        x = float(self.params.get("intensity", 1.0))
        pt = self.point = roofline_point(hw, dtype, x)
        curve = [roofline_point(hw, dtype, float(v)) for v in self.curve_x]
        y1 = np.array([c.attainable_flops for c in curve])
        y2 = np.array([c.attainable_with_double_compute for c in curve])
        self.curve = curve
        self.roof.setData(self.curve_x, y1)
        self.roof2.setData(self.curve_x, y2)
        r = pt.ridge_flops_per_byte
        peak = float(y1.max())
        y_lo, y_hi = float(y1.min()) / 3, peak * 2 * 4
        self.ridge.setData(np.array([r, r]), np.array([y_lo, peak]))
        self.ridge2.setData(np.array([2 * r, 2 * r]), np.array([y_lo, 2 * peak]))
        self.dot.setData(np.array([x]), np.array([pt.attainable_flops]))
        self.double.setData(np.array([x]), np.array([pt.attainable_with_double_compute]))
        vb = self.plot.getPlotItem().vb
        vb.setRange(xRange=(log10(X_MIN), log10(X_MAX)), yRange=(log10(y_lo), log10(y_hi)), padding=0)
        with QSignalBlocker(self.handle):
            self.handle.setValue(log10(x))
        L = self.labels
        L["roof"].setText(f"{dtype.upper()} peak {si(peak, 'FLOP/s')}")
        L["roof"].setColor(th.BLUISH_GREEN)
        L["roof"].setPos(log10(X_MAX) - 0.05, log10(peak))
        L["roof2"].setText(f"2× compute {si(2 * peak, 'FLOP/s')} (dashed)")
        L["roof2"].setColor(th.BLUISH_GREEN)
        L["roof2"].setPos(log10(X_MAX) - 0.05, log10(2 * peak))
        L["ridge"].setText(f"ridge {sig3(r)}")
        L["ridge"].setColor(t.text)
        L["ridge"].setPos(log10(r) + 0.04, log10(y_lo) + 0.45)
        L["ridge2"].setText(f"2× compute: ridge {sig3(2 * r)}")
        L["ridge2"].setColor(t.secondary)
        L["ridge2"].setPos(log10(2 * r) + 0.04, log10(y_lo) + 0.05)
        gain = pt.attainable_with_double_compute / pt.attainable_flops
        L["dot"].setText(f"{sig3(x)} FLOP/B → {si(pt.attainable_flops, 'FLOP/s')}\n2× compute: {sig3(gain)}× as fast")
        L["dot"].setColor(t.op_point)
        right = log10(x) > log10(X_MAX) - 1.8
        below = x > r / 4                      # near the roofs, the label goes under the dot
        L["dot"].setAnchor((1 if right else 0, -0.15 if below else 1.1))
        L["dot"].setPos(log10(x) + (-0.08 if right else 0.08), log10(pt.attainable_flops))
        L["mem"].setText("MEMORY-BOUND")
        L["mem"].setColor(th.ORANGE)
        L["mem"].setPos(0.5 * (log10(X_MIN) + log10(r)), log10(peak) + 0.75)
        L["cmp"].setText("COMPUTE-BOUND")
        L["cmp"].setColor(th.BLUISH_GREEN)
        L["cmp"].setPos(0.5 * (log10(2 * r) + log10(X_MAX)), log10(peak) + 0.75)
        self.title_row.setText(f"{hw.short_name.upper()} · {dtype.upper()} · HBM {si(hw.hbm_bandwidth_bytes_per_s, 'B/s')}"
                               + (" · EMULATED" if e.emulated else ""))
        tips = self.plot.tips
        tips.clear()
        tips.point(x, pt.attainable_flops,
                   f"Intensity {sig3(x)} FLOP/byte → attainable {si(pt.attainable_flops, 'FLOP/s')} "
                   f"({pt.bound}-bound)\n= min({si(peak, 'FLOP/s')}, {sig3(x)} FLOP/byte × "
                   f"{si(hw.hbm_bandwidth_bytes_per_s, 'B/s')})")
        tips.point(x, pt.attainable_with_double_compute,
                   f"With 2× compute ({si(2 * peak, 'FLOP/s')}): {si(pt.attainable_with_double_compute, 'FLOP/s')} "
                   f"at {sig3(x)} FLOP/byte = {sig3(gain)}× as fast")
        tips.point(r, peak, f"Ridge {sig3(r)} FLOP/byte = {si(peak, 'FLOP/s')} ÷ "
                            f"{si(hw.hbm_bandwidth_bytes_per_s, 'B/s')} ({hw.short_name}, {dtype.upper()})")
        tips.point(2 * r, 2 * peak, f"Ridge with 2× compute: {sig3(2 * r)} FLOP/byte = {si(2 * peak, 'FLOP/s')} ÷ "
                                    f"{si(hw.hbm_bandwidth_bytes_per_s, 'B/s')}")
        self.plot.setToolTip(f"attainable = min({si(peak, 'FLOP/s')}, intensity × "
                             f"{si(hw.hbm_bandwidth_bytes_per_s, 'B/s')}); dashed: the same chip with twice the FLOP/s")

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
