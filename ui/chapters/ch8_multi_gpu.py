"""Lesson 8: interconnect and multi-GPU.

model.lessons.scaling(scenario): tokens/s at N GPUs ÷ tokens/s at 1 (same batch) over
NVLink, PCIe and the network, under the ideal N× line; the animated hierarchy with its
all-reduce links beside it. Published multi-GPU runs (llama-2-70b on MI300X, batch 1) are
drawn as stars: measured speed-up = latency(1 GPU) ÷ latency(N), beside the model's.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout

from model.format import duration, sig3
from model.lessons import matching_measurements, scaling
from ui import theme as th
from ui.chapters.base import ChapterView, error_text, log10, measured_tip, text_font
from ui.chapters.ch5_decode import make_hierarchy

LINK_STYLE = {"nvlink": (th.BLUISH_GREEN, Qt.SolidLine, "NVLink-class fabric"),
              "pcie": (th.SKY_BLUE, Qt.DashLine, "PCIe"),
              "network": (th.REDDISH_PURPLE, Qt.DashDotLine, "network (one GPU per node)")}
REFERENCE = ("llama-2-70b", "mi300x-192gb", 1)


class MultiGpuChapter(ChapterView):
    side_width = 320

    def build(self) -> None:
        self.curves = ()
        self.measured = []
        self.title_row = self.add_chart_title()
        row = QHBoxLayout()
        row.setSpacing(8)
        p = self.plot = self.make_plot("GPUs (log)", "Speed-up over one GPU (log)", log_x=True, log_y=True)
        self.legend = p.getPlotItem().addLegend(offset=(10, 10))
        self.ideal = p.plot(name="ideal N×")
        self.lines = {}
        for link, (colour, style, name) in LINK_STYLE.items():
            self.lines[link] = p.plot(symbol="o", symbolSize=9, name=name)
        self.meas = p.plot(pen=None, symbol="star", symbolSize=20, name="measured (published)")
        self.pred = p.plot(pen=None, symbol="o", symbolSize=12, name="model, same runs")
        self.now = p.plot(pen=None, symbol="o", symbolSize=22)
        self.now.setZValue(10)
        self.now_label = pg.TextItem(anchor=(1, 0))
        p.addItem(self.now_label, ignoreBounds=True)
        row.addWidget(p, 3)
        self.hierarchy = make_hierarchy(self.controller)
        self.hierarchy.setObjectName("chapterHierarchy")
        row.addWidget(self.hierarchy, 2)
        self.chart_lay.addLayout(row, 1)
        self.numbers = self.note_label(name="chapterValue")
        self.side_lay.addWidget(self.numbers)
        self.meas_note = self.note_label()
        self.side_lay.addWidget(self.meas_note)

    def apply_plot_theme(self, t: th.Theme) -> None:
        if hasattr(self.hierarchy, "set_theme"):    # not the placeholder label
            self.hierarchy.set_theme(t)
        self.ideal.setPen(pg.mkPen(t.text, width=1, style=Qt.DotLine))
        for link, item in self.lines.items():
            colour, style, _ = LINK_STYLE[link]
            item.setPen(pg.mkPen(colour, width=2, style=style))
            item.setSymbolBrush(pg.mkBrush(colour))
            item.setSymbolPen(pg.mkPen(t.bg, width=1))
        self.meas.setSymbolBrush(pg.mkBrush(th.YELLOW))
        self.meas.setSymbolPen(pg.mkPen(t.bg, width=1))
        self.pred.setSymbolBrush(pg.mkBrush(t.bg))
        self.pred.setSymbolPen(pg.mkPen(th.YELLOW, width=1))
        self.now.setSymbolBrush(pg.mkBrush(t.op_point))
        self.now.setSymbolPen(pg.mkPen(t.op_outline, width=2))
        self.now_label.setFont(text_font(t, 14, bold=True))
        self.legend.setLabelTextColor(t.text)
        self.legend.setLabelTextSize(f"{t.px(13)}px")

    def update_view(self, e) -> None:
        t = self.theme
        s = e.scenario
        curves = self.curves = scaling(s, catalog=self.catalog)
        ns = curves[0].gpus
        self.ideal.setData(ns, ns)
        ys = [ns]
        for c in curves:
            item = self.lines[c.interconnect]
            ok = np.isfinite(c.speedup)
            item.setData(c.gpus[ok], c.speedup[ok])
            ys.append(c.speedup[ok])
        self.measured = self._measurements(s)
        if self.measured:
            mx = np.array([m["n_gpus"] for m in self.measured], dtype=float)
            self.meas.setData(mx, np.array([m["measured_speedup"] for m in self.measured]))
            self.pred.setData(mx, np.array([m["model_speedup"] for m in self.measured]))
        else:
            self.meas.setData([], [])
            self.pred.setData([], [])
        cur = next((c for c in curves if c.interconnect == s.interconnect), None)
        k = int(np.nonzero(ns == s.gpus)[0][0]) if cur is not None and s.gpus in ns else None
        if k is not None and np.isfinite(cur.speedup[k]):
            self.now.setData(np.array([float(s.gpus)]), np.array([cur.speedup[k]]))
            self.now_label.setText(f"{s.gpus} GPUs over {s.interconnect}: {sig3(cur.speedup[k])}×")
            self.now_label.setColor(t.op_point)
            self.now_label.setPos(log10(s.gpus) - 0.05, log10(cur.speedup[k]) - 0.05)
            self.now_label.setVisible(True)
        else:
            self.now.setData([], [])
            self.now_label.setVisible(False)
        self._tips(e, curves, cur, k)
        lo = min(float(np.nanmin(np.concatenate(ys))), 1.0)
        self.plot.getPlotItem().vb.setRange(xRange=(log10(ns[0]) - 0.15, log10(ns[-1]) + 0.15),
                                            yRange=(log10(lo) - 0.15, log10(ns[-1]) + 0.15), padding=0)
        self.title_row.setText(f"{e.model_name.upper()} · {e.precision_name} · {e.gpu_name.upper()} · BATCH {s.batch}"
                               f" · {s.input_len:,} IN / {s.output_len:,} OUT")
        parts = []
        for c in curves:
            ok = np.isfinite(c.speedup)
            if ok.any():
                j = int(np.nonzero(ok)[0][-1])
                parts.append(f"{LINK_STYLE[c.interconnect][2]}: best {sig3(np.nanmax(c.speedup))}×, "
                             f"{int(c.gpus[j])} GPUs {c.bound[j]}-bound")
        self.numbers.setText(
            f"Now: {s.gpus} GPU{'s' if s.gpus > 1 else ''} over {s.interconnect}, "
            f"<b>{duration(e.decode_ms_per_token / 1e3)}</b>/token, {e.bound}-bound "
            f"(tp {e.tp} × pp {e.pp})<br>" + "<br>".join(parts))
        if self.measured:
            m0 = self.measured[0]
            lines = [f"{m['n_gpus']} GPUs: measured <b>{sig3(m['measured_speedup'])}×</b>, model "
                     f"{sig3(m['model_speedup'])}×" for m in self.measured]
            self.meas_note.setText(
                f"★ {m0['model']} {m0['precision']} on {m0['gpu']}, batch {m0['batch']}, {m0['framework']}: "
                f"speed-up = latency on 1 GPU ÷ on N (published), ○ the model's for the same runs:<br>"
                + "<br>".join(lines))
        else:
            self.meas_note.setText("No published multi-GPU runs to compare.")

    def _tips(self, e, curves, cur, k) -> None:
        """Per-marker hover text: the yellow dot, ★ and ○, then every model point of each link."""
        s = e.scenario
        tips = self.plot.tips
        tips.clear()
        if k is not None and np.isfinite(cur.speedup[k]):
            tips.point(s.gpus, cur.speedup[k],
                       f"Now: {s.gpus} GPU{'s' if s.gpus > 1 else ''} over {LINK_STYLE[s.interconnect][2]}: "
                       f"{sig3(cur.speedup[k])}× the tokens/s of one GPU\n"
                       f"{duration(e.decode_ms_per_token / 1e3)} per token, {e.bound}-bound (tp {e.tp} × pp {e.pp})")
        for m in self.measured:
            row, n = m["row"], m["n_gpus"]
            lines = [f"Speed-up over 1 GPU: measured {sig3(m['measured_speedup'])}×, model "
                     f"{sig3(m['model_speedup'])}×",
                     f"Latency at {n} GPU{'s' if n > 1 else ''}: measured {sig3(m['measured_s'])} s, model "
                     f"{sig3(m['predicted_s'])} s ({error_text(m['error'])})"]
            if n != 1:
                lines.append(f"Latency at 1 GPU: measured {sig3(m['base_measured_s'])} s, model "
                             f"{sig3(m['base_predicted_s'])} s ({error_text(m['base_error'])})")
            tips.point(n, m["measured_speedup"], measured_tip(row, lines))
            tips.point(n, m["model_speedup"],
                       f"○ Model's speed-up for the published run ({row.model} {row.precision} on {n}× {row.gpu}, "
                       f"batch {row.batch}, {row.input_len:,} in / {row.output_len:,} out, {row.framework})\n"
                       f"Model {sig3(m['model_speedup'])}× = {sig3(m['base_predicted_s'])} s ÷ "
                       f"{sig3(m['predicted_s'])} s; measured {sig3(m['measured_speedup'])}× = "
                       f"{sig3(m['base_measured_s'])} s ÷ {sig3(m['measured_s'])} s\nSource: {row.source}")
        for c in curves:
            name = LINK_STYLE[c.interconnect][2]
            for n, sp, ms, b in zip(c.gpus, c.speedup, c.ms_per_token, c.bound):
                if np.isfinite(sp):
                    tips.point(n, sp, f"Model: {int(n)} GPU{'s' if n > 1 else ''} over {name}: {sig3(sp)}× the "
                                      f"tokens/s of one GPU (ideal {int(n)}×)\n"
                                      f"{duration(ms / 1e3)} per token, {b}-bound")
        self.plot.setToolTip(f"Speed-up = tokens/s on N GPUs ÷ on one, {e.model_name} {e.precision_name} on "
                             f"{e.gpu_name}, batch {s.batch}; dotted: the ideal N×\n"
                             f"Hover a point for its numbers; ★ published runs, ○ the model's prediction of them")

    def _measurements(self, s):
        cat = self.catalog

        def rows_for(model, gpu, batch):
            comps = [c for c in matching_measurements(model, gpu, None, "end_to_end_latency_s", cat)
                     if c.row.batch == batch]
            base = next((c for c in comps if c.row.n_gpus == 1), None)
            if base is None:
                return []
            out = []
            for c in sorted(comps, key=lambda c: c.row.n_gpus):
                if c.row.precision != base.row.precision or c.row.input_len != base.row.input_len:
                    continue
                out.append(dict(n_gpus=c.row.n_gpus, measured_speedup=base.row.value / c.row.value,
                                model_speedup=base.predicted / c.predicted, measured_s=c.row.value,
                                predicted_s=c.predicted, model=c.row.model, gpu=c.row.gpu,
                                precision=c.row.precision, batch=c.row.batch, framework=c.row.framework,
                                source=c.row.source, label=c.row.label, row=c.row, error=c.error,
                                base_measured_s=base.row.value, base_predicted_s=base.predicted,
                                base_error=base.error))
            return out if len(out) > 1 else []
        found = rows_for(cat.model(s.model).id, cat.gpu(s.gpu).id, s.batch)
        return found or rows_for(*REFERENCE)

    def csv_rows(self):
        header = ["kind", "interconnect", "gpus", "speedup", "ms_per_token", "bound", "source"]
        rows = []
        for c in self.curves:
            for n, sp, ms, b in zip(c.gpus, c.speedup, c.ms_per_token, c.bound):
                rows.append(["model", c.interconnect, int(n), sp, ms, b, ""])
        for m in self.measured:
            rows.append(["measured", "", m["n_gpus"], m["measured_speedup"], "", "", m["label"] + "; " + m["source"]])
            rows.append(["model_of_measured_run", "", m["n_gpus"], m["model_speedup"], "", "", m["label"]])
        return header, rows
