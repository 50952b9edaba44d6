"""The Plan page: the price of speed for the Explore scenario's model and lengths.

    ┌ knobs: GPUs available · TTFT p90 · TPOT p90 · rate · speculative · disaggregated ┐
    │ the frontier chart (ui/plan/chart.py): configurations, frontier, this scenario,   │
    │   its path over the batch caps, the TPOT target, the cheapest setup, measured ★   │
    └ the cheapest setup named · this scenario's point · what the target line means    ┘

It takes the controller's Snapshot like the other views. Its knobs are the snapshot's planning
settings (model.planning.settings.PlanSettings, the controller's): a knob asks the controller for
new settings, and the knobs mirror the snapshot. The plan (model.planning.plan.make_plan, held to
its size limit, model/planning/size.py) is made again only when the model, the lengths or the
settings change, only while the page is shown, and on a thread of its own (ui/kit/background.py):
a key press is answered at once, a newer change calls an older plan off, and the last plan stays
on screen until the new one is drawn. A change of GPU, GPU count, precision or batch in Explore
moves only the current point (model.planning.explore.current_path). Clicking a frontier point
asks the window to load it into Explore and Serve (``load_requested``). In presenter mode ← →
step the TPOT target (``step_target``) and R returns it (``reset_targets``): the keys act on this
page only. Every number is a readout (model/readouts/planning.py).
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (QCheckBox, QDoubleSpinBox, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout,
                               QWidget)

from model import ModelError
from model.planning.explore import current_path, point_scenario
from model.planning.plan import make_plan
from model.planning.settings import LIMITS, PlanSettings, check, stepped_tpot
from model.planning.space import PlanRequest
from model.readouts.planning import BUSY, plan_chart
from ui.kit import theme as th
from ui.kit.background import Background, busy_line
from ui.plan.chart import FrontierChart
from ui.kit.flow_layout import FlowLayout
from ui.kit.lazy_page import LazyPage
from ui.kit.widgets import problem_line, wrapped_label
from ui.plotting.keys import key_html
from ui.state.controller import one_line


def _spin(name: str, suffix: str, tip: str) -> QDoubleSpinBox:
    """A knob for PlanSettings' ``name``, its range the model's (model.planning.settings.LIMITS)."""
    s = QDoubleSpinBox()
    s.setRange(LIMITS[name].lo, LIMITS[name].hi)
    s.setDecimals(1)
    s.setSuffix(suffix)
    s.setToolTip(tip)
    s.setKeyboardTracking(False)
    return s


class PlanPage(LazyPage, QWidget):
    load_requested = Signal(object, object)      # (Scenario, ServingSetup)

    def __init__(self, controller, theme: th.Theme | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("planPage")
        self.theme = theme or th.get_theme("dark")
        self.controller = controller
        self._snap = controller.snapshot
        self._queued = False
        self._key = None
        self.plan = None
        self.path = None
        self.computations = 0
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.setSpacing(6)
        self.knobs = self._build_knobs()
        outer.addWidget(self.knobs)
        self.problem = problem_line()
        outer.addWidget(self.problem)
        self._problems = {"knobs": "", "plan": ""}     # what the knobs cannot take; why the last plan failed
        self.busy = busy_line(BUSY)
        outer.addWidget(self.busy)
        self.jobs = Background(self, self._take, self.busy)
        self.title = wrapped_label("chartTitle")
        outer.addWidget(self.title)
        self.key = wrapped_label("chartLegend", Qt.RichText)      # the chart's key: each colour and mark, named
        outer.addWidget(self.key)
        self.chart = FrontierChart()
        self.chart.plot.legend_label = self.key
        outer.addWidget(self.chart, 1)
        self.lines = {key: wrapped_label(f"plan_{key}") for key in ("cheapest", "current", "target", "legend")}
        for lab in self.lines.values():
            outer.addWidget(lab)
        self._shown = None
        self._mirror(self._snap.planning)
        self.available.editingFinished.connect(self._ask)
        for s in (self.ttft, self.tpot, self.rate):
            s.valueChanged.connect(self._ask)
        for c in (self.spec, self.disagg):
            c.toggled.connect(self._ask)
        self.chart.point_clicked.connect(self._load)
        self.set_theme(self.theme)

    def _build_knobs(self) -> QWidget:
        """GPUs available, the TTFT and TPOT targets, the rate (each with its label), speculation, pools."""
        knobs_box = QWidget()
        knobs = FlowLayout(knobs_box, spacing=10)
        default = PlanSettings().available
        self.available = QLineEdit(default)
        self.available.setToolTip("The accelerators on hand, kind:count (ids or aliases of the catalogue)")
        self.ttft = _spin("ttft_p90_ms", " ms", "TTFT p90 target (0: none)")
        self.tpot = _spin("tpot_p90_ms", " ms", "TPOT p90 target (0: none); 1000 / TPOT is the speed per user")
        self.rate = _spin("rate_per_s", " req/s", "requests per second to serve (0: one replica at full load)")
        for spin, none in ((self.ttft, "none"), (self.tpot, "none"), (self.rate, "full load")):
            spin.setSpecialValueText(none)           # 0 means no target (no rate: one replica at full load)
        self.spec = QCheckBox("Speculative decoding")
        self.disagg = QCheckBox("Disaggregated pools")
        self.disagg.setToolTip("Sweep prefill/decode pools (xPyD) too: about 3× the planning time")
        for text, w in (("GPUs available", self.available), ("TTFT p90", self.ttft), ("TPOT p90", self.tpot),
                        ("Rate", self.rate)):
            pair = QWidget()
            row = QHBoxLayout(pair)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(6)
            lab = QLabel(text)
            lab.setObjectName("controlLabel")
            lab.setBuddy(w)
            row.addWidget(lab)
            row.addWidget(w)
            knobs.addWidget(pair)
        knobs.addWidget(self.spec)
        knobs.addWidget(self.disagg)
        return knobs_box

    # ---------------------------------------------------------------- the settings
    def _mirror(self, p: PlanSettings) -> None:
        """Show ``p`` in the knobs without asking for it back."""
        self._shown = p
        widgets = (self.available, self.ttft, self.tpot, self.rate, self.spec, self.disagg)
        for w in widgets:
            w.blockSignals(True)
        try:
            if self.available.text() != p.available:
                self.available.setText(p.available)
            self.ttft.setValue(p.ttft_p90_ms or 0.0)
            self.tpot.setValue(p.tpot_p90_ms or 0.0)
            self.rate.setValue(p.rate_per_s or 0.0)
            self.spec.setChecked(p.speculative)
            self.disagg.setChecked(p.disaggregated)
        finally:
            for w in widgets:
                w.blockSignals(False)

    def _ask(self, *_args) -> None:
        """A knob moved: ask the controller for the knobs' settings (text it cannot take: one line)."""
        try:
            p = check(PlanSettings(self.available.text(), self.ttft.value(), self.tpot.value(), self.rate.value(),
                                   self.spec.isChecked(), self.disagg.isChecked()))
        except ModelError as exc:
            self._say("knobs", f"Cannot plan this: {exc}")
            return
        self._say("knobs", "")
        self._shown = p
        self.controller.set_planning(p)

    def _say(self, source: str, text: str) -> None:
        """One line: what the knobs cannot take, else why the last plan failed (a plan done later
        never hides what the knobs said)."""
        self._problems[source] = text
        shown = self._problems["knobs"] or self._problems["plan"]
        self.problem.setText(shown)
        self.problem.setVisible(bool(shown))

    # ---------------------------------------------------------------- presenter keys
    def step_target(self, direction: int) -> None:
        """Presenter ← →: the TPOT target one step tighter (+1: the target line moves right) or looser."""
        self.tpot.setValue(stepped_tpot(self.tpot.value() or None, direction))

    def reset_targets(self) -> None:
        """Presenter R: the targets as the page starts."""
        d = PlanSettings()
        self.ttft.setValue(d.ttft_p90_ms or 0.0)
        self.tpot.setValue(d.tpot_p90_ms or 0.0)

    def show_snapshot(self, snap) -> None:
        """A change: the knobs mirror its settings; the plan follows when shown."""
        if snap.planning != self._shown:
            self._mirror(snap.planning)
        super().show_snapshot(snap)

    # ---------------------------------------------------------------- the panel protocol
    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.setStyleSheet(f"QLabel#plan_cheapest {{ font-size: {t.px(19)}px; font-weight: 700; color: {th.ORANGE}; }}"
                           f"QLabel#plan_current {{ font-size: {t.px(17)}px; }}"
                           f"QLabel#plan_target {{ font-size: {t.px(15)}px; color: {t.secondary}; }}"
                           f"QLabel#plan_legend {{ font-size: {t.px(14)}px; color: {t.secondary}; }}"
                           f"QLabel#chartLegend {{ font-size: {t.px(14)}px; }}")
        self.chart.set_theme(t)
        font = QFont(self.available.font())       # the GPUs field as wide as the default list at this type
        font.setPixelSize(t.px(15))               # (the style sheet's size for inputs: ui.kit.theme.style_sheet)
        self.available.setMinimumWidth(QFontMetrics(font).horizontalAdvance(PlanSettings().available + "mmmm"))
        if self.chart.data is not None:           # the key's colours are the theme's
            self.key.setText(key_html(self.chart.key_entries(self.chart.data)))
        self._fit_stage()

    def _fit_stage(self) -> None:
        """On a small stage (ui.kit.theme.compact_stage) the note under the chart (where the prices come
        from) gives its room to the chart; it stays the chart's tooltip, and the key above names every colour."""
        w = self.window()
        self.lines["legend"].setVisible(not th.compact_stage(self.theme, w.width(), w.height()))

    def resizeEvent(self, ev) -> None:           # noqa: N802 (Qt name)
        super().resizeEvent(ev)
        self._fit_stage()

    # ---------------------------------------------------------------- the plan
    def request(self) -> PlanRequest:
        snap = self._snap
        return snap.planning.request(snap.estimate.scenario, snap.catalog)

    def flush(self) -> None:
        """Plan again (on the page's thread) if the model, lengths or knobs changed; else move the
        current point."""
        self._queued = False
        snap = self._snap
        if snap is None:
            return
        try:
            req = self.request()
        except ModelError as exc:
            self.jobs.cancel()                  # an older plan under way would hide this line when done
            self._key = None
            self._say("plan", f"Cannot plan this: {exc}" + (" — showing the last plan that worked." if self.plan else ""))
            return
        key = (req, snap.planning.disaggregated)
        if key != self._key:
            self._key = key
            catalog = snap.catalog
            self.jobs.submit(lambda: make_plan(req, catalog, simulate_frontier=False, disaggregated=key[1]))
        elif self.plan is not None and not self.jobs.busy:
            self._move_current()

    def _take(self, result) -> None:
        """A plan is done (on the GUI thread): draw it with the current point, or say why not."""
        self.computations += 1
        if isinstance(result, BaseException):
            self._say("plan", f"Cannot plan this: {one_line(result)}"
                              + (" — showing the last plan that worked." if self.plan else ""))
            return
        self._say("plan", "")
        self.plan = result
        self._move_current()

    def _move_current(self) -> None:
        snap = self._snap
        self.path = current_path(self.plan.request, snap.estimate.scenario, snap.catalog)
        self._draw()

    def _draw(self) -> None:
        d = plan_chart(self.plan, self.path)
        self.title.setText(d.title)
        self.chart.set_data(d)
        self.lines["cheapest"].setText(d.cheapest_text)
        self.lines["current"].setText(d.current_text)
        self.lines["target"].setText(d.target_text)
        self.lines["legend"].setText(d.legend)
        self.chart.setToolTip(d.legend)
        self.key.setText(key_html(self.chart.key_entries(d)))

    def _load(self, index: int) -> None:
        if self.plan is not None:
            self.load_requested.emit(*point_scenario(self.plan, index))

    # ---------------------------------------------------------------- pictures
    def settle(self) -> None:
        self._queued = False
        self.flush()
        self.jobs.finish()

    def shown_texts(self) -> list[str]:
        return [self.title.text(), self.problem.text()] + [lab.text() for lab in self.lines.values()]
