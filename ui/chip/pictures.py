"""The chip's two cached pictures (ui/chip/view.py): the frame (boxes, SMs, stacks, bars: the
layout's shapes and the colours, no words) and the static picture (the frame with the scenario's
words and numbers over it). The last FRAMES_KEPT of each are kept, of the canvas' present size
only (a resize lets the others go: each is ~2 MB at 1600×900, four times that on a 2560×1440
stage), so going back to a chip or a scenario redraws none of it.
"""
from __future__ import annotations

from PySide6.QtGui import QPainter, QPixmap

from ui.chip.paint.cluster import paint_cluster, paint_cluster_frame
from ui.chip.paint.header import paint_header
from ui.chip.paint.ladder import paint_ladder, paint_ladder_frame
from ui.chip.paint.legend import paint_legend, paint_legend_frame
from ui.chip.paint.package import paint_package, paint_package_frame

FRAMES_KEPT = 6          # layouts, frame and static pictures kept, of the canvas' size (~2 MB each at 1600×900)


def remember(kept: dict, key, value):
    """``value`` kept under ``key`` as the newest of ``kept``, the oldest beyond FRAMES_KEPT let go."""
    kept.pop(key, None)
    while kept and len(kept) >= FRAMES_KEPT:
        kept.pop(next(iter(kept)))
    kept[key] = value
    return value


class ChipPictures:
    """Needs: self.lay, self.scene, self._pal, self._geom_key, self._frame, self._frames, self._statics."""

    def _frame_picture(self, w: int, h: int, dpr: float, fresh: bool = False) -> QPixmap:
        """The shapes that depend only on the layout and the colours, drawn once per layout."""
        key = (self._geom_key[0], self._pal.name, w, h, dpr)     # what the layout is made from, not the GPU
        if not fresh and key in self._frames:   # this layout, or one drawn before (an earlier GPU, phase)
            self._frame = (key, self._frames[key])
            return self._frame[1]
        pm = QPixmap(int(w * dpr), int(h * dpr))
        pm.setDevicePixelRatio(dpr)
        pm.fill(self._pal.bg)
        p = QPainter(pm)
        p.setRenderHint(QPainter.Antialiasing, True)
        p.setRenderHint(QPainter.TextAntialiasing, True)
        try:
            for paint in (paint_ladder_frame, paint_package_frame, paint_legend_frame, paint_cluster_frame):
                paint(p, self.lay, self._pal)
        finally:
            p.end()
        self._frame = (key, pm)
        if not fresh:
            for k in [k for k in self._frames if k[2:] != key[2:]]:     # another size: never drawn again as is
                del self._frames[k]
            remember(self._frames, key, pm)
        return pm

    def _static_picture(self, w: int, h: int, dpr: float) -> QPixmap:
        """``_render``'s picture, the last FRAMES_KEPT kept by all it is drawn from (size, scene):
        going back to a scenario draws none of its words again."""
        key = (w, h, dpr, self.scene)
        kept = next((pm for k, pm in self._statics if k == key), None)
        if kept is None:
            kept = self._render(w, h, dpr)
            same_size = [(k, pm) for k, pm in self._statics if k[:3] == key[:3]]      # of this size only
            self._statics = [(key, kept), *same_size[:FRAMES_KEPT - 1]]
        return kept

    def _render(self, w: int, h: int, dpr: float, fresh: bool = False) -> QPixmap:
        """The frame with this scenario's words and numbers over it."""
        pm = QPixmap(self._frame_picture(w, h, dpr, fresh))
        p = QPainter(pm)
        p.setRenderHint(QPainter.Antialiasing, True)
        p.setRenderHint(QPainter.TextAntialiasing, True)
        try:
            for paint in (paint_header, paint_ladder, paint_package, paint_legend, paint_cluster):
                paint(p, self.scene)
        finally:
            p.end()
        return pm
