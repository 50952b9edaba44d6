"""Lesson 7: numeric precision.

One chart (model.lessons.precision_table): per precision, the weights in GB as a bar, and
at its end the floor time per token and the fewest GPUs it fits on (and "emulated" where
the GPU has no tensor-core path for it). The dashed line is one GPU's memory. The state's
precision is drawn in the highlight colour. Published FP16-vs-FP8 runs show in the details
and the key number only in the state that switches to their scenario
(model.lessons.ch7_precision.precision_facts).
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

from model.readouts.format import duration, si
from model.lessons.ch7_precision import precision_table
from ui import theme as th
from ui.pens import brush, pen
from ui.chapters.base import ChapterView, text_font
from ui.chapters.ch1_generations import NamesAxis

MAX_ROWS = 8
BAR_H = 0.6


def short_name(name: str) -> str:
    return name.split(" (")[0].replace(" weights", "")


class PrecisionChapter(ChapterView):
    def build(self) -> None:
        self.table = ()
        self.title_row = self.add_chart_title()
        self.names = NamesAxis("left")
        p = self.plot = self.make_plot("Weights (GB, all GPUs together)", "")
        p.getPlotItem().setAxisItems({"left": self.names})
        p._left_em = 4.0
        p.getPlotItem().invertY(True)
        self.chart_lay.addWidget(p, 1)
        self.bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H)
        p.addItem(self.bars)
        self.cap_line = pg.InfiniteLine(angle=90, movable=False)
        p.addItem(self.cap_line, ignoreBounds=True)
        self.cap_label = pg.TextItem(anchor=(0, 1))
        p.addItem(self.cap_label, ignoreBounds=True)
        self.labels = [pg.TextItem(anchor=(0, 0.5)) for _ in range(MAX_ROWS)]
        for lab in self.labels:
            p.addItem(lab, ignoreBounds=True)

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.cap_line.setPen(pen(th.VERMILLION, width=2, style=Qt.DashLine))
        self.cap_label.setFont(text_font(t, 15, bold=True))
        for lab in self.labels:
            lab.setFont(text_font(t, 15, bold=True))

    def update_view(self, e) -> None:
        t = self.theme
        s = e.scenario
        rows = self.table = precision_table(s, catalog=self.catalog)
        n = len(rows)
        gb = [r.weight_bytes_total / 1e9 for r in rows]
        cur = s.precision
        self.bars.setOpts(x0=[0.0] * n, y=list(range(n)), width=gb, height=BAR_H,
                          brushes=[brush(t.op_point if r.precision_id == cur else th.ORANGE) for r in rows],
                          pens=[pen(t.bg, width=1)] * n)
        cap_gb = e.hbm_capacity_bytes / 1e9
        x_max = max(max(gb), cap_gb) * 1.9
        for i, lab in enumerate(self.labels):
            lab.setVisible(i < n)
            if i < n:
                r = rows[i]
                fit = f"fits on {r.gpus_to_fit} GPU{'s' if (r.gpus_to_fit or 0) > 1 else ''}" if r.gpus_to_fit \
                    else "fits on no GPU count"
                lab.setText(f"{si(r.weight_bytes_total, 'B')} · floor {duration(r.floor_ms_per_token / 1e3)} · {fit}"
                            + (" · emulated" if r.emulated else ""))
                lab.setColor(t.op_point if r.precision_id == cur else t.text)
                lab.setPos(max(gb[i], cap_gb) + x_max * 0.01, i)     # never across the capacity line
        self.names.names = [short_name(r.name) for r in rows]
        self.names.setTicks([[(i, short_name(r.name)) for i, r in enumerate(rows)]])
        self.cap_line.setValue(cap_gb)
        self.cap_label.setText(f"one GPU: {si(e.hbm_capacity_bytes, 'B')}")
        self.cap_label.setColor(th.VERMILLION)
        self.cap_label.setPos(cap_gb + x_max * 0.005, -0.42)
        self.plot.getPlotItem().vb.setRange(xRange=(0, x_max), yRange=(-0.95, n - 0.45), padding=0)
        self.title_row.setText(f"{e.model_name.upper()} ON {e.gpu_name.upper()} · BATCH {s.batch} · "
                               f"{s.input_len:,} IN / {s.output_len:,} OUT")
        tips = self.plot.tips
        tips.clear()
        for i, r in enumerate(rows):
            tips.rect(0, i - BAR_H / 2, gb[i], i + BAR_H / 2,
                      f"{r.name}: {si(r.weight_bytes_total, 'B')} of weights ({r.weight_bits:g} bits each); floor "
                      f"{duration(r.floor_ms_per_token / 1e3)}, realistic {duration(r.ms_per_token / 1e3)} per token; "
                      f"maths {'emulated' if r.emulated else 'native'}; accuracy: {r.accuracy_note}")
        self.plot.setToolTip("Weights per precision; the floor per token follows the bytes")

    def csv_rows(self):
        header = ["precision_id", "name", "weight_bits", "weight_bytes_total", "floor_ms_per_token", "ms_per_token",
                  "gpus_to_fit", "emulated", "accuracy_note"]
        return header, [[r.precision_id, r.name, r.weight_bits, r.weight_bytes_total, r.floor_ms_per_token,
                         r.ms_per_token, r.gpus_to_fit, r.emulated, r.accuracy_note] for r in self.table]
