"""The chapter strip by keyboard: one focusable key per chapter, laid over the painted strip.

Each ChapterKey is a transparent button over its chapter's segment (the strip still paints
the segments and takes the mouse): Tab reaches the current chapter's key, Left/Right (and
Home/End) move the focus to the neighbouring chapter, Enter, Return or Space opens the
focused chapter. Each key has an accessible name ("Chapter 3 of 8: Memory hierarchy") and
draws only its focus ring, from the style sheet (``key_style``). In presenter mode the
arrows stay the presenter's (ui.present.presenter steps the states); a key only keeps them outside
it (``keeps_arrows``).
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QAbstractButton, QStyle, QStyleOption

from ui.kit import theme as th

MOVE_KEYS = {Qt.Key_Left: -1, Qt.Key_Up: -1, Qt.Key_Right: +1, Qt.Key_Down: +1}
PICK_KEYS = (Qt.Key_Return, Qt.Key_Enter, Qt.Key_Space)


class ChapterKey(QAbstractButton):
    """One chapter's keyboard stop; ``move`` asks the strip to focus a neighbour."""

    move = Signal(int)              # -1, +1, or ±99 (first / last)
    keeps_arrows = True             # ui.present.presenter leaves the arrows to a focused key outside presenter mode

    def __init__(self, number: int, count: int, title: str, parent=None):
        super().__init__(parent)
        self.number = number
        self.setObjectName("chapterKey")
        self.setAttribute(Qt.WA_TransparentForMouseEvents, True)
        self.setAccessibleName(f"Chapter {number} of {count}: {title}")
        self.setFocusPolicy(Qt.NoFocus)

    def keyPressEvent(self, ev) -> None:          # noqa: N802 (Qt name)
        key = ev.key()
        if key in MOVE_KEYS:
            self.move.emit(MOVE_KEYS[key])
        elif key in (Qt.Key_Home, Qt.Key_End):
            self.move.emit(-99 if key == Qt.Key_Home else 99)
        elif key in PICK_KEYS and not ev.isAutoRepeat():
            self.click()
        else:
            super().keyPressEvent(ev)

    def keyReleaseEvent(self, ev) -> None:        # noqa: N802 (Qt name): Space clicked on press already
        ev.accept()

    def paintEvent(self, _ev) -> None:            # noqa: N802 (Qt name): the style sheet's ring, nothing else
        opt = QStyleOption()
        opt.initFrom(self)
        p = QPainter(self)
        self.style().drawPrimitive(QStyle.PE_Widget, opt, p, self)
        p.end()


def key_style(t: th.Theme) -> str:
    """The focus ring of a chapter key (the same colour as every other control's)."""
    return (f"QAbstractButton#chapterKey {{ border: 2px solid transparent; border-radius: 5px; background: transparent; }}"
            f"QAbstractButton#chapterKey:focus {{ border: 3px solid {t.op_point}; }}")


def make_keys(strip, chapters, titles: dict) -> list[ChapterKey]:
    """A key per chapter on ``strip`` (which emits picked(number, 0) when one is clicked)."""
    keys = []
    for ch in chapters:
        k = ChapterKey(ch.number, len(chapters), titles.get(ch.number, ch.title), strip)
        k.clicked.connect(lambda _=False, n=ch.number: strip.picked.emit(n, 0))
        k.move.connect(lambda d, n=ch.number: focus_key(keys, n + d))
        keys.append(k)
    return keys


def focus_key(keys: list[ChapterKey], number: int) -> None:
    keys[max(1, min(len(keys), number)) - 1].setFocus(Qt.TabFocusReason)


def set_current_key(keys: list[ChapterKey], number: int, index: int, states: int) -> None:
    """Tab reaches the current chapter's key; a focused key follows the current chapter."""
    had_focus = any(k.hasFocus() for k in keys)
    for k in keys:
        here = k.number == number
        k.setFocusPolicy(Qt.StrongFocus if here else Qt.NoFocus)
        k.setAccessibleDescription(f"current chapter, step {index + 1} of {states}" if here else "")
    if had_focus:
        focus_key(keys, number)
