"""The main window: controls | the chip | roofline over gauges, and a footer sentence.

    ┌ controls ┬──── chipArea (the animated hierarchy) ────┬── roofline ──┐
    │          │                                           ├── gauges ────┤
    └──────────┴───────────────────────────────────────────┴──────────────┘
      footer: the reason a scenario was rejected (if any) + model.readouts.sentences.explain

Start-up: the first paint shows the real Explore page; what it does not show (the
Lessons page and its modules, the app icon) is built right after it, one step per event-loop
turn (``later``, ``when_built``), or on first use when a key or a button asks sooner.
"""
from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QMainWindow, QScrollArea, QSizePolicy, QVBoxLayout, QWidget)

from model.readouts.sentences import explain
from ui.kit import quick_start, theme as th
from ui.state.controller import Controller
from ui.explore.controls import ControlPanel
from ui.explore.gauges import GaugePanel
from ui.chip.view import HierarchyView
from ui.explore.roofline import RooflinePlot
from ui.kit.steady_label import SteadyLabel
from ui.kit.widgets import problem_line
from ui.shell.pages import LessonsWindowMixin
from ui.kit.dialog_buttons import tip_text


class MainWindow(LessonsWindowMixin, QMainWindow):
    _explain = None                 # "Why this number?": built on first use (ui/explore/explain_panel.py)

    def __init__(self, controller: Controller, theme: str = "dark", large_text: bool = False, settings=None):
        super().__init__()
        self.setWindowTitle("Memory Wall — LLM inference against the hardware")
        self.controller = controller
        self.settings = settings
        self.theme_name = theme if theme in th.THEMES else "dark"
        self.large_text = large_text
        self._later: list = []          # steps after the first paint (``later``)
        self._when_built: list = []
        self.built = False
        self.installEventFilter(_FirstPaint(self))
        self.resize(1600, 900)
        self._scale = self._type_scale()      # the style sheet before the widgets: each is polished once
        self.theme = th.get_theme(self.theme_name, self._scale)
        self.setStyleSheet(th.style_sheet(self.theme))

        central = QWidget()
        central.setObjectName("central")
        outer = QVBoxLayout(central)
        outer.setContentsMargins(8, 8, 8, 0)
        outer.setSpacing(8)
        body = QHBoxLayout()
        body.setSpacing(8)
        outer.addLayout(body, 1)

        self.controls = ControlPanel(controller)
        self.controls_scroll = QScrollArea()
        self.controls_scroll.setWidget(self.controls)
        self.controls_scroll.setWidgetResizable(True)
        self.controls_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.controls_scroll.setFrameShape(QScrollArea.NoFrame)
        body.addWidget(self.controls_scroll)

        explore = self._build_explore(controller)
        self._install_lessons(explore, body, outer)

        outer.addWidget(self._build_footer())
        self.setCentralWidget(central)

        self._explore_serial = controller.snapshot.explore_serial      # what the Explore panels were built with
        controller.changed.connect(self.show_snapshot)
        self.gauges.explain_requested.connect(self.explain)
        self.hierarchy.explain_requested.connect(self.explain)
        self.roofline.explain_requested.connect(self.explain)
        for seq in (QKeySequence(Qt.Key_Question), QKeySequence(Qt.Key_F1)):
            why = QAction(self)
            why.setShortcut(seq)
            why.triggered.connect(lambda: self.explain(self.headline_key()))
            self.addAction(why)
        self.controls.theme_toggled.connect(self.toggle_theme)
        self.controls.large_text_toggled.connect(self.set_large_text)
        self.controls.large_text.setChecked(large_text)
        self._show_footer(controller.snapshot)
        from ui.custom.menu import install as install_custom_actions
        install_custom_actions(self)        # your own hardware and models
        self.setMinimumSize(1024, 600)
        self._install_presenter()           # its app-wide key filter last
        self._theme_panels(self.theme, built_with_it=(self.roofline,))
        self.later(lambda: __import__("ui.lessons.page"))    # the Lessons page, not on the first screen: its modules,
        self.later(lambda: self.lessons)                 # then the page (each step < a frame here)

    def _build_explore(self, controller: Controller) -> QWidget:
        """The Explore page: the chip, and the right column (roofline over gauges); the Lessons
        page sits beside it."""
        explore = QWidget()
        ex = QHBoxLayout(explore)
        ex.setContentsMargins(0, 0, 0, 0)
        ex.setSpacing(8)
        self.chip_area = QWidget()
        self.chip_area.setObjectName("chipArea")
        self.chip_area.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        chip_lay = QVBoxLayout(self.chip_area)
        chip_lay.setContentsMargins(8, 12, 8, 8)
        chip_title = QLabel("THE CHIP  ·  double-click or Ctrl+H: the chip alone")
        chip_title.setObjectName("sectionTitle")
        focus = QAction(self)
        focus.setShortcut(QKeySequence("Ctrl+H"))
        focus.triggered.connect(self.toggle_chip_focus)
        self.addAction(focus)
        chip_lay.addWidget(chip_title)
        self.hierarchy = HierarchyView(controller.estimate)
        self.hierarchy.show_snapshot(controller.snapshot)       # (its GPU menu: frames drawn ahead)
        chip_lay.addWidget(self.hierarchy, 1)
        ex.addWidget(self.chip_area, 6)

        right = QWidget()
        right_lay = QVBoxLayout(right)
        right_lay.setContentsMargins(0, 0, 0, 0)
        right_lay.setSpacing(8)
        self.roofline = RooflinePlot(controller.snapshot, self.theme)
        self.gauges = GaugePanel(controller.snapshot)
        right_lay.addWidget(self.roofline, 5)
        right_lay.addWidget(self.gauges, 0)
        self.right = right
        ex.addWidget(right, 4)
        return explore

    # ---------------------------------------------------------------- after the first paint
    def later(self, step) -> None:
        """Run ``step()`` after the first paint, one step per event-loop turn (at once when built)."""
        if self.built:
            step()
        else:
            self._later.append(step)

    def when_built(self, fn) -> None:
        """Call ``fn()`` once every ``later`` step has run (benches: time to interactive)."""
        if self.built:
            fn()
        else:
            self._when_built.append(fn)

    def _next_step(self) -> None:
        quick_start.end()           # the first paint is done: collect garbage again (ui/kit/quick_start.py)
        if self._later:
            step = self._later.pop(0)
            QTimer.singleShot(0, self, self._next_step)     # first: a step that fails stops no other
            step()
            return
        self.built = True
        waiting, self._when_built = self._when_built, []
        for fn in waiting:
            fn()

    def _build_footer(self) -> QWidget:
        """The footer: the reason a scenario was rejected (if any) over the model's sentence."""
        footer = QWidget()
        footer.setObjectName("footer")
        flay = QVBoxLayout(footer)
        flay.setContentsMargins(14, 6, 14, 8)
        flay.setSpacing(2)
        self.problem = problem_line()
        self.explanation = SteadyLabel(lines=2)      # a sentence of one or two lines moves nothing
        self.explanation.setObjectName("explanation")
        self.problem.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        flay.addWidget(self.problem)
        flay.addWidget(self.explanation)
        return footer

    # ---------------------------------------------------------------- views
    def show_snapshot(self, snap) -> None:
        """One change, drawn in a fixed order: the controls, the chip, the roofline, the gauges, the
        footer, the Lessons page, the "Why this number?" panel, then the Serve and Plan pages; then
        the plot's pending scene updates, so the window's one repaint shows every panel's new
        numbers. A serving- or planning-only change (the same ``explore_serial``: the same estimate)
        reaches only the Serve and Plan pages."""
        if snap.explore_serial != self._explore_serial:
            self._explore_serial = snap.explore_serial
            self.controls.show_snapshot(snap)
            self.hierarchy.show_snapshot(snap)
            self.roofline.show_snapshot(snap)
            self.gauges.show_snapshot(snap)
            self._show_footer(snap)
            if self.lessons_built():
                self.lessons.show_snapshot(snap)
            if self._explain is not None:
                self._explain.show_snapshot(snap)
        if self.serve_built():
            self.serve.show_snapshot(snap)
        if self.plan_built():
            self.plan.show_snapshot(snap)
        self.roofline.deliver_scene_updates()

    # ---------------------------------------------------------------- why this number?
    def explain(self, key: str) -> None:
        """Open the derivation of readout ``key`` over the chip (F1 or ?: the headline number)."""
        if self._explain is None:
            from ui.explore.explain_panel import ExplainPanel
            self._explain = ExplainPanel(self.centralWidget(), self.theme)
        self._explain.place(self.chip_area)
        self._explain.explain(key, self.controller.snapshot)

    def headline_key(self) -> str:
        """The number the footer's sentence is about: the floor while memory-bound, else the step."""
        e = self.controller.snapshot.estimate
        if e.phase == "prefill":
            return "prefill_time"
        return {"memory": "decode_floor", "communication": "decode_comm_time"}.get(e.bound, "decode_time")

    def _show_footer(self, snap) -> None:
        sentence = explain(snap.estimate)
        self.explanation.setText(sentence)
        self.explanation.setToolTip(tip_text(sentence))
        text = snap.problem
        self.problem.setText(f"Cannot run this: {text} — showing the last scenario that works." if text else "")
        self.problem.setVisible(bool(text))

    # ---------------------------------------------------------------- chip focus
    def set_chip_focus(self, on: bool) -> None:
        """Show the animated chip large on its own (controls and right column hidden)."""
        self.chip_focus = bool(on)
        self.show_explore()
        self.controls_scroll.setVisible(not on and not self.presenting)
        self.fit_stage()

    def fit_stage(self) -> None:
        """Presenter mode in a window smaller than th.STAGE_ROOM_PX (a 1024×768 projector): the
        roofline and gauges alone, at 18 px type or more; the chip alone in chip focus."""
        compact = th.compact_stage(self.theme, self.width(), self.height())
        focus = getattr(self, "chip_focus", False)
        self.chip_area.setVisible(focus or not compact)
        self.right.setVisible(not focus)

    def toggle_chip_focus(self) -> None:
        self.set_chip_focus(not getattr(self, "chip_focus", False))

    def mouseDoubleClickEvent(self, ev) -> None:
        hit = self.childAt(ev.position().toPoint())
        if hit is not None and (hit is self.chip_area or self.chip_area.isAncestorOf(hit)):
            self.toggle_chip_focus()
        else:
            super().mouseDoubleClickEvent(ev)

    # ---------------------------------------------------------------- look
    def toggle_theme(self) -> None:
        self.theme_name = "light" if self.theme_name == "dark" else "dark"
        self.apply_theme(force=True)

    def set_large_text(self, on: bool) -> None:
        self.large_text = bool(on)
        self.apply_theme(force=True)

    def _type_scale(self) -> float:
        scale = th.type_scale(max(self.height(), 1), self.large_text, self.presenting)
        return round(scale * 20) / 20

    def apply_theme(self, force: bool = False) -> None:
        scale = self._type_scale()
        if not force and scale == self._scale:
            return
        self._scale = scale
        self.theme = th.get_theme(self.theme_name, scale, th.STAGE_MIN_PX if self.presenting else th.MIN_PX)
        self.setStyleSheet(th.style_sheet(self.theme))
        self._theme_panels(self.theme)

    def _theme_panels(self, t: th.Theme, built_with_it: tuple = ()) -> None:
        if self._explain is not None:
            self._explain.set_theme(t)
        scale = t.scale
        self.controls_scroll.setFixedWidth(int(max(170 + 130 * scale, 300 * scale)))   # grows with its type
        self._fit_right()
        for panel in (self.roofline, self.gauges, self.hierarchy, self.controls):
            if panel not in built_with_it:
                panel.set_theme(t)      # one protocol: every panel takes the theme the same way
        self._theme_pages(t)

    def _fit_right(self) -> None:
        """The roofline and gauges: wide enough that their labels never clip at 1280×720, and never so
        wide that they run past the window's edge beside the chip at its smallest (1024×768)."""
        want = int(640 * min(self.theme.scale, 1.5))
        room = self.width() - 16 - 8 - self.chip_area.minimumSizeHint().width()
        self.right.setMinimumWidth(max(0, min(want, room)))

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self.apply_theme()
        self.fit_stage()
        self._fit_right()
        if self._explain is not None and self._explain.isVisible():
            self._explain.place(self.chip_area)

    # ---------------------------------------------------------------- settings
    def save_settings(self) -> None:
        if self.settings is None:
            return
        import json
        c = self.controller
        s = c.scenario if not c.problem else c.valid_scenario
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("view/theme", self.theme_name)
        self.settings.setValue("view/large_text", bool(self.large_text))
        self.settings.setValue("scenario", json.dumps(s.to_dict()))
        self.settings.setValue("serving", json.dumps(c.serving.to_dict()))
        self.settings.setValue("planning", json.dumps(c.planning.to_dict()))
        self.settings.sync()

    def restore_geometry(self) -> bool:
        if self.settings is None:
            return False
        geo = self.settings.value("window/geometry")
        return isinstance(geo, (QByteArray, bytes)) and self.restoreGeometry(QByteArray(geo))

    def closeEvent(self, ev) -> None:
        self.save_settings()
        super().closeEvent(ev)


class _FirstPaint(QObject):
    """Starts the window's ``later`` steps on the turn after its first paint (then goes)."""

    def eventFilter(self, obj, ev) -> bool:     # noqa: N802 (Qt name)
        if ev.type() == QEvent.Paint:
            obj.removeEventFilter(self)
            QTimer.singleShot(0, obj, obj._next_step)
            self.deleteLater()
        return False
