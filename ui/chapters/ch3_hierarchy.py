"""Lesson 3: the memory hierarchy as a ladder.

One chart (model.lessons.ch3_hierarchy.ladder_chart): registers → shared memory → L2 → HBM →
host RAM along x; up the log y axis, how many times worse than the registers each level is,
in bandwidth (times narrower, solid) and in latency (times slower to answer, dashed), each
point labelled with its own value. The dotted line is the "10× per step" rule of thumb.
Derived numbers (not published or measured) are hollow markers and say so on hover.
"""
from __future__ import annotations

from PySide6.QtCore import Qt

from ui.kit import theme as th
from ui.chapters.base import ChapterView
from ui.chapters.look import LABEL, text_font
from ui.kit.pens import brush, pen, set_symbol_style
from ui.plotting.axes import NamesAxis
from ui.plotting.coords import clear_of_decade, extent, shift, slot_range
from ui.plotting.labels import (add_text, add_texts, avoid_labels, avoid_marker, avoid_polyline, place, set_fonts,
                                show_text, show_texts, stack_down, view_pixels)
from ui.plotting.placement import Avoid, Spot, spots

MAX_LEVELS = 6
STYLE = {"bandwidth": (th.ORANGE, Qt.SolidLine), "latency": (th.REDDISH_PURPLE, Qt.DashLine)}
LEGEND_X = -0.45                            # the legend's left edge (places: 0 = registers)
LEGEND_DY = {"bandwidth": 0.75, "latency": 0.35, "rule": -0.05}   # decades above the largest factor
HIGHER = (*spots(("above", "above-left", "above-right"), 12), *spots(("above", "above-left", "above-right"), 30),
          *spots(("left", "right"), 16))       # the higher point's words stay above it,
LOWER = (*spots(("below", "below-left", "below-right"), 12), *spots(("below", "below-left", "below-right"), 30),
          *spots(("left", "right"), 16))        # the lower's below: each beside its own point
SAME = {"latency": spots(("below-right", "below", "right"), 10),     # where the two points coincide (the
         "bandwidth": (*(s for d in (34, 48, 64) for s in spots(("below-right", "below"), d)),   # registers): one under
                       *(Spot((0.0, 0.0), (dx, 8.0)) for dx in (90, 110, 130)))}   # the other, or beside it on a short plot


class HierarchyChapter(ChapterView):
    def build(self) -> None:
        self.title_row = self.add_chart_title()
        self.names = NamesAxis("bottom")
        p = self.plot = self.make_plot("", "× worse than the registers (log)", log_y=True, bottom_axis=self.names)
        self.chart_lay.addWidget(p, 1)
        self.rule = p.plot()
        self.lines = {}
        for key in STYLE:
            self.lines[key] = dict(
                line=p.plot(), filled=p.plot(pen=None, symbol="o", symbolSize=16),
                hollow=p.plot(pen=None, symbol="o", symbolSize=16),
                values=add_texts(p, MAX_LEVELS), name=add_text(p, (0, 0)))
        self.rule_label = add_text(p, (0, 0))

    @property
    def points(self):
        return self.figure.points if self.figure is not None else ()

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.rule.setPen(pen(t.secondary, width=2, style=Qt.DotLine))
        font = text_font(t, LABEL, bold=True)
        for key, (colour, style) in STYLE.items():
            d = self.lines[key]
            d["line"].setPen(pen(colour, width=3, style=style))
            set_symbol_style(d["filled"], pen(t.bg, width=1), brush(colour))
            set_symbol_style(d["hollow"], pen(colour, width=2), brush(t.bg))
            set_fonts((*d["values"], d["name"]), font)
        self.rule_label.setFont(font)

    def update_view(self, e) -> None:
        t = self.theme
        f = self.figure
        axes = self.plot.axes
        self.names.set_names(f.names)
        self.rule.setData([m.x for m in f.rule], [m.y for m in f.rule])
        top = axes.y(extent([f.top, self.axis_extent()[1]])[1])          # one axis for the whole chapter
        self.legend_top = top
        show_text(self.rule_label, f.rule_label, t.secondary, shift((LEGEND_X, top), dy=LEGEND_DY["rule"]))
        for series, other in ((f.bandwidth, f.latency), (f.latency, f.bandwidth)):
            d = self.lines[series.key]
            colour = STYLE[series.key][0]
            marks = series.marks
            d["line"].setData([m.x for m in marks], [m.y for m in marks])
            d["filled"].setData([m.x for m, hollow in zip(marks, series.derived) if not hollow],
                                [m.y for m, hollow in zip(marks, series.derived) if not hollow])
            d["hollow"].setData([m.x for m, hollow in zip(marks, series.derived) if hollow],
                                [m.y for m, hollow in zip(marks, series.derived) if hollow])
            show_texts(d["values"], ((m.label, colour, axes.point(m.x, m.y)) for m in marks))
            show_text(d["name"], series.legend, colour, shift((LEGEND_X, top), dy=LEGEND_DY[series.key]))
        y_range = (-1.25, clear_of_decade(top, 0.85, 0.25))     # room below the registers for both values, above the top tick
        self.plot.getPlotItem().vb.setRange(xRange=slot_range(len(f.names)), yRange=y_range, padding=0)
        self.title_row.setText(f.title)
        tips = self.plot.tips
        tips.clear()
        for m, n in zip(f.bandwidth.marks, f.latency.marks):
            tips.point(m.x, m.y, m.tip)
            tips.point(n.x, n.y, n.tip)
        self.plot.setToolTip(f.tooltip)

    def place_labels(self) -> None:
        """Each point's value above it when it is the higher of its level's two (below when the
        lower), straight or to one side: off the lines, the markers and the words placed before it."""
        f = self.figure
        axes = self.plot.axes
        px = view_pixels(self.plot.getPlotItem().vb)
        self._stack_legend(px)
        avoid = [*avoid_labels((self.rule_label, *(d["name"] for d in self.lines.values())), px),
                 *avoid_polyline(px, [m.x for m in f.rule], axes.ys([m.y for m in f.rule]), 3),
                 *(a for s in (f.bandwidth, f.latency) for a in avoid_polyline(px, [m.x for m in s.marks],
                                                                               axes.ys([m.y for m in s.marks]))),
                 *(avoid_marker(px, axes.point(m.x, m.y), 9) for s in (f.bandwidth, f.latency) for m in s.marks)]
        for series, other in ((f.latency, f.bandwidth), (f.bandwidth, f.latency)):
            for lab, m, o in zip(self.lines[series.key]["values"], series.marks, other.marks):
                where = SAME[series.key] if m.y == o.y else HIGHER if m.y > o.y else LOWER
                p = place(lab, px, axes.point(m.x, m.y), where, avoid)
                avoid.append(Avoid(box=p.box))

    def _stack_legend(self, px) -> None:
        """The legend's rows at their decades, or a line under the row above where a short plot
        brings those decades closer than a line of text."""
        rows = (("bandwidth", self.lines["bandwidth"]["name"]), ("latency", self.lines["latency"]["name"]),
                ("rule", self.rule_label))
        stack_down(((lab, shift((LEGEND_X, self.legend_top), dy=LEGEND_DY[key])) for key, lab in rows), px)

    def csv_rows(self):
        header = ["level", "label", "capacity_bytes", "bandwidth_bytes_per_s", "latency_s", "bandwidth_x_vs_registers",
                  "latency_x_vs_registers"]
        return header, [[p.key, p.label, p.capacity_bytes, p.bandwidth_bytes_per_s, p.latency_s, p.bandwidth_x,
                         p.latency_x] for p in self.points]
