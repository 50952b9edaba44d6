"""The foot of the app's dialogs: a wrapping status line for the one-line reasons, and the
Cancel / default-action button row (Cancel rejects; Enter presses the default action)."""
from __future__ import annotations

from typing import Callable

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QWidget


def plain_tip(text: str) -> str:
    """A tooltip that shows ``text`` as it is (a tooltip that looks like HTML is drawn as HTML)."""
    import html
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>" if text else ""


def tip_text(text: str) -> str:
    """``text`` as a tooltip shows it as it is: unchanged when Qt would draw it as plain text
    (every readout), made plain_tip when it would take it for HTML (a name of your own hardware
    such as "<b>My GPU</b>" inside a sentence)."""
    return plain_tip(text) if text and QtGui.Qt.mightBeRichText(text) else text


def status_line(object_name: str) -> QLabel:
    """An empty word-wrapped label where a dialog says what is wrong (or what it did)."""
    label = QLabel("")
    label.setObjectName(object_name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.PlainText)          # names from files are shown as they are, never as HTML
    return label


def action_row(dialog: QDialog, action_text: str, on_action: Callable[[], object],
               left: QWidget | None = None) -> tuple[QHBoxLayout, QPushButton]:
    """``[left] … Cancel  <action_text>``: the row and its default (action) button."""
    row = QHBoxLayout()
    if left is not None:
        row.addWidget(left)
    row.addStretch(1)
    cancel = QPushButton("Cancel")
    cancel.clicked.connect(dialog.reject)
    action = QPushButton(action_text)
    action.setDefault(True)
    action.clicked.connect(lambda _=False: on_action())
    row.addWidget(cancel)
    row.addWidget(action)
    return row, action
