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

``set_rich_text`` lays a rich-text label's document out when its text is set. A rich-text
QLabel otherwise lays its document out in its next paint, and that layout asks for a paint of
its own: every change repainted the window twice.
"""
from __future__ import annotations

import math

from PySide6 import QtGui
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QTextDocument, QTextOption
from PySide6.QtWidgets import QLabel, QSizePolicy


def set_rich_text(label: QLabel, html: str) -> None:
    """Set ``label``'s rich text (when it changed) and lay its document out now, at the label's
    width, so the window's one repaint draws it as it is. (A WrapLabel's setText does this.)"""
    if label.text() != html:
        label.setText(html)
        if not isinstance(label, WrapLabel):
            _lay_out_now(label)


def _lay_out_now(label: QLabel) -> None:
    """Its size hint lays a rich-text label's document out; a word-wrapped one at the width it
    has (QLabel measures other widths by laying out at them and back)."""
    label.sizeHint()
    if label.wordWrap():
        QLabel.heightForWidth(label, label.width())


class RichLine(QLabel):
    """A rich-text QLabel on one line whose document is laid out at a new width when it gets it
    (in the layout pass, ahead of the window's repaint), not in its paint: a new text beside it
    that changes its width (the HBM line beside its title, HBM → GDDR6 per GPU) made the paint
    lay the document out again, and that layout asked for a second repaint of the window.
    (QLabel's height-for-width lays out a dirty document first, at the label's width.)"""

    def resizeEvent(self, ev) -> None:           # noqa: N802 (Qt name)
        super().resizeEvent(ev)
        QLabel.heightForWidth(self, self.width())


_SCRATCH: list[QTextDocument] = []


def _scratch_document() -> QTextDocument:
    """One document, kept, for measuring rich text as a word-wrapped QLabel lays it out."""
    if not _SCRATCH:
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        opt = doc.defaultTextOption()
        opt.setWrapMode(QTextOption.WordWrap)
        doc.setDefaultTextOption(opt)
        _SCRATCH.append(doc)
    return _SCRATCH[0]


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

    def setText(self, text: str) -> None:                # noqa: N802 (Qt name)
        """As QLabel's; rich text is laid out now, at the label's width (``set_rich_text``)."""
        if text != self.text():
            super().setText(text)
            if self._rich():
                _lay_out_now(self)

    def _height_for(self, width: int) -> int:
        if width == self.width() or not self._rich():
            return super().heightForWidth(width)
        return self._scratch_height(width)

    def _rich(self) -> bool:
        fmt = self.textFormat()
        return fmt == Qt.RichText or fmt == Qt.AutoText and QtGui.Qt.mightBeRichText(self.text())

    def _scratch_height(self, width: int) -> int:
        """A rich-text label's height at a width it does not have, laid out in a document of its
        own as QLabel lays its text out (no root-frame margin, word wrap): QLabel would lay its
        own document out at that width and back, and ask for a paint (a layout asks about
        several widths; each answer was a second repaint of the window)."""
        cr = self.contentsRect()              # inside margins, frame, a style sheet's border and padding
        hx = vx = 2 * self.margin()
        indent = self.indent()                # QLabel indents a framed label's text by an "x"
        if indent < 0 and self.frameWidth():
            indent = self.fontMetrics().horizontalAdvance("x") - 2 * self.margin()
        if indent > 0:
            align = self.alignment()
            hx += indent if align & (Qt.AlignLeft | Qt.AlignRight) else 0
            vx += indent if align & (Qt.AlignTop | Qt.AlignBottom) else 0
        doc = _scratch_document()
        doc.setDefaultFont(self.font())
        doc.setHtml(self.text())
        doc.setTextWidth(max(1, width - (self.width() - cr.width()) - hx))
        h = math.ceil(doc.size().height()) + (self.height() - cr.height()) + vx
        return max(h, self.minimumHeight())

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
