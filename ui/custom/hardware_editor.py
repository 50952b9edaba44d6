"""The hardware editor: start from any accelerator, change its numbers, save it as your own.

Every field is a model/files/hardware_edit.py.EditorField: the editor moves text in and out
(``field_text`` / ``set_field_text``), shows the check's reason beside each field as you type
(``field_problems``) and applies "what if" actions (``apply_what_if``); it computes nothing.
Saving writes a hardware file into the user's data folder (ui/custom/store.py).
"""
from __future__ import annotations

import json

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QScrollArea, QVBoxLayout, QWidget)

from model.catalog.active import default_catalog
from model.errors import ModelError
from model.files.hardware_edit import WHAT_IFS, apply_what_if, editor_fields, field_problems, field_text, set_field_text
from model.files.hardware_file import export_document, hardware_from_document
from ui.custom import store as custom_store
from ui.kit.dialog_buttons import action_row, status_line
from ui.kit.theme import BLUISH_GREEN, VERMILLION

ERROR_STYLE = f"color: {VERMILLION}; font-weight: 600;"     # the theme's warning colour, with words
OK_STYLE = f"color: {BLUISH_GREEN};"


class HardwareEditor(QDialog):
    """Edit one hardware document; ``saved(id)`` after it is written and in the catalogue."""

    saved = Signal(str)
    remove_requested = Signal(str)

    def __init__(self, start_id: str | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("hardwareEditor")
        self.setWindowTitle("Your own hardware")
        self.fields = editor_fields()
        self.doc: dict = {}
        self.start_id: str = ""
        self.edits: dict[str, QLineEdit] = {}
        self.reasons: dict[str, QLabel] = {}
        lay = QVBoxLayout(self)

        top = QHBoxLayout()
        top.addWidget(QLabel("Start from"))
        self.start = QComboBox()
        self.start.setObjectName("startFrom")
        self._fill_start()
        top.addWidget(self.start, 1)
        lay.addLayout(top)

        whatifs = QHBoxLayout()
        whatifs.addWidget(QLabel("What if:"))
        self.what_if_buttons: dict[str, QPushButton] = {}
        for w in WHAT_IFS:
            b = QPushButton(w.label)
            b.setToolTip(w.tip)
            b.clicked.connect(lambda _=False, k=w.key: self.apply(k))
            self.what_if_buttons[w.key] = b
            whatifs.addWidget(b)
        whatifs.addStretch(1)
        lay.addLayout(whatifs)

        lay.addWidget(self._field_grid(), 1)

        self.status = status_line("editorStatus")
        lay.addWidget(self.status)
        self.delete_button = QPushButton("Remove this custom hardware")
        self.delete_button.clicked.connect(self.remove_current)
        buttons, self.save_button = action_row(self, "Save", self.save, left=self.delete_button)
        lay.addLayout(buttons)

        self.start.currentIndexChanged.connect(lambda _i: self.start_from(self.start.currentData()))
        index = self.start.findData(start_id) if start_id else -1
        self.start.setCurrentIndex(max(index, 0))
        self.start_from(self.start.currentData())
        self.resize(980, 860)

    def _field_grid(self) -> QScrollArea:
        body = QWidget()
        grid = QGridLayout(body)
        grid.setColumnStretch(3, 1)
        row, group = 0, None
        for f in self.fields:
            if f.group != group:
                group = f.group
                head = QLabel(group.upper())
                head.setObjectName("sectionTitle")
                grid.addWidget(head, row, 0, 1, 4)
                row += 1
            grid.addWidget(QLabel(f.label + ("" if f.optional else " *")), row, 0)
            edit = QLineEdit()
            edit.setObjectName(f"field:{f.key}")
            edit.setMinimumWidth(130 if f.scale else 280)
            edit.setAlignment(Qt.AlignRight if f.scale else Qt.AlignLeft)
            edit.textEdited.connect(lambda text, f=f: self.edit(f, text))
            grid.addWidget(edit, row, 1)
            grid.addWidget(QLabel(f.unit), row, 2)
            reason = QLabel("")
            reason.setStyleSheet(ERROR_STYLE)
            reason.setTextFormat(Qt.PlainText)
            reason.setWordWrap(True)
            reason.setMinimumWidth(240)
            grid.addWidget(reason, row, 3)
            self.edits[f.key], self.reasons[f.key] = edit, reason
            row += 1
        scroll = QScrollArea()
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        return scroll

    def _fill_start(self) -> None:
        """The accelerators to start from, as the catalogue has them now (no signal emitted)."""
        cat = default_catalog()
        with QSignalBlocker(self.start):
            self.start.clear()
            for g in cat.gpus:
                self.start.addItem(f"{g.name}{'  (yours)' if cat.is_custom(g.id, 'hardware') else ''}", g.id)

    def catalogue_changed(self) -> None:
        """Your entries changed while this is open (the Remove menu): the list is made again; the
        entry being edited, if it is gone, gives way to the first one, with one line saying so.
        Called from outside the list's own signal, never from within it."""
        ident = self.start_id
        self._fill_start()
        index = self.start.findData(ident)
        with QSignalBlocker(self.start):
            self.start.setCurrentIndex(max(index, 0))
        if index < 0:
            self.start_from(self.start.currentData())
            self.status.setStyleSheet(ERROR_STYLE)
            self.status.setText(f"'{ident}' was removed: starting from {self.start.currentText()}")

    # ---------------------------------------------------------------- state
    def start_from(self, ident: str) -> None:
        """Load an accelerator: a shipped one as a copy to rename, your own one to edit in place."""
        cat = default_catalog()
        self.start_id = ident
        text = cat.custom_document(ident, "hardware") if cat.is_custom(ident, "hardware") else ""
        self.doc = json.loads(text) if text else export_document(cat.gpu(ident))
        self.delete_button.setVisible(cat.is_custom(ident, "hardware"))
        self.refresh_fields()

    def edit(self, f, text: str) -> None:
        self.doc = set_field_text(self.doc, f, text)
        self.validate()

    def apply(self, key: str) -> None:
        self.doc = apply_what_if(self.doc, key)
        self.refresh_fields()

    def refresh_fields(self) -> None:
        for f in self.fields:
            self.edits[f.key].setText(field_text(self.doc, f))
            self.edits[f.key].setCursorPosition(0)
        self.validate()

    def validate(self) -> bool:
        """Show each field's reason beside it; Save only when there is none."""
        cat = default_catalog()
        taken = [i for kind, i, _ in cat.custom_documents if kind == "hardware" and i != self.start_id]
        problems = field_problems(self.doc, taken)
        for key, label in self.reasons.items():
            label.setText(problems.get(key, ""))
        other = problems.get("")
        if problems:
            self.status.setStyleSheet(ERROR_STYLE)
            self.status.setText(other or f"{len(problems)} field(s) to fix before saving")
        else:
            self.status.setStyleSheet(OK_STYLE)
            self.status.setText(f"Ready to save as '{self.doc.get('id')}' in {custom_store.data_dir_text()}")
        self.save_button.setEnabled(not problems)
        return not problems

    def save(self) -> bool:
        try:
            hw = hardware_from_document(self.doc, "this hardware")
            custom_store.save_hardware(self.doc, hw)
        except (ModelError, OSError) as exc:
            self.status.setStyleSheet(ERROR_STYLE)
            self.status.setText(f"Not saved: {exc}")
            return False
        self.saved.emit(hw.id)
        self.accept()
        return True

    def remove_current(self) -> None:
        """Remove: the window removes it (ui/custom/menu.CustomActions.remove: its file, then the
        scenario off it, then the catalogue) and closes this when it went."""
        ident = self.start_id
        if default_catalog().is_custom(ident, "hardware"):
            self.remove_requested.emit(ident)
