"""The ladder on the left: each level's name, capacity and bandwidth, and how much of it is used.

The words are the scene's (model.readouts.chip_words), the numbers its chip readouts; they are static (they change with the scenario, not per frame); only the
use bars' fill eases, in ui.chip.paint.dynamic."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter

from ui.chip.layout import ChipLayout
from ui.chip.paint.common import Palette, Scene, advance, fit, font, qr, text


def use_text(sc: Scene, key: str, room: float, px: int) -> str:
    """How much of level ``key`` is used: the longest of the scene's forms that fits ``room``."""
    forms = sc.words.level(key)[1]
    f = font(px)
    return next((t for t in forms if advance(f, t) <= room), forms[-1])


def paint_ladder_frame(p: QPainter, lay: ChipLayout, P: Palette) -> None:
    """The empty use bars (the frame picture; their fill eases in ui.chip.paint.dynamic)."""
    p.setPen(Qt.NoPen)
    p.setBrush(P.pipe)
    for row in lay.ladder:
        p.drawRoundedRect(qr(row.bar), 2, 2)


def paint_ladder(p: QPainter, sc: Scene) -> None:
    P, lay = sc.pal, sc.lay
    fs = lay.ladder_fs
    for row in lay.ladder:
        level = sc.shown[f"level_{row.key}"]
        fit(p, qr(row.name), list(sc.words.level(row.key)[0]), font(fs, True), P.text)
        if row.numbers.h > 0:
            text(p, qr(row.numbers), level.text, font(fs - 1), P.secondary)
        u = float(sc.shown[f"use_{row.key}"].value or 0.0)
        shown = use_text(sc, row.key, row.use.w, fs - 1)
        text(p, qr(row.use), shown, font(fs - 1), P.text if u > 0.05 else P.secondary)
