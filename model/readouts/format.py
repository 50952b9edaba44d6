"""Numbers for people: three significant figures and a unit, always."""
from __future__ import annotations

import math

_PREFIX = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def sig3(x: float) -> str:
    """3 significant figures without scientific notation for everyday magnitudes."""
    if x is None or not math.isfinite(x):
        return "—"
    if x == 0:
        return "0"
    if not 1e-9 <= abs(x) < 1e12:        # never a number of dozens of digits: 1.52e-300, 4.1e+20
        return f"{x:.3g}"
    digits = max(0, 2 - int(math.floor(math.log10(abs(x)))))
    text = f"{x:.{digits}f}"
    return text


def si(x: float, unit: str) -> str:
    """``si(3.35e12, 'B/s') -> '3.35 TB/s'``."""
    if x is None or not math.isfinite(x):
        return f"— {unit}"
    for scale, prefix in _PREFIX:
        if abs(x) >= scale * 0.9995:
            return f"{sig3(x / scale)} {prefix}{unit}"
    return f"{sig3(x)} {unit}"


def duration(seconds: float) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "—"
    if seconds < 1e-3:
        return f"{sig3(seconds * 1e6)} µs"
    if seconds < 1.0:
        return f"{sig3(seconds * 1e3)} ms"
    if seconds < 120:
        return f"{sig3(seconds)} s"
    for unit, size, up_to in (("min", 60.0, 7200.0), ("h", 3600.0, 172_800.0), ("days", 86_400.0, 63_072_000.0)):
        if seconds < up_to:
            return f"{sig3(seconds / size)} {unit}"
    return f"{sig3(seconds / 31_536_000.0)} years"


def percent(fraction: float) -> str:
    return f"{sig3(100 * fraction)}%" if fraction is not None and math.isfinite(fraction) else "—"
