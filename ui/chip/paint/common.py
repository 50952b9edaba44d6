"""What every painter of the chip shares: the scene it draws, colours, fonts and text that fits."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import fields
from functools import lru_cache

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen

from model.catalog.parts import Hardware
from model.readouts.chip import PacketScale
from model.readouts.chip_words import ChipWords
from model.physics.estimate import Estimate
from model.readouts.flow import Flow
from model.values import frozen
from ui.kit import theme as th
from ui.chip.layout import ChipLayout, Rect

K_WEIGHTS, K_KV, K_ACT, K_AR = 0, 1, 2, 3
TC_BUSY = QColor(th.BLUISH_GREEN)
INTERCONNECT = QColor(th.BLUE)
WARNING = QColor(th.VERMILLION)


class Palette:
    """ui.kit.theme.ChipColours as QColors, made once per theme (packet colours, text shades, rims)."""

    def __init__(self, name: str, colours: th.ChipColours):
        self.name = name
        for fld in fields(colours):
            value = getattr(colours, fld.name)
            setattr(self, fld.name, tuple(QColor(v) if v else None for v in value) if isinstance(value, tuple)
                    else QColor(value))


@lru_cache(maxsize=4)
def palette(name: str) -> Palette:
    return Palette(name, th.CHIP_LIGHT if name == "light" else th.CHIP_DARK)


@frozen
class Scene:
    """Everything a painter needs, fixed between two scenario changes."""

    lay: ChipLayout
    pal: Palette
    est: Estimate
    flow: Flow
    hw: Hardware
    scale: PacketScale
    shown: dict              # the chip's readout texts (model.readouts.flow.chip_readouts)
    words: ChipWords         # every word the painters draw (model.readouts.chip_words)


_recorded: list[str] | None = None


@contextmanager
def recording():
    """Collect every string the painters draw while inside (for ``HierarchyView.shown_texts``)."""
    global _recorded
    _recorded = []
    try:
        yield _recorded
    finally:
        _recorded = None


def note(s: str) -> None:
    """Record a string drawn by other means than ``text``/``fit`` (the caption's words)."""
    if _recorded is not None and s:
        _recorded.append(s)


def qr(r: Rect) -> QRectF:
    return QRectF(r.x, r.y, r.w, r.h)


@lru_cache(maxsize=64)
def font(px: int, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(9, int(px)))
    f.setBold(bold)
    return f


@lru_cache(maxsize=8192)
def _advance(px: int, bold: bool, s: str) -> int:
    return QFontMetrics(font(px, bold)).horizontalAdvance(s)


def advance(f: QFont, s: str) -> int:
    """The width of ``s`` in ``f`` (one of ``font``'s), in pixels. Remembered: the chip measures
    the same words in the same few fonts at every scenario change."""
    return _advance(f.pixelSize(), f.bold(), s)


def first_fit(forms, f: QFont, width: float) -> str:
    """The first of ``forms`` whose width fits; else the last, elided (ui.kit.fit_text.first_fitting,
    with remembered widths)."""
    forms = [t for t in forms if t] or [""]
    for t in forms:
        if advance(f, t) <= width:
            return t
    return QFontMetrics(f).elidedText(forms[-1], Qt.ElideRight, int(max(0, width)))


def mix(a: QColor, b: QColor, t: float) -> QColor:
    t = min(1.0, max(0.0, t))
    return QColor(int(a.red() + (b.red() - a.red()) * t), int(a.green() + (b.green() - a.green()) * t),
                  int(a.blue() + (b.blue() - a.blue()) * t))


def text(p: QPainter, rect: QRectF, s: str, f: QFont, colour: QColor, align=Qt.AlignLeft | Qt.AlignVCenter) -> float:
    """Draw ``s`` in ``rect`` on one line, elided if it must be; returns the width used."""
    p.setFont(f)
    p.setPen(colour)
    shown = first_fit([s], f, rect.width())
    p.drawText(rect, int(align), shown)
    note(shown)
    return advance(f, shown)


def fit(p: QPainter, rect: QRectF, forms, f: QFont, colour: QColor, align=Qt.AlignLeft | Qt.AlignVCenter,
        wrap: bool = False) -> float:
    """Draw the first of ``forms`` that fits ``rect`` on one line; with ``wrap``, then the first
    that fits word-wrapped; else the last, elided. Returns the width used."""
    forms = [t for t in forms if t]
    if not forms:
        return 0.0
    if not wrap:
        return text(p, rect, first_fit(forms, f, rect.width()), f, colour, align)
    flags = int(align) | int(Qt.TextWordWrap)
    r = rect.toRect()
    for s in forms:
        if advance(f, s) <= rect.width():
            return text(p, rect, s, f, colour, align)
        bw, bh = _wrapped(f.pixelSize(), f.bold(), r.width(), r.height(), flags, s)
        if bh <= rect.height() + 1 and bw <= rect.width():
            p.setFont(f)
            p.setPen(colour)
            p.drawText(rect, flags, s)
            note(s)
            return float(bw)
    return text(p, rect, forms[-1], f, colour, align)


@lru_cache(maxsize=1024)
def _wrapped(px: int, bold: bool, w: int, h: int, flags: int, s: str) -> tuple[int, int]:
    """(width, height) of ``s`` word-wrapped into a w × h box (remembered, like ``advance``)."""
    br = QFontMetrics(font(px, bold)).boundingRect(0, 0, w, h, flags, s)
    return br.width(), br.height()


def wrapped_height(s: str, width: float, f: QFont) -> float:
    if advance(f, s) <= width:
        return float(QFontMetrics(f).height())
    return float(_wrapped(f.pixelSize(), f.bold(), round(width), 10000, int(Qt.TextWordWrap), s)[1])


def pattern(bits: float) -> tuple[np.ndarray, int]:
    """Point offsets and pen width of one packet: the same bytes hold 16/bits as many weights."""
    if bits <= 6:
        return np.array([(-2.5, -2.5), (2.5, -2.5), (-2.5, 2.5), (2.5, 2.5)]), 4
    if bits <= 12:
        return np.array([(-2.5, -2.5), (2.5, 2.5)]), 4
    return np.array([(0.0, 0.0)]), 8


def patterns(f: Flow) -> dict[int, tuple[np.ndarray, int]]:
    dot = (np.array([(0.0, 0.0)]), 5)
    return {K_WEIGHTS: pattern(f.weight_bits), K_KV: pattern(f.kv_bits), K_ACT: dot, K_AR: dot}


def layers(colour: QColor, outline: QColor | None, width: int) -> tuple:
    """(colour, pen width) passes for one packet: a rim of ``outline`` 1 px wide, then the fill.
    Big packets keep their size (the fill shrinks); small ones grow by the rim."""
    if outline is None:
        return ((colour, width),)
    if width >= 6:
        return ((outline, width), (colour, width - 2))
    return ((outline, width + 2), (colour, width))


def sprite(p: QPainter, pal: Palette, at: QPointF, kind: int, shape: tuple[np.ndarray, int]) -> None:
    """One packet of ``kind`` at ``at`` (for the legend)."""
    offsets, width = shape
    for colour, w in layers(pal.kinds[kind], pal.outlines[kind], width):
        pen = QPen(colour, w)
        pen.setCapStyle(Qt.SquareCap)
        p.setPen(pen)
        for dx, dy in offsets:
            p.drawPoint(QPointF(at.x() + dx, at.y() + dy))
