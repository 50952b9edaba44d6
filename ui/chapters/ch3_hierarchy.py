"""Lesson 3: the memory hierarchy as a ladder.

One chart (model.lessons.ch3_hierarchy.ladder_points): registers → shared memory → L2 → HBM → host
RAM along x; up the log y axis, how many times worse than the registers each level is, in
bandwidth (times narrower, solid) and in latency (times slower to answer, dashed), each
point labelled with its own value. The dotted line is the "10× per step" rule of thumb.
Derived numbers (not published or measured) are hollow markers and say so on hover.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from model.readouts.format import duration, si, sig3
from model.lessons.ch3_hierarchy import ladder_points
from ui import theme as th
from ui.pens import brush, pen, set_symbol_style
from ui.chapters.base import ChapterView, log10, text_font
from ui.chapters.ch1_generations import NamesAxis

MAX_LEVELS = 6
LINES = (("bandwidth", "bandwidth_x", th.ORANGE, Qt.SolidLine, "bandwidth: × narrower"),
         ("latency", "latency_x", th.REDDISH_PURPLE, Qt.DashLine, "latency: × slower to answer"))


def latency_text(seconds: float) -> str:
    return f"{sig3(seconds * 1e9)} ns" if seconds < 1e-6 else duration(seconds)


def short_label(label: str) -> str:
    return label.split(" (")[0].replace("Shared mem / L1", "Shared mem")


class HierarchyChapter(ChapterView):
    def build(self) -> None:
        self.points = ()
        self.title_row = self.add_chart_title()
        self.names = NamesAxis("bottom")
        p = self.plot = self.make_plot("", "× worse than the registers (log)", log_y=True, bottom_axis=self.names)
        self.chart_lay.addWidget(p, 1)
        self.rule = p.plot()
        self.lines = {}
        for key, _attr, colour, style, _name in LINES:
            self.lines[key] = dict(
                line=p.plot(), filled=p.plot(pen=None, symbol="o", symbolSize=16),
                hollow=p.plot(pen=None, symbol="o", symbolSize=16),
                values=[pg.TextItem() for _ in range(MAX_LEVELS)],
                name=pg.TextItem(anchor=(0, 0)))
            for item in (*self.lines[key]["values"], self.lines[key]["name"]):
                p.addItem(item, ignoreBounds=True)
        self.rule_label = pg.TextItem(anchor=(0, 0))
        p.addItem(self.rule_label, ignoreBounds=True)

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.rule.setPen(pen(t.secondary, width=1, style=Qt.DotLine))
        for key, _attr, colour, style, _name in LINES:
            d = self.lines[key]
            d["line"].setPen(pen(colour, width=3, style=style))
            set_symbol_style(d["filled"], pen(t.bg, width=1), brush(colour))
            set_symbol_style(d["hollow"], pen(colour, width=2), brush(t.bg))
            for lab in d["values"]:
                lab.setFont(text_font(t, 15, bold=True))
            d["name"].setFont(text_font(t, 15, bold=True))
        self.rule_label.setFont(text_font(t, 15, bold=True))

    def update_view(self, e) -> None:
        t = self.theme
        hw = self.catalog.gpu(e.scenario.gpu)
        pts = self.points = ladder_points(hw)
        n = len(pts)
        x = np.arange(n, dtype=float)
        self.names.names = [short_label(p.label) for p in pts]
        self.names.setTicks([[(i, self.names.names[i]) for i in range(n)]])
        derived = {lv.key: lv.derived for lv in hw.levels}
        top = max(max(p.bandwidth_x, p.latency_x) for p in pts)
        rule = 10.0 ** x
        self.rule.setData(x, rule)
        self.rule_label.setText("┈┈ rule of thumb: 10× per step")
        self.rule_label.setColor(t.secondary)
        self.rule_label.setPos(-0.45, log10(top) - 0.05)
        for key, attr, colour, _style, name in LINES:
            d = self.lines[key]
            ys = np.array([getattr(p, attr) for p in pts])
            d["line"].setData(x, ys)
            is_derived = np.array([any(key in f for f in derived.get(p.key, ())) for p in pts])
            d["filled"].setData(x[~is_derived], ys[~is_derived])
            d["hollow"].setData(x[is_derived], ys[is_derived])
            for k, lab in enumerate(d["values"]):
                lab.setVisible(k < n)
                if k < n:
                    p = pts[k]
                    other = p.latency_x if key == "bandwidth" else p.bandwidth_x
                    above = ys[k] > other or (ys[k] == other and key == "latency")
                    lab.setAnchor((0.5, 1.25) if above else (0.5, -0.25))
                    lab.setText(si(p.bandwidth_bytes_per_s, "B/s") if key == "bandwidth" else latency_text(p.latency_s))
                    lab.setColor(colour)
                    lab.setPos(k, log10(ys[k]))
            d["name"].setText(("━━ " if key == "bandwidth" else "╍╍ ") + name)
            d["name"].setColor(colour)
            d["name"].setPos(-0.45, log10(top) + (0.75 if key == "bandwidth" else 0.35))
        vb = self.plot.getPlotItem().vb
        y_top = log10(top) + 0.85
        if y_top - np.floor(y_top) < 0.12:         # a decade tick right at the top edge would be cut
            y_top = np.floor(y_top) + 0.12
        vb.setRange(xRange=(-0.5, n - 0.5), yRange=(-0.6, y_top), padding=0)
        self.title_row.setText(f"{hw.short_name.upper()}: EACH LEVEL ÷ THE REGISTERS · HOLLOW = DERIVED FROM OTHER SPECS")
        tips = self.plot.tips
        tips.clear()
        for k, p in enumerate(pts):
            cap = si(p.capacity_bytes, "B") if p.capacity_bytes else "the host's"
            src = "derived from other specs" if derived.get(p.key) else "published or measured"
            tips.point(k, p.bandwidth_x, f"{p.label}: {si(p.bandwidth_bytes_per_s, 'B/s')} = {sig3(p.bandwidth_x)}× "
                                         f"less than the registers; capacity {cap} ({src})")
            tips.point(k, p.latency_x, f"{p.label}: {latency_text(p.latency_s)} = {sig3(p.latency_x)}× the registers' "
                                       f"latency ({src})")
        self.plot.setToolTip("Each level's bandwidth and latency, as times worse than the registers (log scale)")

    def csv_rows(self):
        header = ["level", "label", "capacity_bytes", "bandwidth_bytes_per_s", "latency_s", "bandwidth_x_vs_registers",
                  "latency_x_vs_registers"]
        return header, [[p.key, p.label, p.capacity_bytes, p.bandwidth_bytes_per_s, p.latency_s, p.bandwidth_x,
                         p.latency_x] for p in self.points]
