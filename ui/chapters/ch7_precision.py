"""Lesson 7: numeric precision.

model.lessons.precision_table(scenario): per precision the weight footprint, the latency
floor and the realistic time per token, the fewest GPUs it fits on, whether it runs
emulated, and the accuracy note. Published fp16-vs-fp8 runs are listed beside the model.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QWidget

from model.format import duration, sig3
from model.lessons import matching_measurements, precision_table
from ui import theme as th
from ui.chapters.base import ChapterView, error_text, measured_tip, text_font
from ui.chapters.ch1_generations import NamesAxis

MAX_ROWS = 8
REFERENCE = ("llama-3.1-8b", "h100-sxm5-80gb")   # a published fp16-vs-fp8 pair to show when nothing matches


class PrecisionChapter(ChapterView):
    side_width = 340

    def build(self) -> None:
        self.table = ()
        self.measured = []
        self.title_row = self.add_chart_title()
        row = QHBoxLayout()
        row.setSpacing(8)
        self.fp_plot = self.make_plot("Weights (GB, all GPUs together)", "")
        self.ms_plot = self.make_plot("Time per token (ms): bar = floor, ○ = realistic", "")
        for p in (self.fp_plot, self.ms_plot):
            ax = NamesAxis("left")
            p.getPlotItem().setAxisItems({"left": ax})
            p._names_axis = ax
            p.getPlotItem().invertY(True)
            row.addWidget(p, 1)
        self.fp_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.6)
        self.ms_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.6)
        self.fp_plot.addItem(self.fp_bars)
        self.ms_plot.addItem(self.ms_bars)
        self.cap_line = pg.InfiniteLine(angle=90, movable=False)
        self.fp_plot.addItem(self.cap_line, ignoreBounds=True)
        self.cap_label = pg.TextItem(anchor=(0, 0))
        self.fp_plot.addItem(self.cap_label, ignoreBounds=True)
        self.real = self.ms_plot.plot(pen=None, symbol="o", symbolSize=12)
        self.meas = self.ms_plot.plot(pen=None, symbol="star", symbolSize=18)
        self.fp_labels = [pg.TextItem(anchor=(0, 0.5)) for _ in range(MAX_ROWS)]
        self.ms_labels = [pg.TextItem(anchor=(0, 0.5)) for _ in range(MAX_ROWS)]
        for lab in self.fp_labels:
            self.fp_plot.addItem(lab, ignoreBounds=True)
        for lab in self.ms_labels:
            self.ms_plot.addItem(lab, ignoreBounds=True)
        self.chart_lay.addLayout(row, 3)

        self.grid_box = QWidget()
        self.grid = QGridLayout(self.grid_box)
        self.grid.setContentsMargins(4, 2, 4, 2)
        self.grid.setHorizontalSpacing(14)
        self.grid.setVerticalSpacing(1)
        heads = ("Precision", "Fits on", "Maths", "Accuracy")
        self.cells = []
        for c, h in enumerate(heads):
            lab = QLabel(h)
            lab.setObjectName("chartTitle")
            self.grid.addWidget(lab, 0, c)
        for r in range(MAX_ROWS):
            cells = []
            for c in range(len(heads)):
                lab = QLabel("")
                lab.setObjectName("chapterNote")
                lab.setTextFormat(Qt.RichText)
                if c == 3:
                    lab.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
                self.grid.addWidget(lab, r + 1, c)
                cells.append(lab)
            self.cells.append(cells)
        self.grid.setColumnStretch(3, 1)
        self.chart_lay.addWidget(self.grid_box, 0)
        self.meas_title = QLabel("MEASURED")
        self.meas_title.setObjectName("chartTitle")
        self.side_lay.addWidget(self.meas_title)
        self.meas_note = self.note_label()
        self.side_lay.addWidget(self.meas_note)

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.fp_bars.setOpts(brush=pg.mkBrush(th.ORANGE), pen=pg.mkPen(t.bg, width=1))
        self.ms_bars.setOpts(brush=pg.mkBrush(th.SKY_BLUE), pen=pg.mkPen(t.bg, width=1))
        self.cap_line.setPen(pg.mkPen(th.VERMILLION, width=1, style=Qt.DashLine))
        self.cap_label.setFont(text_font(t, 12))
        self.real.setSymbolBrush(pg.mkBrush(t.bg))
        self.real.setSymbolPen(pg.mkPen(t.text, width=1))
        self.meas.setSymbolBrush(pg.mkBrush(th.YELLOW))
        self.meas.setSymbolPen(pg.mkPen(t.bg, width=1))
        for lab in (*self.fp_labels, *self.ms_labels):
            lab.setFont(text_font(t, 13, bold=True))
        for p in (self.fp_plot, self.ms_plot):
            p.getPlotItem().getAxis("left").setWidth(int(t.px(13) * 4.2))

    def update_view(self, e) -> None:
        t = self.theme
        s = e.scenario
        rows = self.table = precision_table(s, catalog=self.catalog)
        n = len(rows)
        y = np.arange(n, dtype=float)
        gb = np.array([r.weight_bytes_total for r in rows]) / 1e9
        floor = np.array([r.floor_ms_per_token for r in rows])
        real = np.array([r.ms_per_token for r in rows])
        names = [r.name.split()[0] for r in rows]
        for p in (self.fp_plot, self.ms_plot):
            p._names_axis.names = names
            p._names_axis.setTicks([[(i, names[i]) for i in range(n)]])
        cap_gb = e.hbm_capacity_bytes / 1e9
        self.fp_bars.setOpts(x0=np.zeros(n), y=y, width=gb, height=0.6)
        self.ms_bars.setOpts(x0=np.zeros(n), y=y, width=floor, height=0.6,
                             brushes=[pg.mkBrush(t.roof_dim if r.emulated else th.SKY_BLUE) for r in rows])
        self.real.setData(real, y)
        self.cap_line.setValue(cap_gb)
        self.cap_label.setText(f"one {e.gpu_name}: {sig3(cap_gb)} GB")
        self.cap_label.setColor(th.VERMILLION)
        self.cap_label.setPos(cap_gb, -0.58)
        fp_max = max(float(gb.max()), cap_gb) * 1.45
        ms_max = float(max(floor.max(), real.max())) * 1.5
        self.measured = self._measurements(s)
        here = [m for m in self.measured if m["here"]]
        if here:
            idx = {r.precision_id: i for i, r in enumerate(rows)}
            pts = [(m["measured_ms"], idx[m["precision"]]) for m in here if m["precision"] in idx]
            self.meas.setData(np.array([p[0] for p in pts]), np.array([p[1] for p in pts], dtype=float))
            if pts:
                ms_max = max(ms_max, max(p[0] for p in pts) * 1.5)
        else:
            self.meas.setData([], [])
        self.fp_plot.getPlotItem().vb.setRange(xRange=(0, fp_max), yRange=(-0.6, n - 0.2), padding=0)
        self.ms_plot.getPlotItem().vb.setRange(xRange=(0, ms_max), yRange=(-0.6, n - 0.2), padding=0)
        for i in range(MAX_ROWS):
            fl, ml = self.fp_labels[i], self.ms_labels[i]
            if i >= n:
                fl.setVisible(False)
                ml.setVisible(False)
                continue
            fl.setText(f"{sig3(gb[i])} GB")
            fl.setColor(th.ORANGE)
            fl.setPos(gb[i] + fp_max * 0.01, y[i])
            fl.setVisible(True)
            ml.setText(f"{duration(floor[i] / 1e3)} floor · {duration(real[i] / 1e3)}"
                       + (" (emulated)" if rows[i].emulated else ""))
            ml.setColor(th.SKY_BLUE if not rows[i].emulated else t.secondary)
            ml.setPos(max(floor[i], real[i]) + ms_max * 0.02, y[i])
            ml.setVisible(True)
        for i, cells in enumerate(self.cells):
            if i >= n:
                for c in cells:
                    c.setText("")
                continue
            r = rows[i]
            fits = (f"{r.gpus_to_fit} GPU{'s' if r.gpus_to_fit > 1 else ''}" if r.gpus_to_fit
                    else f"<span style='color:{th.VERMILLION}'>no count up to 64</span>")
            cells[0].setText(f"<b>{r.name}</b> ({sig3(r.weight_bits)}-bit)")
            cells[1].setText(fits)
            cells[2].setText(f"<span style='color:{t.secondary}'>emulated</span>" if r.emulated else "native")
            cells[3].setText(r.accuracy_note)
            cells[3].setToolTip(r.accuracy_note)
        self._tips(e, rows, y, gb, floor, real, here)
        self.title_row.setText(f"{e.model_name.upper()} ON {e.gpu_name.upper()} · BATCH {s.batch} · "
                               f"{s.input_len:,} IN / {s.output_len:,} OUT")
        lines = []
        for m in self.measured:
            lines.append(f"{m['precision'].upper()}: measured <b>{sig3(m['measured_s'])} s</b>, model "
                         f"{sig3(m['predicted_s'])} s (<b>{m['error']:+.0%}</b>)")
        if self.measured:
            m0 = self.measured[0]
            where = "This scenario" if m0["here"] else (f"Nothing published for this model and GPU; the nearest pair: "
                                                        f"{m0['model']} on {m0['gpu']}")
            ratio = self._speedup_text()
            self.meas_note.setText(f"{where}, batch 1, {m0['input_len']}/{m0['output_len']} tokens, end to end "
                                   f"({m0['framework']}):<br>" + "<br>".join(lines) + ratio
                                   + ("<br>★ on the chart: measured ms per step (end to end ÷ output tokens)"
                                      if here else ""))
        else:
            self.meas_note.setText("No published batch-1 runs to compare.")

    def _tips(self, e, rows, y, gb, floor, real, here) -> None:
        """Per-marker hover text: each bar, each ○ (realistic) and each ★ (published)."""
        s = e.scenario
        ft, mt = self.fp_plot.tips, self.ms_plot.tips
        ft.clear()
        mt.clear()
        idx = {r.precision_id: i for i, r in enumerate(rows)}
        for m in here:
            if m["precision"] not in idx:
                continue
            r = m["row"]
            mt.point(m["measured_ms"], idx[m["precision"]], measured_tip(r, [
                f"Measured ≈ {sig3(m['measured_ms'])} ms per step, model "
                f"{sig3(m['predicted_s'] * 1e3 / r.output_len)} ms per step (end to end ÷ {r.output_len:,} output tokens)",
                f"End to end: measured {sig3(m['measured_s'])} s, model {sig3(m['predicted_s'])} s "
                f"({error_text(m['error'])})"]))
        for i, r in enumerate(rows):
            fits = f"fits on {r.gpus_to_fit} GPU{'s' if r.gpus_to_fit > 1 else ''}" if r.gpus_to_fit \
                else "does not fit on up to 64 GPUs"
            maths = "emulated (no native maths at this width)" if r.emulated else "native maths"
            ft.rect(0, y[i] - 0.3, gb[i], y[i] + 0.3,
                    f"{r.name} ({sig3(r.weight_bits)}-bit): weights {sig3(gb[i])} GB on all GPUs together\n"
                    f"One {e.gpu_name}: {sig3(e.hbm_capacity_bytes / 1e9)} GB; {fits}")
            mt.point(real[i], y[i], f"○ {r.name}: realistic {duration(real[i] / 1e3)} per token "
                                    f"(floor {duration(floor[i] / 1e3)}), batch {s.batch}, {maths}")
            mt.rect(0, y[i] - 0.3, floor[i], y[i] + 0.3,
                    f"{r.name}: floor {duration(floor[i] / 1e3)} per token (every byte read once at full "
                    f"bandwidth); realistic {duration(real[i] / 1e3)}, {maths}")

    def _speedup_text(self) -> str:
        by = {m["precision"]: m for m in self.measured}
        a, b = by.get("fp16") or by.get("bf16"), by.get("fp8")
        if not (a and b):
            return ""
        return (f"<br>16-bit → FP8: measured {sig3(a['measured_s'] / b['measured_s'])}× faster, "
                f"model {sig3(a['predicted_s'] / b['predicted_s'])}×")

    def _measurements(self, s):
        def rows_for(model, gpu):
            out = []
            for c in matching_measurements(model, gpu, None, "end_to_end_latency_s", self.catalog):
                r = c.row
                if r.batch != 1 or r.n_gpus != 1:
                    continue
                out.append(dict(precision=r.precision, measured_s=r.value, predicted_s=c.predicted, error=c.error,
                                measured_ms=r.value * 1e3 / r.output_len, model=r.model, gpu=r.gpu,
                                input_len=r.input_len, output_len=r.output_len, framework=r.framework,
                                source=r.source, label=r.label, here=(model, gpu) == (s.model, s.gpu), row=r))
            return out
        cat = self.catalog
        found = rows_for(cat.model(s.model).id, cat.gpu(s.gpu).id)
        return found or rows_for(*REFERENCE)

    def csv_rows(self):
        header = ["kind", "precision_id", "name", "weight_bits", "weight_bytes_total", "floor_ms_per_token",
                  "ms_per_token", "gpus_to_fit", "emulated", "accuracy_note", "measured_e2e_s", "source"]
        rows = [["model", r.precision_id, r.name, r.weight_bits, r.weight_bytes_total, r.floor_ms_per_token,
                 r.ms_per_token, r.gpus_to_fit, r.emulated, r.accuracy_note, "", ""] for r in self.table]
        for m in self.measured:
            rows.append(["measured", m["precision"], m["label"], "", "", "", "", "", "", "", m["measured_s"],
                         m["source"]])
        return header, rows
