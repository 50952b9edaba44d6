"""The lesson deck's drawing checker: a chapter view's geometry against its own numbers.

    check_view(view, presenting=True, size=(w, h)) -> [Finding(kind, where, text)]

It reads the pyqtgraph items of the chapter's plots (their data, in view and scene
coordinates) and the model's values (the chapter's Facts and chart value), not pixels:

  clipped            a plot text whose box leaves its plot's view box; a one-line label or a
                     tab whose text does not fit its width
  text overlap       two plot texts whose boxes overlap
  tick labels        two tick labels of one axis overlapping or nearer than a few px, a tick label
                     cut by the plot's or the widget's edge, a named tick dropped (tests/deck_ticks.py)
  text on marker     a plot text over a data marker (a dot, a star, a ring)
  text on line       a plot text crossed by a plot line (a curve, a reference line)
  label off its line a threshold's words more than LINE_GAP_PX from the line they name, or
                     naming another number than the line's
  bar sum            a stacked bar whose drawn segments do not reach its labelled total (or
                     leave a gap), or whose label's number is not its total
  point in region    the highlighted point inside a region its claim does not allow (lesson 6:
                     the batch on screen where the KV cache does not fit; lesson 2: the warps
                     "that hide the wait" not where the dot is)
  colour no legend   a colour that carries meaning (a bar, a curve, a marker, a region) with
                     neither a legend entry nor a text of that colour on the plot
  legend swatch      a legend entry drawn unlike what it names (a square for a dashed line, a
                     line for a bar): its swatch is none of the ways the plot draws that colour
  number not model's a number in the claim or the caption (takeaway) that is none of the
                     model's strings for this screen (its Facts, its chart, its scenario)
  title lines        the claim takes more than one line (presenter mode, 1920×1080 and 1280×720)
  small text         secondary text under SMALL_PX in presenter mode at 1920×1080
  faint text         a text colour under 4.5:1 contrast on the background
  thin line          a reference line under 2 px
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QLabel

from deck_ticks import tick_problems
from model.lessons.chart import Bar, chart_texts
from model.lessons.deck import chapter_chart, chapter_facts
from ui.plotting.keys import SWATCHES

KINDS = ("clipped", "text overlap", "tick labels", "text on marker", "text on line", "label off its line", "bar sum",
         "point in region", "colour no legend", "legend swatch", "number not model's", "title lines", "small text",
         "faint text", "thin line", "threshold off the bend", "arithmetic", "hidden marker")
INK_INSET_PX = 3.0          # a TextItem's box has the document's margin around the ink
OVERLAP_PX2 = 4.0
LINE_CROSS_PX = 3.0
LINE_GAP_PX = 16.0
SMALL_PX = 24
CONTRAST = 4.5
NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w]|\.\d)")


@dataclass(frozen=True)
class Finding:
    kind: str
    where: str
    text: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.where}: {self.text}"


# ---------------------------------------------------------------- the items, in scene coordinates
def _texts(plot) -> list[tuple[pg.TextItem, QRectF]]:
    out = []
    for it in plot.getPlotItem().items:
        if isinstance(it, pg.TextItem) and it.isVisible() and it.toPlainText().strip():
            it.updateTransform(force=True)
            r = it.mapRectToScene(it.boundingRect())
            out.append((it, r.adjusted(INK_INSET_PX, INK_INSET_PX, -INK_INSET_PX, -INK_INSET_PX)))
    return out


def _data_items(plot) -> list[pg.PlotDataItem]:
    return [it for it in plot.getPlotItem().items if isinstance(it, pg.PlotDataItem) and it.isVisible()]


def _markers(plot) -> list[tuple[pg.PlotDataItem, QRectF]]:
    vb = plot.getPlotItem().vb
    out = []
    for it in _data_items(plot):
        if it.opts.get("symbol") is None:
            continue
        for spot in it.scatter.points():
            c = vb.mapViewToScene(spot.pos())
            r = float(spot.size()) / 2.0
            out.append((it, QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r)))
    return out


def _polylines(plot) -> list[tuple[object, list[QPointF]]]:
    """Every line drawn on the plot (curves, vertical reference lines) as scene points."""
    vb = plot.getPlotItem().vb
    out = []
    for it in _data_items(plot):
        p = it.opts.get("pen")
        if p is None or pg.mkPen(p).style() == 0:
            continue
        xs, ys = it.curve.xData, it.curve.yData
        if xs is None or len(xs) < 2:
            continue
        pts = [vb.mapViewToScene(QPointF(float(x), float(y))) for x, y in zip(xs, ys)
               if math.isfinite(x) and math.isfinite(y)]
        out.append((it, pts))
    (y0, y1) = vb.viewRange()[1]
    for it in plot.getPlotItem().items:
        if isinstance(it, pg.InfiniteLine) and it.isVisible() and it.angle == 90:
            out.append((it, [vb.mapViewToScene(QPointF(it.value(), y0)), vb.mapViewToScene(QPointF(it.value(), y1))]))
    return out


def _crossing(r: QRectF, pts: list[QPointF]) -> float:
    from ui.plotting.coords import Box
    b = Box(r.left(), r.top(), r.right(), r.bottom())
    return sum(b.clipped_length((a.x(), a.y()), (c.x(), c.y())) for a, c in zip(pts, pts[1:]))


def bar_rects(item: pg.BarGraphItem) -> list[tuple[float, float, float, float]]:
    """A BarGraphItem's rectangles (x0, y0, x1, y1) in view units, from its options."""
    o = item.opts

    def arr(name):
        v = o.get(name)
        return None if v is None else np.atleast_1d(np.asarray(v, dtype=float))
    x, x0, x1, w = arr("x"), arr("x0"), arr("x1"), arr("width")
    y, y0, y1, h = arr("y"), arr("y0"), arr("y1"), arr("height")
    if x0 is None:
        x0 = x - w / 2.0 if x1 is None or w is not None and x is not None else x1 - w
    if w is None:
        w = x1 - x0
    if y0 is None:
        y0 = (y - h / 2.0) if y is not None else np.zeros(1)
    if h is None:
        h = y1 - y0
    n = max(len(x0), len(w), len(y0), len(h))
    if n == 0 or len(x0) == 0 or len(w) == 0:
        return []
    x0, w, y0, h = (np.broadcast_to(a, (n,)) for a in (x0, w, y0, h))
    return [(float(a), float(b), float(a + c), float(b + d)) for a, b, c, d in zip(x0, y0, w, h)]


def _bars(plot) -> list[tuple[pg.BarGraphItem, tuple]]:
    return [(it, r) for it in plot.getPlotItem().items
            if isinstance(it, pg.BarGraphItem) and it.isVisible() for r in bar_rects(it)]


# ---------------------------------------------------------------- checks
def _plot_geometry(view, where: str) -> list[Finding]:
    out: list[Finding] = []
    for plot in view.plots:
        if not plot.isVisible():
            continue
        vb = plot.getPlotItem().vb
        frame = vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
        texts = _texts(plot)
        for it, r in texts:
            if not frame.contains(r):
                out.append(Finding("clipped", where, f"{_t(it)!r} leaves the plot ({_px(r)} outside {_px(frame)})"))
        for i, (a, ra) in enumerate(texts):
            for b, rb in texts[i + 1:]:
                x = ra.intersected(rb)
                if x.width() * x.height() > OVERLAP_PX2:
                    out.append(Finding("text overlap", where, f"{_t(a)!r} overlaps {_t(b)!r}"))
        for it, r in texts:
            if any(r.intersects(m) for _m, m in _markers(plot)):
                out.append(Finding("text on marker", where, f"{_t(it)!r} covers a marker"))
            for line, pts in _polylines(plot):
                if _crossing(r, pts) > LINE_CROSS_PX:
                    out.append(Finding("text on line", where, f"{_t(it)!r} is crossed by a {type(line).__name__}"))
        for it in plot.getPlotItem().items:
            if isinstance(it, pg.InfiniteLine) and it.isVisible() and it.pen.widthF() < 2:
                out.append(Finding("thin line", where, f"a reference line {it.pen.widthF():g} px wide"))
            if isinstance(it, pg.PlotDataItem) and it.isVisible() and it.opts.get("pen") is not None:
                p = pg.mkPen(it.opts["pen"])
                if p.style() != 1 and p.style() != 0 and p.widthF() < 2:
                    out.append(Finding("thin line", where, f"a dashed or dotted line {p.widthF():g} px wide"))
        out += [Finding("tick labels", where, problem) for problem in tick_problems(plot)]
        out += _legend(plot, where, view.theme)
    return out


def _t(it) -> str:
    return it.toPlainText().replace("\n", " ")[:60]


def _px(r: QRectF) -> str:
    return f"({r.left():.0f}, {r.top():.0f}, {r.right():.0f}, {r.bottom():.0f})"


def _rgb(c) -> tuple[int, int, int] | None:
    if c is None:
        return None
    q = QColor(c) if not isinstance(c, QColor) else c
    return q.red(), q.green(), q.blue()


def _legend(plot, where: str, theme) -> list[Finding]:
    """Every colour that fills a bar, a marker or a region, or draws a curve, is named: a legend
    entry or a text of that colour on the plot (neutral colours, the theme's text and the
    background, are not meaning)."""
    neutral = {_rgb(theme.bg), _rgb(theme.text), _rgb(theme.op_outline), (0, 0, 0), (255, 255, 255)}
    used: dict[tuple, str] = {}
    for it in plot.getPlotItem().items:
        if not it.isVisible():
            continue
        if isinstance(it, pg.BarGraphItem):
            brushes = it.opts.get("brushes") or [it.opts.get("brush")]
            if bar_rects(it):
                for b in brushes:
                    used.setdefault(_rgb(pg.mkBrush(b).color()), "a bar")
        elif isinstance(it, pg.PlotDataItem):
            if it.opts.get("symbol") is not None and len(it.scatter.points()):
                used.setdefault(_rgb(pg.mkBrush(it.opts.get("symbolBrush")).color()), "a marker")
            elif it.opts.get("pen") is not None and it.curve.xData is not None and len(it.curve.xData) > 1:
                used.setdefault(_rgb(pg.mkPen(it.opts["pen"]).color()), "a curve")
        elif isinstance(it, pg.LinearRegionItem):
            used.setdefault(_rgb(it.brush.color()), "a region")
    named = {_rgb(getattr(t, "_colour", None) or t.color) for t, _r in _texts(plot)}
    key = getattr(plot, "legend_label", None)
    if key is not None and key.isVisible():
        named |= {_rgb(c) for c in re.findall(r"color:\s*(#[0-9A-Fa-f]{6})", key.text())}
    legend = plot.getPlotItem().legend
    if legend is not None and legend.isVisible():
        for sample, _label in legend.items:
            o = getattr(sample.item, "opts", {})
            for key in ("brush", "symbolBrush", "pen", "fillBrush"):
                if o.get(key) is not None:
                    named.add(_rgb(pg.mkBrush(o[key]).color()) if "rush" in key else _rgb(pg.mkPen(o[key]).color()))
    out = [Finding("colour no legend", where, f"{what} in {QColor(*c).name()} is named nowhere")
           for c, what in used.items() if c not in neutral and c not in named]
    if key is not None and key.isVisible():
        drawn = _drawn_as(plot, theme)
        for colour, glyph in re.findall(r'color:\s*(#[0-9A-Fa-f]{6})">([^<]+)</span>', key.text()):
            kind, ways = SWATCH_OF.get(glyph), drawn.get(_rgb(colour), set())
            if ways and kind not in ways:
                out.append(Finding("legend swatch", where, f"{colour} is keyed as a {kind} but drawn as {sorted(ways)}"))
    return out


SWATCH_OF = {v: k for k, v in SWATCHES.items()}
PEN_STYLES = {1: "line", 2: "dashed", 3: "dotted"}        # Qt.SolidLine, DashLine, DotLine


def _drawn_as(plot, theme) -> dict[tuple, set[str]]:
    """Each colour of ``plot`` and the swatches that may key it (ui.plotting.keys.SWATCHES): a
    square for a bar or a region (or a curve's fill), a stroke of its dash for a curve, a dot, a
    ring (hollow) or a star for a marker."""
    ways: dict[tuple, set[str]] = {}
    for it in plot.getPlotItem().items:
        if not it.isVisible():
            continue
        if isinstance(it, pg.BarGraphItem) and bar_rects(it):
            for b in it.opts.get("brushes") or [it.opts.get("brush")]:
                ways.setdefault(_rgb(pg.mkBrush(b).color()), set()).add("square")
        elif isinstance(it, pg.LinearRegionItem):
            ways.setdefault(_rgb(it.brush.color()), set()).add("square")
        elif isinstance(it, pg.PlotDataItem):
            if it.opts.get("symbol") is not None and len(it.scatter.points()):
                fill = _rgb(pg.mkBrush(it.opts.get("symbolBrush")).color())
                edge = _rgb(pg.mkPen(it.opts.get("symbolPen")).color())
                hollow = fill == _rgb(theme.bg) or pg.mkBrush(it.opts.get("symbolBrush")).color().alpha() == 0
                shape = "star" if it.opts["symbol"] == "star" else "ring" if hollow else "dot"
                ways.setdefault(edge if hollow else fill, set()).add(shape)
            if it.opts.get("pen") is not None and it.curve.xData is not None and len(it.curve.xData) > 1:
                p = pg.mkPen(it.opts["pen"])
                ways.setdefault(_rgb(p.color()), set()).add(PEN_STYLES.get(int(p.style().value), "line"))
    return ways


def _labels_at_lines(view, where: str) -> list[Finding]:
    """Each threshold's words beside its line, naming the line's number."""
    out = []
    for line, label, value in threshold_pairs(view):
        if not (line.isVisible() and label.isVisible() and label.toPlainText()):
            continue
        vb = line.getViewBox()
        x = vb.mapViewToScene(QPointF(line.value() if hasattr(line, "value") else line, 0)).x()
        label.updateTransform(force=True)
        r = label.mapRectToScene(label.boundingRect())
        gap = 0.0 if r.left() <= x <= r.right() else min(abs(r.left() - x), abs(r.right() - x))
        if gap > LINE_GAP_PX:
            out.append(Finding("label off its line", where, f"{_t(label)!r} is {gap:.0f} px from its line"))
        if value is not None and value not in numbers(label.toPlainText()):
            out.append(Finding("label off its line", where, f"{_t(label)!r} names not its line's {value}"))
    return out


def threshold_pairs(view) -> list[tuple]:
    """(line, label, the number the label must name or None) per chapter."""
    n = view.chapter.number
    f = view.figure
    if f is None:
        return []
    if n == 2:
        return [(view.needed_line, view.labels["needed"], None)]
    if n == 6:
        pairs = [(view.lines[k], view.labels[k], f"{int(f.compute_bound[k].x):,}")
                 for k in ("real", "ideal") if k in f.compute_bound]
        if f.kv_full is not None:
            pairs.append((view.over.lines[0], view.labels["kv"], f"{int(f.kv_full.x):,}"))
        return pairs
    if n == 7:
        return [(view.cap_line, view.cap_label, None)]
    return []


def _bar_sums(view, where: str) -> list[Finding]:
    """Stacked bars: what is drawn at each place runs from 0, without gaps, to the total its
    label names."""
    f = view.figure
    n = view.chapter.number
    if n == 8:
        totals = {b.slot: b for b in f.totals}
    elif n == 5:
        ends: dict[int, float] = {}
        for s in f.segments:
            ends[s.slot] = max(ends.get(s.slot, 0.0), s.end)
        totals = {k: Bar(k, v, f.row_texts[k]) for k, v in ends.items()}
    else:
        return []
    out = []
    plot = view.plot
    drawn: dict[int, list[tuple[float, float]]] = {}
    for _it, (x0, y0, x1, y1) in _bars(plot):
        if x1 - x0 > 0:
            drawn.setdefault(int(round((y0 + y1) / 2.0)), []).append((x0, x1))
    for slot, total in totals.items():
        spans = sorted(drawn.get(slot, []))
        reach = 0.0
        gap = 0.0
        for a, b in spans:
            gap = max(gap, a - reach)
            reach = max(reach, b)
        tol = 1e-6 * max(1.0, total.length)
        if abs(reach - total.length) > tol or gap > tol:
            out.append(Finding("bar sum", where, f"bar {slot} drawn to {reach:.4g} (gap {gap:.3g}), its total "
                                                 f"{total.length:.4g}"))
        said = _label_ms(total.label)
        if said is not None and not _same_number(said, total.length):
            out.append(Finding("bar sum", where, f"bar {slot}'s label says {said:.4g} ms, its total {total.length:.4g}"))
    return out


UNIT_MS = {"s": 1e3, "ms": 1.0, "µs": 1e-3, "us": 1e-3, "ns": 1e-6}


def _label_ms(label: str) -> float | None:
    """The first time in a label, in ms ("565 µs" → 0.565)."""
    m = re.search(r"(\d[\d,]*(?:\.\d+)?)\s*(ms|µs|us|ns|s)\b", label)
    return float(m.group(1).replace(",", "")) * UNIT_MS[m.group(2)] if m else None


def _same_number(shown: float, value: float) -> bool:
    """Whether a number printed to three significant figures is ``value``."""
    return abs(shown - value) <= 0.006 * abs(value) + 1e-12


def _points_in_regions(view, where: str) -> list[Finding]:
    f = view.figure
    n = view.chapter.number
    out = []
    claim = view.caption_label.text()
    if n == 6 and view.over.isVisible() and "not fit" not in claim:
        lo, _hi = view.over.getRegion()
        x = float(view.now.getData()[0][0])                 # the drawn dot, in view units
        if x > lo:
            out.append(Finding("point in region", where, f"the highlighted batch is drawn where the KV cache is full "
                                                         f"(past batch {f.kv_full.x:,.0f}), and the claim does not say so"))
    if n == 2 and "{needed}" in view.state.caption:
        x = float(view.dot.getData()[0][0])
        if x != f.needed.x:
            out.append(Finding("point in region", where, f"the claim's {f.needed.x:g} warps, the dot at {x:g}"))
    return out


def numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def _model_numbers(view) -> set[str]:
    c = view.controller
    e = c.estimate
    facts = chapter_facts(view.chapter.number, e, view.params, c.catalog)
    words = [*facts.values.values(), facts.key.text, facts.key.label, *facts.details,
             *chart_texts(chapter_chart(view.chapter.number, e, view.params, c.catalog))]
    s = e.scenario
    scen = [s.batch, s.gpus, s.input_len, s.output_len, view.chapter.number]
    found = {x for w in words for x in numbers(str(w))}
    return found | {f"{v:,}" for v in scen} | {str(v) for v in scen}


def _claim_numbers(view, where: str) -> list[Finding]:
    allowed = _model_numbers(view)
    out = []
    for name, text in (("claim", view.caption_label.text()), ("caption", view.takeaway_label.text())):
        for x in numbers(text):
            if x not in allowed:
                out.append(Finding("number not model's", where, f"the {name}'s {x} is none of the model's numbers"))
    return out


def _labels(view, where: str, presenting: bool, size) -> list[Finding]:
    """The claim on one line; one-line labels and the tabs not cut; secondary text large and
    clear enough."""
    out = []
    t = view.theme
    claim = view.caption_label
    fm = QFontMetrics(claim.font())
    if presenting and size in ((1920, 1080), (1280, 720)) and claim.text():
        if claim.height() > 1.5 * fm.lineSpacing() or fm.horizontalAdvance(claim.text()) > claim.contentsRect().width():
            out.append(Finding("title lines", where, f"the claim takes {claim.height() / fm.lineSpacing():.1f} lines"))
    for lab in view.findChildren(QLabel):
        if lab.isVisible() and lab.text() and lab.wordWrap() and lab.heightForWidth(lab.width()) > lab.height() + 2:
            out.append(Finding("clipped", where, f"{lab.objectName() or 'a label'} {lab.text()[:50]!r} needs "
                                                 f"{lab.heightForWidth(lab.width())} px, has {lab.height()}"))
        if not lab.isVisible() or not lab.text() or lab.wordWrap() or lab.textFormat() == Qt.RichText:
            continue
        lfm = QFontMetrics(lab.font())
        if max(lfm.horizontalAdvance(s) for s in lab.text().split("\n")) > lab.contentsRect().width() + 1:
            out.append(Finding("clipped", where, f"{lab.objectName() or 'a label'} {lab.text()[:50]!r} is cut"))
    out += tab_findings(view, where)
    if presenting and size == (1920, 1080):
        for lab in view.findChildren(QLabel):
            if lab.isVisible() and lab.text() and lab.font().pixelSize() > 0 and lab.font().pixelSize() < SMALL_PX:
                out.append(Finding("small text", where, f"{lab.objectName() or 'a label'} at {lab.font().pixelSize()} px"))
        for plot in view.plots:
            if plot.isVisible():
                for it, _r in _texts(plot):
                    if it.textItem.font().pixelSize() < SMALL_PX:
                        out.append(Finding("small text", where, f"plot text {_t(it)!r} at {it.textItem.font().pixelSize()} px"))
    for name, colour in (("secondary", t.secondary), ("text", t.text)):
        if contrast(colour, t.bg) < CONTRAST or contrast(colour, t.panel) < CONTRAST:
            out.append(Finding("faint text", where, f"{name} {colour} on {t.bg}: {contrast(colour, t.bg):.2f}:1"))
    return out


def tab_findings(view, where: str) -> list[Finding]:
    """The lessons' chapter tabs: none elided."""
    w = view.window()
    strip = getattr(getattr(w, "lessons", None), "strip", None)
    if strip is None or not strip.isVisible():
        return []
    from ui.chapters import SHORT_TITLES
    from PySide6.QtGui import QFont
    t = strip.theme
    font = QFont()
    font.setPixelSize(t.px(15))
    font.setBold(True)
    fm = QFontMetrics(font)
    out = []
    for ch, r in zip(strip.chapters, strip._segments()):
        text = f"{ch.number}  {SHORT_TITLES.get(ch.number, ch.title)}"
        if fm.horizontalAdvance(text) > r.width() - 4 - 12:
            out.append(Finding("clipped", where, f"tab {text!r} is cut"))
    return out


def _luminance(c: str) -> float:
    q = QColor(c)

    def ch(v: int) -> float:
        v = v / 255.0
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * ch(q.red()) + 0.7152 * ch(q.green()) + 0.0722 * ch(q.blue())


def contrast(fg: str, bg: str) -> float:
    a, b = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def check_view(view, presenting: bool = True, size=(1920, 1080), where: str = "") -> list[Finding]:
    """Every finding on one chapter view as it is drawn now."""
    from deck_checks import arithmetic_findings, hidden_markers, threshold_at_bend     # (they use this module's parts)
    where = where or f"chapter {view.chapter.number} state {view.state_index + 1} {size[0]}×{size[1]}"
    if view.figure is None:
        return [Finding("clipped", where, f"the chapter did not draw: {view.error_text}")]
    return [*_plot_geometry(view, where), *_labels_at_lines(view, where), *_bar_sums(view, where),
            *threshold_at_bend(view, where), *arithmetic_findings(view, where), *hidden_markers(view, where),
            *_points_in_regions(view, where), *_claim_numbers(view, where), *_labels(view, where, presenting, size)]


def check_plots(plots, theme, where: str) -> list[Finding]:
    """The geometry checks (clipped, text overlap, tick labels, text on marker or line, thin line,
    colour no legend, legend swatch) on plots outside a lesson: Explore's roofline, Plan's chart."""
    from types import SimpleNamespace
    return _plot_geometry(SimpleNamespace(plots=list(plots), theme=theme), where)


def counts(findings) -> dict[str, int]:
    out = {k: 0 for k in KINDS}
    for f in findings:
        out[f.kind] = out.get(f.kind, 0) + 1
    return {k: v for k, v in out.items() if v}
