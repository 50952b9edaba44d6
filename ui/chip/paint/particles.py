"""The packets: every alive particle of a kind drawn in one drawPoints call per colour pass."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPen
from pyqtgraph.functions import create_qpolygonf, ndarray_from_qpolygonf

from ui.chip.paint.common import K_ACT, K_AR, K_KV, K_WEIGHTS, Palette, layers
from ui.chip.particles import ParticleSystem


def paint_particles(p: QPainter, ps: ParticleSystem, pal: Palette, shapes: dict) -> None:
    alive = ps.alive
    if not alive.any():
        return
    p.setRenderHint(QPainter.Antialiasing, False)
    for kind in (K_AR, K_ACT, K_KV, K_WEIGHTS):
        pts = ps.pos[alive & (ps.kind == kind)]
        if not len(pts):
            continue
        offsets, width = shapes[kind]
        n, m = len(pts), len(offsets)
        poly = create_qpolygonf(n * m)
        arr = ndarray_from_qpolygonf(poly)
        arr[:] = (np.round(pts)[:, None, :] + offsets[None, :, :]).reshape(-1, 2)
        for colour, w in layers(pal.kinds[kind], pal.outlines[kind], width):
            pen = QPen(colour, w)
            pen.setCapStyle(Qt.SquareCap)
            p.setPen(pen)
            p.drawPoints(poly)
