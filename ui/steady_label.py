"""A word-wrapped label that keeps room for a fixed number of lines.

A footer sentence that grows from one line to two, or a warning that appears under the
gauges, would otherwise resize its panel, and with it every plot beside it: the whole
window re-lays out and jumps while the user drags a slider. A SteadyLabel asks for the
height of ``lines`` lines of its font even when its text needs fewer (it still grows when
the text needs more), so changing its text moves nothing else.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QLabel, QSizePolicy


class SteadyLabel(QLabel):
    def __init__(self, lines: int = 1, parent=None):
        super().__init__("", parent)
        self._lines = max(1, int(lines))
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self._heights: dict[tuple[int, str], int] = {}     # (width, text) → height, for this font

    def changeEvent(self, ev) -> None:
        if ev.type() in (QEvent.FontChange, QEvent.StyleChange, QEvent.ContentsRectChange):
            self._heights.clear()
        super().changeEvent(ev)

    def reserved_height(self) -> int:
        """The height of ``lines`` lines of the current font, with the label's margins."""
        m = self.contentsMargins()
        line = self.fontMetrics().lineSpacing() + 1          # text layout rounds each line up
        return line * self._lines + m.top() + m.bottom() + 2 * self.margin()

    def heightForWidth(self, width: int) -> int:
        """Layouts ask this many times per change; the answer is remembered per width and text."""
        key = (width, self.text())
        h = self._heights.get(key)
        if h is None:
            if len(self._heights) > 64:
                self._heights.clear()
            h = self._heights[key] = max(super().heightForWidth(width), self.reserved_height())
        return h

    def sizeHint(self) -> QSize:
        s = super().sizeHint()
        return QSize(s.width(), max(s.height(), self.heightForWidth(max(1, self.width()))))

    def minimumSizeHint(self) -> QSize:
        s = super().minimumSizeHint()
        return QSize(s.width(), max(s.height(), self.reserved_height()))
