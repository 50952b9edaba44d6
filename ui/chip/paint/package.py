"""The GPU package: SMs (tensor cores, registers, shared memory), L2, the HBM stacks or one
unified-memory block, the pipes between them, and host RAM below. The words are the scene's
(model.readouts.chip_words); this places them."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen

from model.readouts.chip_words import SM_BANDS
from ui.chip.layout import ChipLayout
from ui.chip.paint.common import Palette, Scene, advance, fit, font, qr, text


def _title(p: QPainter, sc: Scene) -> None:
    """Title left, unit count right; when both do not fit, shorten, then drop the title."""
    P, lay = sc.pal, sc.lay
    fs = lay.fs
    r = qr(lay.package_title)
    small_f, bold_f = font(fs - 1), font(fs, True)
    choice = sc.words.package[-1]
    for left, right in sc.words.package:
        need = advance(bold_f, right) + (advance(small_f, left) + 14 if left else 0)
        if need <= r.width():
            choice = (left, right)
            break
    if choice[0]:
        text(p, r, choice[0], small_f, P.secondary, Qt.AlignLeft | Qt.AlignVCenter)
    text(p, r, choice[1], bold_f, P.text, Qt.AlignRight | Qt.AlignVCenter)


def _sms(p: QPainter, lay: ChipLayout, P: Palette) -> None:
    """The SMs, L2, the pipes between them and the bands' names (the frame picture)."""
    fs, sp = lay.fs, lay.sm_pipe_w
    l2 = lay.l2
    p.setPen(Qt.NoPen)
    p.setBrush(P.pipe)
    for x in lay.memory_pipes_x:
        p.drawRect(QRectF(x - lay.memory_pipe_w / 2, l2.bottom, lay.memory_pipe_w, lay.memory[0].top - l2.bottom))
    for sm in lay.sms:
        p.drawRect(QRectF(sm.cx - sp / 2, sm.bottom, sp, l2.top - sm.bottom))
    p.setPen(QPen(P.border, 1))
    p.setBrush(P.unit)
    p.drawRoundedRect(qr(l2), 5, 5)
    regs0, smem0, smem1 = lay.band("registers")[0], lay.band("smem")[0], lay.band("smem")[1]
    for sm in lay.sms:
        p.setPen(QPen(P.border, 1))
        p.setBrush(P.unit)
        p.drawRoundedRect(qr(sm), 4, 4)
        for y0 in (regs0, smem0):
            p.drawLine(QPointF(sm.left, y0), QPointF(sm.right, y0))
        p.setPen(Qt.NoPen)
        p.setBrush(P.pipe)
        p.drawRect(QRectF(sm.cx - sp / 2, regs0 + 3, sp, smem1 - regs0 - 6))
    if lay.sms:                  # the bands' names in the first SM (the same for every part: in the frame)
        sm = lay.sms[0]
        for band, word in SM_BANDS:
            y0 = lay.band(band)[0]
            if advance(font(fs - 3), word) <= sm.w - 6:       # whole, or not at all
                text(p, QRectF(sm.left + 3, y0 + 1, sm.w - 6, fs), word, font(fs - 3), P.secondary,
                     Qt.AlignLeft | Qt.AlignTop)


def _memory_frame(p: QPainter, lay: ChipLayout, P: Palette) -> None:
    """HBM stacks with their dies, or one unified block."""
    for st in lay.memory:
        p.setPen(QPen(P.memory_edge, 1))
        p.setBrush(P.memory_fill)
        p.drawRoundedRect(qr(st), 4, 4)
        p.setPen(QPen(P.memory_line, 1))
        dies = 3 if lay.unified else 5
        for k in range(1, dies):
            yy = st.top + st.h * k / dies
            p.drawLine(QPointF(st.left + 4, yy), QPointF(st.right - 4, yy))


def _memory_words(p: QPainter, sc: Scene) -> None:
    """Each stack's capacity; the unified block labelled as such."""
    P, lay = sc.pal, sc.lay
    fs = lay.fs
    for st in lay.memory:
        cap_r = QRectF(st.left + 2, st.bottom - fs * 1.4, st.w - 4, fs * 1.3)
        fitting = [t for t in sc.words.memory if advance(font(fs - 2), t) <= cap_r.width()]
        if fitting:          # the longest that fits, or nothing rather than "16…"
            text(p, cap_r, fitting[0], font(fs - 2), P.secondary, Qt.AlignHCenter | Qt.AlignVCenter)


def _host_frame(p: QPainter, lay: ChipLayout, P: Palette) -> None:
    host = lay.host
    p.setPen(QPen(P.host_link, 2, Qt.DashLine))
    p.drawLine(QPointF(lay.pcie_x, lay.package.bottom), QPointF(lay.pcie_x, host.top))
    p.setPen(QPen(P.border, 1))
    p.setBrush(P.panel)
    p.drawRoundedRect(qr(host), 5, 5)


def _host_words(p: QPainter, sc: Scene) -> None:
    P, lay, words = sc.pal, sc.lay, sc.words
    fs = lay.fs
    fit(p, qr(lay.host).adjusted(8, 0, -8, 0), list(words.host), font(fs, True), P.text)
    fit(p, qr(lay.host_note), list(words.host_note), font(fs - 1), P.secondary, wrap=True)


def paint_package_frame(p: QPainter, lay: ChipLayout, P: Palette) -> None:
    """What depends only on the layout and the colours (kept in the chip's frame picture)."""
    p.setPen(QPen(P.border, 1.5))
    p.setBrush(P.package)
    p.drawRoundedRect(qr(lay.package), 10, 10)
    _sms(p, lay, P)
    _memory_frame(p, lay, P)
    _host_frame(p, lay, P)


def paint_package(p: QPainter, sc: Scene) -> None:
    """The words and numbers of this scenario, over the frame."""
    _title(p, sc)
    _memory_words(p, sc)
    _host_words(p, sc)
