"""The cluster panel (more than one GPU): the tiles, the switch, and how busy the link is.
The words are the scene's (model.readouts.chip_words); this places them."""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPen

from ui.chip.layout import ChipLayout
from ui.chip.paint.common import INTERCONNECT, Palette, Scene, fit, font, qr, text


def paint_cluster_frame(p: QPainter, lay: ChipLayout, P: Palette) -> None:
    """The box, the tiles, the switch and the empty link bar (the frame picture)."""
    cl = lay.cluster
    if cl is None:
        return
    p.setPen(QPen(P.border, 1))
    p.setBrush(P.panel)
    p.drawRoundedRect(qr(cl.box), 6, 6)
    sw = cl.switch
    p.setPen(Qt.NoPen)
    p.setBrush(P.pipe)
    for t in cl.tiles:
        p.drawRect(QRectF(t.cx - 7, t.bottom, 14, sw.top - t.bottom))
    p.setPen(QPen(INTERCONNECT, 1))
    p.setBrush(P.switch)
    p.drawRoundedRect(qr(sw), 3, 3)
    for i, t in enumerate(cl.tiles):
        p.setPen(QPen(P.text if i == 0 else P.border, 1.5 if i == 0 else 1))
        p.setBrush(P.unit)
        p.drawRoundedRect(qr(t), 4, 4)
        p.setPen(Qt.NoPen)
        p.setBrush(P.memory_line)
        p.drawRect(QRectF(t.left + 3, t.top + 3, 4, t.h - 6))
        p.drawRect(QRectF(t.right - 7, t.top + 3, 4, t.h - 6))
    p.setPen(Qt.NoPen)
    p.setBrush(P.pipe)
    p.drawRoundedRect(_link_bar(lay), 2, 2)


def paint_cluster(p: QPainter, sc: Scene) -> None:
    cl = sc.lay.cluster
    if cl is None:
        return
    P, words, fs = sc.pal, sc.words, sc.lay.fs
    fit(p, qr(cl.title), list(words.cluster), font(fs, True), P.text)
    text(p, qr(cl.subtitle), words.link, font(fs - 1), P.secondary)
    text(p, qr(cl.switch), words.switch, font(fs - 2), P.text, Qt.AlignCenter)
    _link_words(p, sc)


def _link_bar(lay: ChipLayout) -> QRectF:
    foot = lay.cluster.foot
    return QRectF(foot.left, foot.top + lay.fs * 2.0, foot.w * 0.45, 5)


def link_bar(sc: Scene) -> QRectF:
    return _link_bar(sc.lay)


def _link_words(p: QPainter, sc: Scene) -> None:
    """How busy the link is and, when the link is the bottleneck, say so."""
    P, fs = sc.pal, sc.lay.fs
    foot = sc.lay.cluster.foot
    bar = link_bar(sc)
    comm = sc.flow.bottleneck == "communication"
    colour = P.warning_text if comm else P.text
    fit(p, QRectF(foot.left, foot.top, foot.w, fs * 1.4), list(sc.words.link_busy), font(fs - 1, comm), colour)
    if comm:
        fit(p, QRectF(bar.right() + 8, bar.center().y() - fs * 0.65, foot.w - bar.width() - 8, fs * 1.3),
            list(sc.words.bottleneck), font(fs - 1, True), colour)
