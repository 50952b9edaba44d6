"""Per frame, and only what eases: the level-use bars, the tensor cores' fill, the tiles and the
link bar. Steady, no flashing, no text but the tensor cores' word (the numbers are static, in the
ladder and cluster)."""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter

from model.readouts.chip_words import TENSOR_CORES_WORD
from ui.kit import theme as th
from ui.chip.animator import Targets
from ui.chip.paint.cluster import link_bar
from ui.chip.paint.common import INTERCONNECT, TC_BUSY, WARNING, Scene, advance, font, text

_LEVEL_INDEX = {"host": 0, "hbm": 1, "l2": 2, "smem": 3, "registers": 4}


def paint_dynamic(p: QPainter, sc: Scene, cur: Targets) -> None:
    P, lay = sc.pal, sc.lay
    p.setPen(Qt.NoPen)
    for row in lay.ladder:
        u = float(cur.busy if row.key == "tensor_cores" else cur.levels[_LEVEL_INDEX[row.key]])
        colour = TC_BUSY if row.key == "tensor_cores" else (WARNING if u > 0.8 else P.level_bar)
        p.setBrush(colour)
        p.drawRoundedRect(QRectF(row.bar.x, row.bar.y, max(2.0, row.bar.w * u), row.bar.h), 2, 2)
    busy = float(cur.busy)
    _tensor_cores(p, sc, busy)
    if lay.cluster is not None:
        _cluster(p, sc, busy, float(cur.levels[6]))


def _tensor_cores(p: QPainter, sc: Scene, busy: float) -> None:
    P, lay = sc.pal, sc.lay
    y0, y1 = lay.band("tensor_cores")
    base = th.mix(P.tc_idle, TC_BUSY, 0.25 + 0.75 * busy) if busy > 0.02 else P.tc_idle
    dim = QColor(base.red(), base.green(), base.blue(), 90)
    fill = th.mix(P.tc_idle, TC_BUSY, 0.5 + 0.5 * busy)
    for sm in lay.sms:
        tc = QRectF(sm.left + 3, y0 + 3, sm.w - 6, y1 - y0 - 5)
        p.setBrush(dim)
        p.drawRoundedRect(tc, 3, 3)
        h = tc.height() * busy
        p.setBrush(fill)
        p.drawRoundedRect(QRectF(tc.left(), tc.bottom() - h, tc.width(), h), 3, 3)
    if lay.sms and advance(font(lay.fs - 3), TENSOR_CORES_WORD) <= lay.sms[0].w - 6:
        sm = lay.sms[0]
        text(p, QRectF(sm.left + 3, y0 + 2, sm.w - 6, lay.fs), TENSOR_CORES_WORD, font(lay.fs - 3), P.text,
             Qt.AlignLeft | Qt.AlignTop)
        p.setPen(Qt.NoPen)


def _cluster(p: QPainter, sc: Scene, busy: float, link: float) -> None:
    P = sc.pal
    for t in sc.lay.cluster.tiles:
        inner = QRectF(t.left + 9, t.top + 4, t.w - 18, t.h - 8)
        p.setBrush(P.tc_idle)
        p.drawRect(inner)
        h = inner.height() * busy
        p.setBrush(TC_BUSY)
        p.drawRect(QRectF(inner.left(), inner.bottom() - h, inner.width(), h))
    bar = link_bar(sc)
    p.setBrush(WARNING if sc.flow.bottleneck == "communication" else INTERCONNECT)
    p.drawRoundedRect(QRectF(bar.left(), bar.top(), max(2.0, bar.width() * link), 5), 2, 2)
