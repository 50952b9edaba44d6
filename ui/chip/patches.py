"""What a chip's words add to its frame, cut small (ui/chip/pictures.py draws them ahead).

The static picture is the frame with one scenario's words and numbers over it, and the words
touch about a quarter of it. ``word_patches(static, frame)`` cuts from the static picture the
rectangles of TILE_PX tiles in which any pixel differs from the frame (the tiles of a row
merged into runs, and runs that repeat down the rows merged into one rectangle). ``paste``
puts them back over the same frame: the static picture again, pixel for pixel. At 1600×900
that is ~50 pieces holding a quarter of the picture's bytes, pasted in ~0.2 ms, where drawing
the words takes ~1.7 ms.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage, QPainter, QPixmap, QTransform

TILE_PX = 16          # device pixels a side: smaller tiles, fewer bytes kept but more pieces to paste


def tile_rects(differs: np.ndarray, tile_px: int = TILE_PX) -> list[tuple[int, int, int, int]]:
    """(x, y, w, h) in pixels of rectangles that cover every True of ``differs`` (rows × columns),
    each made of whole tiles of ``tile_px`` (cut at the array's edges). Pure numpy."""
    h, w = differs.shape
    tiles = np.logical_or.reduceat(differs, np.arange(0, h, tile_px), axis=0)
    tiles = np.logical_or.reduceat(tiles, np.arange(0, w, tile_px), axis=1)
    edges = np.diff(np.pad(tiles.astype(np.int8), ((0, 0), (1, 1))), axis=1)
    rows = tiles.shape[0]
    done, running = [], {}                   # running: (first tile, past the last) → first row
    for r in range(rows):
        runs = list(zip(np.flatnonzero(edges[r] == 1).tolist(), np.flatnonzero(edges[r] == -1).tolist()))
        now = {run: running.pop(run, r) for run in runs}
        done += [(run, r0, r) for run, r0 in running.items()]
        running = now
    done += [(run, r0, rows) for run, r0 in running.items()]
    return [(c0 * tile_px, r0 * tile_px, min(w, c1 * tile_px) - c0 * tile_px, min(h, r1 * tile_px) - r0 * tile_px)
            for (c0, c1), r0, r1 in done]


def _pixels(img: QImage) -> np.ndarray:
    """A 32-bit image's pixels as rows × columns of uint32: a view of its memory (keep ``img``)."""
    rows = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())
    return rows[:, :img.width() * 4].view(np.uint32)


def word_patches(static: QPixmap, frame: QPixmap) -> tuple[tuple[int, int, QPixmap], ...]:
    """(x, y, piece) in device pixels: the parts of ``static`` that differ from ``frame`` (of the
    same size), each piece of device pixel ratio 1."""
    a, b = static.toImage(), frame.toImage()
    if a.format() != b.format() or a.depth() != 32:
        a, b = (img.convertToFormat(QImage.Format_ARGB32_Premultiplied) for img in (a, b))
    out = []
    for x, y, w, h in tile_rects(_pixels(a) != _pixels(b)):
        piece = static.copy(x, y, w, h)
        piece.setDevicePixelRatio(1.0)
        out.append((x, y, piece))
    return tuple(out)


def patch_bytes(patches) -> int:
    return sum(pm.width() * pm.height() * 4 for _x, _y, pm in patches)


def paste(frame: QPixmap, patches) -> QPixmap:
    """A copy of ``frame`` with ``patches`` over it, pixel for pixel (device pixels, whatever the
    frame's device pixel ratio)."""
    pm = QPixmap(frame)
    p = QPainter(pm)
    try:
        dpr = pm.devicePixelRatioF()
        if dpr != 1.0:
            p.setWorldTransform(QTransform.fromScale(1.0 / dpr, 1.0 / dpr))
        for x, y, piece in patches:
            p.drawPixmap(QPoint(x, y), piece)
    finally:
        p.end()
    return pm
