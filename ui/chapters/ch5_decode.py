"""Lesson 5: why decode is memory-bound.

One chart (model.lessons.ch5_decode.decode_chart): what one decode step (one token per
sequence) is made of, in ms. Top bar, the floor: every weight byte and the KV cache read
once at the datasheet bandwidth. Middle bar, the realistic time: the same reads at the
achieved bandwidth, the maths beyond the reads (none while memory-bound), the all-reduces
and the software overhead. Bottom bar: the tensor-core maths, which runs under the reads.
Every segment is named in words beside its bar, and inside it where it is wide enough.
"""
from __future__ import annotations

import pyqtgraph as pg

from ui.kit import theme as th
from ui.chapters.base import ChapterView
from ui.chapters.look import LABEL, text_font
from ui.kit.pens import brush, pen
from ui.plotting.axes import NamesAxis
from ui.plotting.coords import headroom, row, shift, wide_enough
from ui.plotting.labels import add_texts, set_fonts, show_text, show_texts

KINDS = {"weights": th.ORANGE, "kv": th.REDDISH_PURPLE, "compute": th.BLUISH_GREEN, "comm": th.BLUE,
         "overhead": "#8A8F98"}
DARK_WORDS = ("weights", "compute")               # black words on the light bars, white on the others
BAR_H = 0.42
ROW_TEXT_DY = -0.25                               # a row's sentence hangs just under its bar
INSIDE_MIN = 0.12                                 # a segment names itself inside when ≥ this share of the axis
Y_RANGE = (-0.75, 2.35)
N_ROWS = 3


class DecodeChapter(ChapterView):
    def build(self) -> None:
        self.title_row = self.add_chart_title()
        self.names = NamesAxis("left")
        p = self.plot = self.make_plot("Time for one decode step (ms)", "")
        p.getPlotItem().setAxisItems({"left": self.names})
        p._left_em = 6.0
        self.add_legend(p)
        self.chart_lay.addWidget(p, 1)
        self.bars = {k: pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H) for k in KINDS}
        for b in self.bars.values():
            p.addItem(b)
        self.row_labels = add_texts(p, N_ROWS, (0, 0))
        self.inside = {k: add_texts(p, N_ROWS, (0.5, 0.5)) for k in KINDS}

    @property
    def breakdown(self):
        return self.figure.breakdown if self.figure is not None else None

    def apply_plot_theme(self, t: th.Theme) -> None:
        font = text_font(t, LABEL, bold=True)
        for k, colour in KINDS.items():
            self.bars[k].setOpts(brush=brush(colour), pen=pen(t.bg, width=1))
            set_fonts(self.inside[k], font)
        set_fonts(self.row_labels, font)

    def update_view(self, e) -> None:
        t = self.theme
        f = self.figure
        x_range = headroom([f.total_ms, self.axis_extent()[1]], 1.04)        # one axis for the whole chapter
        tips = self.plot.tips
        tips.clear()
        for k in KINDS:
            segs = [s for s in f.segments if s.kind == k]
            self.bars[k].setOpts(x0=[s.start for s in segs], y=[s.slot for s in segs],
                                 width=[s.length for s in segs], height=BAR_H)
            roomy = [s for s in segs if wide_enough(s.length, x_range, INSIDE_MIN)]
            words = "#000000" if k in DARK_WORDS else "#FFFFFF"
            show_texts(self.inside[k], ((s.label, words, row(s.slot, BAR_H, s.start, s.length).centre) for s in roomy))
            for s in segs:
                tips.rect(*row(s.slot, BAR_H, s.start, s.length).corners, s.tip)
        for slot, (lab, text) in enumerate(zip(self.row_labels, f.row_texts)):
            show_text(lab, text, t.text, shift((0, slot), dy=ROW_TEXT_DY))
        self.names.set_names(f.names)
        self.plot.getPlotItem().vb.setRange(xRange=x_range, yRange=Y_RANGE, padding=0)
        self.title_row.setText(f.title)
        self.set_legend(self.plot, [(KINDS[k], w) for k, w in f.legend])
        self.plot.setToolTip(f.tooltip)

    def csv_rows(self):
        b = self.breakdown
        header = ["part", "floor_ms", "realistic_ms"]
        return header, [["weights", b.floor_weights_ms, b.weights_ms], ["kv_cache_and_activations", b.floor_kv_ms,
                                                                         b.kv_ms],
                        ["maths_beyond_reads", 0.0, b.extra_compute_ms], ["all_reduces", 0.0, b.comm_ms],
                        ["overhead", 0.0, b.overhead_ms], ["total", b.floor_ms, b.total_ms],
                        ["tensor_core_maths", b.compute_ms, b.compute_ms]]
