"""A page that works out its content only while it is shown, once per turn of the event loop.

The Serve and Plan pages simulate or sweep on a snapshot: a change while they are hidden costs
nothing, and several changes in one turn cost one run (``flush``, each page's own).
"""
from __future__ import annotations

from PySide6.QtCore import QTimer


class LazyPage:
    """Mixed into a QWidget page that defines ``flush()`` (run now if what it shows changed)."""

    _snap = None
    _queued = False
    computations = 0                 # runs so far (tests count them)

    def show_snapshot(self, snap) -> None:
        self._snap = snap
        self._schedule()

    def _schedule(self) -> None:
        if self.isVisible() and not self._queued:
            self._queued = True
            QTimer.singleShot(0, self, self.flush)

    def showEvent(self, ev) -> None:  # noqa: N802 (Qt name)
        super().showEvent(ev)
        self._schedule()
