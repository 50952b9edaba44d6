"""Your own hardware and models in the main window: one button with a menu,
drag-and-drop of .json files (hardware files, config.json, scenario files), and one status line.

    Your own hardware & models ▾
        New hardware from this GPU…      the hardware editor (ui/custom/hardware_editor.py)
        Open hardware file…              a hardware file from disk, checked, then kept
        Add model from config.json…      ui/custom/model_import.py (also: drop a config.json on the window)
        Measure this machine…            ui/custom/measure_dialog.py
        Remove ▸                         your saved entries

When the catalogue changes (here, or a scenario file carrying its own hardware), the controller
makes a snapshot with it (ui/state/controller.py): every GPU and model selector is refilled from that,
with your entries under "Custom".
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QDialog, QFileDialog, QLabel, QMenu, QPushButton
from shiboken6 import isValid

from model.catalog.active import default_catalog
from model.errors import ModelError
from model.files.custom_catalog import beside_yours, remove_from_default
from model.files.hardware_file import FORMAT_KEY, load_hardware_file, read_json_file
from model.physics.scenario import Scenario
from model.files.scenario_file import FORMAT_KEY as SCENARIO_KEY
from ui.custom import store as custom_store
from ui.kit.dialog_buttons import plain_tip

if TYPE_CHECKING:       # the dialogs' modules load when a dialog opens, not before the first paint
    from ui.custom.hardware_editor import HardwareEditor
    from ui.custom.measure_dialog import MachineMeasurer
    from ui.custom.model_import import ModelImportDialog


class CustomActions(QObject):
    """Owns the button, the status line and the drop handling for one main window."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.dialog = None          # the open dialog (tests reach it here)
        self.measurer = None
        self.button = QPushButton("Your own hardware && models…")
        self.button.setObjectName("customButton")
        self.button.setToolTip("Edit a GPU, add a model from its config.json, measure this machine "
                               "(or drop a .json file on the window)")
        self.menu = QMenu(self.button)
        self.menu.addAction("New hardware from this GPU…", self.new_hardware)
        self.menu.addAction("Open hardware file…", self.open_hardware_dialog)
        self.menu.addAction("Add model from config.json…", self.add_model_dialog)
        self.menu.addAction("Measure this machine…", self.measure)
        self.remove_menu = self.menu.addMenu("Remove")
        self.remove_menu.aboutToShow.connect(self._fill_remove_menu)
        self.button.setMenu(self.menu)
        self.status = QLabel("")
        self.status.setObjectName("customStatus")
        self.status.setTextFormat(Qt.PlainText)
        self.status.setWordWrap(True)
        self.status.setVisible(False)
        lay = window.controls.layout()
        at = lay.indexOf(window.controls.reset_button)
        lay.insertWidget(at, self.button)
        lay.insertWidget(at + 1, self.status)
        window.setAcceptDrops(True)
        window.installEventFilter(self)
        if custom_store.last_problems:
            self.say("; ".join(custom_store.last_problems), error=True)

    def say(self, text: str, error: bool = False) -> None:
        """The one line the window shows about your files."""
        from ui.custom.hardware_editor import ERROR_STYLE, OK_STYLE
        self.status.setStyleSheet(ERROR_STYLE if error else OK_STYLE)
        self.status.setText(text)
        self.status.setToolTip(plain_tip(text))
        self.status.setVisible(bool(text))

    # ---------------------------------------------------------------- hardware
    def _open(self, dialog: QDialog) -> QDialog:
        """One dialog at a time (an earlier one is closed), deleted when it closes: nothing is
        kept per click."""
        old = self.dialog
        if old is not None and isValid(old):
            old.close()
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.open()
        return dialog

    def new_hardware(self) -> HardwareEditor:
        from ui.custom.hardware_editor import HardwareEditor
        dialog = HardwareEditor(self.controller.scenario.gpu, self.window)
        dialog.saved.connect(self._hardware_saved)
        dialog.remove_requested.connect(lambda ident: self.remove(ident, "hardware") and dialog.accept())
        return self._open(dialog)

    def _hardware_saved(self, ident: str) -> None:
        self.controller.set(gpu=ident)
        self.say(f"Saved '{default_catalog().gpu(ident).name}' (under Custom in the GPU list)")

    def open_hardware_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open hardware file", "", "Hardware files (*.json)")
        if path:
            self.open_hardware(path)

    def open_hardware(self, path: str) -> bool:
        """Check a hardware file, keep a copy in the data folder, select it."""
        try:
            loaded, _text = load_hardware_file(path)
            doc, hw = beside_yours(read_json_file(path), loaded, Path(path).name)
            custom_store.save_hardware(doc, hw)
        except (ModelError, OSError) as exc:
            self.say(f"Not added: {exc}", error=True)
            return False
        self.controller.set(gpu=hw.id)
        if hw.id != loaded.id:
            self.say(f"Added '{hw.name}' as {hw.id}: your own {loaded.id} has other numbers and is kept")
        else:
            self._hardware_saved(hw.id)
        return True

    # ---------------------------------------------------------------- models
    def add_model_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Add model from config.json", "",
                                              "Hugging Face config (*.json)")
        if path:
            self.add_model(path)

    def add_model(self, path: str) -> ModelImportDialog:
        from ui.custom.model_import import ModelImportDialog
        dialog = ModelImportDialog(path, self.window)
        dialog.added.connect(self._model_added)
        return self._open(dialog)

    def _model_added(self, ident: str) -> None:
        self.controller.set(model=ident)
        self.say(f"Added '{default_catalog().model(ident).name}' (under Custom in the model list)")

    # ---------------------------------------------------------------- measuring
    def measure(self, quick: bool = False) -> MachineMeasurer:
        """Start measuring; while one measurement runs, a second would skew both: that one is returned."""
        from ui.custom.measure_dialog import MachineMeasurer
        if self.measurer is not None and isValid(self.measurer) and self.measurer.running:
            return self.measurer
        self.measurer = MachineMeasurer(self.window, quick=quick)
        self.measurer.finished.connect(self._measured)
        self.measurer.failed.connect(lambda text: self.say(text, error=True))
        self.measurer.start()
        return self.measurer

    def _measured(self, ident: str, summary: str, report: str) -> None:
        self.controller.set(gpu=ident)
        self.say(f"Saved '{default_catalog().gpu(ident).name}': {summary} (hover for the full report)")
        import html       # only here: not on the start path
        self.status.setToolTip(f"<pre>{html.escape(report)}</pre>")

    # ---------------------------------------------------------------- removing
    def _fill_remove_menu(self) -> None:
        self.remove_menu.clear()
        cat = default_catalog()
        entries = [(i, kind) for kind, i, _ in cat.custom_documents]
        if not entries:
            self.remove_menu.addAction("(nothing of your own yet)").setEnabled(False)
        for ident, kind in entries:
            name = (cat.gpu(ident) if kind == "hardware" else cat.model(ident)).name
            self.remove_menu.addAction(name.replace("&", "&&"), lambda i=ident, k=kind: self.remove(i, k))

    def remove(self, ident: str, kind: str | None = None) -> bool:
        """Forget an entry (of ``kind``: a hardware and a model may share an id; None: both): its
        file goes first (a file that cannot go: one line, nothing changes), then a scenario using it
        moves to the defaults, then it leaves the catalogue. True when it is gone. The Remove menu
        and the hardware editor's Remove both come here."""
        try:
            custom_store.delete_files(ident, kind)
        except ModelError as exc:
            self.say(str(exc), error=True)
            return False
        s, d = self.controller.scenario, Scenario()
        if s.gpu == ident and kind in (None, "hardware"):
            self.controller.set(gpu=d.gpu)
        if s.model == ident and kind in (None, "model"):
            self.controller.set(model=d.model)
        if self.controller.compare_gpu == ident and kind in (None, "hardware"):
            self.controller.set_compare(None)
        self.controller.flush()
        remove_from_default(ident, kind)
        self._removed(ident)
        if self.dialog is not None and isValid(self.dialog) and hasattr(self.dialog, "catalogue_changed"):
            self.dialog.catalogue_changed()      # an open editor's Start-from list named what is gone
        return True

    def _removed(self, ident: str) -> None:
        self.say(f"Removed '{ident}'")

    # ---------------------------------------------------------------- drag and drop
    def eventFilter(self, obj, ev) -> bool:
        if obj is self.window and ev.type() in (QEvent.DragEnter, QEvent.DragMove):
            if _json_paths(ev.mimeData()):
                ev.acceptProposedAction()
                return True
        if obj is self.window and ev.type() == QEvent.Drop:
            paths = _json_paths(ev.mimeData())
            if paths:
                ev.acceptProposedAction()
                for path in paths:
                    self.open_dropped(path)
                return True
        return False

    def open_dropped(self, path: str) -> None:
        """A hardware file is added at once, a scenario file opened; anything else is offered as a
        config.json."""
        try:
            doc = read_json_file(path)
        except ModelError as exc:
            self.say(f"Not added: {exc}", error=True)
            return
        if isinstance(doc, dict) and FORMAT_KEY in doc:
            self.open_hardware(path)
        elif isinstance(doc, dict) and SCENARIO_KEY in doc and hasattr(self.window, "open_scenario"):
            self.window.open_scenario(path)
        else:
            self.add_model(path)


def _json_paths(mime) -> list[str]:
    if not mime.hasUrls():
        return []
    return [u.toLocalFile() for u in mime.urls() if u.isLocalFile() and Path(u.toLocalFile()).suffix.lower() == ".json"]


def install(window) -> CustomActions:
    window.custom_actions = CustomActions(window)
    return window.custom_actions
