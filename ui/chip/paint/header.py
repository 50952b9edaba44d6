"""The header: the scenario in one line, the caption (what the tensor cores wait on), the fit note.
The words are the scene's (model.readouts.chip_words); this places them."""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter

from ui.chip.paint.common import Scene, advance, fit, font, qr, text
from ui.chip.paint.common import note as record


def caption_lines(caption: str, width: float, fs: int) -> int:
    """1 when the caption fits one line of the view at its size, else 2."""
    return 1 if advance(font(int(fs * 1.45), True), caption) <= width - 24 else 2


def paint_header(p: QPainter, sc: Scene) -> None:
    P, f, lay, words = sc.pal, sc.flow, sc.lay, sc.words
    fs = lay.fs
    r = qr(lay.header)
    line1 = QRectF(r.left(), r.top(), r.width(), fs * 1.5)
    fit(p, line1, list(words.header), font(fs), P.secondary)
    head, tail = words.caption_head, words.caption_tail
    colour = P.tc_text if f.bottleneck == "compute" else P.warning_text
    if lay.caption_lines == 2:
        # narrow: the caption wraps over two lines, word by word, the tail in its colour
        line2 = QRectF(r.left(), line1.bottom() + 2, r.width(),
                       r.bottom() - line1.bottom() - 2 - (fs * 1.3 if not f.fits else 0))
        size = int(fs * 1.45)
        while True:
            big = font(size, bold=True)
            if _caption_words(p, sc, line2, head, tail, big, colour, draw=False) or size <= fs:
                break
            size -= 1
        _caption_words(p, sc, line2, head, tail, big, colour, draw=True)
        record(words.caption)
    else:
        line2 = QRectF(r.left(), line1.bottom() + 2, r.width(), fs * 2.0)
        big = font(int(fs * 1.45), bold=True)
        used = text(p, line2, head, big, P.text)
        if tail:
            text(p, QRectF(line2.left() + used, line2.top(), line2.width() - used, line2.height()), tail, big, colour)
    if words.unfit:
        warn = QRectF(r.left(), line2.bottom(), r.width(), fs * 1.3)
        fit(p, warn, list(words.unfit), font(fs - 1), P.warning_text)


def _caption_words(p: QPainter, sc: Scene, rect: QRectF, head: str, tail: str, f: QFont, colour: QColor,
                   draw: bool) -> bool:
    """Lay the caption's words into the lines ``rect`` holds; True when every word fits."""
    fm = QFontMetrics(f)
    words = [(w, sc.pal.text) for w in head.split()] + [(w, colour) for w in tail.split()]
    lh = fm.height() * 1.05
    n_lines = max(1, int(rect.height() // lh))
    space = advance(f, " ")
    x, line = 0.0, 0
    if draw:
        p.setFont(f)
    for word, c in words:
        adv = advance(f, word)
        if x > 0 and x + adv > rect.width():
            line, x = line + 1, 0.0
        if line >= n_lines:
            return False
        if draw:
            room = rect.width() - x
            last_line = line == n_lines - 1
            shown = word if adv <= room else fm.elidedText(word, Qt.ElideRight, int(room))
            p.setPen(c)
            p.drawText(QRectF(rect.left() + x, rect.top() + line * lh, room if last_line else adv + 1, lh),
                       int(Qt.AlignLeft | Qt.AlignVCenter), shown)
        x += adv + space
    return True
