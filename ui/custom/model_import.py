"""Add a model from a Hugging Face config.json: what was read, the derived parameter count
(to check against the model card), a name, and Add. All numbers come from model/readouts/catalog_text.model_import_rows.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from model.errors import ModelError
from model.files.hf_config import default_name, llm_from_config, read_model_config
from model.files.limits import MAX_NAME_CHARS
from model.readouts.catalog_text import model_import_rows
from ui.custom import store as custom_store
from ui.kit.dialog_buttons import action_row, status_line
from ui.custom.hardware_editor import ERROR_STYLE


class ModelImportDialog(QDialog):
    """Shows a config.json as a model; ``added(id)`` once it is saved and in the catalogue."""

    added = Signal(str)

    def __init__(self, path: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("modelImport")
        self.setWindowTitle("Add model from config.json")
        self.path = Path(path)
        self.cfg = None
        self.llm = None
        lay = QVBoxLayout(self)
        title = QLabel(f"From {self.path.name}" + (f" in {self.path.parent.name}/" if self.path.parent.name else ""))
        title.setObjectName("sectionTitle")
        title.setTextFormat(Qt.PlainText)
        lay.addWidget(title)
        form = QFormLayout()
        self.name = QLineEdit()
        self.name.setObjectName("modelName")
        self.name.setMaxLength(MAX_NAME_CHARS)
        self.name.textEdited.connect(lambda _t: self.read())
        form.addRow("Name", self.name)
        lay.addLayout(form)
        self.rows = QFormLayout()
        lay.addLayout(self.rows)
        hint = QLabel("Check the parameter count against the model card before you trust the estimates.")
        hint.setWordWrap(True)
        lay.addWidget(hint)
        self.status = status_line("importStatus")
        self.status.setStyleSheet(ERROR_STYLE)
        lay.addWidget(self.status)
        buttons, self.add_button = action_row(self, "Add model", self.add)
        lay.addLayout(buttons)
        self.unreadable = False
        try:
            self.cfg = read_model_config(self.path)
            self.name.setText(default_name(self.cfg, self.path))
        except ModelError as exc:
            self.unreadable = True
            self.status.setText(str(exc))
        self.read()
        self.resize(620, 420)

    def read(self) -> bool:
        """Parse the config under the current name; show its summary, or the one-line reason."""
        while self.rows.rowCount():
            self.rows.removeRow(0)
        self.llm = None
        if not self.unreadable:          # read (it may still be no config at all: JSON null, a list)
            try:
                self.llm = llm_from_config(self.cfg, self.name.text() or self.path.stem,
                                           source=f"Hugging Face config.json ({self.path.name})")
                self.status.setText("")
            except ModelError as exc:
                self.status.setText(f"{self.path.name}: {exc}")
        if self.llm is not None:
            for label, text in model_import_rows(self.llm):
                value = QLabel(text)
                value.setTextFormat(Qt.PlainText)
                value.setWordWrap(True)
                self.rows.addRow(label, value)
        self.add_button.setEnabled(self.llm is not None)
        return self.llm is not None

    def add(self) -> bool:
        if self.llm is None:
            return False
        try:
            custom_store.save_model(dict(self.cfg), self.llm)
        except ModelError as exc:             # safe_io: one line naming the file
            self.status.setText(f"Not saved: {exc}")
            return False
        self.added.emit(self.llm.id)
        self.accept()
        return True
