"""Panels of a page the user cannot see take no estimate until they show again.

The Explore page's roofline and gauges stay subscribed while the Lessons page is shown (the
chip does the same in its own way: ui/chip/view.set_estimate). Redrawing them there cost
~3 ms of every frame of a presenter glide for nothing on screen. A panel keeps only the
newest estimate and draws it in its showEvent, before its first paint. A window that is not
on screen (tests, offscreen renders) draws every estimate as before.
"""
from __future__ import annotations


class CatchUpWhenShown:
    """Mixed into a QWidget panel with a ``show_estimate(e)``; call ``on_hidden_page(e)`` first."""

    _missed = None

    def on_hidden_page(self, e) -> bool:
        """True (and ``e`` kept for later) when the window is on screen but this panel is not."""
        if self.isVisible() or not self.window().isVisible():
            self._missed = None
            return False
        self._missed = e
        return True

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        super().showEvent(event)
        if self._missed is not None:
            e, self._missed = self._missed, None
            self.show_estimate(e)
