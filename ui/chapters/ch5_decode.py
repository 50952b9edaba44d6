"""Lesson 5: why decode is memory-bound.

One chart (model.lessons.ch5_decode.decode_breakdown): what one decode step (one token per
sequence) is made of, in ms. Top bar, the floor: every weight byte and the KV cache read
once at the datasheet bandwidth. Middle bar, the realistic time: the same reads at the
achieved bandwidth, the maths beyond the reads (none while memory-bound), the all-reduces
and the software overhead. Bottom bar: the tensor-core maths, which runs under the reads.
Every segment is named in words beside its bar, and inside it where it is wide enough.
"""
from __future__ import annotations

import pyqtgraph as pg

from model.readouts.format import duration
from model.lessons.ch5_decode import decode_breakdown
from ui import theme as th
from ui.pens import brush, pen
from ui.chapters.base import ChapterView, text_font
from ui.chapters.ch1_generations import NamesAxis

ROWS = ("maths", "realistic", "floor")            # y = 0, 1, 2 (bottom to top)
KINDS = (("weights", th.ORANGE, "weights"), ("kv", th.REDDISH_PURPLE, "KV cache"),
         ("compute", th.BLUISH_GREEN, "maths"), ("comm", th.BLUE, "all-reduces"),
         ("overhead", "#8A8F98", "overhead"))
BAR_H = 0.42
INSIDE_MIN = 0.12                                 # a segment names itself inside when ≥ this share of the axis


def ms(x: float) -> str:
    return duration(x / 1e3)


class DecodeChapter(ChapterView):
    def build(self) -> None:
        self.breakdown = None
        self.title_row = self.add_chart_title()
        self.names = NamesAxis("left")
        p = self.plot = self.make_plot("Time for one decode step (ms)", "", bottom_axis=None)
        p.getPlotItem().setAxisItems({"left": self.names})
        p._left_em = 6.0
        self.chart_lay.addWidget(p, 1)
        self.bars = {k: pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_H) for k, _c, _n in KINDS}
        for b in self.bars.values():
            p.addItem(b)
        self.row_labels = {r: pg.TextItem(anchor=(0, 0)) for r in ROWS}
        self.inside = {k: [pg.TextItem(anchor=(0.5, 0.5)) for _ in ROWS] for k, _c, _n in KINDS}
        for lab in (*self.row_labels.values(), *(x for v in self.inside.values() for x in v)):
            p.addItem(lab, ignoreBounds=True)

    def apply_plot_theme(self, t: th.Theme) -> None:
        for k, colour, _n in KINDS:
            self.bars[k].setOpts(brush=brush(colour), pen=pen(t.bg, width=1))
            for lab in self.inside[k]:
                lab.setFont(text_font(t, 15, bold=True))
        for lab in self.row_labels.values():
            lab.setFont(text_font(t, 15, bold=True))

    def _segments(self, b) -> dict[str, list[tuple[int, float, float]]]:
        """Per kind: (row, start ms, width ms)."""
        seg = {k: [] for k, _c, _n in KINDS}
        seg["weights"].append((2, 0.0, b.floor_weights_ms))
        seg["kv"].append((2, b.floor_weights_ms, b.floor_kv_ms))
        x = 0.0
        for k, w in (("weights", b.weights_ms), ("kv", b.kv_ms), ("compute", b.extra_compute_ms),
                     ("comm", b.comm_ms), ("overhead", b.overhead_ms)):
            seg[k].append((1, x, w))
            x += w
        seg["compute"].append((0, 0.0, b.compute_ms))
        return seg

    def update_view(self, e) -> None:
        t = self.theme
        b = self.breakdown = decode_breakdown(e)
        seg = self._segments(b)
        x_max = b.total_ms * 1.04
        for k, _c, name in KINDS:
            rows = [(r, x0, w) for r, x0, w in seg[k] if w > 0]
            self.bars[k].setOpts(x0=[x0 for _r, x0, _w in rows], y=[r for r, _x, _w in rows],
                                 width=[w for _r, _x, w in rows], height=BAR_H)
            for i, lab in enumerate(self.inside[k]):
                fit = i < len(rows) and rows[i][2] >= INSIDE_MIN * x_max
                lab.setVisible(fit)
                if fit:
                    r, x0, w = rows[i]
                    lab.setText(name)
                    lab.setColor("#000000" if k in ("weights", "compute") else "#FFFFFF")
                    lab.setPos(x0 + w / 2, r)
        parts = [f"{n} {ms(w)}" for (k, _c, n), w in zip(KINDS, (b.weights_ms, b.kv_ms, b.extra_compute_ms,
                                                                   b.comm_ms, b.overhead_ms)) if w > 0.0005]
        parts[0] += f" (at the achieved {self.facts.values['achieved_bw']})"
        texts = {"floor": f"Floor {ms(b.floor_ms)}: weights {ms(b.floor_weights_ms)} + KV cache "
                          f"{ms(b.floor_kv_ms)} at the datasheet {self.facts.values['bw']}",
                 "realistic": f"Realistic {ms(b.total_ms)} = " + " + ".join(parts),
                 "maths": f"Tensor-core maths {ms(b.compute_ms)}: "
                          + ("runs while the bytes stream in" if b.extra_compute_ms <= 0 else "longer than the reads")}
        for r, lab in self.row_labels.items():
            lab.setText(texts[r])
            lab.setColor(t.text)
            lab.setPos(0, ROWS.index(r) - BAR_H / 2 - 0.04)
        self.names.names = ["maths", "realistic", "floor"]
        self.names.setTicks([[(i, n) for i, n in enumerate(self.names.names)]])
        self.plot.getPlotItem().vb.setRange(xRange=(0, x_max), yRange=(-0.75, 2.35), padding=0)
        self.title_row.setText(f"{e.model_name.upper()} · {e.precision_name} · {e.gpu_name.upper()} · BATCH "
                               f"{e.scenario.batch} · {e.scenario.gpus} GPU{'S' if e.scenario.gpus > 1 else ''}")
        tips = self.plot.tips
        tips.clear()
        for (k, _c, name) in KINDS:
            for r, x0, w in seg[k]:
                if w > 0:
                    tips.rect(x0, r - BAR_H / 2, x0 + w, r + BAR_H / 2, f"{ROWS[r]}: {name} {ms(w)}")
        self.plot.setToolTip("One decode step: the floor at datasheet bandwidth, the realistic time and its parts, "
                             "and the tensor-core maths")

    def csv_rows(self):
        b = self.breakdown
        header = ["part", "floor_ms", "realistic_ms"]
        return header, [["weights", b.floor_weights_ms, b.weights_ms], ["kv_cache_and_activations", b.floor_kv_ms,
                                                                         b.kv_ms],
                        ["maths_beyond_reads", 0.0, b.extra_compute_ms], ["all_reduces", 0.0, b.comm_ms],
                        ["overhead", 0.0, b.overhead_ms], ["total", b.floor_ms, b.total_ms],
                        ["tensor_core_maths", b.compute_ms, b.compute_ms]]
