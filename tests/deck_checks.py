"""The drawing checker's checks of what a chart means (tests/deck_drawing.py runs them on every state):

    threshold_at_bend     a line that marks where a curve turns sits where the drawn curve turns
    arithmetic_findings   every equation a state prints redoes from its printed numbers
    hidden_markers        no marker lies hidden under another of another shape (a ○ under its ★)
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from deck_drawing import Finding, _markers
from model.lessons.chart import chart_texts
from model.lessons.deck import chapter_facts


def hidden_markers(view, where: str) -> list[Finding]:
    """Every marker drawn shows: none lies wholly inside a marker of another shape drawn over it or
    larger and filled (lesson 6's ○ under its ★: the model's prediction hidden by the measurement)."""
    plot = getattr(view, "plot", None)
    if plot is None or not plot.isVisible():
        return []
    items = plot.getPlotItem().items
    marks = _markers(plot)
    out = []
    for a, ra in marks:
        for b, rb in marks:
            if a is b or rb.width() < ra.width() - 1e-6 or a.opts.get("symbol") == b.opts.get("symbol"):
                continue                        # (a dot and its own halo or ring are one marker, drawn so)
            inside = rb.adjusted(-1, -1, 1, 1).contains(ra)
            over = (b.zValue(), items.index(b)) > (a.zValue(), items.index(a))      # b is drawn on top of a
            if inside and over and not (rb.width() > ra.width() + 6 and _hollow(b, view)):
                out.append(Finding("hidden marker", where, f"a {a.opts.get('symbol')} marker at "
                                                           f"({ra.center().x():.0f},{ra.center().y():.0f}) lies under a "
                                                           f"{b.opts.get('symbol')} one"))
    return out


def _hollow(it, view) -> bool:
    """A ring with no fill, so what lies inside it shows."""
    brush = it.opts.get("symbolBrush")
    if brush is None:
        return False
    return pg.mkBrush(brush).color().alpha() == 0      # (a ring filled with the background hides what is inside)


def threshold_at_bend(view, where: str) -> list[Finding]:
    """A line that marks where a curve turns sits where the drawn curve turns: between the drawn
    points on either side of the largest drop in its log-log slope (lesson 6's realistic curve)."""
    f = view.figure
    if view.chapter.number != 6 or "real" not in getattr(f, "compute_bound", {}):
        return []
    x = np.asarray(view.real.xData, dtype=float)
    y = np.asarray(view.real.yData, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = x[ok], y[ok]
    if len(x) < 3:
        return []
    slope = np.diff(np.log(y)) / np.diff(np.log(x))
    k = int(np.argmax(slope[:-1] - slope[1:])) + 1             # the drawn point where the slope drops most
    at = f.compute_bound["real"].x
    if not x[k - 1] < at <= x[k + 1]:
        return [Finding("threshold off the bend", where, f"the line at batch {at:,.0f}, the curve bends at "
                                                         f"{x[k]:,.0f} (between {x[k - 1]:,.0f} and {x[k + 1]:,.0f})")]
    return []


def arithmetic_findings(view, where: str) -> list[Finding]:
    """Every equation the state writes (key number, details, derivation, chart words) redoes from its
    printed numbers (tests/equation_check.py)."""
    from equation_check import bad_equations
    c = view.controller
    facts = chapter_facts(view.chapter.number, c.estimate, view.params, c.catalog)
    texts = [facts.key.label, *facts.details, *facts.why, *chart_texts(view.figure)]
    return [Finding("arithmetic", where, f"{eq!r} gives {got:.4g}") for t in texts for eq, _v, got in bad_equations(t)]
