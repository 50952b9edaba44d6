"""The legend on the right: what a packet is at this speed, the colours, and what one step moves."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPen

from model.readouts.chip import packet_texts, step_word
from ui.chip.layout import ChipLayout
from ui.chip.paint.common import (K_ACT, K_AR, K_KV, K_WEIGHTS, TC_BUSY, Palette, Scene, advance, fit, font,
                                  pattern, patterns, qr, sprite, text, wrapped_height)


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
    pt = packet_texts(sc.scale)
    rows = [(K_WEIGHTS, "weights", [f"{pt['weights_per_packet']} per packet"]),
            (K_KV, "KV cache", [sc.est.kv_precision_name]),
            (K_ACT, "activations", ["layer in/out"])]
    if "link_packet" in pt:
        lp = pt["link_packet"]
        rows.append((K_AR, "all-reduce", [f"1 packet = {lp}", f"{lp} a packet", lp]))
    for kind, name, sub in rows:
        if not c.room(c.lh):
            return
        sprite(p, P, QPointF(c.x + 8, c.y + c.lh / 2), kind, shapes[kind])
        used = text(p, QRectF(c.x + 22, c.y, c.w - 22, c.lh), name, font(fs), P.kind_text[kind])
        fit(p, QRectF(c.x + 22 + used + 8, c.y, c.w - 30 - used, c.lh), sub, font(fs - 1), P.secondary)
        c.y += c.lh


def _bits(c: _Column) -> None:
    sc, p = c.sc, c.p
    P, fs = sc.pal, sc.lay.fs
    if not c.room(2 * c.lh):
        return
    c.line("Same bytes, more weights:")
    small = font(fs - 1)
    xx = c.x + 8
    for bits, word in ((16, "16-bit 1×"), (8, "8-bit 2×"), (4, "4-bit 4×")):
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
    used = text(p, QRectF(c.x + 22, c.y, c.w, c.lh), sc.shown["busy_words"].text, font(fs), P.tc_text)
    p.setPen(Qt.NoPen)
    p.setBrush(P.tc_idle)
    p.drawRect(QRectF(c.x + 22 + used + 10, c.y + c.lh * 0.2, 12, c.lh * 0.6))
    text(p, QRectF(c.x + 22 + used + 28, c.y, c.w - used - 28, c.lh), "idle", font(fs), P.secondary)
    c.y += c.lh


def _step(c: _Column) -> None:
    sc = c.sc
    P, fs, sh = sc.pal, sc.lay.fs, sc.shown
    prefill = sc.flow.phase == "prefill"
    c.line(f"Per GPU, each {step_word(sc.flow)}", font(fs, True), P.text)
    w, kv = sh["step_weights"].text, sh["step_kv"].text
    c.line(f"reads {w} weights, writes {kv} KV" if prefill else f"reads {w} weights · {kv} KV cache",
           colour=P.text, shorter=(f"reads {w} weights · {kv} KV",))
    c.line(f"+ {sh['step_activations'].text} activations, in {sh['step_time'].text}", colour=P.text)
    if not prefill:
        ctx = sh["mean_context"].text
        c.line(f"KV read at the mean context, {ctx}", shorter=(f"KV at the mean context, {ctx}", f"KV at {ctx}"))
    c.line(f"{sh['chip_rate'].text} {sh['chip_rate'].label}")
    c.line(f"{sh['step_flops'].text} · MFU {sh['mfu'].text} of peak FLOP/s",
           shorter=(f"{sh['step_flops'].text} · MFU {sh['mfu'].text}",))


def paint_legend_frame(p: QPainter, lay: ChipLayout, P: Palette) -> None:
    p.setPen(QPen(P.border, 1))
    p.setBrush(P.panel)
    p.drawRoundedRect(qr(lay.legend), 6, 6)


def paint_legend(p: QPainter, sc: Scene) -> None:
    P, fs = sc.pal, sc.lay.fs
    c = _Column(p, sc)
    c.line("Packets of bytes", font(fs, True), P.text)
    c.line(f"1 packet = {packet_texts(sc.scale)['packet']} (at this speed)")
    _kinds(c)
    c.y += c.lh * 0.25
    _bits(c)
    _busy_swatch(c)
    c.line("Packets slow to the speed of their link: a crowded link is a busy link.")
    c.y += c.lh * 0.4
    _step(c)
