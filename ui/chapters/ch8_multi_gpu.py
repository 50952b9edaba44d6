"""Lesson 8: interconnect and multi-GPU.

One chart (model.lessons.ch8_multi_gpu.gpu_bars): the time of one decode step on 1, 2, 4 and 8
GPUs, as three parts: the GPU work (reading the weights, or the maths when that is longer:
it splits N ways), the all-reduces over the link, and the per-step software overhead
(neither splits). Each bar ends in its time and its speed-up over one GPU, against the
ideal N×. In the state that switches to published runs, each bar also names the measured
speed-up (model.lessons.ch8_multi_gpu.multi_gpu_measured).
"""
from __future__ import annotations

import pyqtgraph as pg

from model.readouts.format import duration, sig3
from model.lessons.ch8_multi_gpu import gpu_bars, multi_gpu_measured
from ui import theme as th
from ui.pens import brush, pen
from ui.chapters.base import ChapterView, text_font
from ui.chapters.ch1_generations import NamesAxis

KINDS = (("work", "GPU work"), ("comm", "all-reduces"), ("overhead", "overhead"))
COLOURS = {"memory": th.ORANGE, "compute": th.BLUISH_GREEN, "communication": th.ORANGE,
           "comm": th.BLUE, "overhead": "#8A8F98"}
BAR_H = 0.55
MAX_BARS = 8
INSIDE_MIN = 0.13


def ms(x: float) -> str:
    return duration(x / 1e3)


class MultiGpuChapter(ChapterView):
    def build(self) -> None:
        self.bars_data = ()
        self.measured = {}
        self.title_row = self.add_chart_title()
        self.names = NamesAxis("left")
        p = self.plot = self.make_plot("Time for one decode step (ms)", "")
        p.getPlotItem().setAxisItems({"left": self.names})
        p._left_em = 4.6
        self.chart_lay.addWidget(p, 1)
        self.work_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H)
        self.comm_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H)
        self.over_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H)
        for b in (self.work_bars, self.comm_bars, self.over_bars):
            p.addItem(b)
        self.end_labels = [pg.TextItem(anchor=(0, 0.5)) for _ in range(MAX_BARS)]
        self.inside = [pg.TextItem(anchor=(0.5, 0.5)) for _ in range(3 * MAX_BARS)]
        for lab in (*self.end_labels, *self.inside):
            p.addItem(lab, ignoreBounds=True)

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.comm_bars.setOpts(brush=brush(COLOURS["comm"]), pen=pen(t.bg, width=1))
        self.over_bars.setOpts(brush=brush(COLOURS["overhead"]), pen=pen(t.bg, width=1))
        for lab in self.end_labels:
            lab.setFont(text_font(t, 15, bold=True))
        for lab in self.inside:
            lab.setFont(text_font(t, 15, bold=True))

    def update_view(self, e) -> None:
        t = self.theme
        s = e.scenario
        bars = self.bars_data = gpu_bars(s, catalog=self.catalog)
        self.measured = meas = multi_gpu_measured(s, self.catalog)
        ys = list(range(len(bars)))[::-1]                     # 1 GPU on top
        work = [b.work_ms for b in bars]
        comm = [b.comm_ms for b in bars]
        self.work_bars.setOpts(x0=[0.0] * len(bars), y=ys, width=work, height=BAR_H,
                               brushes=[brush(COLOURS.get(b.bound, th.ORANGE) if b.bound != "communication"
                                                   else th.ORANGE) for b in bars], pen=pen(t.bg, width=1))
        self.comm_bars.setOpts(x0=work, y=ys, width=comm, height=BAR_H)
        self.over_bars.setOpts(x0=[w + c for w, c in zip(work, comm)], y=ys,
                               width=[b.overhead_ms for b in bars], height=BAR_H)
        x_max = max(b.total_ms for b in bars) * 1.75
        for i, lab in enumerate(self.end_labels):
            lab.setVisible(i < len(bars))
            if i < len(bars):
                b = bars[i]
                text = f"{ms(b.total_ms)} · {sig3(b.speedup)}× (ideal {b.gpus}×)"
                if b.gpus in meas:
                    text = f"{ms(b.total_ms)} · model {sig3(meas[b.gpus][1])}× · measured {sig3(meas[b.gpus][0])}×"
                rest = f"all-reduces {ms(b.comm_ms)} · overhead {ms(b.overhead_ms)}" if b.comm_ms > 0 else \
                    f"overhead {ms(b.overhead_ms)}"
                lab.setText(f"{text}\n{rest}" + ("" if b.fits else " · does not fit: as if it did"))
                lab.setColor(t.op_point if b.gpus == s.gpus else t.text)
                lab.setPos(b.total_ms + x_max * 0.01, ys[i])
        self._inside_labels(bars, ys, x_max)
        self.names.names = [f"{b.gpus} GPU{'s' if b.gpus > 1 else ''}" for b in bars][::-1]
        self.names.setTicks([[(y, f"{b.gpus} GPU{'s' if b.gpus > 1 else ''}") for y, b in zip(ys, bars)]])
        self.plot.getPlotItem().vb.setRange(xRange=(0, x_max), yRange=(-0.6, len(bars) - 0.4), padding=0)
        self.title_row.setText(f"{e.model_name.upper()} · {e.precision_name} · {e.gpu_name.upper()} · "
                               f"{(e.link_name or '').upper()} · BATCH {s.batch}")
        tips = self.plot.tips
        tips.clear()
        for b, y in zip(bars, ys):
            tips.rect(0, y - BAR_H / 2, b.total_ms, y + BAR_H / 2,
                      f"{b.gpus} GPU{'s' if b.gpus > 1 else ''}: {ms(b.total_ms)} = GPU work {ms(b.work_ms)} + "
                      f"all-reduces {ms(b.comm_ms)} + overhead {ms(b.overhead_ms)}; {sig3(b.speedup)}× one GPU, "
                      f"{b.bound}-bound")
        self.plot.setToolTip("One decode step on 1 to 8 GPUs: the GPU work splits, the all-reduces and the "
                             "software overhead do not")

    def _inside_labels(self, bars, ys, x_max) -> None:
        k = 0
        for b, y in zip(bars, ys):
            x0 = 0.0
            work_name = "maths" if b.bound == "compute" else "weight reads"
            for (kind, name), w in zip(KINDS, (b.work_ms, b.comm_ms, b.overhead_ms)):
                lab = self.inside[k]
                k += 1
                fit = w >= INSIDE_MIN * x_max
                lab.setVisible(fit)
                if fit:
                    lab.setText(work_name if kind == "work" else name)
                    lab.setColor("#000000" if kind == "work" else "#FFFFFF")
                    lab.setPos(x0 + w / 2, y)
                x0 += w
        for lab in self.inside[k:]:
            lab.setVisible(False)

    def extra_details(self) -> tuple[str, ...]:
        return tuple(f"Published, {n} GPUs: measured {sig3(m)}× one GPU, model {sig3(p)}×"
                     for n, (m, p) in sorted(self.measured.items()) if n > 1)

    def csv_rows(self):
        header = ["gpus", "work_ms", "allreduce_ms", "overhead_ms", "total_ms", "speedup", "bound",
                  "measured_speedup", "model_speedup_of_measured_run"]
        rows = []
        for b in self.bars_data:
            m = self.measured.get(b.gpus, (None, None))
            rows.append([b.gpus, b.work_ms, b.comm_ms, b.overhead_ms, b.total_ms, b.speedup, b.bound, m[0], m[1]])
        return header, rows
