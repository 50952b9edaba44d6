"""The glide between two prepared states: batch and lengths geometric, knobs likewise, the rest at once.

    glide_scenario(a, b, f)   the scenario a fraction f ∈ [0, 1] of the way from a to b
    glide_params(pa, pb, f)   a chapter's knobs the same way (``intensity`` geometric)
    ScenarioGlide             moves a controller along it over ~450 ms, eased (InOutCubic)

Each animation frame calls controller.set_scenario, which coalesces to one recompute per
event-loop turn, exactly like a slider drag. The interpolation is pure (tests/test_presenter.py
runs it without Qt); the recordings and the presenter use the same one.
"""
from __future__ import annotations

import math
from dataclasses import fields

from PySide6.QtCore import QEasingCurve, QObject, QVariantAnimation

GLIDE_MS = 450
GEOMETRIC = ("batch", "input_len", "output_len")
GEOMETRIC_PARAMS = ("intensity",)


def _lerp(a: float, b: float, f: float, geometric: bool) -> float:
    if geometric and a > 0 and b > 0:
        return math.exp(math.log(a) + (math.log(b) - math.log(a)) * f)
    return a + (b - a) * f


def glide_scenario(a, b, f: float):
    """The scenario a fraction ``f`` of the way from a to b: lengths and batch geometric,
    everything else b's at once."""
    if f >= 1.0:
        return b
    changes = {}
    for fl in fields(b):
        if fl.name in GEOMETRIC:
            va, vb = getattr(a, fl.name), getattr(b, fl.name)
            try:
                changes[fl.name] = int(round(_lerp(float(va), float(vb), f, True)))
            except (TypeError, ValueError):
                changes[fl.name] = vb
        else:
            changes[fl.name] = getattr(b, fl.name)
    return b.with_(**changes)


def glide_params(a: dict, b: dict, f: float) -> dict:
    out = dict(b)
    if f >= 1.0:
        return out
    for k, vb in b.items():
        va = a.get(k)
        if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and not isinstance(vb, bool):
            v = _lerp(float(va), float(vb), f, k in GEOMETRIC_PARAMS)
            out[k] = int(round(v)) if isinstance(vb, int) and isinstance(va, int) else v
    return out


class ScenarioGlide(QObject):
    """Animate the controller (and a chapter's knobs) from where they are to a prepared state."""

    def __init__(self, controller, parent=None, duration_ms: int = GLIDE_MS):
        super().__init__(parent)
        self.controller = controller
        self.duration_ms = duration_ms
        self.anim = QVariantAnimation(self)
        self.anim.setStartValue(0.0)
        self.anim.setEndValue(1.0)
        self.anim.setEasingCurve(QEasingCurve.InOutCubic)
        self.anim.valueChanged.connect(self._step)
        self.anim.finished.connect(self._finish)
        self._a = self._b = None
        self._pa, self._pb = {}, {}
        self._view = None
        self._index = 0
        self.frames = 0

    @property
    def running(self) -> bool:
        """Under way: started and not finished (paused counts: tests drive its clock by hand,
        tests/qt_events.drive, so that no wall-clock tick can move it)."""
        return self.anim.state() != QVariantAnimation.Stopped

    def start(self, scenario, view=None, index: int = 0) -> None:
        self.anim.stop()
        self._a, self._b = self.controller.scenario, scenario
        self._view, self._index = view, index
        self._pa = dict(view.params) if view is not None else {}
        self._pb = dict(view.chapter.states[index].params) if view is not None else {}
        if view is not None:                       # caption and controls change at once
            view.caption_label.setText(view.chapter.states[index].caption)
            view.state_index = index
        self.frames = 0
        if self.duration_ms <= 0 or self._a == self._b and self._pa == self._pb:
            self._finish()
            return
        self.anim.setDuration(int(self.duration_ms))
        self.anim.start()

    def stop(self) -> None:
        if self.running:
            self.anim.stop()
            self._finish()

    def _step(self, value) -> None:
        if self._b is None or not self.running:
            return
        f = float(value)
        self.frames += 1
        self.controller.set_scenario(glide_scenario(self._a, self._b, f))
        if self._view is not None and self._pb:
            self._view.set_params(**glide_params(self._pa, self._pb, f))

    def _finish(self) -> None:
        if self._b is None:
            return
        self.controller.set_scenario(self._b)
        if self._view is not None:
            self._view.apply_state(self._index)
        self._b = None
