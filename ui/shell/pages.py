"""The main window's pages, Explore, Serve, Plan and Lessons, the mode bar over them (it builds its
own buttons, Record… too) and presenter mode; scenario files are ui/shell/scenario_files.py's.
Kept apart from ui.lessons.page so that the first screen needs none of the Lessons page's modules
(start-up). The Serve and Plan pages (ui.serve.page, ui.plan.page) are built on first use.

The Lessons page (ui.lessons.page.LessonsView, its chapter views and their modules) is not on the
first screen: ``window.lessons`` builds it on first use (a key, a button, a file, a test), and
MainWindow builds it right after the first paint otherwise (MainWindow.when_built).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFont, QFontMetrics, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QStackedWidget, QWidget

from model.errors import ModelError
from ui.kit import theme as th
from ui.shell.scenario_files import ScenarioFilesMixin


class ModeBar(QWidget):
    """Explore | Serve | Lessons, and the scenario file and presenter buttons."""

    def __init__(self, window, parent=None):
        super().__init__(parent)
        self.setObjectName("modeBar")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        self.explore_button = QPushButton("Explore")
        self.serve_button = QPushButton("Serve")
        self.plan_button = QPushButton("Plan")
        self.lessons_button = QPushButton("Lessons")
        for b in (self.explore_button, self.serve_button, self.plan_button, self.lessons_button):
            b.setCheckable(True)
            b.setAutoExclusive(True)
            lay.addWidget(b)
        self.explore_button.setChecked(True)
        self.explore_button.setToolTip("The live chip, roofline and gauges")
        self.lessons_button.setToolTip("The eight lessons, one chapter at a time")
        self.serve_button.setToolTip("This scenario under a stream of requests: the queue, TTFT and TPOT percentiles")
        self.explore_button.clicked.connect(window.show_explore)
        self.serve_button.clicked.connect(window.show_serve)
        self.plan_button.setToolTip("The price of speed: throughput per GPU against speed per user, and the cheapest "
                                    "setup that meets TTFT/TPOT targets")
        self.plan_button.clicked.connect(window.show_plan)
        self.lessons_button.clicked.connect(lambda: window.show_lessons())
        lay.addStretch(1)
        self.open_button = QPushButton("Open…")
        self.open_button.setToolTip("Open a saved scenario (Ctrl+O)")
        self.open_button.clicked.connect(window.open_scenario_dialog)
        self.save_button = QPushButton("Save…")
        self.save_button.setToolTip("Save this scenario and chapter as a small JSON file (Ctrl+S)")
        self.save_button.clicked.connect(window.save_scenario_dialog)
        self.record_button = QPushButton("Record…")
        self.record_button.setObjectName("recordButton")
        self.record_button.setToolTip("Record the chip, or this chapter gliding through its steps, as a GIF or MP4 "
                                      "for slides")
        self.record_button.clicked.connect(lambda: record_dialog(window))
        self.present_button = QPushButton("Present (F5)")
        self.present_button.setToolTip("Presenter mode: full screen, large type; arrows or a clicker step through")
        self.present_button.clicked.connect(lambda: window.enter_presenter())
        for b in (self.open_button, self.save_button, self.record_button, self.present_button):
            lay.addWidget(b)

    def set_theme(self, t: th.Theme) -> None:
        f = QFont()
        f.setPixelSize(t.px(15))
        f.setBold(True)
        fm = QFontMetrics(f)
        for b in (self.explore_button, self.serve_button, self.plan_button, self.lessons_button):
            b.setMinimumWidth(fm.horizontalAdvance(b.text()) + 28)
        self.setStyleSheet(th.focus_style(t))

    def set_page(self, lessons: bool, serve: bool = False, plan: bool = False) -> None:
        (self.plan_button if plan else self.serve_button if serve else self.lessons_button if lessons
         else self.explore_button).setChecked(True)
        controls = getattr(self.window(), "controls", None)
        if controls is not None and hasattr(controls, "set_serving"):
            controls.set_serving(serve or plan)      # the batch knob is Explore's alone there


def record_dialog(window) -> None:
    """Record… (the dialog's module is imported on the first click, not at start)."""
    from ui.present.record_dialog import RecordDialog
    dialog = RecordDialog(window)
    dialog.setAttribute(Qt.WA_DeleteOnClose)      # one per click, gone when closed
    dialog.exec()


class LessonsWindowMixin(ScenarioFilesMixin):
    """What the main window needs for the Lessons page and presenter mode (kept here so the
    shared main_window.py changes little). Expects self.controls_scroll, self.controller,
    self.apply_theme(force) and a footer widget named "footer"."""

    presenting = False
    _lessons = None
    _serve = None
    _plan = None

    def _install_lessons(self, explore: QWidget, body, outer) -> None:
        self.explore = explore
        self.pages = QStackedWidget()
        self.pages.addWidget(explore)
        body.addWidget(self.pages, 1)
        self.mode_bar = ModeBar(self)
        outer.insertWidget(0, self.mode_bar)
        for seq, fn in ((QKeySequence.Save, self.save_scenario_dialog), (QKeySequence.Open, self.open_scenario_dialog)):
            act = QAction(self)
            act.setShortcut(seq)
            act.triggered.connect(fn)
            self.addAction(act)

    def _install_presenter(self) -> None:
        """Presenter mode's keys: an app-wide event filter, so it comes last in building the
        window (every event while the window is built would pass through it: ~8 ms at start)."""
        from ui.present.presenter import Presenter
        self.presenter = Presenter(self)

    @property
    def lessons(self):
        """The Lessons page (ui.lessons.page.LessonsView), built on first use: not on the first screen."""
        if self._lessons is None:
            self._build_lessons()
        return self._lessons

    def lessons_built(self) -> bool:
        return self._lessons is not None

    def _build_lessons(self) -> None:
        from ui.lessons.page import LessonsView
        from ui.present.slides import add_slide_entries
        self._lessons = LessonsView(self.controller, self.theme)
        self._lessons.resize(0, 0)          # a hidden page: its default 640×480 would repaint what lies there
        self.pages.addWidget(self._lessons)
        add_slide_entries(self, self._lessons)

    def _theme_pages(self, t) -> None:
        """The mode bar, and the Lessons and Serve pages once they are built."""
        self.mode_bar.set_theme(t)
        if self._lessons is not None:
            self._lessons.set_theme(t)
        if self._serve is not None:
            self._serve.set_theme(t)
        if self._plan is not None:
            self._plan.set_theme(t)

    # ---------------------------------------------------------------- the Serve page
    @property
    def serve(self):
        """The Serve page (ui.serve.page.ServePage), built on first use."""
        if self._serve is None:
            from ui.serve.page import ServePage
            self._serve = ServePage(self.controller, self.theme)
            self._serve.resize(0, 0)
            self.pages.addWidget(self._serve)
        return self._serve

    def serve_built(self) -> bool:
        return self._serve is not None

    def serve_visible(self) -> bool:
        return self._serve is not None and self.pages.currentWidget() is self._serve

    def show_serve(self) -> None:
        self.pages.setCurrentWidget(self.serve)
        self.mode_bar.set_page(False, serve=True)
        self._footer_visible(False)
        self._sync_presenter_keys()

    # ---------------------------------------------------------------- the Plan page
    @property
    def plan(self):
        """The Plan page (ui.plan.page.PlanPage), built on first use."""
        if self._plan is None:
            from ui.plan.page import PlanPage
            self._plan = PlanPage(self.controller, self.theme)
            self._plan.resize(0, 0)
            self._plan.load_requested.connect(self.load_plan_point)
            self.pages.addWidget(self._plan)
        return self._plan

    def plan_built(self) -> bool:
        return self._plan is not None

    def plan_visible(self) -> bool:
        return self._plan is not None and self.pages.currentWidget() is self._plan

    def show_plan(self) -> None:
        self.pages.setCurrentWidget(self.plan)
        self.mode_bar.set_page(False, plan=True)
        self._footer_visible(False)
        self._sync_presenter_keys()

    def load_plan_point(self, scenario, setup) -> None:
        """A frontier point clicked on the Plan page: Explore takes its scenario, Serve its setup,
        in one change (a setup beyond the Serve knobs' ranges: one line, nothing changes)."""
        try:
            self.controller.set_scenario(scenario, serving=setup)
        except ModelError as exc:
            self.file_message(str(exc), error=True)
            return
        self.show_explore()

    # ---------------------------------------------------------------- pages
    def _footer_visible(self, on: bool) -> None:
        """The Explore footer explains the Explore scenario: never under a lesson or on stage."""
        footer = self.findChild(QWidget, "footer")
        if footer is not None:
            footer.setVisible(on and not self.presenting)

    def show_lessons(self, chapter: int | None = None, state: int = 0) -> None:
        first = self.pages.currentWidget() is not self.lessons
        if self.pages.currentWidget() is self.explore:      # the user's own scenario, kept for coming back
            self._explore_scenario = self.controller.scenario
        self.pages.setCurrentWidget(self.lessons)
        self.mode_bar.set_page(True)
        self._footer_visible(False)
        if chapter is not None:
            self.lessons.show_chapter(chapter, state, animate=False)
        elif first and not self.lessons.views:
            self.lessons.show_chapter(1, 0, animate=False)
        self._sync_presenter_keys()

    def show_chapter(self, chapter: int, state: int = 0) -> None:
        self.show_lessons(chapter, state)

    def show_explore(self) -> None:
        """Explore, with the scenario the user had there before visiting the lessons (a lesson's
        prepared scenarios never replace it)."""
        own = getattr(self, "_explore_scenario", None)
        if own is not None and self.lessons_visible():
            self._explore_scenario = None
            self.controller.set_scenario(own)
            self.controller.flush()
        self.pages.setCurrentWidget(self.explore)
        self.mode_bar.set_page(False)
        self._footer_visible(True)
        self._sync_presenter_keys()

    def _sync_presenter_keys(self) -> None:
        if getattr(self, "presenter", None) is not None:
            self.presenter.sync_listening()

    def lessons_visible(self) -> bool:
        return self._lessons is not None and self.pages.currentWidget() is self._lessons

    # ---------------------------------------------------------------- presenter
    def enter_presenter(self, fullscreen: bool = True) -> None:
        self.presenter.enter(fullscreen=fullscreen)
        if not (self.serve_visible() or self.plan_visible()):
            self.show_lessons()

    def set_presenting(self, on: bool) -> None:
        self.presenting = bool(on)
        self.controls_scroll.setVisible(not on)
        self.mode_bar.setVisible(not on)
        self._footer_visible(not on and not self.lessons_visible() and not self.serve_visible()
                             and not self.plan_visible())
        self.lessons.toolbar.setVisible(not on)
        if on and not (self.serve_visible() or self.plan_visible()):
            self.show_lessons()
        self.apply_theme(force=True)
        self.fit_stage()

    def toggle_presenter_controls(self) -> None:
        self.controls_scroll.setVisible(not self.controls_scroll.isVisible())
