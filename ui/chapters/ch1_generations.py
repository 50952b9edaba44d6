"""Lesson 1: compute has outgrown memory bandwidth.

One chart per state (model.lessons.generations): either the growth of dense 16-bit FLOP/s
and of HBM B/s since the first part of the line (the lesson's parts: V100 → A100 → H100,
or AMD's Instinct line), or the ridge point FLOP/s ÷ B/s of every part. Each bar carries
its number and its word, so colour is never the only clue.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout

from model.readouts.format import si, sig3
from model.lessons.ch1_generations import LESSON_PARTS, LINES
from model.lessons.ch1_generations import generations
from ui import theme as th
from ui.pens import brush, pen
from ui.chapters.base import ChapterView, text_font
from ui.widgets import Segmented

MAX_PARTS = 8


class NamesAxis(pg.AxisItem):
    """A bottom axis that names the bars (one tick per bar, nothing between)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.names: list[str] = []

    def tickStrings(self, values, scale, spacing):
        out = []
        for v in values:
            i = int(round(v))
            out.append(self.names[i] if abs(v - i) < 1e-6 and 0 <= i < len(self.names) else "")
        return out


class GenerationsChapter(ChapterView):
    def build(self) -> None:
        self.points = ()
        self.title_row = self.add_chart_title()
        row = QHBoxLayout()
        row.setSpacing(10)
        self.bars_plot = self.make_plot("", "growth since the first part (×)")
        self.ridge_plot = self.make_plot("", "ridge point (FLOP per byte)")
        for p in (self.bars_plot, self.ridge_plot):
            ax = NamesAxis("bottom")
            p.getPlotItem().setAxisItems({"bottom": ax})
            p._names_axis = ax
            row.addWidget(p, 1)
        self.chart_lay.addLayout(row, 1)
        self.flops_bars = pg.BarGraphItem(x=[], height=[], width=0.38)
        self.bw_bars = pg.BarGraphItem(x=[], height=[], width=0.38)
        self.ridge_bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        self.bars_plot.addItem(self.flops_bars)
        self.bars_plot.addItem(self.bw_bars)
        self.ridge_plot.addItem(self.ridge_bars)
        self.bar_labels = [pg.TextItem(anchor=(0.5, 1)) for _ in range(2 * MAX_PARTS)]
        self.ridge_labels = [pg.TextItem(anchor=(0.5, 1)) for _ in range(MAX_PARTS)]
        for lab in self.bar_labels:
            self.bars_plot.addItem(lab, ignoreBounds=True)
        for lab in self.ridge_labels:
            self.ridge_plot.addItem(lab, ignoreBounds=True)
        self.line_pick = Segmented(("nvidia", "amd"), ("NVIDIA", "AMD"))
        self.line_pick.chosen.connect(lambda v: self.set_params(line=v))
        self.side_lay.addWidget(self.line_pick)
        self.show_pick = Segmented(("", "ridge"), ("Growth", "Ridge"))
        self.show_pick.chosen.connect(lambda v: self.set_params(show=v))
        self.side_lay.addWidget(self.show_pick)

    def sync_controls(self) -> None:
        self.line_pick.set_value(self.params.get("line", "nvidia"))
        self.show_pick.set_value(self.params.get("show", ""))

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.flops_bars.setOpts(brush=brush(th.BLUISH_GREEN), pen=pen(t.bg, width=1))
        self.bw_bars.setOpts(brush=brush(th.ORANGE), pen=pen(t.bg, width=1))
        for lab in (*self.bar_labels, *self.ridge_labels):
            lab.setFont(text_font(t, 15, bold=True))

    def update_view(self, e) -> None:
        line = self.params.get("line", "nvidia")
        ridge_mode = self.params.get("show") == "ridge"
        self.bars_plot.setVisible(not ridge_mode)
        self.ridge_plot.setVisible(ridge_mode)
        parts = LINES[line] if ridge_mode else LESSON_PARTS[line]
        self.points = pts = generations(parts, self.catalog)
        if ridge_mode:
            self._draw_ridge(pts)
        else:
            self._draw_growth(pts)
        vendor = "NVIDIA" if line == "nvidia" else "AMD INSTINCT"
        self.title_row.setText(f"{vendor} · RIDGE POINT = DENSE 16-BIT FLOP/s ÷ HBM BYTES/s" if ridge_mode else
                               f"{vendor} · DENSE 16-BIT FLOP/s AND HBM BANDWIDTH, ÷ THE {pts[0].name.upper()}'S")

    def _names(self, p, pts) -> None:
        n = len(pts)
        p._names_axis.names = [f"{q.name.split()[0]} ({q.year})" for q in pts]
        p._names_axis.setTicks([[(i, p._names_axis.names[i]) for i in range(n)]])
        p.getPlotItem().vb.setRange(xRange=(-0.6, n - 0.4), padding=0)

    def _draw_growth(self, pts) -> None:
        n = len(pts)
        x = np.arange(n, dtype=float)
        fv = np.array([p.flops_vs_first for p in pts])
        bv = np.array([p.bandwidth_vs_first for p in pts])
        self.flops_bars.setOpts(x=x - 0.2, height=fv)
        self.bw_bars.setOpts(x=x + 0.2, height=bv)
        self._names(self.bars_plot, pts)
        self.bars_plot.getPlotItem().vb.setRange(yRange=(0, float(max(fv.max(), bv.max())) * 1.25), padding=0)
        for i, lab in enumerate(self.bar_labels):
            k, which = divmod(i, 2)
            lab.setVisible(k < n)
            if k >= n:
                continue
            v = fv[k] if which == 0 else bv[k]
            lab.setText(f"{sig3(v)}×\n{'compute' if which == 0 else 'bandwidth'}")
            lab.setColor(th.BLUISH_GREEN if which == 0 else th.ORANGE)
            lab.setPos(k + (-0.2 if which == 0 else 0.2), v)
        first = pts[0]
        tips = self.bars_plot.tips
        tips.clear()
        for k, p in enumerate(pts):
            tips.rect(k - 0.39, 0, k - 0.01, fv[k], f"{p.name} ({p.year}): {si(p.flops16, 'FLOP/s')} dense 16-bit\n"
                                                    f"= {sig3(p.flops_vs_first)}× the {first.name}'s")
            tips.rect(k + 0.01, 0, k + 0.39, bv[k], f"{p.name} ({p.year}): {si(p.bandwidth_bytes_per_s, 'B/s')} HBM\n"
                                                    f"= {sig3(p.bandwidth_vs_first)}× the {first.name}'s")
        self.bars_plot.setToolTip("Dense (not sparse) 16-bit tensor FLOP/s and HBM bandwidth, each ÷ the first part's")

    def _draw_ridge(self, pts) -> None:
        t = self.theme
        n = len(pts)
        x = np.arange(n, dtype=float)
        ridge = np.array([p.ridge_flops_per_byte for p in pts])
        self.ridge_bars.setOpts(x=x, height=ridge, brush=brush(th.SKY_BLUE), pen=pen(t.bg, width=1))
        self._names(self.ridge_plot, pts)
        self.ridge_plot.getPlotItem().vb.setRange(yRange=(0, float(ridge.max()) * 1.2), padding=0)
        for k, lab in enumerate(self.ridge_labels):
            lab.setVisible(k < n)
            if k < n:
                lab.setText(sig3(ridge[k]))
                lab.setColor(t.text)
                lab.setPos(k, ridge[k])
        tips = self.ridge_plot.tips
        tips.clear()
        for k, p in enumerate(pts):
            tips.rect(k - 0.3, 0, k + 0.3, ridge[k], f"{p.name} ({p.year}): ridge {sig3(p.ridge_flops_per_byte)} "
                                                    f"FLOP/byte = {si(p.flops16, 'FLOP/s')} ÷ "
                                                    f"{si(p.bandwidth_bytes_per_s, 'B/s')}")
        self.ridge_plot.setToolTip("Ridge point: the FLOPs a kernel must do per byte it reads to keep the chip busy")

    def csv_rows(self):
        header = ["gpu_id", "name", "year", "flops16", "bandwidth_bytes_per_s", "flops_vs_first",
                  "bandwidth_vs_first", "ridge_flops_per_byte"]
        return header, [[p.gpu_id, p.name, p.year, p.flops16, p.bandwidth_bytes_per_s, p.flops_vs_first,
                         p.bandwidth_vs_first, p.ridge_flops_per_byte] for p in self.points]
