"""Lesson 1: compute has outgrown memory bandwidth.

One chart per state (model.lessons.ch1_generations.generation_chart): either the growth of
dense 16-bit FLOP/s and of HBM B/s since the first part of the line (the lesson's parts:
V100 → A100 → H100, or AMD's Instinct line), or the ridge point FLOP/s ÷ B/s of every part.
Each bar carries its number and its word, so colour is never the only clue.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout

from ui.kit import theme as th
from ui.chapters.base import ChapterView
from ui.chapters.look import LABEL, text_font
from ui.kit.pens import brush, pen
from ui.plotting.axes import NamesAxis
from ui.plotting.coords import column, headroom, slot_range, slots
from ui.plotting.labels import add_texts, set_fonts, show_texts
from ui.kit.widgets import Segmented

MAX_PARTS = 8
GROWTH_W, FLOPS_AT, BANDWIDTH_AT = 0.38, -0.2, 0.2     # two bars a part, side by side
RIDGE_W = 0.6
X_PAD = 0.6


class GenerationsChapter(ChapterView):
    def build(self) -> None:
        self.title_row = self.add_chart_title()
        row = QHBoxLayout()
        row.setSpacing(10)
        self.bars_plot = self.make_plot("", "growth since the first part (×)", bottom_axis=NamesAxis("bottom"))
        self.ridge_plot = self.make_plot("", "ridge point (FLOP per byte)", bottom_axis=NamesAxis("bottom"))
        self.add_legend(self.bars_plot)
        self.ridge_plot.legend_label = self.bars_plot.legend_label
        for p in (self.bars_plot, self.ridge_plot):
            row.addWidget(p, 1)
        self.chart_lay.addLayout(row, 1)
        self.flops_bars = pg.BarGraphItem(x=[], height=[], width=GROWTH_W)
        self.bw_bars = pg.BarGraphItem(x=[], height=[], width=GROWTH_W)
        self.ridge_bars = pg.BarGraphItem(x=[], height=[], width=RIDGE_W)
        self.bars_plot.addItem(self.flops_bars)
        self.bars_plot.addItem(self.bw_bars)
        self.ridge_plot.addItem(self.ridge_bars)
        self.flops_labels = add_texts(self.bars_plot, MAX_PARTS, anchor=(0.5, 1))
        self.bw_labels = add_texts(self.bars_plot, MAX_PARTS, anchor=(0.5, 1))
        self.ridge_labels = add_texts(self.ridge_plot, MAX_PARTS, anchor=(0.5, 1))
        self.line_pick = Segmented(("nvidia", "amd"), ("NVIDIA", "AMD"))
        self.line_pick.chosen.connect(lambda v: self.set_params(line=v))
        self.side_lay.addWidget(self.line_pick)
        self.show_pick = Segmented(("", "ridge"), ("Growth", "Ridge"))
        self.show_pick.chosen.connect(lambda v: self.set_params(show=v))
        self.side_lay.addWidget(self.show_pick)

    @property
    def points(self):
        return self.figure.points if self.figure is not None else ()

    def sync_controls(self) -> None:
        self.line_pick.set_value(self.params.get("line", "nvidia"))
        self.show_pick.set_value(self.params.get("show", ""))

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.flops_bars.setOpts(brush=brush(th.BLUISH_GREEN), pen=pen(t.bg, width=1))
        self.bw_bars.setOpts(brush=brush(th.ORANGE), pen=pen(t.bg, width=1))
        self.ridge_bars.setOpts(brush=brush(th.SKY_BLUE), pen=pen(t.bg, width=1))
        set_fonts((*self.flops_labels, *self.bw_labels, *self.ridge_labels), text_font(t, LABEL, bold=True))

    def update_view(self, e) -> None:
        f = self.figure
        self.bars_plot.setVisible(not f.ridge_mode)
        self.ridge_plot.setVisible(f.ridge_mode)
        if f.ridge_mode:
            self._draw_ridge(f)
        else:
            self._draw_growth(f)
        self.title_row.setText(f.title)
        colours = {"flops": th.BLUISH_GREEN, "bandwidth": th.ORANGE, "ridge": th.SKY_BLUE}
        self.set_legend(self.bars_plot, [(colours[k], w) for k, w in f.legend])

    def _names(self, p, names) -> None:
        p.getPlotItem().getAxis("bottom").set_names(names)
        p.getPlotItem().vb.setRange(xRange=slot_range(len(names), X_PAD), padding=0)

    def _bars(self, p, item, labels, bars, x, width, colour) -> None:
        """One series of bars: heights, a label on each, a hover box over each."""
        item.setOpts(x=x, height=[b.length for b in bars])
        show_texts(labels, ((b.label, colour, (cx, b.length)) for cx, b in zip(x, bars)))
        for cx, b in zip(x, bars):
            p.tips.rect(*column(cx, width, b.length).corners, b.tip)

    def _draw_growth(self, f) -> None:
        n = len(f.names)
        p = self.bars_plot
        p.tips.clear()
        self._bars(p, self.flops_bars, self.flops_labels, f.flops, slots(n, FLOPS_AT), GROWTH_W, th.BLUISH_GREEN)
        self._bars(p, self.bw_bars, self.bw_labels, f.bandwidth, slots(n, BANDWIDTH_AT), GROWTH_W, th.ORANGE)
        self._names(p, f.names)
        p.getPlotItem().vb.setRange(yRange=headroom([b.length for b in (*f.flops, *f.bandwidth)], 1.25), padding=0)
        p.setToolTip(f.tooltip)

    def _draw_ridge(self, f) -> None:
        p = self.ridge_plot
        p.tips.clear()
        self._bars(p, self.ridge_bars, self.ridge_labels, f.ridge, slots(len(f.names)), RIDGE_W, self.theme.text)
        self._names(p, f.names)
        p.getPlotItem().vb.setRange(yRange=headroom([b.length for b in f.ridge], 1.32), padding=0)   # the top tick clear of the edge
        p.setToolTip(f.tooltip)

    def csv_rows(self):
        header = ["gpu_id", "name", "year", "flops16", "bandwidth_bytes_per_s", "flops_vs_first",
                  "bandwidth_vs_first", "ridge_flops_per_byte"]
        return header, [[p.gpu_id, p.name, p.year, p.flops16, p.bandwidth_bytes_per_s, p.flops_vs_first,
                         p.bandwidth_vs_first, p.ridge_flops_per_byte] for p in self.points]
