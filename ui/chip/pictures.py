"""The chip's two cached pictures (ui/chip/view.py): the frame (boxes, SMs, stacks, bars: the
layout's shapes and the colours, no words) and the static picture (the frame with the scenario's
words and numbers over it). Of the canvas' present size only (a resize lets the others go), the
last FRAMES_KEPT frames and layouts are kept, at most FRAME_BYTES_KEPT of frames (each is ~2 MB
at 1600×900, four times that on a 2560×1440 stage), and the last STATICS_KEPT static pictures:
going back to a chip or a scenario redraws none of it. While the window is idle, the frames of
the chips the GPU menu offers are drawn ahead (``warm_frame``, ui/chip/warm.py), and then their
words in the present scenario (``warm_words``): kept as the pieces where they differ from the
frame (ui/chip/patches.py), at most PATCH_BYTES_KEPT of them, so a GPU not shown before pastes
its words over its frame instead of drawing them.
"""
from __future__ import annotations

from PySide6.QtGui import QPainter, QPixmap

from ui.chip.paint.cluster import paint_cluster, paint_cluster_frame
from ui.chip.paint.header import paint_header
from ui.chip.paint.ladder import paint_ladder, paint_ladder_frame
from ui.chip.paint.legend import paint_legend, paint_legend_frame
from ui.chip.paint.package import paint_package, paint_package_frame
from ui.chip.patches import paste, patch_bytes, word_patches

FRAMES_KEPT = 24         # layouts and frames kept, of the canvas' size: the catalogue's chips, about 20 shapes a scenario (51 parts)
FRAME_BYTES_KEPT = 72 * 2 ** 20     # at most this much of frames (fewer of them on a big screen)
STATICS_KEPT = 6         # static pictures kept (a frame with one scenario's words)
PATCH_BYTES_KEPT = 40 * 2 ** 20     # words drawn ahead, as pieces (~0.5 MB a GPU at 1600×900: 51 GPUs in ~26 MB)


def remember(kept: dict, key, value, room: int = FRAMES_KEPT):
    """``value`` kept under ``key`` as the newest of ``kept``, the oldest beyond ``room`` let go."""
    kept.pop(key, None)
    while kept and len(kept) >= room:
        kept.pop(next(iter(kept)))
    kept[key] = value
    return value


class ChipPictures:
    """Needs: self.lay, self.scene, self.canvas, self._pal, self._geom_key, self._frame, self._frames,
    self._frames_wanted, self._statics, self._ahead, self._layout_and_routes, self._scene_of."""

    def _frame_picture(self, w: int, h: int, dpr: float, fresh: bool = False) -> QPixmap:
        """The shapes that depend only on the layout and the colours, drawn once per layout."""
        key = (self._geom_key[0], self._pal.name, w, h, dpr)     # what the layout is made from, not the GPU
        if not fresh and key in self._frames:   # this layout, or one drawn before (an earlier GPU, phase)
            self._frame = (key, self._frames[key])
            return self._frame[1]
        pm = self._draw_frame(self.lay, w, h, dpr)
        self._frame = (key, pm)
        if not fresh:
            self._keep_frame(key, pm)
        return pm

    def _draw_frame(self, lay, w: int, h: int, dpr: float) -> QPixmap:
        pm = QPixmap(int(w * dpr), int(h * dpr))
        pm.setDevicePixelRatio(dpr)
        pm.fill(self._pal.bg)
        p = QPainter(pm)
        p.setRenderHint(QPainter.Antialiasing, True)
        p.setRenderHint(QPainter.TextAntialiasing, True)
        try:
            for paint in (paint_ladder_frame, paint_package_frame, paint_legend_frame, paint_cluster_frame):
                paint(p, lay, self._pal)
        finally:
            p.end()
        return pm

    def _keep_frame(self, key: tuple, pm: QPixmap) -> None:
        for k in [k for k in self._frames if k[2:] != key[2:]]:     # another size: never drawn again as is
            del self._frames[k]
        remember(self._frames, key, pm, self.frames_room(pm.width() * pm.height() * 4))

    @staticmethod
    def frames_room(frame_bytes: int) -> int:
        """How many frames of ``frame_bytes`` are kept: FRAMES_KEPT, fewer where they would pass
        FRAME_BYTES_KEPT (two at least: the present chip's and the one before)."""
        return max(2, min(FRAMES_KEPT, FRAME_BYTES_KEPT // max(1, frame_bytes)))

    def warm_frame(self, shown_as: tuple, pass_no: int) -> bool | None:
        """Draw, ahead of its change, the frame of a chip that would show as ``shown_as`` ((layout
        key, w, h, shape) from the view's ``_shape``) at the present size and colours: True when
        it drew one, False when one is kept already, None when no room is left beside the present
        chip's frame and those this pass (``pass_no``) drew or found."""
        key0, w, h, shape = shown_as
        dpr = self.canvas.devicePixelRatioF()
        key = (key0, self._pal.name, w, h, dpr)
        self._frames_wanted = {k: n for k, n in self._frames_wanted.items() if k in self._frames}
        if key in self._frames:
            self._frames_wanted[key] = pass_no
            return False
        room = self.frames_room(int(w * dpr) * int(h * dpr) * 4)
        while len(self._frames) >= room - 1:      # (one more than this pass's stays free: a change's own)
            present = self._frame[0] if self._frame is not None else None
            spare = next((k for k in self._frames if k != present and self._frames_wanted.get(k) != pass_no), None)
            if spare is None:
                return None
            del self._frames[spare]
        lay, _routes = self._layout_and_routes(key0, w, h, shape)
        self._frames = {key: self._draw_frame(lay, w, h, dpr), **self._frames}   # the oldest: a change's own is newer
        self._frames_wanted[key] = pass_no
        return True

    def warm_words(self, shown_as: tuple, est, f, hw, pass_no: int):
        """Draw, ahead of its change, the words ``est`` (its flow ``f`` on ``hw``) would show over
        its frame (which ``warm_frame`` drew or found), and keep them as the pieces where they
        differ from it. A generator: it yields once between drawing and cutting (two turns of
        the event loop), and returns True when it drew them, False when they are kept already (or
        the frame is not), None when no room is left beside the words this pass (``pass_no``) drew."""
        key0, w, h, shape = shown_as
        dpr = self.canvas.devicePixelRatioF()
        frame = self._frames.get((key0, self._pal.name, w, h, dpr))
        if frame is None:
            return False
        scene = self._scene_of(self._layout_and_routes(key0, w, h, shape)[0], est, f, hw)
        key = (w, h, dpr, self._pal.name, est.scenario)
        kept = self._ahead.pop(key, None)
        if kept is not None and kept[0] == scene:
            self._ahead[key] = (*kept[:3], pass_no)        # the newest: this pass's own
            return False
        static = self._words_over(frame, scene)
        yield
        patches = word_patches(static, frame)
        size = patch_bytes(patches)
        for k in [k for k in self._ahead if k[:3] != key[:3]]:     # another size: never pasted again
            del self._ahead[k]
        while self._ahead and sum(v[2] for v in self._ahead.values()) + size > PATCH_BYTES_KEPT:
            oldest = next(iter(self._ahead))
            if self._ahead[oldest][3] == pass_no:
                return None
            del self._ahead[oldest]
        self._ahead[key] = (scene, patches, size, pass_no)
        return True

    def _pasted(self, w: int, h: int, dpr: float) -> QPixmap | None:
        """The static picture from the words drawn ahead for this scene, if they were."""
        kept = self._ahead.get((w, h, dpr, self._pal.name, self.scene.est.scenario))
        if kept is None or kept[0] != self.scene:
            return None
        return paste(self._frame_picture(w, h, dpr), kept[1])

    def _static_picture(self, w: int, h: int, dpr: float) -> QPixmap:
        """``_render``'s picture, the last STATICS_KEPT kept by all it is drawn from (size, scene):
        going back to a scenario draws none of its words again."""
        key = (w, h, dpr, self.scene)
        kept = next((pm for k, pm in self._statics if k == key), None)
        if kept is None:
            kept = self._pasted(w, h, dpr) or self._render(w, h, dpr)
            same_size = [(k, pm) for k, pm in self._statics if k[:3] == key[:3]]      # of this size only
            self._statics = [(key, kept), *same_size[:STATICS_KEPT - 1]]
        return kept

    def _render(self, w: int, h: int, dpr: float, fresh: bool = False) -> QPixmap:
        """The frame with this scenario's words and numbers over it."""
        return self._words_over(self._frame_picture(w, h, dpr, fresh), self.scene)

    @staticmethod
    def _words_over(frame: QPixmap, scene) -> QPixmap:
        """A copy of ``frame`` with ``scene``'s words and numbers over it."""
        pm = QPixmap(frame)
        p = QPainter(pm)
        p.setRenderHint(QPainter.Antialiasing, True)
        p.setRenderHint(QPainter.TextAntialiasing, True)
        try:
            for paint in (paint_header, paint_ladder, paint_package, paint_legend, paint_cluster):
                paint(p, scene)
        finally:
            p.end()
        return pm
