"""The plots' axis classes (pyqtgraph AxisItem subclasses).

    SIAxis(orientation, unit="")   log-axis ticks as plain SI numbers: 1, 10, 100, 1k … / 1 T FLOP/s
    NamesAxis(orientation)         a category axis: one name per bar (set_names), nothing between
"""
from __future__ import annotations

from typing import Sequence

import pyqtgraph as pg
from PySide6.QtGui import QFont, QPen

_PREFIXES = ("", "k", "M", "G", "T", "P", "E")


def decade_tick(n: int, unit: str = "") -> str:
    """The tick text of 10**n: 0.01, 0.1, 1, 10, 100, 1 k, 10 k … with the unit."""
    if n < 0:
        return f"{10.0 ** n:g}"
    k = min(n // 3, len(_PREFIXES) - 1)
    return f"{10 ** (n - 3 * k)} {_PREFIXES[k]}{unit}".strip()


PICTURES_KEPT = 16       # an axis's tick pictures remembered (a few kB each)


def _pen_key(pen: QPen) -> tuple:
    return pen.color().rgba(), pen.widthF(), repr(pen.style()), pen.isCosmetic(), repr(pen.brush().style())


class SIAxis(pg.AxisItem):
    """Log axis ticks as plain SI numbers (whole decades only); a linear axis as pyqtgraph's.
    Its picture (ticks and their numbers) is remembered by everything pyqtgraph draws it from
    (range, geometry, device mapping, style, pens, ticks): a range seen before (back to an
    earlier GPU or precision) replays its picture instead of working out every tick again."""

    def __init__(self, orientation, unit="", **kw):
        super().__init__(orientation, **kw)
        self.unit = unit
        self._pictures: dict = {}

    def _picture_key(self) -> tuple | None:
        """What pyqtgraph's generateDrawSpecs and drawPicture read; None when not on a view."""
        dt = self.deviceTransform_()
        if dt is None:
            return None
        lv = self.linkedView()
        grid_rect = lv.mapRectToItem(self, lv.boundingRect()).getRect() if lv is not None and self.grid is not False \
            else None
        style = tuple((k, v.key() if isinstance(v, QFont) else repr(v)) for k, v in sorted(self.style.items()))
        return (self.orientation, tuple(self.range), self.logMode, self.geometry().getRect(), self.boundingRect().getRect(),
                (dt.m11(), dt.m12(), dt.m21(), dt.m22(), dt.dx(), dt.dy()), grid_rect, self.grid, style,
                _pen_key(self.pen()), _pen_key(self.textPen()), _pen_key(self.tickPen()), repr(self._tickLevels),
                repr(self._tickSpacing), self._tickDensity, self.scale, self.autoSIPrefixScale, self.textWidth,
                self.textHeight, self.unit)

    def paint(self, p, opt, widget):        # noqa: D102 (pyqtgraph's)
        if self.picture is not None:
            return super().paint(p, opt, widget)
        key = self._picture_key()
        kept = self._pictures.get(key) if key is not None else None
        if kept is not None:
            self.picture = kept
            return super().paint(p, opt, widget)
        super().paint(p, opt, widget)       # works out the ticks (and may widen the axis for them)
        if key is not None and self.picture is not None and self._picture_key() == key:   # nothing it read moved
            while len(self._pictures) >= PICTURES_KEPT:
                self._pictures.pop(next(iter(self._pictures)))
            self._pictures[key] = self.picture

    def logTickValues(self, minVal, maxVal, size, stdTicks):     # noqa: N802, N803 (pyqtgraph's names)
        """pyqtgraph's log ticks, less a lower level's ticks on a value a level above has already
        (its minor ticks start at each decade, whose number was drawn twice, one over the other)."""
        out, seen = [], []
        for spacing, values in super().logTickValues(minVal, maxVal, size, stdTicks):
            values = [v for v in values if all(abs(v - u) > 1e-9 for u in seen)]
            seen += values
            out.append((spacing, values))
        return out

    def tickStrings(self, values, scale, spacing):        # noqa: N802 (pyqtgraph's name)
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        return ["" if abs(v - round(v)) > 1e-6 else decade_tick(int(round(v)), self.unit) for v in values]


class NamesAxis(pg.AxisItem):
    """A category axis that names the bars: one tick per place, nothing between."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.names: list[str] = []

    def set_names(self, names: Sequence[str], places: Sequence[float] | None = None) -> None:
        """Name places 0, 1 … (or ``places``) along the axis."""
        at = list(places) if places is not None else list(range(len(names)))
        ticks = list(zip(at, names))
        self.names = [name for _place, name in sorted(ticks)]       # names[i]: the name at place i
        self.setTicks([ticks])

    def tickStrings(self, values, scale, spacing):        # noqa: N802 (pyqtgraph's name)
        out = []
        for v in values:
            i = int(round(v))
            out.append(self.names[i] if abs(v - i) < 1e-6 and 0 <= i < len(self.names) else "")
        return out
