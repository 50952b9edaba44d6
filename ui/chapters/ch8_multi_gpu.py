"""Lesson 8: interconnect and multi-GPU.

One chart (model.lessons.ch8_multi_gpu.multi_gpu_chart): the time of one decode step on 1, 2,
4 and 8 GPUs, as three parts: the GPU work (reading the weights, or the maths when that is
longer: it splits N ways), the all-reduces over the link, and the per-step software overhead
(neither splits). Each bar ends in its time and its speed-up over one GPU, against the
ideal N×. In the state that switches to published runs, each bar also names the measured
speed-up (model.lessons.ch8_multi_gpu.multi_gpu_measured).
"""
from __future__ import annotations

import pyqtgraph as pg

from ui.kit import theme as th
from ui.chapters.base import ChapterView
from ui.chapters.look import LABEL, text_font
from ui.kit.pens import brush, pen
from ui.plotting.axes import NamesAxis
from ui.plotting.coords import headroom, past, row, slot_range, wide_enough
from ui.plotting.labels import add_texts, set_fonts, show_texts

COLOURS = {"memory": th.ORANGE, "compute": th.BLUISH_GREEN, "communication": th.ORANGE,
           "comm": th.BLUE, "overhead": "#8A8F98"}
BAR_H = 0.55
MAX_BARS = 8
INSIDE_LABELS = 24                # three parts a bar
INSIDE_MIN = 0.13


class MultiGpuChapter(ChapterView):
    def build(self) -> None:
        self.title_row = self.add_chart_title()
        self.names = NamesAxis("left")
        p = self.plot = self.make_plot("Time for one decode step (ms)", "")
        p.getPlotItem().setAxisItems({"left": self.names})
        p.getPlotItem().invertY(True)                 # 1 GPU on top
        p._left_em = 4.6
        self.add_legend(p)
        self.chart_lay.addWidget(p, 1)
        self.work_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H)
        self.comm_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H)
        self.over_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H)
        for b in (self.work_bars, self.comm_bars, self.over_bars):
            p.addItem(b)
        self.end_labels = add_texts(p, MAX_BARS, (0, 0.5))
        self.inside = add_texts(p, INSIDE_LABELS, (0.5, 0.5))

    @property
    def bars_data(self):
        return self.figure.bars if self.figure is not None else ()

    @property
    def measured(self):
        return self.figure.measured if self.figure is not None else {}

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.comm_bars.setOpts(brush=brush(COLOURS["comm"]), pen=pen(t.bg, width=1))
        self.over_bars.setOpts(brush=brush(COLOURS["overhead"]), pen=pen(t.bg, width=1))
        set_fonts((*self.end_labels, *self.inside), text_font(t, LABEL, bold=True))

    def update_view(self, e) -> None:
        t = self.theme
        f = self.figure
        x_range = headroom([*(b.length for b in f.totals), self.axis_extent()[1]], 1.75)   # one axis for the chapter
        for item, bars in ((self.work_bars, f.work), (self.comm_bars, f.comm), (self.over_bars, f.overhead)):
            item.setOpts(x0=[b.start for b in bars], y=[b.slot for b in bars], width=[b.length for b in bars],
                         height=BAR_H)
        self.work_bars.setOpts(brushes=[brush(COLOURS.get(b.kind, th.ORANGE)) for b in f.work], pen=pen(t.bg, width=1))
        show_texts(self.end_labels, ((b.label, t.op_point if b.kind == "current" else t.text,
                                      (past((b.end,), x_range, 0.01), b.slot)) for b in f.totals))
        inside = [(b, words) for bars, words in ((f.work, "#000000"), (f.comm, "#FFFFFF"), (f.overhead, "#FFFFFF"))
                  for b in bars if wide_enough(b.length, x_range, INSIDE_MIN)]
        show_texts(self.inside, ((b.label, words, row(b.slot, BAR_H, b.start, b.length).centre) for b, words in inside))
        self.names.set_names(f.names)
        self.plot.getPlotItem().vb.setRange(xRange=x_range, yRange=slot_range(len(f.totals), 0.6), padding=0)
        self.title_row.setText(f.title)
        self.set_legend(self.plot, [(COLOURS[k], w) for k, w in f.legend])
        tips = self.plot.tips
        tips.clear()
        for b in f.totals:
            tips.rect(*row(b.slot, BAR_H, b.start, b.length).corners, b.tip)
        self.plot.setToolTip(f.tooltip)

    def extra_details(self) -> tuple[str, ...]:
        return self.figure.measured_lines if self.figure is not None else ()

    def csv_rows(self):
        header = ["gpus", "work_ms", "allreduce_ms", "overhead_ms", "total_ms", "speedup", "bound",
                  "measured_speedup", "model_speedup_of_measured_run"]
        rows = []
        for b in self.bars_data:
            m = self.measured.get(b.gpus, (None, None))
            rows.append([b.gpus, b.work_ms, b.comm_ms, b.overhead_ms, b.total_ms, b.speedup, b.bound, m[0], m[1]])
        return header, rows
