"""One helper for text that must fit its room: the first form that fits, else a smaller
font, else the last form elided. Used by the gauges, the roofline's labels and (for the chip)
any painter that has several forms of the same words, longest first."""
from __future__ import annotations

import re
from typing import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics


def first_fitting(forms: Sequence[str], font: QFont, width: float, elide: bool = True) -> str:
    """The first of ``forms`` (longest first) whose advance fits ``width`` pixels; else the
    last, elided when ``elide``."""
    forms = [f for f in forms if f] or [""]
    fm = QFontMetrics(font)
    for text in forms:
        if fm.horizontalAdvance(text) <= width:
            return text
    return fm.elidedText(forms[-1], Qt.ElideRight, int(max(0, width))) if elide else forms[-1]


def fitting_px(text: str, font: QFont, width: float, max_px: int, min_px: int = 9, margin_px: int = 2) -> int:
    """The largest pixel size ≤ ``max_px`` (≥ ``min_px``) at which ``text`` fits ``width``."""
    f = QFont(font)
    f.setPixelSize(max_px)
    need = QFontMetrics(f).horizontalAdvance(text) + margin_px
    if need <= width:
        return max_px
    return max(min_px, int(max_px * width / max(1, need)))


def balanced_break(text: str, advance: Callable[[str], float]) -> int | None:
    """The space at which ``text`` breaks into its two most even lines (the longer as short as it
    can be), by ``advance`` (a font's QFontMetricsF.horizontalAdvance); None for one word."""
    cuts = [i for i, ch in enumerate(text) if ch == " "]
    if not cuts:
        return None
    return min(cuts, key=lambda i: max(advance(text[:i]), advance(text[i + 1:])))


_NUMBER_UNIT = re.compile(r"(?<=\d) (?=[A-Za-zµ%])")        # "3.35 TB/s": the space after a number
_IN_UNIT_SLASH = re.compile(r"(?<=\w)/(?=\w)")               # "TFLOP/s", "FLOP/byte"


def keep_units(text: str) -> str:
    """``text`` wrapped as a reader expects: a number kept on the line of its unit (a no-break
    space) and a unit never broken at its slash (a word joiner after it: Qt's line breaking
    otherwise breaks "TB/s" into "TB/" and "s"). The same characters shown, nothing else."""
    return _IN_UNIT_SLASH.sub("/\u2060", _NUMBER_UNIT.sub("\u00a0", text))
