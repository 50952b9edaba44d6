#!/usr/bin/env python3
"""The longest the event loop is blocked on the Serve and Plan pages while keys are pressed.

    python benches/bench_event_loop.py [ROOT]      (ROOT: a tree of this project to measure; default this one)

A 2 ms timer notes when it fires; a gap between two firings longer than 2 ms is time the loop
could not answer a key or paint. The window starts as main.py starts it (ui/kit/quick_start.py),
and each page is visited once before it is measured. While it runs, in presenter mode at 1600×900:

    Serve   20 000 requests, then → pressed 12 times, 150 ms apart (each steps the load: a new run)
    Plan    → pressed 12 times, 150 ms apart (each a new TPOT target: a new plan), then the
            disaggregated pools switched on (a plan of about a million configurations)

Prints the longest gap and the 99th percentile per page, and a frame's 16.7 ms beside them. It
takes only what every version of the window has (build_window, the presenter's keys, the
controller), so the same script measures a tree before and after a change. Prints
measurements; asserts nothing.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FRAME_MS = 1000 / 60


def measure(app, w, actions, spacing_ms: int = 150, tail_ms: int = 4000) -> list[float]:
    """Run ``actions`` (callables) ``spacing_ms`` apart, then wait ``tail_ms``; the timer's gaps (ms)."""
    from PySide6.QtCore import QEventLoop, QTimer
    gaps, last = [], [time.perf_counter()]

    def tick():
        now = time.perf_counter()
        gaps.append((now - last[0]) * 1e3)
        last[0] = now
    ticker = QTimer()
    ticker.setInterval(2)
    ticker.timeout.connect(tick)
    loop = QEventLoop()
    for i, act in enumerate(actions):
        QTimer.singleShot(spacing_ms * (i + 1), act)
    QTimer.singleShot(spacing_ms * (len(actions) + 1) + tail_ms, loop.quit)
    ticker.start()
    loop.exec()
    ticker.stop()
    return gaps


def report(name: str, gaps: list[float]) -> None:
    import numpy as np
    g = np.asarray(gaps)
    print(f"{name}: longest block {g.max():.0f} ms ({g.max() / FRAME_MS:.1f} frames), p99 {np.percentile(g, 99):.1f} ms, "
          f"{int((g > FRAME_MS).sum())} gaps over a frame of {g.size} ticks")


def main() -> int:
    from ui.kit import quick_start
    quick_start.begin()               # as main.py starts the window: one BLAS thread, start-up's objects frozen
    from PySide6.QtCore import Qt
    from model import Scenario
    from model.planning.settings import PlanSettings
    from model.serving.setup import ServingSetup
    from ui.kit.qt_app import ensure_app, settle
    from ui.shell.app import build_window
    app = ensure_app()
    w = build_window(Scenario(), st=None)
    w.resize(1600, 900)
    w.show()
    settle(app)
    quick_start.end()
    print(f"{ROOT}: {os.popen(f'git -C {ROOT} rev-parse --short HEAD 2>/dev/null').read().strip() or 'not a git tree'}")
    w.show_serve()
    w.controller.set_serving(ServingSetup(requests=20_000))
    w.controller.flush()
    w.enter_presenter(fullscreen=False)
    measure(app, w, [], tail_ms=3000)                    # the first run done
    report("Serve", measure(app, w, [lambda: w.presenter.handle_key(Qt.Key_Right)] * 12))
    w.presenter.leave()
    w.show_plan()
    w.controller.set_planning(PlanSettings())
    w.controller.flush()
    w.enter_presenter(fullscreen=False)
    measure(app, w, [], tail_ms=3000)
    keys = [lambda: w.presenter.handle_key(Qt.Key_Right)] * 12
    keys.append(lambda: w.controller.set_planning(PlanSettings(disaggregated=True)))
    report("Plan", measure(app, w, keys, tail_ms=6000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
