"""The legend on the right: what a packet is at this speed, the colours, and what one step moves.
The words are the scene's (model.readouts.chip_words); this places them."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPen

from ui.chip.layout import ChipLayout
from ui.chip.paint.common import (K_ACT, K_AR, K_KV, K_WEIGHTS, TC_BUSY, Palette, Scene, advance, fit, font,
                                  pattern, patterns, qr, sprite, text, wrapped_height)

KINDS = {"weights": K_WEIGHTS, "kv": K_KV, "activations": K_ACT, "all_reduce": K_AR}    # the words' kinds → sprites


class _Column:
    """Lines written down the legend box, each one only if it fits above ``limit``."""

    def __init__(self, p: QPainter, sc: Scene):
        self.p, self.sc = p, sc
        r = sc.lay.legend
        self.x, self.w, self.y = r.left + 10, r.w - 20, r.top + 6
        self.limit = r.bottom - 4
        self.lh = sc.lay.fs * 1.45

    def room(self, need: float) -> bool:
        return self.y + need <= self.limit

    def line(self, s: str, f=None, colour=None, shorter=()) -> None:
        """One line when it fits (or a shorter form does), else wrapped over as many as it needs."""
        f = f or font(self.sc.lay.fs - 1)
        colour = colour or self.sc.pal.secondary
        fm = QFontMetrics(f)
        fits = next((t for t in (s, *shorter) if advance(f, t) <= self.w), None)
        if fits is None:
            need = wrapped_height(s, self.w, f) + (self.lh - fm.height())
            if self.room(need):
                fit(self.p, QRectF(self.x, self.y, self.w, need), [s], f, colour, wrap=True)
            self.y += need
            return
        if self.room(self.lh):
            text(self.p, QRectF(self.x, self.y, self.w, self.lh), fits, f, colour)
        self.y += self.lh


def _kinds(c: _Column) -> None:
    sc, p = c.sc, c.p
    P, fs = sc.pal, sc.lay.fs
    shapes = patterns(sc.flow)
    for name_of_kind, name, sub in sc.words.kinds:
        if not c.room(c.lh):
            return
        kind = KINDS[name_of_kind]
        sprite(p, P, QPointF(c.x + 8, c.y + c.lh / 2), kind, shapes[kind])
        used = text(p, QRectF(c.x + 22, c.y, c.w - 22, c.lh), name, font(fs), P.kind_text[kind])
        fit(p, QRectF(c.x + 22 + used + 8, c.y, c.w - 30 - used, c.lh), list(sub), font(fs - 1), P.secondary)
        c.y += c.lh


def _bits(c: _Column) -> None:
    sc, p = c.sc, c.p
    P, fs = sc.pal, sc.lay.fs
    if not c.room(2 * c.lh):
        return
    c.line(sc.words.bits_title)
    small = font(fs - 1)
    xx = c.x + 8
    for bits, word in sc.words.bits:
        adv = advance(small, word)
        if xx + 10 + adv > c.x + c.w:
            break
        sprite(p, P, QPointF(xx, c.y + c.lh / 2), K_WEIGHTS, pattern(bits))
        text(p, QRectF(xx + 10, c.y, adv + 2, c.lh), word, small, P.text)
        xx += 10 + adv + 14
    c.y += c.lh * 1.25


def _busy_swatch(c: _Column) -> None:
    sc, p = c.sc, c.p
    P, fs = sc.pal, sc.lay.fs
    if not c.room(c.lh):
        return
    p.setPen(Qt.NoPen)
    p.setBrush(TC_BUSY)
    p.drawRect(QRectF(c.x + 2, c.y + c.lh * 0.2, 12, c.lh * 0.6))
    used = text(p, QRectF(c.x + 22, c.y, c.w, c.lh), sc.words.busy, font(fs), P.tc_text)
    p.setPen(Qt.NoPen)
    p.setBrush(P.tc_idle)
    p.drawRect(QRectF(c.x + 22 + used + 10, c.y + c.lh * 0.2, 12, c.lh * 0.6))
    text(p, QRectF(c.x + 22 + used + 28, c.y, c.w - used - 28, c.lh), sc.words.idle, font(fs), P.secondary)
    c.y += c.lh


def _step(c: _Column) -> None:
    sc = c.sc
    P, fs = sc.pal, sc.lay.fs
    c.line(sc.words.step_title, font(fs, True), P.text)
    for forms, strong in sc.words.step:
        c.line(forms[0], colour=P.text if strong else None, shorter=forms[1:])


def paint_legend_frame(p: QPainter, lay: ChipLayout, P: Palette) -> None:
    p.setPen(QPen(P.border, 1))
    p.setBrush(P.panel)
    p.drawRoundedRect(qr(lay.legend), 6, 6)


def paint_legend(p: QPainter, sc: Scene) -> None:
    P, fs = sc.pal, sc.lay.fs
    c = _Column(p, sc)
    c.line(sc.words.legend_title, font(fs, True), P.text)
    c.line(sc.words.packet)
    _kinds(c)
    c.y += c.lh * 0.25
    _bits(c)
    _busy_swatch(c)
    c.line(sc.words.crowded)
    c.y += c.lh * 0.4
    _step(c)
