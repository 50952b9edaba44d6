"""The ladder on the left: each level's name, capacity and bandwidth, and how much of it is used.

The words and numbers are static (they change with the scenario, not per frame); only the
use bars' fill eases, in ui.chip.paint.dynamic."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter

from ui.chip.layout import ChipLayout
from ui.chip.paint.common import Palette, Scene, advance, fit, font, qr, text


def use_text(sc: Scene, key: str, room: float, px: int) -> str:
    """'61.7% used', 'busy 0.798% of step time', or shorter forms that fit ``room``."""
    r = sc.shown[f"use_{key}"]
    if r.value is None:
        return "use n/a"
    forms = ([f"busy {r.text} of step time", f"{r.text} of step time", f"{r.text} of step", r.text]
             if key == "tensor_cores" else [f"{r.text} used", r.text])
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
        name = level.label
        names = [name, name.split(" (")[0]] if " (" in name else [name]
        fit(p, qr(row.name), names, font(fs, True), P.text)
        if row.numbers.h > 0:
            text(p, qr(row.numbers), level.text, font(fs - 1), P.secondary)
        u = float(sc.shown[f"use_{row.key}"].value or 0.0)
        shown = use_text(sc, row.key, row.use.w, fs - 1)
        text(p, qr(row.use), shown, font(fs - 1), P.text if u > 0.05 else P.secondary)
