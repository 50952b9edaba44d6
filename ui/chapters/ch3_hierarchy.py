"""Lesson 3: the memory hierarchy as a ladder.

model.lessons.memory_ladder(hw): registers → shared memory → L2 → HBM → host RAM, with
capacity, bandwidth and latency on log scales, and the factor between neighbouring steps.
Derived numbers (not published or measured) are hollow markers, and say so in the tooltip.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QHBoxLayout

from model.format import duration, si, sig3
from model.lessons import memory_ladder
from ui import theme as th
from ui.chapters.base import ChapterView, log10, text_font
from ui.roofline_plot import SIAxis

MAX_LEVELS = 6
COLUMNS = (("capacity", "capacity_bytes", "Capacity", "B", th.SKY_BLUE),
           ("bandwidth", "bandwidth_bytes_per_s", "Bandwidth", "B/s", th.ORANGE),
           ("latency", "latency_s", "Latency", "s", th.REDDISH_PURPLE))
DERIVED_KEYS = {"capacity": ("capacity", "capacity_GB", "capacity_bytes"),
                "bandwidth": ("bandwidth", "bandwidth_GBps", "bandwidth_bytes_per_s"),
                "latency": ("latency", "latency_ns", "latency_s")}


def factor_text(f: float | None) -> str:
    if f is None or not math.isfinite(f) or f <= 0:
        return ""
    return f"×{sig3(f)}" if f >= 1 else f"÷{sig3(1 / f)}"


def fmt(kind: str, v: float | None) -> str:
    if v is None:
        return "—"
    if kind == "latency":
        return f"{sig3(v * 1e9)} ns" if v < 1e-6 else duration(v)
    return si(v, "B/s" if kind == "bandwidth" else "B")


class DurationAxis(SIAxis):
    """Log ticks of seconds as durations: 1 ns, 10 ns, 100 ns, 1 µs …"""

    def tickStrings(self, values, scale, spacing):
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        return [fmt("latency", 10.0 ** v) if abs(v - round(v)) < 1e-6 else "" for v in values]


def short_label(label: str) -> str:
    return label.split(" (")[0]


class HierarchyChapter(ChapterView):
    def build(self) -> None:
        self.steps = ()
        self.title_row = self.add_chart_title()
        row = QHBoxLayout()
        row.setSpacing(6)
        self.cols = {}
        for key, _attr, name, unit, colour in COLUMNS:
            p = self.make_plot(f"{name} (log)", "", log_x=True, x_unit=unit,
                               bottom_axis=DurationAxis("bottom") if key == "latency" else None)
            stems = p.plot(connect="pairs")
            filled = p.plot(pen=None, symbol="o", symbolSize=14)
            hollow = p.plot(pen=None, symbol="o", symbolSize=14)
            values = [pg.TextItem(anchor=(0, 0.5)) for _ in range(MAX_LEVELS)]
            factors = [pg.TextItem(anchor=(0.5, 0.5)) for _ in range(MAX_LEVELS)]
            for item in (*values, *factors):
                p.addItem(item, ignoreBounds=True)
            p.getPlotItem().invertY(True)
            self.cols[key] = dict(plot=p, stems=stems, filled=filled, hollow=hollow, values=values, factors=factors,
                                  colour=colour, unit=unit)
            row.addWidget(p, 1)
        self.chart_lay.addLayout(row, 1)
        self.key_label = self.note_label()
        self.chart_lay.addWidget(self.key_label)
        self.summary = self.note_label(name="chapterValue")
        self.side_lay.addWidget(self.summary)
        self.side_lay.addWidget(self.note_label(
            "Pick another GPU in the controls (or step to the next state) to see its ladder. "
            "Hover a plot for the sources."))

    def apply_plot_theme(self, t: th.Theme) -> None:
        for key, c in self.cols.items():
            col = c["colour"]
            c["stems"].setPen(pg.mkPen(col, width=1))
            c["filled"].setSymbolBrush(pg.mkBrush(col))
            c["filled"].setSymbolPen(pg.mkPen(t.bg, width=1))
            c["hollow"].setSymbolBrush(pg.mkBrush(t.bg))
            c["hollow"].setSymbolPen(pg.mkPen(col, width=1, style=pg.QtCore.Qt.SolidLine))
            for lab in c["values"]:
                lab.setFont(text_font(t, 13, bold=True))
            for lab in c["factors"]:
                lab.setFont(text_font(t, 12))
            ax = c["plot"].getPlotItem().getAxis("left")
            if key != "capacity":
                ax.setWidth(8)
                ax.setStyle(showValues=False)
            else:
                ax.setWidth(int(t.px(13) * 8.5))
        self.key_label.setText("● published or measured &nbsp; ○ <i>derived</i> (computed from other specs) "
                               "&nbsp; · factors between steps in grey")

    def update_view(self, e) -> None:
        t = self.theme
        hw = self.catalog.gpu(e.scenario.gpu)
        self.steps = steps = memory_ladder(hw)
        n = len(steps)
        y = np.arange(n, dtype=float)
        names = [short_label(s.level.label) for s in steps]
        tips = []
        for s in steps:
            L = s.level
            d = f" — derived: {', '.join(L.derived)}" if L.derived else ""
            tips.append(f"{L.label}: capacity {fmt('capacity', L.capacity_bytes)}, bandwidth "
                        f"{fmt('bandwidth', L.bandwidth_bytes_per_s)}, latency {fmt('latency', L.latency_s)}{d}\n"
                        f"  source: {L.source}")
        for key, attr, name, unit, colour in COLUMNS:
            c = self.cols[key]
            vals = np.array([getattr(s.level, attr) if getattr(s.level, attr) else np.nan for s in steps], dtype=float)
            ok = np.isfinite(vals)
            lo = 10 ** math.floor(log10(np.nanmin(vals)) - 0.3)
            hi = 10 ** math.ceil(log10(np.nanmax(vals)) + 1.8)
            sx, sy = [], []
            for i in range(n):
                if ok[i]:
                    sx += [lo, vals[i]]
                    sy += [y[i], y[i]]
            c["stems"].setData(np.array(sx), np.array(sy))
            derived = np.array([any(k in s.level.derived for k in DERIVED_KEYS[key]) for s in steps])
            f_mask, h_mask = ok & ~derived, ok & derived
            marks = c["plot"].tips
            marks.clear()
            for i in range(n):
                if ok[i]:
                    L = steps[i].level
                    how = (f"derived (computed from other specs: {', '.join(L.derived)})" if derived[i]
                           else "published or measured")
                    marks.point(vals[i], y[i], f"{L.label} — {name.lower()}: {fmt(key, vals[i])}, {how}\n"
                                               f"Source: {L.source}")
            c["filled"].setData(vals[f_mask], y[f_mask])
            c["hollow"].setData(vals[h_mask], y[h_mask])
            vb = c["plot"].getPlotItem().vb
            vb.setRange(xRange=(log10(lo), log10(hi)), yRange=(-0.6, n - 0.4), padding=0)
            for i, lab in enumerate(c["values"]):
                if i >= n or not ok[i]:
                    lab.setVisible(i < n)
                    if i < n:
                        lab.setText("—")
                        lab.setColor(t.secondary)
                        lab.setPos(log10(lo) + 0.1, y[i])
                    continue
                is_d = bool(derived[i])
                lab.setText(fmt(key, vals[i]) + ("\nderived" if is_d else ""))
                lab.setColor(colour)
                lab.setPos(log10(vals[i]) + 0.12, y[i])
                lab.setVisible(True)
            factor_attr = {"capacity": "capacity_factor", "bandwidth": "bandwidth_factor", "latency": "latency_factor"}[key]
            for i, lab in enumerate(c["factors"]):
                f = getattr(steps[i], factor_attr) if 0 < i < n else None
                text = factor_text(f)
                if not text or not (ok[i] and ok[i - 1]):
                    lab.setVisible(False)
                    continue
                lab.setText(text)
                lab.setColor(t.secondary)
                lab.setPos(0.5 * (log10(vals[i]) + log10(vals[i - 1])), y[i] - 0.5)
                lab.setVisible(True)
            c["plot"].setToolTip("\n".join(tips))
            ax = c["plot"].getPlotItem().getAxis("left")
            ax.setTicks([[(i, names[i]) for i in range(n)]])
            if key == "capacity":
                fm = QFontMetrics(text_font(t, 13))
                ax.setWidth(max(fm.horizontalAdvance(nm) for nm in names) + 14)
        hbm = next((s for s in steps if s.level.key == "hbm"), None)
        self.title_row.setText(f"{hw.short_name.upper()}: FROM THE REGISTERS DOWN TO HOST RAM")
        if hbm is not None:
            self.summary.setText(
                f"{hw.short_name} HBM: <b>{fmt('capacity', hbm.level.capacity_bytes)}</b> at "
                f"<b>{fmt('bandwidth', hbm.level.bandwidth_bytes_per_s)}</b>, "
                f"{fmt('latency', hbm.level.latency_s)} away.<br>"
                f"The weights live here: every decode step reads them all through this one pipe.")
        else:
            self.summary.setText("")

    def csv_rows(self):
        header = ["level", "label", "capacity_bytes", "bandwidth_bytes_per_s", "latency_s", "capacity_factor",
                  "bandwidth_factor", "latency_factor", "derived", "source"]
        rows = [[s.level.key, s.level.label, s.level.capacity_bytes, s.level.bandwidth_bytes_per_s, s.level.latency_s,
                 s.capacity_factor, s.bandwidth_factor, s.latency_factor, ";".join(s.level.derived), s.level.source]
                for s in self.steps]
        return header, rows
