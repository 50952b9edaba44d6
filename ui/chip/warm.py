"""While the window is idle, draw the frames of the chips the GPU menu offers (ui/chip/view.py).

A chip whose shape has not been drawn at this size costs the change that shows it its layout
(0.2–0.5 ms) and its frame picture (~1.3 ms to draw; its first render ~0.5 ms more): about 2 ms
of the 16.7 ms a frame has at 60 Hz. So WARM_AFTER_MS after the last change, with
the chip on screen, the view works out one GPU per turn of the event loop: the flow the present
scenario would have on it (model.readouts.flow.flows_on), the shape the chip would show, and the
frame of that shape if none is kept, the GPUs next to the present one in the menu first, for as
many frames as the view keeps (ui/chip/pictures.py). A change or a resize starts it over, for
the new scenario (another model may not fit on some parts: another shape) or size.
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
        self._todo = None

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
        self._turn.start()

    def _one(self) -> None:
        """One GPU: its flow, its shape, its frame if not kept (stops when none is left or no room)."""
        v = self._view
        try:
            item = next(self._todo, None) if self._todo is not None and v.isVisible() else None
            done = item is None or v.warm_frame(v._shape(item[1], item[2])) is None
        except Exception:             # work ahead is optional: choosing that GPU says in one line what failed
            done = True
        if done:
            self.stop()
