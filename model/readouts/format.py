"""Numbers for people: three significant figures and a unit, always."""
from __future__ import annotations

import math

_PREFIX = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def sig3(x: float, figures: int = 3) -> str:
    """3 significant figures (or ``figures``) without scientific notation for everyday magnitudes."""
    if x is None or not math.isfinite(x):
        return "—"
    if x == 0:
        return "0"
    if not 1e-9 <= abs(x) < 1e12:        # never a number of dozens of digits: 1.52e-300, 4.1e+20
        return f"{x:.{figures}g}"
    digits = max(0, figures - 1 - int(math.floor(math.log10(abs(x)))))
    text = f"{x:.{digits}f}"
    return text


def si(x: float, unit: str, figures: int = 3) -> str:
    """``si(3.35e12, 'B/s') -> '3.35 TB/s'`` (``figures`` significant figures)."""
    if x is None or not math.isfinite(x):
        return f"— {unit}"
    for scale, prefix in _PREFIX:
        if abs(x) >= scale * 0.9995:
            return f"{sig3(x / scale, figures)} {prefix}{unit}"
    return f"{sig3(x, figures)} {unit}"


def duration(seconds: float, figures: int = 3) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "—"
    if seconds < 1e-3:
        return f"{sig3(seconds * 1e6, figures)} µs"
    if seconds < 1.0:
        return f"{sig3(seconds * 1e3, figures)} ms"
    if seconds < 120:
        return f"{sig3(seconds, figures)} s"
    for unit, size, up_to in (("min", 60.0, 7200.0), ("h", 3600.0, 172_800.0), ("days", 86_400.0, 63_072_000.0)):
        if seconds < up_to:
            return f"{sig3(seconds / size, figures)} {unit}"
    return f"{sig3(seconds / 31_536_000.0, figures)} years"


def percent(fraction: float) -> str:
    return f"{sig3(100 * fraction)}%" if fraction is not None and math.isfinite(fraction) else "—"
