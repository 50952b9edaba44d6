"""Lesson 6: batching climbs the roofline.

One chart (model.lessons.ch6_batching.batching_curves): tokens/s of the whole batch against the
batch (log-log), realistic (solid) and at the floor (dashed), with where each turns
compute-bound (model.lessons.ch6_batching.compute_bound_batch: realistic and at peak numbers, the
critical batch) and where the KV cache stops fitting (shaded). Published runs appear only
when the scenario is theirs (model, precision, GPU, lengths): ★ measured beside ○ the
model's prediction of the same run. Click the plot to set the batch there (snapped to a
power of two, 1 … 4096) through the controller, so a speaker can walk the curve.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from model.readouts.format import si, sig3
from model.lessons.ch6_batching import batching_curves, batching_measured, compute_bound_batch
from ui import theme as th
from ui.pens import brush, pen, set_symbol_style
from ui.chapters.base import ChapterView, error_text, log10, measured_tip, text_font

BATCHES = np.unique(np.round(np.geomspace(1, 4096, 49))).astype(float)
CLICK_MAX_BATCH = 4096


def batch_at(view_x: float) -> int:
    """The power of two nearest a log10(batch) view coordinate, within 1 … CLICK_MAX_BATCH."""
    top = int(round(math.log2(CLICK_MAX_BATCH)))
    k = int(round(float(view_x) / math.log10(2.0))) if math.isfinite(view_x) else 0
    return 2 ** max(0, min(top, k))


class BatchingChapter(ChapterView):
    def build(self) -> None:
        self.curves = None
        self.measured = ()
        self.marks = {}
        self.title_row = self.add_chart_title()
        p = self.plot = self.make_plot("Batch (sequences decoded together, log)", "Tokens/s, whole batch (log)",
                                       log_x=True, log_y=True)
        self.chart_lay.addWidget(p, 1)
        self.ideal = p.plot()
        self.real = p.plot()
        self.over = pg.LinearRegionItem(movable=False)
        self.over.setZValue(-5)
        for ln in self.over.lines:
            ln.setPen(pen(None))
        p.addItem(self.over, ignoreBounds=True)
        self.lines = {k: pg.InfiniteLine(angle=90, movable=False) for k in ("real", "ideal")}
        for ln in self.lines.values():
            p.addItem(ln, ignoreBounds=True)
        self.meas = p.plot(pen=None, symbol="star", symbolSize=26)
        self.pred = p.plot(pen=None, symbol="o", symbolSize=14)
        self.now = p.plot(pen=None, symbol="o", symbolSize=18)
        self.meas.setZValue(12)
        self.now.setZValue(10)
        self.labels = {k: pg.TextItem(anchor=a) for k, a in
                       (("real_line", (1, -0.2)), ("ideal_line", (1, 1.2)), ("real", (0, 0)), ("ideal", (0, 0)),
                        ("kv", (1, 0)), ("meas", (0, 0.5)))}
        for lab in self.labels.values():
            p.addItem(lab, ignoreBounds=True)
        p.scene().sigMouseClicked.connect(self._clicked)
        p.setCursor(Qt.PointingHandCursor)

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.real.setPen(pen(th.BLUISH_GREEN, width=3))
        self.ideal.setPen(pen(t.secondary, width=2, style=Qt.DashLine))
        self.over.setBrush(brush((213, 94, 0, 40)))
        self.lines["real"].setPen(pen(th.BLUISH_GREEN, width=1, style=Qt.DashLine))
        self.lines["ideal"].setPen(pen(t.secondary, width=1, style=Qt.DotLine))
        set_symbol_style(self.now, pen(t.op_outline, width=2), brush(t.op_point))
        set_symbol_style(self.meas, pen(t.bg, width=1), brush(th.YELLOW))
        set_symbol_style(self.pred, pen(th.SKY_BLUE, width=2), brush(t.bg))
        for lab in self.labels.values():
            lab.setFont(text_font(t, 15, bold=True))

    def update_view(self, e) -> None:
        t = self.theme
        s = e.scenario
        c = self.curves = batching_curves(s, BATCHES, self.catalog)
        self.real.setData(c.batch, c.tokens_per_s)
        self.ideal.setData(c.batch, c.ideal_tokens_per_s)
        self.now.setData([float(s.batch)], [e.output_tokens_per_s])
        self.measured = batching_measured(s, self.catalog)
        self.meas.setData([float(m.row.batch) for m in self.measured], [m.measured for m in self.measured])
        self.pred.setData([float(m.row.batch) for m in self.measured], [m.predicted for m in self.measured])
        lo = float(min(c.tokens_per_s.min(), *(m.measured for m in self.measured))) if self.measured else \
            float(c.tokens_per_s.min())
        hi = float(c.ideal_tokens_per_s.max())
        x0, x1 = log10(BATCHES[0]) - 0.1, log10(BATCHES[-1]) + 0.1
        y0, y1 = log10(lo) - 0.3, log10(hi) + 0.45
        self.plot.getPlotItem().vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        self._marks(e, x1, y0, y1)
        L = self.labels
        L["real_line"].setText("realistic")
        L["real_line"].setColor(th.BLUISH_GREEN)
        L["real_line"].setPos(x1 - 0.05, log10(c.tokens_per_s[-1]))
        L["ideal_line"].setText("at peak numbers (floor)")
        L["ideal_line"].setColor(t.secondary)
        L["ideal_line"].setPos(x1 - 0.05, log10(c.ideal_tokens_per_s[-1]))
        here = self.measured[0] if self.measured else None
        L["meas"].setVisible(here is not None)
        if here is not None:
            L["meas"].setText(f"★ measured {here.measured:,.0f} tok/s\n○ model {here.predicted:,.0f} tok/s")
            L["meas"].setColor(th.YELLOW)
            L["meas"].setPos(log10(here.row.batch) + 0.12, log10(here.measured))
        self.title_row.setText(f"{e.model_name.upper()} · {e.precision_name} · {e.gpu_name.upper()} × {s.gpus} · "
                               f"{s.input_len:,} IN / {s.output_len:,} OUT")
        self._tips(e)

    def _marks(self, e, x1: float, y0: float, y1: float) -> None:
        """Where decode turns compute-bound (realistic, ideal) and where the KV cache runs out."""
        t = self.theme
        s = e.scenario
        real, ideal = compute_bound_batch(s, False, self.catalog), compute_bound_batch(s, True, self.catalog)
        self.marks = {"real": real, "ideal": ideal, "kv": e.max_batch_that_fits}
        L = self.labels
        for k, b, colour, text, row in (("real", real, th.BLUISH_GREEN, "realistic: compute-bound from", 0.55),
                                        ("ideal", ideal, t.secondary, "at peak numbers: from", 0.95)):
            show = bool(b is not None and b <= BATCHES[-1])
            self.lines[k].setVisible(show)
            L[k].setVisible(show)
            if show:
                self.lines[k].setValue(log10(b))
                right = log10(b) > x1 - 1.3
                L[k].setAnchor((1, 0) if right else (0, 0))
                L[k].setText(f"{text}\nbatch {b:,}")
                L[k].setColor(colour)
                L[k].setPos(log10(b) + (-0.03 if right else 0.03), y0 + (y1 - y0) * (0.2 if k == "ideal" else 0.09))
        kv = e.max_batch_that_fits
        full = bool(kv < BATCHES[-1])
        self.over.setVisible(full)
        L["kv"].setVisible(full)
        if full:
            self.over.setRegion((log10(max(kv, 1)), x1 + 1))
            L["kv"].setText(f"KV cache full\npast batch {kv:,}")
            L["kv"].setColor(th.VERMILLION)
            L["kv"].setAnchor((0, 0) if log10(max(kv, 1)) < x1 - 1.3 else (1, 0))
            L["kv"].setPos(log10(max(kv, 1)) + (0.03 if log10(max(kv, 1)) < x1 - 1.3 else -0.03),
                           y0 + (y1 - y0) * 0.36)

    def _clicked(self, ev) -> None:
        """A click inside the axes sets the batch at that x (nearest power of two)."""
        if ev.button() != Qt.LeftButton:
            return
        vb = self.plot.getPlotItem().vb
        pos = ev.scenePos()
        if not vb.sceneBoundingRect().contains(pos):
            return
        ev.accept()
        self.controller.set(batch=batch_at(vb.mapSceneToView(pos).x()))

    def _tips(self, e) -> None:
        s, c = e.scenario, self.curves
        tips = self.plot.tips
        tips.clear()
        tips.point(float(s.batch), e.output_tokens_per_s,
                   f"Now, batch {s.batch:,}: {si(e.output_tokens_per_s, 'tok/s')} · ${sig3(e.usd_per_million_tokens)} "
                   f"per 1M tokens · {e.bound}-bound")
        for m in self.measured:
            r = m.row
            tips.point(float(r.batch), m.measured, measured_tip(r, [
                f"Measured {m.measured:,.0f} tokens/s = batch × output tokens ÷ end-to-end time (incl. prefill)",
                f"Model {m.predicted:,.0f} tokens/s for the same run ({error_text(m.error)})"]))
            tips.point(float(r.batch), m.predicted, f"○ Model's prediction of the published run: "
                                                    f"{m.predicted:,.0f} tokens/s\nSource: {r.source}")
        for b, v, ideal, fits in zip(c.batch, c.tokens_per_s, c.ideal_tokens_per_s, c.fits):
            tips.point(b, v, f"Model, batch {int(b):,}: {si(v, 'tok/s')} (at peak numbers {si(ideal, 'tok/s')})"
                             + ("" if fits else "\nKV cache does not fit at this batch"))
        self.plot.setToolTip("Tokens/s of the whole batch; click to set the batch there (1, 2, 4 … 4,096)")

    def csv_rows(self):
        c = self.curves
        header = ["kind", "batch", "tokens_per_s", "ideal_tokens_per_s", "fits", "source"]
        rows = [["model", b, v, i, bool(f), ""] for b, v, i, f in zip(c.batch, c.tokens_per_s,
                                                                       c.ideal_tokens_per_s, c.fits)]
        for m in self.measured:
            rows.append(["measured", m.row.batch, m.measured, "", "", f"{m.row.label}; {m.row.source}"])
            rows.append(["model_of_measured_run", m.row.batch, m.predicted, "", "", m.row.label])
        return header, rows
