"""Words on a plot: pyqtgraph TextItems made once, then given their text, colour and place.

    lab = add_text(plot, anchor=(0, 1))          made once (ignored by auto-range)
    show_text(lab, text, colour, view_point)     each update: touches the item only where it changed
    place(lab, vb, view_point, spots, avoid)     the pure placement (ui.plotting.placement) in pixels

A text's place is given in view coordinates (ui.plotting.coords.Axes turns model values into
them); ``place`` measures the text, works in the view box's pixels and puts the anchor back in
view coordinates.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetricsF

from ui.kit.fit_text import balanced_break
from ui.plotting.coords import Box, ViewPixels
from ui.plotting.placement import Avoid, Placement, Spot, place_label, text_box


ALONG_LINE = (0.0, -0.12)      # words turned 90° run up beside a vertical line, just right of it
LEFT_OF_LINE = (0.0, 1.12)     # … or just left of it


def add_text(plot, anchor: tuple[float, float] = (0.0, 0.0), z: float | None = None) -> pg.TextItem:
    """A text item on ``plot`` (a PlotWidget or PlotItem) that auto-range ignores."""
    item = pg.TextItem(anchor=anchor)
    plot.addItem(item, ignoreBounds=True)
    if z is not None:
        item.setZValue(z)
    return item


def add_texts(plot, n: int, anchor: tuple[float, float] = (0.0, 0.0)) -> list[pg.TextItem]:
    return [add_text(plot, anchor) for _ in range(n)]


def set_text(lab: pg.TextItem, text: str, colour) -> None:
    """Set a label's words and colour, touching the item only when they change (a new text
    re-lays out its document; most updates leave most labels as they are)."""
    if lab.toPlainText() != text:
        lab.setText(text)
    if getattr(lab, "_colour", None) != colour:
        lab._colour = colour
        lab.setColor(colour)


def show_text(lab: pg.TextItem, text: str, colour, pos: tuple[float, float] | None = None,
              anchor: tuple[float, float] | None = None) -> None:
    """The label shown with ``text`` in ``colour`` at view point ``pos`` (and ``anchor``)."""
    set_text(lab, text, colour)
    if anchor is not None and tuple(lab.anchor) != tuple(anchor):
        lab.setAnchor(anchor)
    if pos is not None:
        lab.setPos(*pos)
    lab.setVisible(bool(text))


def show_texts(labels: Sequence[pg.TextItem], entries: Iterable[tuple[str, object, tuple[float, float]]]) -> None:
    """Fill a pool of labels with (text, colour, view point) entries; the rest hide."""
    n = 0
    for lab, (text, colour, pos) in zip(labels, entries):
        show_text(lab, text, colour, pos)
        n += 1
    for lab in labels[n:]:
        lab.setVisible(False)


def set_fonts(labels: Iterable[pg.TextItem], font: QFont) -> None:
    for lab in labels:
        lab.setFont(font)


def set_boxed(item: pg.TextItem, background) -> None:
    """Put the label on a backing box in ``background`` (mostly opaque), so no line runs through it."""
    backing = pg.mkColor(background)
    backing.setAlpha(215)
    item.fill = pg.mkBrush(backing)
    item.textItem.document().setDocumentMargin(2)     # a snug box: labels fit between roofs
    item.updateTextPos()
    item.update()


# ---------------------------------------------------------------- pixels
def view_pixels(vb: pg.ViewBox) -> ViewPixels:
    """The view box's range on its pixels (independent of paint state); on a plot with its y axis
    turned down (the first row on top), the range's start at the top."""
    (x0, x1), (y0, y1) = vb.viewRange()
    y_range = (y1, y0) if vb.yInverted() else (y0, y1)
    return ViewPixels((x0, x1), y_range, vb.width(), vb.height())


def text_size(lab: pg.TextItem) -> tuple[float, float]:
    r = lab.textItem.boundingRect()
    return r.width(), r.height()


def label_box(lab: pg.TextItem, px: ViewPixels, anchor: tuple[float, float] | None = None) -> Box:
    """Where ``lab`` (at its position, with ``anchor`` or its own) lands, in view-box pixels."""
    a = anchor if anchor is not None else (lab.anchor[0], lab.anchor[1])
    if getattr(lab, "angle", 0) and lab.getViewBox() is not None:    # a turned text: its drawn box
        lab.updateTransform(force=True)
        vb = lab.getViewBox()
        r = vb.mapSceneToView(lab.mapToScene(lab.boundingRect())).boundingRect()
        ax, ay = px.to_px(r.left(), r.top())
        bx, by = px.to_px(r.right(), r.bottom())
        return Box.of(ax, ay, bx, by)
    return text_box(px.to_px(lab.pos().x(), lab.pos().y()), text_size(lab), a)


def avoid_labels(labels: Iterable[pg.TextItem], px: ViewPixels, weight: float = 10.0) -> list[Avoid]:
    """The boxes of the visible labels among ``labels``, to keep another label off them."""
    return [Avoid(box=label_box(lab, px), weight=weight) for lab in labels if lab.isVisible() and lab.toPlainText()]


def avoid_marker(px: ViewPixels, view_point: tuple[float, float], radius_px: float, weight: float = 10.0) -> Avoid:
    x, y = px.to_px(*view_point)
    return Avoid(box=Box(x - radius_px, y - radius_px, x + radius_px, y + radius_px), weight=weight)


def avoid_line(px: ViewPixels, a: tuple[float, float], b: tuple[float, float], weight: float = 10.0) -> Avoid:
    """A line from view point a to b."""
    return Avoid(line=(px.to_px(*a), px.to_px(*b)), weight=weight)


def avoid_polyline(px: ViewPixels, xs, ys, weight: float = 10.0) -> list[Avoid]:
    """Each segment of a polyline through view points (xs[i], ys[i])."""
    pts = [px.to_px(float(x), float(y)) for x, y in zip(xs, ys)]
    return [Avoid(line=(a, b), weight=weight) for a, b in zip(pts, pts[1:])]


def place(lab: pg.TextItem, px: ViewPixels, view_point: tuple[float, float], spots: Sequence[Spot],
          avoid: Sequence[Avoid] = ()) -> Placement:
    """Put ``lab`` at the best of ``spots`` around ``view_point`` (ui.plotting.placement)."""
    p = place_label(px.to_px(*view_point), text_size(lab), px.frame, avoid, spots)
    if tuple(lab.anchor) != tuple(p.anchor):
        lab.setAnchor(p.anchor)
    lab.setPos(*px.to_view(*p.pos))
    return p


UPRIGHT_SHARE = 0.5            # a text turned along a line: a line of it at most this share of the plot's height,
TWO_LINES_SHARE = 0.62         # … or up to this share where that keeps it to two even lines


def two_line_width(lab: pg.TextItem) -> float:
    """The text width at which ``lab``'s words take two even lines (its document's margins too)."""
    text = lab.toPlainText()
    fm = QFontMetricsF(lab.textItem.font())
    i = balanced_break(text, fm.horizontalAdvance)
    if i is None:
        return fm.horizontalAdvance(text) + 2 * lab.textItem.document().documentMargin() + 1
    longer = max(fm.horizontalAdvance(text[:i]), fm.horizontalAdvance(text[i + 1:]))
    return longer + 2 * lab.textItem.document().documentMargin() + 1


def fit_along_line(lab: pg.TextItem, px: ViewPixels) -> None:
    """A text turned along a line: on one line up to UPRIGHT_SHARE of the plot's height, else on two
    even lines up to TWO_LINES_SHARE, else wrapped at UPRIGHT_SHARE."""
    if lab.textItem.textWidth() >= 0:
        lab.setTextWidth(-1)
    if text_size(lab)[0] > UPRIGHT_SHARE * px.h:
        two = two_line_width(lab)
        lab.setTextWidth(two if two <= TWO_LINES_SHARE * px.h else UPRIGHT_SHARE * px.h)


def keep_inside(plot, margin_px: float = 4.0) -> None:
    """Wrap each visible text of ``plot`` that would leave its view box sideways at the width
    left between its anchor and the box's edge (a label at a bar's end, a row's sentence), so no
    text is cut when the plot is narrower than a full slide."""
    pi = plot.getPlotItem()
    px = view_pixels(pi.vb)
    for lab in pi.items:
        if not isinstance(lab, pg.TextItem):
            continue
        if lab.textItem.textWidth() >= 0:
            lab.setTextWidth(-1)
        if not (lab.isVisible() and lab.toPlainText()):
            continue
        if getattr(lab, "angle", 0):
            fit_along_line(lab, px)
            continue
        b = label_box(lab, px)
        if b.x0 >= -1 and b.x1 <= px.w + 1:
            continue
        at, _y = px.to_px(lab.pos().x(), lab.pos().y())
        ax = float(lab.anchor[0])
        room = px.w - at if ax <= 0 else at if ax >= 1 else 2 * min(px.w - at, at)
        lab.setTextWidth(max(40.0, room - margin_px))


def stack_down(rows: Iterable[tuple[pg.TextItem, tuple[float, float]]], px: ViewPixels,
               overlap_px: float = 4.0) -> None:
    """Labels anchored at their top, each at its view point, or moved down to a line under the one
    above where a short plot brings the points closer than a line of text (a legend's rows).
    ``overlap_px``: how far a row's box may reach into the next one's blank margin."""
    below = None
    for lab, point in rows:
        x, y = px.to_px(*point)
        y = y if below is None else max(y, below)
        lab.setPos(*px.to_view(x, y))
        if lab.isVisible() and lab.toPlainText():
            below = y + text_size(lab)[1] - overlap_px


def covers(lab: pg.TextItem, px: ViewPixels, avoid: Sequence[Avoid], margin_px: float = 0.0) -> bool:
    """Whether ``lab``, where it is now, covers anything in ``avoid`` (its box less ``margin_px``
    of its blank margin each side: two texts' margins may touch)."""
    b = label_box(lab, px)
    box = Box(b.x0 + margin_px, b.y0 + margin_px, b.x1 - margin_px, b.y1 - margin_px)
    return any(a.cost(box) > 0 for a in avoid)


def nearer_than(lab: pg.TextItem, other: pg.TextItem, px: ViewPixels, gap_px: float) -> bool:
    """Whether two labels' boxes, where they are now, overlap or come within ``gap_px``."""
    return label_box(lab, px).grown(gap_px).overlap(label_box(other, px)) > 0


def lift_above(lab: pg.TextItem, px: ViewPixels, x: float, xs, ys, gap: float, margin_px: float = 4.0,
               min_px: float = 60.0) -> None:
    """Start a label that runs up a vertical line at view x ``x`` (text turned 90°) ``gap`` above the
    polyline through view points (xs, ys), wrapped into more, shorter lines where the room left up
    to the top of the view is shorter than it."""
    start = float(np.interp(x, xs, ys)) + gap
    lab.setPos(x, start)
    room_px = px.to_px(x, start)[1] - margin_px
    if text_size(lab)[0] > room_px:
        lab.setTextWidth(max(min_px, room_px))


def narrow_below(lab: pg.TextItem, px: ViewPixels, x: float, xs, ys, margin_px: float = 4.0,
                 min_px: float = 80.0) -> None:
    """Wrap a label that runs up a vertical line at view x ``x`` from where it is (text turned 90°)
    into more, shorter lines where the polyline through view points (xs, ys) comes down nearer
    than its length; never shorter than ``min_px``."""
    start = px.to_px(x, lab.pos().y())[1]
    room = start - px.to_px(x, float(np.interp(x, xs, ys)))[1] - margin_px
    if text_size(lab)[0] > room >= min_px:
        lab.setTextWidth(room)


def place_in_forms(lab: pg.TextItem, px: ViewPixels, view_point: tuple[float, float], spots: Sequence[Spot],
                   avoid: Sequence[Avoid], forms: Sequence[str]) -> bool:
    """Put ``lab`` at the best of ``spots`` in the first of its ``forms`` (the same words, e.g. on
    one line, then on two) that has a spot covering nothing; else the best spot of the last form.
    Returns whether that spot covers nothing."""
    for text in forms:
        if lab.toPlainText() != text:
            lab.setPlainText(text)
        p = place(lab, px, view_point, spots, avoid)
        if p.cost <= 0:
            return True
    return False


def inside(lab: pg.TextItem, px: ViewPixels, margin_px: float = 3.0) -> bool:
    """Whether ``lab``, where it is now, lies inside its view box (its box's blank margin of
    ``margin_px`` around the words may reach past it)."""
    return label_box(lab, px).inside(px.frame, margin_px)
