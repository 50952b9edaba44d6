"""Qt's queue, delivered without a clock: what a test counts (repaints, layouts, recomputes)
must not depend on how long the machine took.

    deliver()            every posted event (layouts, update requests and the paints they send,
                         queued calls, zero-delay single shots, deferred deletes) and every
                         window-system event (expose, geometry), round after round until a round
                         delivers nothing; no timer fires, however long that took
    drive(anim, to_ms)   move an animation's clock by hand (paused: no wall clock reaches it),
                         delivering the queue after each turn
    EVENTUALLY_MS        the timeout of a wait for a real timer's work: a hang guard (60 s)

A timer (a chip's 16 ms tick, a page warmed 400 ms after a visit, a 0 ms QTimer object) fires
only in an event loop that looks at the clock (qtbot.wait, waitUntil, processEvents without
flags): on a busy machine more of them fall inside any fixed wait, so a test that counts after
``qtbot.wait(30)`` counts them too. Tests stop the timers they do not test, or call what they
would call, and deliver the rest with ``deliver()``.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QObject

NO_TIMERS = QEventLoop.ProcessEventsFlag.X11ExcludeTimers | QEventLoop.ProcessEventsFlag.ExcludeSocketNotifiers
MAX_ROUNDS = 200
# What a test that does need a real timer (a clock that ticks, a preview drawn on a later turn)
# waits at most: a guard against a hang, never a speed test (how soon is benches/' business)
EVENTUALLY_MS = 60_000


class _Delivered(QObject):
    """Counts every event Qt delivers to any object while installed on the application."""

    def __init__(self):
        super().__init__()
        self.count = 0
        self.last: list[str] = []        # what the last rounds delivered, for the error message

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt name)
        self.count += 1
        if len(self.last) < 12:
            self.last.append(f"{ev.type().name} to {type(obj).__name__} {obj.objectName()!r}")
        return False


def deliver(max_rounds: int = MAX_ROUNDS) -> int:
    """Deliver Qt's queue until it is empty (see the module's docstring); the number of rounds
    that delivered something. A queue that never empties (something posts on every event) is an
    error, not a wait."""
    app = QCoreApplication.instance()
    seen = _Delivered()
    app.installEventFilter(seen)
    try:
        for rounds in range(max_rounds):
            seen.count = 0
            seen.last = []
            QCoreApplication.processEvents(NO_TIMERS)
            QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
            if seen.count == 0:
                return rounds
    finally:
        app.removeEventFilter(seen)
    raise AssertionError(f"Qt's event queue was not empty after {max_rounds} rounds; the last delivered: "
                         + "; ".join(seen.last))


def drive(anim, to_ms: int | None = None, step_ms: int = 16, per_turn: int = 1) -> int:
    """Move an animation's clock by hand from where it is to ``to_ms`` (default: its end, where
    it stops and emits ``finished``), ``per_turn`` frames of ``step_ms`` per event-loop turn,
    delivering the queue after each turn; the number of turns.

    The animation is paused first and stays paused: a running one is moved by Qt's wall clock
    whenever any other animation starts (QMainWindow lays its central widget out through a 0 ms
    geometry animation, so every window layout does), not only by its timer. A paused glide is
    still under way (ui.state.glide.ScenarioGlide.running)."""
    from PySide6.QtCore import QAbstractAnimation
    if anim.state() == QAbstractAnimation.Running:
        anim.pause()
    end = anim.duration() if to_ms is None else min(to_ms, anim.duration())
    t, turns = anim.currentTime(), 0
    while t < end and anim.state() != QAbstractAnimation.Stopped:
        for _ in range(per_turn):
            t = min(end, t + step_ms)
            anim.setCurrentTime(t)
        turns += 1
        deliver()
    return turns
