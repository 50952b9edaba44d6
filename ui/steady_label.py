"""Word-wrapped labels that keep the window's layout cheap and still.

WrapLabel remembers its height for each width it is asked about (per text and font). Qt's
layouts ask a word-wrapped label for its height-for-width many times per re-layout, and a
stacked page asks every page it holds, shown or not; each answer lays the paragraph out again
(text shaping, the most expensive part of a presenter glide at 1920×1080). The answer only
changes with the text, the width or the font, so it is worked out once.

SteadyLabel also keeps room for a fixed number of lines. A footer sentence that grows from
one line to two, or a warning that appears under the gauges, would otherwise resize its
panel, and with it every plot beside it: the whole window re-lays out and jumps while the
user drags a slider. A SteadyLabel asks for the height of ``lines`` lines of its font even
when its text needs fewer (it still grows when the text needs more), so changing its text
moves nothing else.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QLabel, QSizePolicy


class WrapLabel(QLabel):
    """A word-wrapped QLabel whose height-for-width is remembered per (width, text)."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self._heights: dict[tuple[int, str], int] = {}     # (width, text) → height, for this font

    def changeEvent(self, ev) -> None:
        if ev.type() in (QEvent.FontChange, QEvent.StyleChange, QEvent.ContentsRectChange):
            self._heights.clear()
        super().changeEvent(ev)

    def _height_for(self, width: int) -> int:
        return super().heightForWidth(width)

    def heightForWidth(self, width: int) -> int:
        """Layouts ask this many times per change; the answer is remembered per width and text."""
        key = (width, self.text())
        h = self._heights.get(key)
        if h is None:
            if len(self._heights) > 64:
                self._heights.clear()
            h = self._heights[key] = self._height_for(width)
        return h


class SteadyLabel(WrapLabel):
    def __init__(self, lines: int = 1, parent=None):
        super().__init__("", parent)
        self._lines = max(1, int(lines))

    def reserved_height(self) -> int:
        """The height of ``lines`` lines of the current font, with the label's margins."""
        m = self.contentsMargins()
        line = self.fontMetrics().lineSpacing() + 1          # text layout rounds each line up
        return line * self._lines + m.top() + m.bottom() + 2 * self.margin()

    def _height_for(self, width: int) -> int:
        return max(super()._height_for(width), self.reserved_height())

    def sizeHint(self) -> QSize:
        s = super().sizeHint()
        return QSize(s.width(), max(s.height(), self.heightForWidth(max(1, self.width()))))

    def minimumSizeHint(self) -> QSize:
        s = super().minimumSizeHint()
        return QSize(s.width(), max(s.height(), self.reserved_height()))
