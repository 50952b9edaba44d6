"""Where a label goes (pure: no Qt; pixels, origin top left, y down).

    place_label(point, size, view, avoid=(), spots=AROUND) -> Placement(pos, anchor, box, cost)

``point`` is what the label names (a marker, a line's end); ``size`` the text's (w, h); ``view``
the plot's frame. Each spot is an anchor (the fraction of the text's box that sits at the
position: (0, 0) its top left, (1, 1) its bottom right, as pyqtgraph's TextItem reads it) and an
offset from the point, so the text keeps clear of its marker. The cost of a spot:

    cost = 100 × (area outside the view) + Σ weight × (area over a box to avoid)
           + Σ weight × thickness × (length of a line to avoid under the text)

and the cheapest spot wins; on a tie the one listed first (``spots`` is in order of preference).
"""
from __future__ import annotations

from typing import Iterable, Sequence

from model.values import frozen
from ui.plotting.coords import Box

OUTSIDE_WEIGHT = 100.0
BOX_WEIGHT = 10.0
LINE_THICKNESS_PX = 4.0


@frozen
class Spot:
    """A candidate place: the text's anchor, and its offset (px) from the point it names."""

    anchor: tuple[float, float]
    offset: tuple[float, float]


@frozen
class Avoid:
    """Something a label must not cover: a box, or a line from a to b (pixels)."""

    box: Box | None = None
    line: tuple[tuple[float, float], tuple[float, float]] | None = None
    weight: float = BOX_WEIGHT

    def cost(self, text: Box) -> float:
        if self.box is not None:
            return self.weight * text.overlap(self.box)
        if self.line is not None:
            return self.weight * LINE_THICKNESS_PX * text.clipped_length(*self.line)
        return 0.0


@frozen
class Placement:
    pos: tuple[float, float]          # where the text's anchor goes (px)
    anchor: tuple[float, float]
    box: Box                          # the text's box there (px)
    cost: float


def spot(where: str, clear_px: float) -> Spot:
    """A named spot ``clear_px`` from the point: "right", "left", "above", "below", "above-right",
    "above-left", "below-right", "below-left" (diagonals at 0.75 × clear_px each way)."""
    d = 0.75 * clear_px
    table = {"right": ((0.0, 0.5), (clear_px, 0.0)), "left": ((1.0, 0.5), (-clear_px, 0.0)),
             "above": ((0.5, 1.0), (0.0, -clear_px)), "below": ((0.5, 0.0), (0.0, clear_px)),
             "above-right": ((0.0, 1.0), (d, -d)), "above-left": ((1.0, 1.0), (-d, -d)),
             "below-right": ((0.0, 0.0), (d, d)), "below-left": ((1.0, 0.0), (-d, d))}
    anchor, offset = table[where]
    return Spot(anchor, offset)


def spots(names: Iterable[str], clear_px: float) -> tuple[Spot, ...]:
    return tuple(spot(n, clear_px) for n in names)


def around(clear_px: float) -> tuple[Spot, ...]:
    """Eight places around a marker, in the roofline's order of preference: right, above-left,
    left, above-right, below-right, below-left, above, below."""
    return spots(("right", "above-left", "left", "above-right", "below-right", "below-left", "above", "below"),
                 clear_px)


def text_box(pos: tuple[float, float], size: tuple[float, float], anchor: tuple[float, float]) -> Box:
    """The box of a text of ``size`` whose ``anchor`` sits at ``pos``."""
    w, h = size
    return Box.sized(pos[0] - w * anchor[0], pos[1] - h * anchor[1], w, h)


def place_label(point: tuple[float, float], size: tuple[float, float], view: Box,
                avoid: Sequence[Avoid] = (), spots: Sequence[Spot] = (), margin_px: float = 2.0) -> Placement:
    """The cheapest of ``spots`` (default: ``around(12)``) for a text of ``size`` naming ``point``."""
    inner = Box(view.x0 + margin_px, view.y0 + margin_px, view.x1 - margin_px, view.y1 - margin_px)
    best = None
    for rank, s in enumerate(spots or around(12.0)):
        pos = (point[0] + s.offset[0], point[1] + s.offset[1])
        box = text_box(pos, size, s.anchor)
        cost = OUTSIDE_WEIGHT * (box.area - box.overlap(inner)) + sum(a.cost(box) for a in avoid)
        if best is None or (cost, rank) < best[0]:
            best = ((cost, rank), Placement(pos, s.anchor, box, cost))
    return best[1]
