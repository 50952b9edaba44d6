"""From model values to plot coordinates, and from plot coordinates to pixels (pure: no Qt).

    log10(x)            the one safe log: log10(max(x, 1e-300)), so 0 or a negative is −300,
                        never an error (arrays too: log10_array)
    Axes(log_x, log_y)  the one log–log transform: view = log10(data) on a log axis, data on a
                        linear one; ``data_x``/``data_y`` go back; ``shift`` moves a view point by
                        view units (decades on a log axis)
    ViewPixels          a view range shown on w × h pixels: view ↔ pixels (origin top left, y down)
    Box                 a rectangle (x0 ≤ x1, y0 ≤ y1) in whichever coordinates it is made in

Range and bar helpers (``padded``, ``headroom``, ``column``, ``row``, ``slots``) turn model
values into view ranges and bar rectangles, so no chart does that arithmetic itself.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from model.values import frozen

TINY = 1e-300


def log10(x: float) -> float:
    """log10 that never fails: log10(max(x, 1e-300)) (NaN stays NaN)."""
    x = float(x)
    return x if x != x else math.log10(max(x, TINY))


def log10_array(xs) -> np.ndarray:
    return np.log10(np.maximum(np.asarray(xs, dtype=float), TINY))


def _exp10(v: float) -> float:
    """10**v, inf past the floats' range (never OverflowError)."""
    return 10.0 ** float(v) if float(v) < 308.0 else math.inf


def finite(*values) -> bool:
    return all(v is not None and math.isfinite(float(v)) for v in values)


@frozen
class Axes:
    """How a plot's data lands on its view: log10 of the data on a log axis, the data on a linear one."""

    log_x: bool = False
    log_y: bool = False

    def x(self, v: float) -> float:
        return log10(v) if self.log_x else float(v)

    def y(self, v: float) -> float:
        return log10(v) if self.log_y else float(v)

    def point(self, x: float, y: float) -> tuple[float, float]:
        return self.x(x), self.y(y)

    def xs(self, values) -> np.ndarray:
        return log10_array(values) if self.log_x else np.asarray(values, dtype=float)

    def ys(self, values) -> np.ndarray:
        return log10_array(values) if self.log_y else np.asarray(values, dtype=float)

    def data_x(self, view_x: float) -> float:
        return _exp10(view_x) if self.log_x else float(view_x)

    def data_y(self, view_y: float) -> float:
        return _exp10(view_y) if self.log_y else float(view_y)

    def shows(self, x: float, y: float) -> bool:
        """Whether (x, y) can be drawn: finite, and positive on a log axis."""
        if not finite(x, y):
            return False
        return not ((self.log_x and x <= 0) or (self.log_y and y <= 0))

    def view(self, x: float, y: float) -> tuple[float, float] | None:
        """The view point of (x, y), or None where it cannot be drawn (see ``shows``)."""
        return self.point(x, y) if self.shows(x, y) else None

    def mid_x(self, a: float, b: float) -> float:
        """The view x halfway between data a and b (their geometric mean on a log axis)."""
        return 0.5 * (self.x(a) + self.x(b))

    def same_x(self, a: float, b: float, tol: float = 1e-9) -> bool:
        """Whether data a and b land on the same view x (within ``tol`` view units)."""
        return abs(self.x(a) - self.x(b)) <= tol

    def span_x(self, a: float, b: float) -> float:
        """How far apart data a and b are in view units (decades on a log axis)."""
        return self.x(b) - self.x(a)


LINEAR = Axes()
LOG_LOG = Axes(True, True)


def decades(factor: float) -> float:
    """How far a factor reaches on a log axis: log10(factor) decades."""
    return log10(factor)


def shift(point: tuple[float, float], dx: float = 0.0, dy: float = 0.0) -> tuple[float, float]:
    """A view point moved by (dx, dy) view units (decades on a log axis)."""
    return point[0] + dx, point[1] + dy


def padded(lo: float, hi: float, below: float = 0.0, above: float = 0.0) -> tuple[float, float]:
    """A view range (lo − below, hi + above)."""
    return lo - below, hi + above


def extent(values: Iterable[float]) -> tuple[float, float]:
    """(smallest, largest) of some values."""
    vs = [float(v) for v in values]
    return min(vs), max(vs)


def headroom(values: Iterable[float], factor: float, floor: float = 0.0) -> tuple[float, float]:
    """A linear range from ``floor`` to ``factor`` × the largest value (room for the labels on top)."""
    return floor, float(max(values)) * factor


def clear_of_decade(v: float, above: float, gap: float) -> float:
    """A log view range's top: ``above`` decades over v, and at least ``gap`` past a whole decade,
    so a decade's tick is not cut at the edge."""
    top = v + above
    return math.floor(top) + gap if top - math.floor(top) < gap else top


def share(span: tuple[float, float], fraction: float) -> float:
    """``fraction`` of a view range's width (or height)."""
    return (span[1] - span[0]) * fraction


def at_share(span: tuple[float, float], fraction: float) -> float:
    """The view coordinate ``fraction`` of the way along a range."""
    return span[0] + (span[1] - span[0]) * fraction


def past(values: Iterable[float], span: tuple[float, float], fraction: float) -> float:
    """Just past the largest of ``values``: by ``fraction`` of the range (a label clear of a bar
    end and of a line)."""
    return float(max(values)) + (span[1] - span[0]) * fraction


def wide_enough(length: float, span: tuple[float, float], fraction: float) -> bool:
    """Whether a bar segment takes at least ``fraction`` of the axis (room for a word inside it)."""
    return length >= (span[1] - span[0]) * fraction


def slots(n: int, offset: float = 0.0) -> np.ndarray:
    """The category axis' places 0, 1 … n − 1, moved by ``offset`` (side-by-side bars)."""
    return np.arange(n, dtype=float) + offset


def slot_range(n: int, pad: float = 0.5, pad_after: float | None = None) -> tuple[float, float]:
    """A view range that shows slots 0 … n − 1 with ``pad`` before the first (and ``pad_after``,
    default the same, after the last)."""
    return -pad, n - 1 + (pad if pad_after is None else pad_after)


def ends(starts: Sequence[float], lengths: Sequence[float]) -> list[float]:
    """Where stacked bar segments end (start + length), to start the next ones there."""
    return [s + w for s, w in zip(starts, lengths)]


@frozen
class Box:
    """A rectangle, x0 ≤ x1 and y0 ≤ y1, in view units or pixels."""

    x0: float
    y0: float
    x1: float
    y1: float

    @staticmethod
    def of(xa: float, ya: float, xb: float, yb: float) -> "Box":
        return Box(min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb))

    @staticmethod
    def sized(x: float, y: float, w: float, h: float) -> "Box":
        return Box(x, y, x + w, y + h)

    @property
    def w(self) -> float:
        return self.x1 - self.x0

    @property
    def h(self) -> float:
        return self.y1 - self.y0

    @property
    def area(self) -> float:
        return max(0.0, self.w) * max(0.0, self.h)

    @property
    def corners(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1), as HoverTips.rect takes them."""
        return self.x0, self.y0, self.x1, self.y1

    @property
    def centre(self) -> tuple[float, float]:
        return 0.5 * (self.x0 + self.x1), 0.5 * (self.y0 + self.y1)

    def overlap(self, o: "Box") -> float:
        """The area this box shares with ``o``."""
        return max(0.0, min(self.x1, o.x1) - max(self.x0, o.x0)) * max(0.0, min(self.y1, o.y1) - max(self.y0, o.y0))

    def inside(self, o: "Box", tol: float = 1e-9) -> bool:
        return (self.x0 >= o.x0 - tol and self.y0 >= o.y0 - tol and self.x1 <= o.x1 + tol
                and self.y1 <= o.y1 + tol)

    def grown(self, d: float) -> "Box":
        return Box(self.x0 - d, self.y0 - d, self.x1 + d, self.y1 + d)

    def clipped_length(self, a: tuple[float, float], b: tuple[float, float]) -> float:
        """How much of the segment a → b runs inside this box (Liang–Barsky clipping)."""
        (ax, ay), (bx, by) = a, b
        dx, dy = bx - ax, by - ay
        t0, t1 = 0.0, 1.0
        for p, q in ((-dx, ax - self.x0), (dx, self.x1 - ax), (-dy, ay - self.y0), (dy, self.y1 - ay)):
            if p == 0:
                if q < 0:
                    return 0.0
                continue
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return 0.0
        return (t1 - t0) * math.hypot(dx, dy)


def column(x: float, width: float, top: float, base: float = 0.0) -> Box:
    """A vertical bar centred on x (view units)."""
    return Box.of(x - width / 2.0, base, x + width / 2.0, top)


def row(y: float, height: float, start: float, length: float) -> Box:
    """A horizontal bar centred on y, from ``start`` for ``length`` (view units)."""
    return Box.of(start, y - height / 2.0, start + length, y + height / 2.0)


@frozen
class ViewPixels:
    """A view range (x0, x1) × (y0, y1) shown on w × h pixels; pixels have y down."""

    x_range: tuple[float, float]
    y_range: tuple[float, float]
    w: float
    h: float

    def to_px(self, vx: float, vy: float) -> tuple[float, float]:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        w, h = max(1.0, self.w), max(1.0, self.h)
        return (vx - x0) / (x1 - x0) * w, (y1 - vy) / (y1 - y0) * h

    def to_view(self, px: float, py: float) -> tuple[float, float]:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        w, h = max(1.0, self.w), max(1.0, self.h)
        return x0 + px / w * (x1 - x0), y1 - py / h * (y1 - y0)

    def box_px(self, b: Box) -> Box:
        """A view-unit box in pixels."""
        ax, ay = self.to_px(b.x0, b.y0)
        bx, by = self.to_px(b.x1, b.y1)
        return Box.of(ax, ay, bx, by)

    @property
    def frame(self) -> Box:
        return Box(0.0, 0.0, self.w, self.h)
