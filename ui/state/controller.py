"""The one owner of the current Scenario. It emits one frozen Snapshot per change; views draw it.

    a control → controller.set(batch=…) → (coalesced: one recompute per event-loop turn)
    → model.estimate(scenario), model.physics.sweep.sweep_batch(…) → changed(Snapshot)

A Snapshot is everything a view may show after that change: the request, the last good
estimate (it keeps its resolved parts, so nothing resolves the scenario again), the batch
sweep, the comparison GPU's estimate and sweep, the catalogue, the one-line problem, and the Serve
page's setup and the Plan page's settings. The window hands it to its views in a fixed order
(ui/shell/main_window.py); a view reads nothing else.

The serving setup (model.serving.setup.ServingSetup) and the planning settings
(model.planning.settings.PlanSettings) are the controller's too: their pages' knobs ask for a
change (``set_serving``, ``set_planning``) and mirror the snapshot. Such a change makes no
estimate: the new snapshot keeps the last one's estimate, sweep and comparison (the same
objects) and its ``explore_serial``, so the Explore panels see nothing to redraw. A scenario file
(``read_file``: model.files.scenario_file, the window's section readers) comes in whole with
``apply_file``: catalogue, scenario, setup and settings in one change.

The recompute is a posted event of normal priority, so it runs before the window's repaint
(Qt posts UpdateRequest at low priority): one user action → one recompute → one paint that
already shows the new numbers (a zero-timer would run after that paint and need a second).

A scenario the model rejects (ModelError) — or one it fails on (any other exception: a bug,
named in the same one line) — is kept as the user's request, the reason goes in the
snapshot's ``problem`` (the window says "Cannot run this: … — showing the last scenario that
works"), a snapshot is emitted as for any change (controls and panels stay in step), and the
last good estimate stays on screen, so the app keeps
working and the user can move on from there. Custom hardware and models reach the views the
same way: a new default catalogue (model.catalog.active) is a change like any other.
"""
from __future__ import annotations

from dataclasses import fields, replace

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
from shiboken6 import isValid

from model import Estimate, ModelError, Scenario, estimate
from model.catalog.active import default_catalog, on_default_catalog_changed
from model.catalog.parts import Catalog, Hardware
from model.files.scenario_file import ScenarioFile, read_scenario_file
from model.physics.sweep import BatchSweep, default_batches, sweep_batch
from model.planning.settings import PlanSettings
from model.serving.knobs import DEFAULT as DEFAULT_SERVING, within_knobs, window_setup
from model.serving.setup import ServingSetup
from model.values import frozen

_RECOMPUTE = QEvent.Type(QEvent.registerEventType())
MAX_PROBLEM_CHARS = 300


def one_line(exc: BaseException) -> str:
    """The problem line for an exception: a ModelError's own message; anything else (a bug in the
    model) named as such, so the window never goes on as if nothing happened."""
    text = " ".join(str(exc).split())
    if not isinstance(exc, ModelError):
        text = f"the model failed on this scenario ({type(exc).__name__}{': ' + text if text else ''})"
    return text[:MAX_PROBLEM_CHARS] or type(exc).__name__
SWEEP_MAX_BATCH = 4096


@frozen(eq=False)
class Snapshot:
    """One change, as every view draws it. Compared by identity: one per change."""

    requested: Scenario                    # what the user asked for (the controls mirror it; may be invalid)
    estimate: Estimate                     # the last good estimate
    sweep: BatchSweep                      # its decode step over batch 1, 2, 4 … 4096
    catalog: Catalog                       # the parts the user can choose (shipped + their own)
    problem: str = ""                      # one line when ``requested`` cannot run; "" when it can
    compare: Hardware | None = None        # the comparison GPU, if one is chosen
    compare_estimate: Estimate | None = None   # the same scenario on it (None: it cannot run it)
    compare_sweep: BatchSweep | None = None
    serial: int = 0                        # counts the changes (0 for the first snapshot)
    serving: ServingSetup = DEFAULT_SERVING    # the Serve page's setup
    planning: PlanSettings = PlanSettings()    # the Plan page's settings
    explore_serial: int = 0                # the serial of the last change to the scenario's side (estimate,
                                           # request, problem, catalogue, comparison): kept by a serving-
                                           # or planning-only change

    @property
    def hardware(self) -> Hardware:
        """The GPU the estimate runs on (as resolved: an alias or a custom entry is the part itself)."""
        return self.estimate.resolved.hw

    @property
    def valid_scenario(self) -> Scenario:
        """The scenario the estimate was made for."""
        return self.estimate.scenario


SECTIONS = {"serving": window_setup, "planning": PlanSettings.from_dict}    # how the window reads a file's sections


class Controller(QObject):
    changed = Signal(object)              # Snapshot — exactly once per user action

    def __init__(self, scenario: Scenario | None = None, parent: QObject | None = None, *,
                 serving: ServingSetup | None = None, planning: PlanSettings | None = None):
        super().__init__(parent)
        self._requested = scenario or Scenario()
        self._serving = serving or DEFAULT_SERVING
        self._planning = planning or PlanSettings()
        self.compare_gpu: str | None = None
        self._pending = False               # a recompute is posted and not yet run
        self._estimate_due = True           # the pending change touches the scenario's side (else: settings only)
        self._serial = 0
        self._snapshot: Snapshot | None = None
        problem = self._compute(self._requested)
        if self._snapshot is None:          # a saved scenario that no longer loads: start from defaults
            self._requested = Scenario()
            self._compute(Scenario(), f"restored scenario rejected ({problem}); showing the defaults")
        on_default_catalog_changed(self._catalog_changed)

    # ---------------------------------------------------------------- state
    @property
    def snapshot(self) -> Snapshot:
        """The latest snapshot (what the views show)."""
        return self._snapshot

    @property
    def scenario(self) -> Scenario:
        """What the user asked for (may be invalid: see ``problem``)."""
        return self._requested

    serving = property(lambda self: self._serving, doc="The Serve setup asked for (the snapshot's after the change).")
    planning = property(lambda self: self._planning, doc="The Plan settings asked for.")
    estimate = property(lambda self: self._snapshot.estimate)
    sweep = property(lambda self: self._snapshot.sweep)
    problem = property(lambda self: self._snapshot.problem)
    catalog = property(lambda self: self._snapshot.catalog)
    valid_scenario = property(lambda self: self._snapshot.valid_scenario)
    compare_estimate = property(lambda self: self._snapshot.compare_estimate)
    compare_sweep = property(lambda self: self._snapshot.compare_sweep)

    @property
    def pending(self) -> bool:
        """A change is waiting for its recompute (posted, not yet run): a snapshot is coming."""
        return self._pending

    # ---------------------------------------------------------------- changes
    def set(self, **changes) -> None:
        """Change scenario fields; recomputes once on the next event-loop turn."""
        known = {f.name for f in fields(Scenario)}
        bad = set(changes) - known
        if bad:
            raise TypeError(f"unknown scenario field(s): {', '.join(sorted(bad))}")
        self._requested = self._requested.with_(**changes)
        self._schedule()

    def set_scenario(self, scenario: Scenario, serving: ServingSetup | None = None) -> None:
        """A whole scenario (and, with ``serving``, the Serve setup in the same change)."""
        self._requested = scenario
        if serving is not None:
            self._serving = within_knobs(serving)
        self._schedule()

    def reset(self) -> None:
        self._requested = Scenario()
        self.compare_gpu = None
        self._schedule()

    def set_compare(self, gpu_id: str | None) -> None:
        self.compare_gpu = gpu_id or None
        self._schedule()

    def set_serving(self, setup: ServingSetup) -> None:
        """The Serve setup (the knobs' ranges hold: ScenarioError otherwise); no estimate is made."""
        if setup != self._serving:
            self._serving = within_knobs(setup)
            self._schedule(estimate=False)

    def set_planning(self, settings: PlanSettings) -> None:
        """The Plan settings; no estimate is made."""
        if settings != self._planning:
            self._planning = settings
            self._schedule(estimate=False)

    # ---------------------------------------------------------------- scenario files
    @staticmethod
    def read_file(path) -> ScenarioFile:
        """A scenario file read once and validated whole with the window's section readers (the
        Serve knobs' ranges, the Plan settings); ScenarioError (one line) when refused. Applies nothing."""
        return read_scenario_file(path, SECTIONS)

    def apply_file(self, f: ScenarioFile) -> None:
        """Everything ``f`` holds in one change: its catalogue, its scenario, and its setup and
        settings where it has them (the others stay)."""
        f.install()
        self._requested = f.scenario
        self._serving = f.serving or self._serving
        self._planning = f.planning or self._planning
        self._schedule()

    def flush(self) -> None:
        """Recompute now if a change is pending (tests, benches)."""
        if self._pending:
            self._recompute()

    def _catalog_changed(self, _catalog: Catalog) -> None:
        """Custom hardware or a model was added or removed: the views get the new catalogue."""
        if not isValid(self):             # a closed window's controller, not yet collected
            return
        if self.compare_gpu and not any(g.id == self.compare_gpu for g in default_catalog().gpus):
            self.compare_gpu = None
        self._schedule()

    def _schedule(self, estimate: bool = True) -> None:
        if not self._pending:
            self._pending = True
            self._estimate_due = estimate
            QCoreApplication.postEvent(self, QEvent(_RECOMPUTE))
        else:
            self._estimate_due = self._estimate_due or estimate

    def event(self, ev: QEvent) -> bool:
        if ev.type() == _RECOMPUTE:
            if self._pending:             # not already done by flush()
                self._recompute()
            return True
        return super().event(ev)

    # ---------------------------------------------------------------- model calls
    def _compute(self, s: Scenario, note: str = "") -> str:
        """Make the snapshot for ``s``; "" when it ran, else the one-line reason (the last good
        estimate stays, with the reason as its problem)."""
        cat = default_catalog()
        try:
            e = estimate(s, cat)
            sw = sweep_batch(e.scenario, default_batches(SWEEP_MAX_BATCH), resolved=e.resolved)
        except Exception as exc:          # ModelError: its one line; anything else: a model bug, said in one line
            reason = one_line(exc)
            if self._snapshot is not None:
                self._snapshot = self._next(self._snapshot, problem=reason, catalog=cat)
            return reason
        if s is self._requested:      # normalise aliases; keep "auto" KV precision as the user's choice
            self._requested = e.scenario.with_(kv_precision=e.scenario.kv_precision if s.kv_precision else None)
        hw, ce, cs = self._comparison(s, e, cat)
        serial = 0 if self._snapshot is None else self._serial + 1
        self._snapshot = Snapshot(self._requested, e, sw, cat, note, hw, ce, cs, serial, self._serving,
                                  self._planning, serial)
        self._serial = serial
        return ""

    def _next(self, snap: Snapshot, explore: bool = True, **changes) -> Snapshot:
        """The last good snapshot with ``changes`` (the request, a problem), as the next change;
        ``explore`` False: only the setup or the settings changed (the explore serial stays)."""
        self._serial += 1
        kept = snap.explore_serial if not explore else self._serial
        return replace(snap, requested=self._requested, serial=self._serial, serving=self._serving,
                       planning=self._planning, explore_serial=kept, **changes)

    def _comparison(self, s: Scenario, e: Estimate, cat: Catalog):
        """(the comparison GPU, its estimate, its sweep); the estimate and sweep are None when that
        GPU cannot run the scenario (the roofline then draws only its roofs)."""
        if not self.compare_gpu:
            return None, None, None
        try:
            hw = cat.gpu(self.compare_gpu)
        except ModelError:
            return None, None, None
        if hw.id == e.scenario.gpu:
            return hw, None, None
        try:
            ce = estimate(s.with_(gpu=self.compare_gpu), cat)
            return hw, ce, sweep_batch(ce.scenario, default_batches(SWEEP_MAX_BATCH), resolved=ce.resolved)
        except Exception:                 # it cannot run this (or the model failed on it): roofs only
            return hw, None, None

    def _recompute(self) -> None:
        self._pending = False
        if self._estimate_due:
            self._compute(self._requested)
        else:                             # the setup or the settings only: the same estimate, sweep and comparison
            self._snapshot = self._next(self._snapshot, explore=False)
        self._estimate_due = True
        self.changed.emit(self._snapshot)
