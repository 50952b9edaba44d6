"""The plots' axis classes (pyqtgraph AxisItem subclasses).

    SIAxis(orientation, unit="")   log-axis ticks as plain SI numbers: 1, 10, 100, 1k … / 1 T FLOP/s
    NamesAxis(orientation)         a category axis: one name per bar (set_names), nothing between;
                                   along the bottom, on two lines where one would crowd them
    line_height(font)              the pixels a line of tick text takes, descenders too
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPen, QPicture

from ui.kit.fit_text import balanced_break

_PREFIXES = ("", "k", "M", "G", "T", "P", "E")


def decade_tick(n: int, unit: str = "") -> str:
    """The tick text of 10**n: 0.01, 0.1, 1, 10, 100, 1 k, 10 k … with the unit."""
    if n < 0:
        return f"{10.0 ** n:g}"
    k = min(n // 3, len(_PREFIXES) - 1)
    return f"{10 ** (n - 3 * k)} {_PREFIXES[k]}{unit}".strip()


_LOG_1_TO_9 = [float(x) for x in np.log10(np.arange(1, 10))]     # pyqtgraph's minor log ticks, as it works them out
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
            self._keep(key, self.picture)

    def _keep(self, key: tuple, picture) -> None:
        while len(self._pictures) >= PICTURES_KEPT:
            self._pictures.pop(next(iter(self._pictures)))
        self._pictures[key] = picture

    def keep_picture_for(self, lo: float, hi: float) -> bool | None:
        """Make, ahead of its change, the picture this axis would draw for the view range (lo, hi),
        all else as it is now, and keep it: True when made, False when kept already, None when it
        cannot be made ahead (not on a view, or its numbers need another width: the change itself
        lays the axis out again). Nothing the axis shows moves."""
        shown = (self.range, self.picture, self.textWidth, self.textHeight)
        self._updateWidth = self._updateHeight = lambda: None          # (pyqtgraph's, on this axis only)
        try:
            self.range = [lo, hi]
            key = self._picture_key()
            if key is None or key in self._pictures:
                return None if key is None else False
            picture = QPicture()
            painter = QPainter(picture)
            try:
                if self.style["tickFont"]:
                    painter.setFont(self.style["tickFont"])
                specs = self.generateDrawSpecs(painter)
                if specs is not None:
                    self.drawPicture(painter, *specs)
            finally:
                painter.end()
            if (self.textWidth, self.textHeight) != shown[2:]:
                return None
            self._keep(key, picture)
            return True
        finally:
            del self._updateWidth, self._updateHeight
            self.range, self.picture, self.textWidth, self.textHeight = shown

    def tickValues(self, minVal, maxVal, size):     # noqa: N802, N803 (pyqtgraph's names)
        """On a log axis, pyqtgraph's tick values (its tickValues, then logTickValues) worked out in
        plain floats, the same numbers: pyqtgraph's numpy, on a few ticks a level, was most of the
        cost of an axis's new range (a GPU's first roofline). Its levels finer than a decade go
        unused on a log axis (logTickValues drops them), so they are not worked out."""
        if not self.logMode:
            return super().tickValues(minVal, maxVal, size)
        lo, hi = sorted((minVal, maxVal))
        lo, hi = lo * self.scale, hi * self.scale
        ticks, every = [], []
        for spacing, offset in self.tickSpacing(lo, hi, size):
            if spacing / self.scale < 1.0:                 # this level and the finer ones after it
                break
            start = math.ceil((lo - offset) / spacing) * spacing + offset
            near = spacing / self.scale * 0.01             # a value within this of one kept is that one
            values = [v for v in ((k * spacing + start) / self.scale for k in range(int((hi - start) / spacing) + 1))
                      if not any(abs(u - v) <= near for u in every)]
            every += values
            ticks.append((spacing / self.scale, values))
        return self.logTickValues(lo, hi, size, ticks)

    def logTickValues(self, minVal, maxVal, size, stdTicks):     # noqa: N802, N803 (pyqtgraph's names)
        """pyqtgraph's log ticks, less a lower level's ticks on a value a level above has already
        (its minor ticks start at each decade, whose number was drawn twice, one over the other)."""
        levels = [(spacing, values) for spacing, values in stdTicks if spacing >= 1.0]
        if len(levels) < 3:                                # pyqtgraph's minor ticks: 2 … 9 in each decade
            minor = (v + f for v in range(math.floor(minVal), math.ceil(maxVal)) for f in _LOG_1_TO_9)
            levels.append((None, [x for x in minor if minVal < x < maxVal]))
        out, seen = [], []
        for spacing, values in levels:
            values = [v for v in values if all(abs(v - u) > 1e-9 for u in seen)]
            seen += values
            out.append((spacing, values))
        return out

    def tickStrings(self, values, scale, spacing):        # noqa: N802 (pyqtgraph's name)
        """A log axis names its decades; the ticks between have no text (None: pyqtgraph measures
        none for them)."""
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        return [None if abs(v - round(v)) > 1e-6 else decade_tick(int(round(v)), self.unit) for v in values]


NAME_GAP_PX = 8          # the least clear space between two names on a category axis


def line_height(font: QFont) -> int:
    """The pixels one line of ``font`` takes, descenders too (pyqtgraph measures less)."""
    return math.ceil(QFontMetricsF(font).height())


def two_lines(name: str, fm: QFontMetricsF) -> str:
    """``name`` on its two most even lines ("Shared mem" → "Shared\nmem"); one word as it is."""
    i = balanced_break(name, fm.horizontalAdvance)
    return name if i is None else f"{name[:i]}\n{name[i + 1:]}"


class NamesAxis(pg.AxisItem):
    """A category axis that names the bars: one tick per place, nothing between. Along the bottom,
    where two names on one line would come within NAME_GAP_PX of each other (or a name past the
    axis's end), every name goes on two lines and the axis takes the height of two: the names
    themselves stay the chart's (its ticks), only their drawing breaks them."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.names: list[str] = []
        self.lines = 1
        self._broken: list | None = None      # the ticks as drawn on two lines (None: as they are)

    def set_names(self, names: Sequence[str], places: Sequence[float] | None = None) -> None:
        """Name places 0, 1 … (or ``places``) along the axis."""
        at = list(places) if places is not None else list(range(len(names)))
        ticks = list(zip(at, names))
        self.names = [name for _place, name in sorted(ticks)]       # names[i]: the name at place i
        self.setTicks([ticks])
        self.fit_names()

    def resizeEvent(self, ev=None):          # noqa: N802 (Qt's name)
        super().resizeEvent(ev)
        self.fit_names()

    def linkedViewChanged(self, view, newRange=None):     # noqa: N802, N803 (pyqtgraph's names)
        super().linkedViewChanged(view, newRange)
        self.fit_names()

    def fit_names(self) -> None:
        """One line or two, as the axis's width allows (a bottom axis; a side one keeps its names)."""
        ticks = sorted(self._tickLevels[0]) if self._tickLevels else []
        font = self.style["tickFont"]
        if self.orientation != "bottom" or not ticks or font is None:
            return
        fm = QFontMetricsF(font)
        broken = [(place, two_lines(name, fm)) for place, name in ticks]
        lines = 1 if self._fits(ticks, fm) or broken == ticks else 2
        self.lines = lines
        self._broken = broken if lines == 2 else None
        height = lines * line_height(font)
        if not self.style["autoExpandTextSpace"] and self.style["tickTextHeight"] != height:
            self.setStyle(tickTextHeight=height)
        self.picture = None
        self.update()

    def _fits(self, ticks, fm: QFontMetricsF) -> bool:
        lo, hi = self.range
        width = self.size().width()
        if hi <= lo or width <= 0:
            return True
        xs = [(place - lo) * width / (hi - lo) for place, _name in ticks]
        half = [max(fm.horizontalAdvance(line) for line in name.split("\n")) / 2.0 for _place, name in ticks]
        if xs[0] - half[0] < 0 or xs[-1] + half[-1] > width:
            return False
        return all(b - a >= ha + hb + NAME_GAP_PX for a, b, ha, hb in zip(xs, xs[1:], half, half[1:]))

    def generateDrawSpecs(self, p):           # noqa: N802 (pyqtgraph's name)
        """pyqtgraph's, with the names as broken onto two lines where they are."""
        if self._broken is None:
            return super().generateDrawSpecs(p)
        kept, self._tickLevels = self._tickLevels, [self._broken]
        try:
            return super().generateDrawSpecs(p)
        finally:
            self._tickLevels = kept

    def tickStrings(self, values, scale, spacing):        # noqa: N802 (pyqtgraph's name)
        out = []
        for v in values:
            i = int(round(v))
            out.append(self.names[i] if abs(v - i) < 1e-6 and 0 <= i < len(self.names) else "")
        return out
