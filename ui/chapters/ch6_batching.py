"""Lesson 6: batching climbs the roofline.

model.sweep.sweep_batch over batch 1 … 4096: time per token, tokens/s and $ per million
tokens against batch (log x), the critical batch (Estimate.critical_batch) where decode
turns compute-bound, and the KV-cache limit (max_batch_that_fits) past which memory runs
out. Published end-to-end latencies for the same model and GPU are drawn as stars
(≈ per step: latency ÷ output tokens) beside the model's prediction of the same run.
Hover any point for its numbers; click a plot to set the batch there (snapped to a power
of two, 1 … 4096) through the controller, so a speaker can walk the curve.
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from model.format import duration, si, sig3
from model.lessons import matching_measurements
from model.sweep import sweep_batch
from ui import theme as th
from ui.chapters.base import ChapterView, error_text, log10, measured_tip, text_font

BATCHES = np.unique(np.round(np.geomspace(1, 4096, 49))).astype(float)
SERIES = (("decode_ms_per_token", "Time per token (ms)", "ms", th.SKY_BLUE),
          ("output_tokens_per_s", "Tokens/s (whole batch)", "tok/s", th.BLUISH_GREEN),
          ("usd_per_million_tokens", "$ per 1M tokens", "$", th.ORANGE))
MAX_MEASURED = 8
CLICK_MAX_BATCH = 4096


def batch_at(view_x: float) -> int:
    """The power of two nearest a log10(batch) view coordinate, within 1 … CLICK_MAX_BATCH."""
    top = int(round(math.log2(CLICK_MAX_BATCH)))
    k = int(round(float(view_x) / math.log10(2.0))) if math.isfinite(view_x) else 0
    return 2 ** max(0, min(top, k))


class BatchingChapter(ChapterView):
    def build(self) -> None:
        self.sweep = None
        self.measured = []
        self.title_row = self.add_chart_title()
        self.rows = []
        first = None
        for i, (attr, name, unit, colour) in enumerate(SERIES):
            last = i == len(SERIES) - 1
            p = self.make_plot("Batch (sequences decoded together, log)" if last else "", name, log_x=True,
                               log_y=True)
            if first is None:
                first = p
            else:
                p.setXLink(first)
            if not last:
                p.getPlotItem().getAxis("bottom").setStyle(showValues=False)
            curve = p.plot()
            over = pg.LinearRegionItem(movable=False)
            over.setZValue(-5)
            for ln in over.lines:
                ln.setPen(pg.mkPen(None))
            p.addItem(over, ignoreBounds=True)
            crit = pg.InfiniteLine(angle=90, movable=False)
            kvl = pg.InfiniteLine(angle=90, movable=False)
            for ln in (crit, kvl):
                p.addItem(ln, ignoreBounds=True)
            now = p.plot(pen=None, symbol="o", symbolSize=16)
            now.setZValue(10)
            row = dict(plot=p, curve=curve, over=over, crit=crit, kvl=kvl, now=now, attr=attr, colour=colour,
                       unit=unit, label=pg.TextItem(anchor=(0, 1)))
            p.addItem(row["label"], ignoreBounds=True)
            if i == 0:
                row["meas"] = p.plot(pen=None, symbol="star", symbolSize=18)
                row["pred"] = p.plot(pen=None, symbol="o", symbolSize=12)
                row["gap"] = p.plot(connect="pairs")
                row["meas_labels"] = [pg.TextItem(anchor=(0, 0.5)) for _ in range(MAX_MEASURED)]
                for lab in row["meas_labels"]:
                    p.addItem(lab, ignoreBounds=True)
                row["crit_label"] = pg.TextItem(anchor=(0, 1))
                row["kv_label"] = pg.TextItem(anchor=(1, 0))
                p.addItem(row["crit_label"], ignoreBounds=True)
                p.addItem(row["kv_label"], ignoreBounds=True)
            self.rows.append(row)
            p.scene().sigMouseClicked.connect(partial(self._clicked, p))
            p.setCursor(Qt.PointingHandCursor)
            self.chart_lay.addWidget(p, 1)
        self.numbers = self.note_label(name="chapterValue")
        self.side_lay.addWidget(self.numbers)
        self.meas_note = self.note_label()
        self.side_lay.addWidget(self.meas_note)
        self.side_lay.addWidget(self.note_label(
            "Click a plot (or move the batch slider in the controls) to set the batch: the yellow dot follows. "
            "Hover a point for its numbers."))

    def apply_plot_theme(self, t: th.Theme) -> None:
        for r in self.rows:
            r["curve"].setPen(pg.mkPen(r["colour"], width=2))
            r["over"].setBrush(pg.mkBrush(213, 94, 0, 40))
            r["crit"].setPen(pg.mkPen(th.BLUISH_GREEN, width=1, style=Qt.DashLine))
            r["kvl"].setPen(pg.mkPen(th.VERMILLION, width=1, style=Qt.DashLine))
            r["now"].setSymbolBrush(pg.mkBrush(t.op_point))
            r["now"].setSymbolPen(pg.mkPen(t.op_outline, width=2))
            r["label"].setFont(text_font(t, 13, bold=True))
            if "meas" in r:
                r["meas"].setSymbolBrush(pg.mkBrush(th.YELLOW))
                r["meas"].setSymbolPen(pg.mkPen(t.bg, width=1))
                r["pred"].setSymbolBrush(pg.mkBrush(t.bg))
                r["pred"].setSymbolPen(pg.mkPen(th.SKY_BLUE, width=1))
                r["gap"].setPen(pg.mkPen(th.YELLOW, width=1, style=Qt.DotLine))
                for lab in (*r["meas_labels"], r["crit_label"], r["kv_label"]):
                    lab.setFont(text_font(t, 12))

    def update_view(self, e) -> None:
        s = e.scenario
        sw = self.sweep = sweep_batch(s, BATCHES, self.catalog)
        crit = e.critical_batch
        kv = sw.max_batch_that_fits
        x0, x1 = log10(BATCHES[0]) - 0.1, log10(BATCHES[-1]) + 0.1
        self.measured = self._measurements(s)
        for i, r in enumerate(self.rows):
            y = np.asarray(getattr(sw, r["attr"]), dtype=float)
            r["curve"].setData(sw.batch, y)
            ys = [y]
            cur = getattr(e, r["attr"])
            r["now"].setData(np.array([float(s.batch)]), np.array([cur]))
            ys.append(np.array([cur]))
            if "meas" in r:
                if self.measured:
                    mb = np.array([m["batch"] for m in self.measured], dtype=float)
                    mv = np.array([m["measured_ms"] for m in self.measured])
                    pv = np.array([m["model_ms"] for m in self.measured])
                    r["meas"].setData(mb, mv)
                    r["pred"].setData(mb, pv)
                    r["gap"].setData(np.repeat(mb, 2), np.ravel(np.column_stack([mv, pv])))
                    ys += [mv, pv]
                else:
                    for k in ("meas", "pred", "gap"):
                        r[k].setData([], [])
            lo, hi = float(np.nanmin(np.concatenate(ys))), float(np.nanmax(np.concatenate(ys)))
            pad = max(0.15, 0.12 * (log10(hi) - log10(lo)))
            vb = r["plot"].getPlotItem().vb
            vb.setRange(xRange=(x0, x1), yRange=(log10(lo) - pad, log10(hi) + pad), padding=0)
            r["crit"].setVisible(bool(crit and crit <= BATCHES[-1]))
            if crit:
                r["crit"].setValue(log10(crit))
            r["kvl"].setVisible(bool(kv < BATCHES[-1]))
            r["kvl"].setValue(log10(max(kv, 1)))
            r["over"].setVisible(bool(kv < BATCHES[-1]))
            r["over"].setRegion((log10(max(kv, 1)), x1 + 1))
            self._tips(r, sw, e, y)
            r["plot"].setToolTip(f"{r['plot']._labels[1]} against batch 1 … {int(BATCHES[-1]):,} (log axes), "
                                 f"{e.model_name} {e.precision_name} on {e.gpu_name} × {s.gpus}\n"
                                 f"Now: {self._fmt(r['attr'], cur)} at batch {s.batch:,}; critical batch "
                                 f"{sig3(crit) if crit else '— (never compute-bound)'}; KV cache fits up to "
                                 f"batch {kv:,}\nClick to set the batch there (1, 2, 4 … {CLICK_MAX_BATCH:,})")
            r["label"].setText(f"{r['plot']._labels[1]}: {self._fmt(r['attr'], cur)} at batch {s.batch}")
            r["label"].setColor(r["colour"])
            r["label"].setPos(x0 + 0.05, log10(hi) + pad * 0.9)
            if "meas" in r:
                r["crit_label"].setText(f"critical batch ≈ {sig3(crit)}" if crit else "never compute-bound")
                r["crit_label"].setColor(th.BLUISH_GREEN)
                r["crit_label"].setVisible(bool(crit and crit <= BATCHES[-1]))
                if crit:
                    r["crit_label"].setPos(log10(crit) + 0.03, log10(lo) - pad * 0.1)
                r["kv_label"].setText(f"KV cache full past batch {kv}")
                r["kv_label"].setColor(th.VERMILLION)
                r["kv_label"].setVisible(bool(kv < BATCHES[-1]))
                r["kv_label"].setPos(log10(max(kv, 1)) - 0.03, log10(hi) + pad * 0.2)
                for j, lab in enumerate(r["meas_labels"]):
                    if j >= len(self.measured):
                        lab.setVisible(False)
                        continue
                    m = self.measured[j]
                    lab.setText(f"measured {sig3(m['measured_ms'])} ms vs model {sig3(m['model_ms'])} ms "
                                f"({m['error']:+.0%})")
                    lab.setColor(th.YELLOW)
                    lab.setPos(log10(m["batch"]) + 0.08, log10(m["measured_ms"]))
                    lab.setVisible(True)
        self.title_row.setText(f"{e.model_name.upper()} · {e.precision_name} · {e.gpu_name.upper()} × {s.gpus} · "
                               f"{s.input_len:,} IN / {s.output_len:,} OUT")
        crit_text = (f"Critical batch ≈ <b>{sig3(crit)}</b>: decode turns compute-bound there" if crit
                     else "Never turns compute-bound at this context: the KV cache grows with the batch")
        self.numbers.setText(
            f"Batch {s.batch}: <b>{duration(e.decode_ms_per_token / 1e3)}</b>/token, "
            f"<b>{si(e.output_tokens_per_s, 'tok/s')}</b>, <b>${sig3(e.usd_per_million_tokens)}</b> per 1M<br>"
            f"{crit_text}<br>"
            f"<span style='color:{th.VERMILLION}'>KV cache fits up to batch <b>{kv:,}</b></span>")
        if self.measured:
            self.meas_note.setText(
                "★ published runs (≈ ms per step = end-to-end ÷ output tokens, incl. prefill) beside ○ the model's "
                "prediction of the same run:<br>" + "<br>".join(
                    f"batch {m['batch']}: {sig3(m['measured_ms'])} vs {sig3(m['model_ms'])} ms "
                    f"({m['error']:+.0%}) — {m['label']}" for m in self.measured))
        else:
            self.meas_note.setText("No published run matches this model, GPU and precision.")

    def _clicked(self, plot, ev) -> None:
        """A click inside a plot's axes sets the batch at that x (nearest power of two)."""
        if ev.button() != Qt.LeftButton:
            return
        vb = plot.getPlotItem().vb
        pos = ev.scenePos()
        if not vb.sceneBoundingRect().contains(pos):
            return
        ev.accept()
        self.controller.set(batch=batch_at(vb.mapSceneToView(pos).x()))

    def _tips(self, r, sw, e, y) -> None:
        """Per-marker hover text: the yellow dot, ★ and ○, then every sampled point of the curve
        (the first added wins a tie, so the dot and the stars beat the curve under them)."""
        tips = r["plot"].tips
        tips.clear()
        name = r["plot"]._labels[1]
        s = e.scenario
        cur = getattr(e, r["attr"])
        tips.point(float(s.batch), cur,
                   f"Now, batch {s.batch:,}: {self._fmt(r['attr'], cur)} ({name})\n"
                   f"{duration(e.decode_ms_per_token / 1e3)} per token · {si(e.output_tokens_per_s, 'tok/s')} · "
                   f"${sig3(e.usd_per_million_tokens)} per 1M tokens · {e.bound}-bound")
        for m in (self.measured if "meas" in r else ()):
            row = m["row"]
            per_step = (f"Measured ≈ {sig3(m['measured_ms'])} ms per step, model {sig3(m['model_ms'])} ms per step "
                        f"(end to end ÷ {row.output_len:,} output tokens)")
            e2e = (f"End to end: measured {sig3(m['measured_s'])} s, model {sig3(m['predicted_s'])} s "
                   f"({error_text(m['error'])})")
            tips.point(m["batch"], m["measured_ms"], measured_tip(row, [per_step, e2e]))
            tips.point(m["batch"], m["model_ms"],
                       f"○ Model's prediction of the published run (batch {row.batch:,}, {row.input_len:,} in / "
                       f"{row.output_len:,} out, {row.n_gpus}× {row.gpu}, {row.framework})\n"
                       f"Model {sig3(m['model_ms'])} ms per step = {sig3(m['predicted_s'])} s end to end; "
                       f"measured {sig3(m['measured_ms'])} ms per step = {sig3(m['measured_s'])} s "
                       f"({error_text(m['error'])})\nSource: {row.source}")
        for b, v, ms, tps, usd, fits in zip(sw.batch, y, sw.decode_ms_per_token, sw.output_tokens_per_s,
                                            sw.usd_per_million_tokens, sw.fits):
            tips.point(b, v, f"Model, batch {int(b):,}: {self._fmt(r['attr'], v)} ({name})\n"
                             f"{duration(ms / 1e3)} per token · {si(tps, 'tok/s')} · ${sig3(usd)} per 1M tokens"
                             + ("" if fits else "\nKV cache does not fit at this batch"))

    @staticmethod
    def _fmt(attr: str, v: float) -> str:
        if attr == "decode_ms_per_token":
            return duration(v / 1e3)
        if attr == "usd_per_million_tokens":
            return f"${sig3(v)}"
        return si(v, "tok/s")

    def _measurements(self, s):
        """Published end-to-end latencies for this model and GPU at the same weight width."""
        bits = self.catalog.precision(s.precision).weight_bits
        out = []
        for c in matching_measurements(s.model, s.gpu, None, "end_to_end_latency_s", self.catalog):
            r = c.row
            if r.batch is None or self.catalog.precision(r.precision).weight_bits != bits:
                continue
            out.append(dict(batch=r.batch, measured_ms=r.value * 1e3 / r.output_len,
                            model_ms=c.predicted * 1e3 / r.output_len, error=c.error, measured_s=r.value,
                            predicted_s=c.predicted, output_len=r.output_len, row=r,
                            label=f"{r.label}; {r.source}"))
        return out[:MAX_MEASURED]

    def csv_rows(self):
        header = ["kind"] + [c for c in next(self.sweep.rows())] + ["source"]
        rows = []
        it = self.sweep.rows()
        next(it)
        for r in it:
            rows.append(["model", *r, ""])
        for m in self.measured:
            row = ["measured", m["batch"], m["measured_ms"]] + [""] * (len(header) - 4) + [m["label"]]
            rows.append(row)
            rows.append(["model_of_measured_run", m["batch"], m["model_ms"]] + [""] * (len(header) - 4) + [m["label"]])
        return header, rows
