"""Lesson 7: numeric precision.

One chart (model.lessons.ch7_precision.precision_chart): per precision, the weights in GB as a
bar, and at its end the floor time per token and the fewest GPUs it fits on (and "emulated"
where the GPU has no tensor-core path for it). The dashed line is one GPU's memory. The
state's precision is drawn in the highlight colour. Published FP16-vs-FP8 runs show in the
details and the key number only in the state that switches to their scenario
(model.lessons.ch7_precision.precision_facts).
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

from ui.kit import theme as th
from ui.chapters.base import ChapterView
from ui.chapters.look import LABEL, text_font
from ui.kit.pens import brush, pen
from ui.plotting.axes import NamesAxis
from ui.plotting.coords import headroom, past, row, slot_range
from ui.plotting.labels import (add_text, add_texts, avoid_labels, covers, inside, set_fonts, show_text, show_texts,
                                view_pixels)

MAX_ROWS = 8
BAR_H = 0.6
CAP_LABEL_Y = -0.42                   # one GPU's memory is named above the first bar
MARGIN_PX = 2                         # … its words' blank margin may touch a row's


class PrecisionChapter(ChapterView):
    def build(self) -> None:
        self.title_row = self.add_chart_title()
        self.names = NamesAxis("left")
        p = self.plot = self.make_plot("Weights (GB, all GPUs together)", "")
        p.getPlotItem().setAxisItems({"left": self.names})
        p._left_em = 4.0
        p.getPlotItem().invertY(True)
        self.add_legend(p)
        self.chart_lay.addWidget(p, 1)
        self.bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H)
        p.addItem(self.bars)
        self.cap_line = pg.InfiniteLine(angle=90, movable=False)
        p.addItem(self.cap_line, ignoreBounds=True)
        self.cap_label = add_text(p, (0, 1))
        self.labels = add_texts(p, MAX_ROWS, (0, 0.5))

    @property
    def table(self):
        return self.figure.rows if self.figure is not None else ()

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.cap_line.setPen(pen(th.VERMILLION, width=2, style=Qt.DashLine))
        set_fonts((self.cap_label, *self.labels), text_font(t, LABEL, bold=True))

    def update_view(self, e) -> None:
        t = self.theme
        f = self.figure
        bars = f.bars
        x_range = headroom([*(b.length for b in bars), f.capacity_gb, self.axis_extent()[1]], 1.9)   # one axis, the chapter
        self.bars.setOpts(x0=[b.start for b in bars], y=[b.slot for b in bars], width=[b.length for b in bars],
                          height=BAR_H, brushes=[brush(t.op_point if b.kind == "current" else th.ORANGE) for b in bars],
                          pens=[pen(t.bg, width=1) for _ in bars])
        show_texts(self.labels, ((b.label, t.op_point if b.kind == "current" else t.text,
                                  (past((b.end, f.capacity_gb), x_range, 0.01), b.slot))     # never across the line
                                 for b in bars))
        self.names.set_names(f.names)
        self.cap_line.setValue(f.capacity_gb)
        show_text(self.cap_label, f.capacity_label, th.VERMILLION, (past((f.capacity_gb,), x_range, 0.005), CAP_LABEL_Y))
        self.plot.getPlotItem().vb.setRange(xRange=x_range, yRange=slot_range(len(bars), 1.05, 0.55), padding=0)
        self.title_row.setText(f.title)
        colours = {"": th.ORANGE, "current": t.op_point}
        self.set_legend(self.plot, [(colours[k], w) for k, w in f.legend])
        tips = self.plot.tips
        tips.clear()
        for b in bars:
            tips.rect(*row(b.slot, BAR_H, b.start, b.length).corners, b.tip)
        self.plot.setToolTip(f.tooltip)

    def place_labels(self) -> None:
        """One GPU's memory named right of its line, above the first bar; where a row's words
        (wrapped on a narrow chart) reach up to it, left of the line where it fits there."""
        f = self.figure
        vb = self.plot.getPlotItem().vb
        px = view_pixels(vb)
        x_range, y_range = vb.viewRange()
        lab = self.cap_label
        lab.setTextWidth(-1)
        rows = avoid_labels(self.labels, px)
        past_x, before_x = past((f.capacity_gb,), x_range, 0.005), past((f.capacity_gb,), x_range, -0.005)
        spots = (((0, 1), past_x, CAP_LABEL_Y), ((1, 1), before_x, CAP_LABEL_Y),   # just past the line, or before it,
                 ((0, 0), past_x, y_range[0]), ((1, 0), before_x, y_range[0]))   # … from the top on a short plot
        for anchor, x, y in (*spots, spots[0]):       # where none is clear: past the line
            lab.setAnchor(anchor)
            lab.setPos(x, y)
            if inside(lab, px) and not covers(lab, px, rows, MARGIN_PX):
                return

    def csv_rows(self):
        header = ["precision_id", "name", "weight_bits", "weight_bytes_total", "floor_ms_per_token", "ms_per_token",
                  "gpus_to_fit", "emulated", "accuracy_note"]
        return header, [[r.precision_id, r.name, r.weight_bits, r.weight_bytes_total, r.floor_ms_per_token,
                         r.ms_per_token, r.gpus_to_fit, r.emulated, r.accuracy_note] for r in self.table]
