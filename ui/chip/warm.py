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

from model.readouts.flow import flows_on
from ui.kit.idle_work import IDLE_AFTER_MS, IdleWork, nearest_first

WARM_AFTER_MS = IDLE_AFTER_MS       # idle this long after a change before the first frame is drawn ahead


class FrameWarmer(IdleWork):
    """Draws the view's frames and words ahead, a step per turn of the event loop, once it is idle."""

    def __init__(self, view) -> None:
        super().__init__(view, WARM_AFTER_MS)
        self._view = view
        self._todo = None                    # the pass's steps (a generator), or None

    def forget(self) -> None:
        self._todo = None

    def begin(self) -> bool:
        v = self._view
        snap = v.menu_snapshot
        if snap is None or not v.isVisible():
            return False
        ids = nearest_first([g.id for g in snap.catalog.gpus], snap.estimate.resolved.hw.id)
        self._todo = self._steps(flows_on(snap.estimate.scenario, ids, snap.catalog))
        return True

    def step(self) -> bool:
        """One step of the pass: True when it is done."""
        return self._todo is None or not self._view.isVisible() or next(self._todo, True) is True

    def _steps(self, flows):
        """Per GPU: its flow and shape, and its frame if not kept (a turn); its words if not kept
        (drawn in a turn, cut in the next). A chip whose frame finds no room is passed over; the
        pass ends when none is left or the words find no room."""
        v = self._view
        for _gpu, est, f, hw in flows:
            shown_as = v._shape(f, hw)
            drew = v.warm_frame(shown_as, self.pass_no)
            if drew is None:
                yield None
                continue
            if drew:
                yield None
            if (yield from v.warm_words(shown_as, est, f, hw, self.pass_no)) is None:
                return
            yield None
