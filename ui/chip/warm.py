"""While the window is idle, draw the chips the GPU menu offers (ui/chip/view.py).

A chip whose shape has not been drawn at this size costs the change that shows it its layout
(0.2–0.5 ms) and its frame picture (~1.3 ms to draw; its first render ~0.5 ms more), and any
GPU not shown before costs drawing its words and numbers (~1.7 ms): about 3.5 ms of the 16.7 ms
a frame has at 60 Hz. So WARM_AFTER_MS after the last change, with the chip on screen, the view
works out one GPU per turn of the event loop: the estimate and flow the present scenario would
have on it (model.readouts.flow.flows_on), the shape the chip would show, and the frame of that
shape if none is kept; then, in the next turn where it drew a frame, the words of that chip in
that scenario, kept as pieces (``warm_words``). The GPUs next to the present one in the menu go
first, for as many frames and words as the view keeps (ui/chip/pictures.py). A change or a
resize starts it over, for the new scenario (another model may not fit on some parts: another
shape) or size; the words kept of other GPUs stay good across a change of GPU alone.
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QObject, QTimer

from model.readouts.flow import flows_on

WARM_AFTER_MS = 400       # idle this long after a change before the first frame is drawn ahead


def nearest_first(ids: Sequence[str], present: str) -> list[str]:
    """``ids`` but ``present``, those next to it first: the one after it, the one before, two after …"""
    if present not in ids:
        return list(ids)
    i = list(ids).index(present)
    after, before = list(ids[i + 1:]), list(reversed(ids[:i]))
    out = []
    for k in range(max(len(after), len(before))):
        out += after[k:k + 1] + before[k:k + 1]
    return out


class FrameWarmer(QObject):
    """Draws the view's frames ahead, one GPU per turn of the event loop, once it is idle."""

    def __init__(self, view) -> None:
        super().__init__(view)
        self._view = view
        self._todo = None                    # the flows still to look at (an iterator), or None
        self._words = None                   # a chip whose words are drawn in the next turn
        self.pass_no = 0                     # one per pass over the menu: the words this pass drew stay
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(WARM_AFTER_MS)
        self._idle.timeout.connect(self._begin)
        self._turn = QTimer(self)
        self._turn.setInterval(0)
        self._turn.timeout.connect(self._one)

    def restart(self) -> None:
        """A change: stop, and begin again once the window has been idle for WARM_AFTER_MS."""
        self.stop()
        self._idle.start()

    def stop(self) -> None:
        self._idle.stop()
        self._turn.stop()
        self._todo = self._words = None

    @property
    def busy(self) -> bool:
        """Whether frames are still to be drawn ahead (waiting for idle, or drawing)."""
        return self._idle.isActive() or self._turn.isActive()

    def _begin(self) -> None:
        v = self._view
        snap = v.menu_snapshot
        if snap is None or not v.isVisible():
            return
        ids = nearest_first([g.id for g in snap.catalog.gpus], snap.estimate.resolved.hw.id)
        self._todo = flows_on(snap.estimate.scenario, ids, snap.catalog)
        self.pass_no += 1
        self._turn.start()

    def _one(self) -> None:
        """One GPU: its flow, its shape, its frame if not kept, and its words if not kept (in the
        next turn when it drew the frame); stops when none is left or no room."""
        v = self._view
        try:
            done = not v.isVisible() or self._todo is None
            if not done and self._words is not None:
                words, self._words = self._words, None
                done = v.warm_words(*words, self.pass_no) is None
            elif not done:
                done = self._next_gpu()
        except Exception:             # work ahead is optional: choosing that GPU says in one line what failed
            done = True
        if done:
            self.stop()

    def _next_gpu(self) -> bool:
        """The next GPU's frame (its words next turn), or its words: True when nothing is left to do."""
        v = self._view
        item = next(self._todo, None)
        if item is None:
            return True
        _gpu, est, f, hw = item
        shown_as = v._shape(f, hw)
        drew = v.warm_frame(shown_as)
        if drew is None:
            return True
        if drew:
            self._words = (shown_as, est, f, hw)
            return False
        return v.warm_words(shown_as, est, f, hw, self.pass_no) is None
