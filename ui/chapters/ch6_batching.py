"""Lesson 6: batching climbs the roofline (and, in its last state, moves you along the frontier:
model.lessons.ch6_batching.batching_frontier, drawn in a second plot that replaces the first).

One chart (model.lessons.ch6_batching.batching_chart): tokens/s of the whole batch against the
batch (log-log), realistic (solid) and at the floor (dashed), with where each turns
compute-bound (realistic and at peak numbers, the critical batch) and where the KV cache
stops fitting (shaded). Published runs appear only when the scenario is theirs (model,
precision, GPU, lengths): ★ measured beside ○ the model's prediction of the same run. Click
the plot to set the batch there (snapped to a power of two, 1 … 4096) through the
controller, so a speaker can walk the curve.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

from model.lessons.ch6_batching import FRONTIER_LABEL_SLOTS, LESSON_BATCHES, FrontierPath
from model.lessons.measured import source_line
from ui.kit import theme as th
from ui.chapters.base import ChapterView
from ui.chapters.look import LABEL, text_font
from ui.kit.pens import brush, pen, set_symbol_style
from ui.plotting.coords import LOG_LOG, at_share, extent, padded
from ui.plotting.labels import (ALONG_LINE, LEFT_OF_LINE, add_text, avoid_labels, avoid_line, avoid_polyline, covers, fit_along_line,
                                lift_above, narrow_below, nearer_than, place, set_fonts, show_text, view_pixels)
from ui.plotting.placement import Spot, spots
from ui.kit.slider_maps import nearest_power_of_two

NO_FILL = brush((0, 0, 0, 0))             # a ring's inside: what lies under it shows

BATCHES = LESSON_BATCHES
CLICK_MAX_BATCH = 4096
MARK_ROWS = {"real": 0.03, "ideal": 0.03, "kv": 0.03}             # where each line's words start, up the plot
SWATCH = {"now": "dot", "real": "line", "ideal": "dashed", "path": "line"}   # the KV region: a square
WORDS_GAP_PX = 12                         # the least clear space between two lines' words (their boxes' margins aside)
ABOVE_CURVES = 0.12                       # decades above the curves where a line's words start when crossed
# … and, where a line stands close right of the star, under it from its own left edge (clear of its ring)
BESIDE_STAR = (*spots(("right", "below-right", "above-right", "left"), 36), *spots(("below-right", "right"), 90),
               Spot((0.0, 0.0), (-4.0, 26.0)), Spot((0.0, 1.0), (-4.0, -26.0)))
FRONTIER_SPOTS = spots(("above-right", "right", "above-left", "left", "below-right", "below-left", "above", "below"), 14)


def batch_at(view_x: float) -> int:
    """The power of two nearest a log10(batch) view coordinate, within 1 … CLICK_MAX_BATCH."""
    return nearest_power_of_two(LOG_LOG.data_x(view_x), CLICK_MAX_BATCH)


class BatchingChapter(ChapterView):
    def build(self) -> None:
        self.title_row = self.add_chart_title()
        p = self.plot = self.make_plot("Batch (sequences decoded together, log)", "Tokens/s, whole batch (log)",
                                       log_x=True, log_y=True)
        self.add_legend(p)
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
        self.pred = p.plot(pen=None, symbol="o", symbolSize=40)     # a ring round its ★: both show, however close
        self.now = p.plot(pen=None, symbol="o", symbolSize=18)
        self.meas.setZValue(12)
        self.pred.setZValue(13)
        self.now.setZValue(14)                  # the scenario's dot over a published ★ at its batch
        self._mark_at = {}
        self.labels = {k: add_text(p, a) for k, a in
                       (("real_line", (1, -0.2)), ("ideal_line", (1, 1.2)), ("real", ALONG_LINE), ("ideal", ALONG_LINE),
                        ("kv", ALONG_LINE), ("meas", (0, 0.5)))}
        for k in MARK_ROWS:
            self.labels[k].setAngle(90)         # along its line: never across the other lines
        p.scene().sigMouseClicked.connect(self._clicked)
        p.setCursor(Qt.PointingHandCursor)
        self._build_frontier()

    def _build_frontier(self) -> None:
        """The last state's chart: the same setup on the planner's axes (hidden until it shows)."""
        fp = self.fplot = self.make_plot(FrontierPath.x_label, FrontierPath.y_label, log_x=True, log_y=True)
        self.add_legend(fp)
        self.chart_lay.addWidget(fp, 1)
        fp.setVisible(False)
        self.fpath = fp.plot(symbol="o", symbolSize=9)
        self.fnow = fp.plot(pen=None, symbol="o", symbolSize=20)
        self.fnow.setZValue(10)
        self.flabels = [add_text(fp, (0.5, 1.3)) for _ in range(FRONTIER_LABEL_SLOTS)]

    @property
    def curves(self):
        return self.figure.curves if self.figure is not None else None

    @property
    def measured(self):
        return self.figure.measured if self.figure is not None else ()

    @property
    def marks(self):
        return self.figure.marks if self.figure is not None else {}

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.real.setPen(pen(th.BLUISH_GREEN, width=3))
        self.ideal.setPen(pen(t.secondary, width=2, style=Qt.DashLine))
        self.over.setBrush(brush((213, 94, 0, 40)))
        self.lines["real"].setPen(pen(th.BLUISH_GREEN, width=2, style=Qt.DashLine))
        self.lines["ideal"].setPen(pen(t.secondary, width=2, style=Qt.DotLine))
        set_symbol_style(self.now, pen(t.op_outline, width=2), brush(t.op_point))
        set_symbol_style(self.meas, pen(t.bg, width=1), brush(th.YELLOW))
        set_symbol_style(self.pred, pen(th.SKY_BLUE, width=2), NO_FILL)      # a ring: its ★ shows inside
        set_fonts(self.labels.values(), text_font(t, LABEL, bold=True))
        self.fpath.setPen(pen(th.BLUISH_GREEN, width=3))
        set_symbol_style(self.fpath, pen(t.bg, width=1), brush(th.BLUISH_GREEN))
        set_symbol_style(self.fnow, pen(t.op_outline, width=2), brush(t.op_point))
        set_fonts(self.flabels, text_font(t, LABEL, bold=True))

    def _colours(self) -> dict:
        t = self.theme
        return {"real": th.BLUISH_GREEN, "ideal": t.secondary, "kv": th.VERMILLION, "meas": th.YELLOW}

    def update_view(self, e) -> None:
        t = self.theme
        f = self.figure
        c = f.curves
        axes = self.plot.axes
        self.real.setData(c.batch, c.tokens_per_s)
        self.ideal.setData(c.batch, c.ideal_tokens_per_s)
        self.now.setData([f.now.x], [f.now.y])
        here = f.measured_label            # a published run at this batch: its ○ is the model's point, not hidden under ●
        self.now.setVisible(here is None or here.x != f.now.x)
        self.meas.setData([m.x for m in f.measured_marks], [m.y for m in f.measured_marks])
        self.pred.setData([m.x for m in f.predicted_marks], [m.y for m in f.predicted_marks])
        low, top = self.axis_extent()                                   # one axis for the whole chapter
        lo, _ = extent([*c.tokens_per_s, *(m.y for m in f.measured_marks), *([low] if low > 0 else [])])
        _, hi = extent([*c.ideal_tokens_per_s, top])
        x_range = padded(axes.x(BATCHES[0]), axes.x(BATCHES[-1]), 0.1, 0.1)
        y_range = padded(axes.y(lo), axes.y(hi), 1.0, 0.45)      # room under the curves for the lines' words
        self.plot.getPlotItem().vb.setRange(xRange=x_range, yRange=y_range, padding=0)
        self._marks(x_range, y_range)
        L = self.labels
        for k in ("real_line", "ideal_line"):        # the curves are named in the key above the plot
            L[k].setVisible(False)
        here = f.measured_label
        show_text(L["meas"], here.label if here else "", th.YELLOW, axes.point(here.x, here.y) if here else None)
        self.title_row.setText(f.title)
        colours = {**self._colours(), "now": t.op_point}
        self.set_legend(self.plot, [(colours[k], w, SWATCH.get(k, "square")) for k, w in f.legend])
        tips = self.plot.tips
        tips.clear()
        tips.point(f.now.x, f.now.y, f.now.tip)
        for star, ring in zip(f.measured_marks, f.predicted_marks):
            tips.point(star.x, star.y, star.tip)
            tips.point(ring.x, ring.y, ring.tip)
        for m in f.points:
            tips.point(m.x, m.y, m.tip)
        self.plot.setToolTip(f.tooltip)
        self._show_frontier(f.frontier)

    def _show_frontier(self, fr) -> None:
        """The last state: the frontier chart in place of the batching one."""
        self.plot.setVisible(fr is None)
        self.fplot.setVisible(fr is not None)
        if fr is None:
            self.fplot.legend_label.setVisible(False)
            return
        self.plot.legend_label.setVisible(False)
        colours = {"path": th.BLUISH_GREEN, "now": self.theme.op_point}
        self.set_legend(self.fplot, [(colours[k], w, SWATCH[k]) for k, w in fr.legend])
        axes = self.fplot.axes
        self.fpath.setData(fr.x, fr.y)
        self.fnow.setData([fr.now.x], [fr.now.y])
        xs, ys = extent(fr.x), extent(fr.y)
        self.fplot.getPlotItem().vb.setRange(xRange=padded(axes.x(xs[0]), axes.x(xs[1]), 0.15, 0.15),
                                             yRange=padded(axes.y(ys[0]), axes.y(ys[1]), 0.2, 0.3), padding=0)
        for lab, m in zip(self.flabels, fr.labelled):
            colour = self.theme.op_point if m is fr.now else th.BLUISH_GREEN
            show_text(lab, m.label, colour, axes.point(m.x, m.y) if m.label else None)
        self.title_row.setText(fr.title)
        tips = self.fplot.tips
        tips.clear()
        tips.point(fr.now.x, fr.now.y, fr.now.tip)
        for m in fr.points:
            tips.point(m.x, m.y, m.tip)

    def _marks(self, x_range, y_range) -> None:
        """Where decode turns compute-bound (realistic, ideal) and where the KV cache runs out."""
        f = self.figure
        axes = self.plot.axes
        colours = self._colours()
        marks = {**f.compute_bound, "kv": f.kv_full} if f.kv_full else dict(f.compute_bound)
        self._mark_at = {k: (axes.x(m.x), at_share(y_range, MARK_ROWS[k])) for k, m in marks.items()}
        for k in MARK_ROWS:
            m = marks.get(k)
            show_text(self.labels[k], m.label if m else "", colours[k], self._mark_at.get(k))
        for k, line in self.lines.items():
            line.setVisible(k in marks)
            if k in marks:
                line.setValue(axes.x(marks[k].x))
        self.over.setVisible("kv" in marks)
        if "kv" in marks:
            self.over.setRegion(padded(axes.x(marks["kv"].x), x_range[1], above=1))

    def place_labels(self) -> None:
        """The published run's words beside its star, inside the plot (the lines' words run
        along their lines)."""
        f = self.figure
        fr = f.frontier
        if fr is not None:                    # the frontier's words beside their dots, off its line
            px = view_pixels(self.fplot.getPlotItem().vb)
            axes = self.fplot.axes
            line = avoid_polyline(px, axes.xs(fr.x), axes.ys(fr.y))
            for lab, m in zip(self.flabels, fr.labelled):
                if m.label:
                    place(lab, px, axes.point(m.x, m.y), FRONTIER_SPOTS, line)
        self._place_line_words()
        here = f.measured_label
        if here is not None:
            px = view_pixels(self.plot.getPlotItem().vb)
            axes, c = self.plot.axes, f.curves
            (y0, y1) = self.plot.getPlotItem().vb.viewRange()[1]
            marks = [avoid_line(px, (ln.value(), y0), (ln.value(), y1)) for ln in self.lines.values() if ln.isVisible()]
            words = avoid_labels([self.labels[k] for k in ("real", "ideal", "kv")], px)
            place(self.labels["meas"], px, axes.point(here.x, here.y), BESIDE_STAR,
                  [*avoid_polyline(px, axes.xs(c.batch), axes.ys(c.tokens_per_s)),
                   *avoid_polyline(px, axes.xs(c.batch), axes.ys(c.ideal_tokens_per_s)), *marks, *words])

    def _place_line_words(self) -> None:
        """Each line's words run up beside it from the foot of the plot; where a curve crosses them
        they take more, shorter lines under it, else start above the curves, and where two lines' words would touch, the left
        line's go to its other side (settled from the right, so a moved one is seen by its left): two
        lines' words WORDS_GAP_PX apart at least."""
        f = self.figure
        if f.frontier is not None:
            return
        px = view_pixels(self.plot.getPlotItem().vb)
        axes, c = self.plot.axes, f.curves
        xs = axes.xs(c.batch)
        curves = [*avoid_polyline(px, xs, axes.ys(c.tokens_per_s)), *avoid_polyline(px, xs, axes.ys(c.ideal_tokens_per_s))]
        shown = [k for k in ("real", "ideal", "kv") if k in self._mark_at and self.labels[k].toPlainText()]
        for k in shown:
            lab, (x, y) = self.labels[k], self._mark_at[k]
            lab.setAnchor(ALONG_LINE)
            fit_along_line(lab, px)                 # from its own width each time: the same place on every call
            lab.setPos(x, y)
            if covers(lab, px, curves):
                narrow_below(lab, px, x, xs, axes.ys(c.tokens_per_s))
            if covers(lab, px, curves):
                fit_along_line(lab, px)
                lift_above(lab, px, x, xs, axes.ys(c.ideal_tokens_per_s), ABOVE_CURVES)
        for left, right in reversed(list(zip(shown, shown[1:]))):   # from the right: each knows its right one's side
            if nearer_than(self.labels[left], self.labels[right], px, WORDS_GAP_PX):
                self.labels[left].setAnchor(LEFT_OF_LINE)

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

    def csv_rows(self):
        c = self.curves
        header = ["kind", "batch", "tokens_per_s", "ideal_tokens_per_s", "fits", "source"]
        rows = [["model", b, v, i, bool(f), ""] for b, v, i, f in zip(c.batch, c.tokens_per_s,
                                                                       c.ideal_tokens_per_s, c.fits)]
        for m in self.measured:
            rows.append(["measured", m.row.batch, m.measured, "", "", source_line(m.row)])
            rows.append(["model_of_measured_run", m.row.batch, m.predicted, "", "", m.row.label])
        return header, rows
