"""The window's scenario files: Save… and Open… (Ctrl+S, Ctrl+O), and a setup from the command line.

Saving writes the controller's state (the scenario, the Serve setup and the Plan settings where
they are not the defaults) and the chapter only while the Lessons page is built and shown: saving
from Explore builds no page. Opening reads the file once through the controller
(``Controller.read_file``: model.files.scenario_file with the window's section readers, the knobs'
ranges included), validated whole; a refused file changes nothing and one line says why; an
accepted one is applied whole (``Controller.apply_file``), and its chapter opens on the Lessons page.
Each line goes to the status bar, and to the Lessons page's status line once that page is built.
"""
from __future__ import annotations

from PySide6.QtWidgets import QFileDialog

from model.errors import ModelError
from model.files.scenario_file import save_scenario
from model.planning.settings import PlanSettings
from model.serving.knobs import DEFAULT as DEFAULT_SERVING

MESSAGE_MS = 8000


def _first_line(exc: BaseException, fallback: str) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else fallback


class ScenarioFilesMixin:
    """Mixed into the main window: expects controller, lessons / lessons_built / lessons_visible,
    pages, mode_bar, show_serve, statusBar."""

    file_status = ""                 # the last file line (saved …, opened …, or why not)

    def file_message(self, text: str, error: bool = False) -> None:
        self.file_status = text
        self.statusBar().showMessage(text, MESSAGE_MS)
        if self.lessons_built():
            self.lessons.message(text, error=error)

    # ---------------------------------------------------------------- saving
    def save_scenario_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save scenario", "scenario.json", "Scenario files (*.json)")
        if path:
            self.save_scenario_to(path, overwrite=True)      # the dialog asked

    def save_scenario_to(self, path: str, overwrite: bool = False) -> bool:
        """Save the controller's state; an existing file only with ``overwrite`` (the Save dialog
        asked). One line either way."""
        c = self.controller
        s = c.scenario if not c.problem else c.valid_scenario
        chapter = self.lessons.number if self.lessons_visible() else None
        serving = c.serving.to_dict() if c.serving != DEFAULT_SERVING else None
        planning = c.planning.to_dict() if c.planning != PlanSettings() else None
        try:
            save_scenario(path, s, chapter, overwrite=overwrite, serving=serving, planning=planning)
        except (ModelError, OSError) as exc:
            self.file_message(_first_line(exc, f"could not save {path}"), error=True)
            return False
        self.file_message(f"saved {path}")
        return True

    # ---------------------------------------------------------------- opening
    def open_scenario_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open scenario", "", "Scenario files (*.json);;All files (*)")
        if path:
            self.open_scenario(path)

    def open_scenario(self, path: str) -> bool:
        """Read ``path`` once; apply all of it, or (refused) nothing, with one line."""
        c = self.controller
        try:
            f = c.read_file(path)
        except ModelError as exc:
            self.file_message(_first_line(exc, "not a scenario file"), error=True)
            return False
        if f.chapter is not None:
            self.lessons.open_chapter(f.chapter)
        c.apply_file(f)
        if f.chapter is not None:
            self.pages.setCurrentWidget(self.lessons)
            self.mode_bar.set_page(True)
            self._sync_presenter_keys()
        elif f.serving is not None:
            self.show_serve()
        self.file_message(f"opened {path}")
        return True

    def open_planning(self, settings) -> None:
        """Plan settings from a file named on the command line (checked when it was read)."""
        if settings is not None:
            self.controller.set_planning(settings)

    def open_serving(self, setup) -> None:
        """A serving setup from the command line: the controller takes it when the knobs can show
        it (else one line, and the setup stays)."""
        if setup is None:
            return
        try:
            self.controller.set_serving(setup)
        except ModelError as exc:
            self.file_message(_first_line(exc, "serving setup refused"), error=True)
