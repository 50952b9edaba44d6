"""Slider positions ↔ the values they stand for (pure: no Qt), one place for each mapping.

    LogSlider(lo, hi, steps)     position 0 … steps ↔ a value from lo to hi, evenly in log
                                 (lesson 4's intensity): value(p) = 10**(log lo + (log hi − log lo)·p/steps)
    nearest_power_of_two(x, top) 2**round(log2 x), within 1 … top (lesson 6's clicks on its batch axis)
    percent_slider(f) / slider_fraction(p)   a 0 … 100 slider for a fraction 0 … 1 (lesson 2's divergence)
"""
from __future__ import annotations

import math

from model.values import frozen


@frozen
class LogSlider:
    lo: float
    hi: float
    steps: int

    def value(self, pos: int) -> float:
        a, b = math.log10(self.lo), math.log10(self.hi)
        return 10 ** (a + (b - a) * pos / self.steps)

    def position(self, value: float) -> int:
        a, b = math.log10(self.lo), math.log10(self.hi)
        f = (math.log10(value) - a) / (b - a)
        return int(round(max(0.0, min(1.0, f)) * self.steps))

    def clamp(self, value: float) -> float:
        return min(self.hi, max(self.lo, float(value)))


def nearest_power_of_two(x: float, top: int) -> int:
    """The power of two nearest x in log terms, within 1 … top (1 for anything not positive)."""
    k = int(round(math.log2(x))) if math.isfinite(x) and x > 0 else 0
    return 2 ** max(0, min(int(round(math.log2(top))), k))


def percent_slider(fraction: float) -> int:
    return int(round(float(fraction) * 100))


def slider_fraction(pos: int) -> float:
    return pos / 100.0
