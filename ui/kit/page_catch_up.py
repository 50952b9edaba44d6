"""Panels of a page the user cannot see take no snapshot until they show again.

The Explore page's roofline and gauges are handed every snapshot while the Lessons page is shown
(the chip does the same in its own way: ui/chip/view.set_estimate). Redrawing them there cost
~3 ms of every frame of a presenter glide for nothing on screen. A panel keeps only the
newest snapshot and draws it in its showEvent, before its first paint. A window that is not
on screen (tests, offscreen renders) draws every snapshot as it comes.
"""
from __future__ import annotations


class CatchUpWhenShown:
    """Mixed into a QWidget panel with a ``show_snapshot(snap)`` that keeps what it drew as
    ``_snap``; call ``on_hidden_page(snap)`` first. A panel that draws again what it has (a new
    theme, a larger type) draws ``newest()``: the snapshot it missed, if any, never the older one
    it drew (that put the previous scenario back on screen for one change, right after leaving
    the chip's focus view in presenter mode)."""

    _missed = None
    _snap = None

    def on_hidden_page(self, snap) -> bool:
        """True (and ``snap`` kept for later) when the window is on screen but this panel is not."""
        if self.isVisible() or not self.window().isVisible():
            self._missed = None
            return False
        if self._missed is None or getattr(snap, "serial", 0) >= getattr(self._missed, "serial", 0):
            self._missed = snap              # (an older one, drawn again, never replaces a newer one)
        return True

    def newest(self):
        """The newest snapshot this panel has seen: the one it missed while hidden, else the one it drew."""
        return self._missed if self._missed is not None else self._snap

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        super().showEvent(event)
        if self._missed is not None:
            snap, self._missed = self._missed, None
            self.show_snapshot(snap)
