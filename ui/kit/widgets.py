"""Small widgets that more than one page uses (the Explore control panel, the lessons' side panels).

    Segmented(values, labels=None, tips=None)   a row of checkable buttons, one checked;
                                                ``chosen`` emits the value of the one clicked
    wrapped_label(name, fmt, page_wide)        a word-wrapped label named for the style sheet
    problem_line()                              the hidden line a page shows what it cannot take in
"""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget


def wrapped_label(name: str, fmt=Qt.PlainText, page_wide: bool = True) -> QLabel:
    """An empty word-wrapped label the theme styles by its name; plain text unless told (names of your own
    hardware are shown as they are). page_wide: it takes the width its layout gives, whatever its text."""
    label = QLabel("")
    label.setObjectName(name)
    label.setTextFormat(fmt)
    label.setWordWrap(True)
    if page_wide:
        label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
    return label


def problem_line() -> QLabel:
    """The line a page or the footer shows a problem in: plain text, wrapped, hidden until there is one
    (the theme styles it by its name, "problem")."""
    label = wrapped_label("problem", page_wide=False)
    label.setVisible(False)
    return label


class Segmented(QWidget):
    """A row of checkable buttons, one checked (GPU count, interconnect, phase)."""

    chosen = Signal(object)

    def __init__(self, values, labels=None, tips=None, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.buttons = {}
        for i, v in enumerate(values):
            b = QPushButton(str(labels[i] if labels else v))
            b.setCheckable(True)
            b.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
            b.setMinimumWidth(10)
            if tips:
                b.setToolTip(tips[i])
            self.group.addButton(b)
            self.buttons[v] = b
            lay.addWidget(b)
            b.clicked.connect(lambda _=False, v=v: self.chosen.emit(v))

    def set_value(self, v) -> None:
        b = self.buttons.get(v)
        if b is not None:
            with QSignalBlocker(self.group):
                b.setChecked(True)
        else:
            with QSignalBlocker(self.group):
                self.group.setExclusive(False)
                for x in self.buttons.values():
                    x.setChecked(False)
                self.group.setExclusive(True)

    def value(self):
        for v, b in self.buttons.items():
            if b.isChecked():
                return v
        return None
