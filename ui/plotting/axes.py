"""The plots' axis classes (pyqtgraph AxisItem subclasses).

    SIAxis(orientation, unit="")   log-axis ticks as plain SI numbers: 1, 10, 100, 1k … / 1 T FLOP/s
    NamesAxis(orientation)         a category axis: one name per bar (set_names), nothing between
"""
from __future__ import annotations

from typing import Sequence

import pyqtgraph as pg

_PREFIXES = ("", "k", "M", "G", "T", "P", "E")


def decade_tick(n: int, unit: str = "") -> str:
    """The tick text of 10**n: 0.01, 0.1, 1, 10, 100, 1 k, 10 k … with the unit."""
    if n < 0:
        return f"{10.0 ** n:g}"
    k = min(n // 3, len(_PREFIXES) - 1)
    return f"{10 ** (n - 3 * k)} {_PREFIXES[k]}{unit}".strip()


class SIAxis(pg.AxisItem):
    """Log axis ticks as plain SI numbers (whole decades only); a linear axis as pyqtgraph's."""

    def __init__(self, orientation, unit="", **kw):
        super().__init__(orientation, **kw)
        self.unit = unit

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
