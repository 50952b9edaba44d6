"""Lesson 1: compute has outgrown memory bandwidth.

Bars per generation (model.lessons.generations): dense 16-bit FLOP/s and HBM B/s, each ÷
the first part of the line, and beside them the ridge point FLOP/s ÷ B/s of each part.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel

from model.format import si, sig3
from model.lessons import AMD_LINE, NVIDIA_LINE, generations
from ui import theme as th
from ui.chapters.base import ChapterView, text_font
from ui.controls import Segmented

LINES = {"nvidia": NVIDIA_LINE, "amd": AMD_LINE}
MAX_PARTS = 8


class NamesAxis(pg.AxisItem):
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
        row = QHBoxLayout()
        row.setSpacing(10)
        self.bars_plot = self.make_plot("", "× the first part of the line")
        self.ridge_plot = self.make_plot("", "ridge point (FLOP per byte)")
        for p in (self.bars_plot, self.ridge_plot):
            ax = NamesAxis("bottom")
            p.getPlotItem().setAxisItems({"bottom": ax})
            p._names_axis = ax
        row.addWidget(self.bars_plot, 3)
        row.addWidget(self.ridge_plot, 2)
        self.chart_title = QLabel("")
        self.chart_title.setObjectName("chartTitle")
        self.chart_lay.addWidget(self.chart_title)
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
        self.legend = self.bars_plot.getPlotItem().addLegend(offset=(10, 10))
        self.legend.addItem(self.flops_bars, "dense 16-bit FLOP/s")
        self.legend.addItem(self.bw_bars, "HBM bandwidth")

        self.side_lay.addWidget(self._label("GPU line"))
        self.line_pick = Segmented(("nvidia", "amd"), ("NVIDIA", "AMD"))
        self.line_pick.chosen.connect(lambda v: self.set_params(line=v))
        self.side_lay.addWidget(self.line_pick)
        self.ridge_box = QCheckBox("Highlight the ridge points")
        self.ridge_box.toggled.connect(lambda on: self.set_params(show="ridge" if on else ""))
        self.side_lay.addWidget(self.ridge_box)
        self.summary = self.note_label(name="chapterValue")
        self.side_lay.addWidget(self.summary)

    def _label(self, text):
        lab = QLabel(text)
        lab.setObjectName("controlLabel")
        return lab

    def sync_controls(self) -> None:
        self.line_pick.set_value(self.params.get("line", "nvidia"))
        with QSignalBlocker(self.ridge_box):
            self.ridge_box.setChecked(self.params.get("show") == "ridge")

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.flops_bars.setOpts(brush=pg.mkBrush(th.BLUISH_GREEN), pen=pg.mkPen(t.bg, width=1))
        self.bw_bars.setOpts(brush=pg.mkBrush(th.ORANGE), pen=pg.mkPen(t.bg, width=1))
        for lab in (*self.bar_labels, *self.ridge_labels):
            lab.setFont(text_font(t, 13, bold=True))
        self.legend.setLabelTextColor(t.text)
        self.legend.setLabelTextSize(f"{t.px(13)}px")

    def update_view(self, e) -> None:
        t = self.theme
        line = self.params.get("line", "nvidia")
        self.points = pts = generations(LINES[line], self.catalog)
        n = len(pts)
        x = np.arange(n, dtype=float)
        fv = np.array([p.flops_vs_first for p in pts])
        bv = np.array([p.bandwidth_vs_first for p in pts])
        ridge = np.array([p.ridge_flops_per_byte for p in pts])
        self.flops_bars.setOpts(x=x - 0.2, height=fv)
        self.bw_bars.setOpts(x=x + 0.2, height=bv)
        highlight = self.params.get("show") == "ridge"
        self.ridge_bars.setOpts(x=x, height=ridge, brush=pg.mkBrush(t.text if highlight else t.roof_dim),
                                pen=pg.mkPen(th.YELLOW if highlight else t.bg, width=1))
        for p in (self.bars_plot, self.ridge_plot):
            short = p is self.ridge_plot
            p._names_axis.names = [q.name.split()[0] if short else f"{q.name} ({q.year})" for q in pts]
            p.getPlotItem().vb.setRange(xRange=(-0.7, n - 0.3), padding=0)
            p._names_axis.setTicks([[(i, p._names_axis.names[i]) for i in range(n)]])
        top = float(max(fv.max(), bv.max()))
        self.bars_plot.getPlotItem().vb.setRange(yRange=(0, top * 1.18), padding=0)
        self.ridge_plot.getPlotItem().vb.setRange(yRange=(0, float(ridge.max()) * 1.22), padding=0)
        for i, lab in enumerate(self.bar_labels):
            k, which = divmod(i, 2)
            if k >= n:
                lab.setVisible(False)
                continue
            v = fv[k] if which == 0 else bv[k]
            lab.setText(f"{sig3(v)}×")
            lab.setColor(th.BLUISH_GREEN if which == 0 else th.ORANGE)
            lab.setPos(k + (-0.2 if which == 0 else 0.2), v)
            lab.setVisible(True)
        for k, lab in enumerate(self.ridge_labels):
            if k >= n:
                lab.setVisible(False)
                continue
            lab.setText(sig3(ridge[k]))
            lab.setColor(t.text)
            lab.setPos(k, ridge[k])
            lab.setVisible(True)
        first, last = pts[0], pts[-1]
        self.chart_title.setText(f"{'NVIDIA' if line == 'nvidia' else 'AMD INSTINCT'} — NORMALISED TO {first.name}"
                                 "  ·  RIDGE POINT = FLOP/s ÷ B/s")
        self.bars_plot.setToolTip("\n".join(
            f"{p.name} ({p.year}): {si(p.flops16, 'FLOP/s')} dense 16-bit = {sig3(p.flops_vs_first)}×, "
            f"{si(p.bandwidth_bytes_per_s, 'B/s')} HBM = {sig3(p.bandwidth_vs_first)}×" for p in pts))
        self.ridge_plot.setToolTip("\n".join(
            f"{p.name}: {si(p.flops16, 'FLOP/s')} ÷ {si(p.bandwidth_bytes_per_s, 'B/s')} = "
            f"{sig3(p.ridge_flops_per_byte)} FLOP/byte" for p in pts))
        bt, rt = self.bars_plot.tips, self.ridge_plot.tips
        bt.clear()
        rt.clear()
        for k, p in enumerate(pts):
            bt.rect(k - 0.39, 0, k - 0.01, fv[k],
                    f"{p.name} ({p.year}): {si(p.flops16, 'FLOP/s')} dense 16-bit\n"
                    f"= {sig3(p.flops_vs_first)}× the {first.name}'s {si(first.flops16, 'FLOP/s')}")
            bt.rect(k + 0.01, 0, k + 0.39, bv[k],
                    f"{p.name} ({p.year}): {si(p.bandwidth_bytes_per_s, 'B/s')} HBM bandwidth\n"
                    f"= {sig3(p.bandwidth_vs_first)}× the {first.name}'s {si(first.bandwidth_bytes_per_s, 'B/s')}")
            rt.rect(k - 0.3, 0, k + 0.3, ridge[k],
                    f"{p.name} ({p.year}): ridge point {sig3(p.ridge_flops_per_byte)} FLOP/byte\n"
                    f"= {si(p.flops16, 'FLOP/s')} ÷ {si(p.bandwidth_bytes_per_s, 'B/s')}")
        mid = next((p for p in pts if p.gpu_id.startswith("h100")), None)
        lines = [f"{first.name} → {last.name}: compute <b style='color:{th.BLUISH_GREEN}'>{sig3(last.flops_vs_first)}×</b>, "
                 f"bandwidth <b style='color:{th.ORANGE}'>{sig3(last.bandwidth_vs_first)}×</b>"]
        if mid is not None:
            lines.append(f"{first.name} → {mid.name}: {sig3(mid.flops_vs_first)}× vs {sig3(mid.bandwidth_vs_first)}×")
        lines.append(f"ridge {sig3(first.ridge_flops_per_byte)} → {sig3(last.ridge_flops_per_byte)} FLOP/byte")
        self.summary.setText("<br>".join(lines))

    def csv_rows(self):
        header = ["gpu_id", "name", "year", "flops16", "bandwidth_bytes_per_s", "flops_vs_first",
                  "bandwidth_vs_first", "ridge_flops_per_byte"]
        return header, [[p.gpu_id, p.name, p.year, p.flops16, p.bandwidth_bytes_per_s, p.flops_vs_first,
                         p.bandwidth_vs_first, p.ridge_flops_per_byte] for p in self.points]
