"""Work a view does ahead while the window is idle, one short step per turn of the event loop.

A change or a resize calls ``restart``: whatever was under way stops, and IDLE_AFTER_MS after the
last of them ``begin`` (a subclass's) sets up a pass; then ``step`` runs once per turn of the
event loop until it says it is done. Work ahead is optional: an exception in it ends the pass
quietly (the change that needs what it would have made makes it, and says in one line what failed).
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QObject, QTimer

IDLE_AFTER_MS = 400       # idle this long after a change before the first step


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


class IdleWork(QObject):
    """The timers of work ahead: subclasses give ``begin`` (True: a pass to run) and ``step``
    (True: the pass is done)."""

    def __init__(self, parent: QObject, after_ms: int = IDLE_AFTER_MS) -> None:
        super().__init__(parent)
        self._idle = QTimer(self)
        self._idle.setSingleShot(True)
        self._idle.setInterval(after_ms)
        self._idle.timeout.connect(self._begin)
        self._turn = QTimer(self)
        self._turn.setInterval(0)
        self._turn.timeout.connect(self._one)
        self.pass_no = 0                     # one per pass

    def restart(self) -> None:
        """A change: stop, and begin again once the window has been idle for the wait."""
        self.stop()
        self._idle.start()

    def stop(self) -> None:
        self._idle.stop()
        self._turn.stop()
        self.forget()

    @property
    def busy(self) -> bool:
        """Whether work is still to be done ahead (waiting for idle, or under way)."""
        return self._idle.isActive() or self._turn.isActive()

    def _begin(self) -> None:
        try:
            start = self.begin()
        except Exception:                # (see the module's docstring)
            start = False
        if start:
            self.pass_no += 1
            self._turn.start()

    def _one(self) -> None:
        try:
            done = self.step()
        except Exception:
            done = True
        if done:
            self.stop()

    def begin(self) -> bool:             # pragma: no cover (subclasses')
        raise NotImplementedError

    def step(self) -> bool:              # pragma: no cover (subclasses')
        raise NotImplementedError

    def forget(self) -> None:
        """Drop what a pass under way holds (a subclass's)."""
