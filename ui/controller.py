"""The one owner of the current Scenario. Views subscribe; they never compute.

    a control → controller.set(batch=…) → (coalesced: one recompute per event-loop turn)
    → model.physics.estimate(scenario), model.physics.sweep.sweep_batch(scenario) → estimate_changed(Estimate)

The recompute is a posted event of normal priority, so it runs before the window's repaint
(Qt posts UpdateRequest at low priority): one user action → one recompute → one paint that
already shows the new numbers (a zero-timer would run after that paint and need a second).

A scenario the model rejects (ModelError) is kept as the user's request, the reason is
emitted on ``problem_changed`` and the last good estimate stays on screen, so the app keeps
working and the user can move on from there.
"""
from __future__ import annotations

from dataclasses import fields

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal

from model import Estimate, ModelError, Scenario, estimate
from model.catalog.active import default_catalog
from model.physics.sweep import BatchSweep, default_batches, sweep_batch


_RECOMPUTE = QEvent.Type(QEvent.registerEventType())


class Controller(QObject):
    estimate_changed = Signal(object)     # Estimate — exactly once per user action
    scenario_changed = Signal(object)     # Scenario — the request (controls mirror it)
    problem_changed = Signal(str)         # one line; "" when the scenario is valid
    compare_changed = Signal(object)      # Hardware | None

    def __init__(self, scenario: Scenario | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._scenario = scenario or Scenario()
        self._requested = self._scenario
        self.estimate: Estimate | None = None
        self.sweep: BatchSweep | None = None
        self.compare_gpu: str | None = None
        self.compare_estimate: Estimate | None = None
        self.compare_sweep: BatchSweep | None = None
        self.problem: str = ""
        self._pending = False               # a recompute is posted and not yet run
        self._compute(self._requested)
        if self.estimate is None:           # a saved scenario that no longer loads: start from defaults
            bad = self.problem
            self._compute(Scenario())
            self._requested = Scenario()
            self.problem = f"restored scenario rejected ({bad}); showing the defaults"

    # ---------------------------------------------------------------- state
    @property
    def catalog(self):
        """The current catalogue: shipped entries plus the user's own (issue 12)."""
        return default_catalog()

    @property
    def scenario(self) -> Scenario:
        """What the user asked for (may be invalid: see ``problem``)."""
        return self._requested

    @property
    def pending(self) -> bool:
        """A change is waiting for its recompute (posted, not yet run): an estimate is coming."""
        return self._pending

    @property
    def valid_scenario(self) -> Scenario:
        """The scenario the current estimate was computed for."""
        return self._scenario

    # ---------------------------------------------------------------- changes
    def set(self, **changes) -> None:
        """Change scenario fields; recomputes once on the next event-loop turn."""
        known = {f.name for f in fields(Scenario)}
        bad = set(changes) - known
        if bad:
            raise TypeError(f"unknown scenario field(s): {', '.join(sorted(bad))}")
        self._requested = self._requested.with_(**changes)
        self._schedule()

    def set_scenario(self, scenario: Scenario) -> None:
        self._requested = scenario
        self._schedule()

    def reset(self) -> None:
        self._requested = Scenario()
        self.compare_gpu = None
        self.compare_changed.emit(None)
        self._schedule()

    def set_compare(self, gpu_id: str | None) -> None:
        self.compare_gpu = gpu_id or None
        hw = self.catalog.gpu(gpu_id) if gpu_id else None
        self.compare_changed.emit(hw)
        self._schedule()

    def flush(self) -> None:
        """Recompute now if a change is pending (tests, benches)."""
        if self._pending:
            self._recompute()

    def _schedule(self) -> None:
        if not self._pending:
            self._pending = True
            QCoreApplication.postEvent(self, QEvent(_RECOMPUTE))

    def event(self, ev: QEvent) -> bool:
        if ev.type() == _RECOMPUTE:
            if self._pending:             # not already done by flush()
                self._recompute()
            return True
        return super().event(ev)

    # ---------------------------------------------------------------- model calls
    def _compute(self, s: Scenario) -> bool:
        try:
            e = estimate(s)
            sw = sweep_batch(s, default_batches(4096))
        except ModelError as exc:
            self.problem = str(exc)
            return False
        self._scenario = e.scenario
        if s is self._requested:      # normalise aliases; keep "auto" KV precision as the user's choice
            self._requested = e.scenario.with_(kv_precision=e.scenario.kv_precision if s.kv_precision else None)
        self.estimate, self.sweep, self.problem = e, sw, ""
        self.compare_estimate = self.compare_sweep = None
        if self.compare_gpu and self.compare_gpu != e.scenario.gpu:
            try:
                cs = s.with_(gpu=self.compare_gpu)
                self.compare_estimate = estimate(cs)
                self.compare_sweep = sweep_batch(cs, default_batches(4096))
            except ModelError:
                pass  # the comparison GPU cannot run this scenario: draw only its roofs
        return True

    def _recompute(self) -> None:
        self._pending = False
        ok = self._compute(self._requested)
        self.scenario_changed.emit(self._requested)
        self.problem_changed.emit(self.problem)
        if ok:
            self.estimate_changed.emit(self.estimate)
