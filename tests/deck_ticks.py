"""The drawing checker's look at the axes' tick labels (tests/deck_drawing.py, kind "tick labels").

    tick_problems(plot) -> [str]      one line per fault found
    tick_boxes(axis) -> [Tick(text, box, drawn)]

pyqtgraph lays out an axis's tick strings in AxisItem.generateDrawSpecs (each a rect in the
axis item's coordinates, the alignment flags and the text; drawn with TextDontClip, clipped to
the axis's boundingRect). Here each is laid out as QPainter.drawText lays it out in that rect
(its font's line box, every line of it), in scene pixels, and checked:

  * two labels of one axis overlap, or come nearer than TICK_GAP_PX;
  * a label cut by the axis's clip (the plot's edge) or by the plot widget's edge;
  * a named tick (a category axis, or ticks set by hand) that pyqtgraph drops because it does
    not fit inside the axis: a name the chart means to show and does not.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF, QPainter, QPicture

TICK_GAP_PX = 4.0            # the least clear space between two tick labels of one axis
EDGE_TOLERANCE_PX = 0.5


@dataclass(frozen=True)
class Tick:
    text: str
    box: QRectF              # where its text is laid out, in scene pixels
    drawn: bool              # False: pyqtgraph dropped it (it leaves the axis's bounds)


def tick_boxes(axis) -> list[Tick]:
    """The axis's tick labels as pyqtgraph lays them out now, those it drops at its edge too."""
    bounds = axis.boundingRect()
    width, height = axis.textWidth, axis.textHeight          # generateDrawSpecs may move them; paint does the same
    picture = QPicture()
    painter = QPainter(picture)
    try:
        font = axis.style["tickFont"]
        if font is not None:
            painter.setFont(font)
        fm = QFontMetricsF(painter.font())
        axis.boundingRect = lambda: QRectF(-1e6, -1e6, 2e6, 2e6)   # keep the labels it would drop
        try:
            specs = axis.generateDrawSpecs(painter)
        finally:
            del axis.boundingRect
    finally:
        painter.end()
        axis.textWidth, axis.textHeight = width, height
    if specs is None:
        return []
    out = []
    for rect, flags, text in specs[2]:
        if not str(text).strip():
            continue
        laid = fm.boundingRect(rect, int(flags), str(text))
        out.append(Tick(str(text), axis.mapRectToScene(laid), (bounds & rect) == rect))
    return out


def _named(axis) -> bool:
    """Ticks the chart chose (NamesAxis.set_names, setTicks), not pyqtgraph's own spacing."""
    return getattr(axis, "_tickLevels", None) is not None


def tick_problems(plot) -> list[str]:
    """Every visible axis of ``plot``: its tick labels clear of each other and not cut."""
    out = []
    pi = plot.getPlotItem()
    widget = QRectF(plot.mapToScene(plot.viewport().rect()).boundingRect())
    for name in ("bottom", "left", "top", "right"):
        axis = pi.getAxis(name)
        if not axis.isVisible() or not axis.style.get("showValues", True):
            continue
        clip = axis.mapRectToScene(QRectF(axis.boundingRect().toAlignedRect()))
        ticks = tick_boxes(axis)
        drawn = [t for t in ticks if t.drawn]
        for t in ticks:
            if not t.drawn:
                if _named(axis):
                    out.append(f"{name} axis: {_s(t.text)!r} does not fit the axis ({_px(t.box)} outside "
                               f"{_px(clip)}): not drawn")
                continue
            for edge, room in (("the plot's", clip), ("the widget's", widget)):
                if not _inside(t.box, room):
                    out.append(f"{name} axis: {_s(t.text)!r} is cut by {edge} edge ({_px(t.box)} outside "
                               f"{_px(room)})")
                    break
        for i, a in enumerate(drawn):
            for b in drawn[i + 1:]:
                g = TICK_GAP_PX
                if a.box.adjusted(-g, -g, g, g).intersects(b.box):
                    out.append(f"{name} axis: {_s(a.text)!r} and {_s(b.text)!r} are {_gap(a.box, b.box):.0f} px apart")
    return out


def _inside(box: QRectF, room: QRectF) -> bool:
    e = EDGE_TOLERANCE_PX
    return room.adjusted(-e, -e, e, e).contains(box)


def _gap(a: QRectF, b: QRectF) -> float:
    """The clear space between two boxes (negative where they overlap)."""
    dx = max(b.left() - a.right(), a.left() - b.right())
    dy = max(b.top() - a.bottom(), a.top() - b.bottom())
    return max(dx, dy)


def _s(text: str) -> str:
    return text.replace("\n", " ")


def _px(r: QRectF) -> str:
    return f"({r.left():.0f}, {r.top():.0f}, {r.right():.0f}, {r.bottom():.0f})"
