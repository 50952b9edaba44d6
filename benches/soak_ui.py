#!/usr/bin/env python3
"""Soak: the UI fuzz walk (tests/fuzz_walk.py) for many actions per seed, with memory.

    python benches/soak_ui.py [--actions 10000] [--seeds 1 2 3]      (make soak)

Each seed runs in a fresh process: the main window at 1600×900, then N seeded random actions
(every control, key, page, resize, export and file action, the hardware editor, model import,
Remove, slides and Record…; how many of each kind is printed at the end). Prints RSS at start, after the
warm-up (every page built once, every size seen once), and every 1 000 actions, with the C
heap's live and free bytes (glibc mallinfo2) and Python's live blocks, so a rise can be told
apart: pages built once, memory the allocator keeps but does not use, or a leak. Each reading
is taken in the same state — Explore page, 1600×900, not presenting, the default scenario,
after the app has sat idle past its heap trim (ui/kit/qt_app.steady_heap, every 10 s) — because live
memory depends on the state (a 2560×1440 presenter window holds twice the pixmaps of 1600×900;
a 1M-token scenario's arrays hundreds of MB). The raw RSS at the moment each 1 000th action
ended, in whatever state the walk left, is printed too, and the live widgets and QObjects (every
QObject in the trees of the application and its top-level windows), so a rise can be told from
objects kept per action, and how often the walk has run "Measure this machine" (in a bare process
a full measurement leaves ~40 MB of freed heap resident, 29 → 72 MB, 40 MB after malloc_trim; in the
window, whose heap is trimmed every 10 s, the first costs +15 MB and later ones nothing: 208 → 223 →
222 → 225 MB, measured 2026-12-07), so a step in RSS can be matched to it. Each seed ends with one summary line — RSS at start, after 1 000 and
after N actions, RSS(N) / RSS(1 000) (goal ≤ 1.25), widgets and QObjects after 1 000 and after
N, and the count of exceptions and Qt warnings (must be 0) — and the run with a table of them.
An exception stops its seed; any exception or Qt warning makes the exit status 1. Prints
measurements; asserts nothing about time.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]


def c_heap_mb() -> tuple[float, float]:
    """(live, free-but-kept) MB of the C heap, or NaNs where glibc's mallinfo2 is missing."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        m = libc.mallinfo2()
        return (m.uordblks + m.hblkhd) / 2 ** 20, m.fordblks / 2 ** 20
    except (OSError, AttributeError):
        return float("nan"), float("nan")


def live_objects(app) -> tuple[int, int]:
    """(widgets, QObjects): every QObject in the trees of the application and its top-level widgets."""
    from PySide6.QtCore import QObject
    tops = app.topLevelWidgets()
    return len(app.allWidgets()), 1 + len(app.findChildren(QObject)) + sum(1 + len(w.findChildren(QObject))
                                                                             for w in tops)


def reading(label: str, app=None) -> tuple[float, int, int]:
    """Print and return (RSS MB, widgets, QObjects)."""
    live, free = c_heap_mb()
    rss = rss_mb()
    widgets, objects = live_objects(app) if app is not None else (0, 0)
    print(f"  {label:>22s}: RSS {rss:6.1f} MB   C heap live {live:6.1f} MB, free kept {free:6.1f} MB   "
          f"Python blocks {sys.getallocatedblocks():,}   widgets {widgets:,}, QObjects {objects:,}", flush=True)
    return rss, widgets, objects


def warm_up(w, app) -> None:
    """Build every page once and see every size once: what the first 1 000 actions do anyway. The
    Serve and Plan pages too (a walk may first reach them past its 1 000th action: the plan they keep
    and the views' pictures once painted are then a step in RSS that no action repeats), the chip
    on its own, and one "Measure this machine" (the first measurement in a window keeps ~15–30 MB
    that later ones do not add: a walk that first measured after its 1 000th action showed it as
    growth, seed 2 1.19 → 1.29 from one run to the next)."""
    from fuzz_walk import SIZES
    for n in range(1, 9):
        w.show_chapter(n)
        app.processEvents()
    for show, page in ((w.show_serve, lambda: w.serve), (w.show_plan, lambda: w.plan)):
        show()
        app.processEvents()
        w.controller.flush()
        page().settle() if page() is w.plan else page().settle(1)     # its thread's run or plan, drawn
        app.processEvents()
    w.show_explore()
    w.set_chip_focus(True)
    app.processEvents()
    w.set_chip_focus(False)
    for size in SIZES:
        w.resize(*size)
        app.processEvents()
    w.resize(1600, 900)
    app.processEvents()
    from PySide6.QtTest import QTest
    from shiboken6 import isValid
    m = w.custom_actions.measure()
    end = time.monotonic() + 300
    while isValid(m) and m.running and time.monotonic() < end:
        QTest.qWait(200)
    w.controller.reset()
    w.controller.flush()
    app.processEvents()


def same_state(w, app) -> None:
    """Explore, 1600×900, no presenter, no "Measure this machine" running (its layers take
    ~0.5 GB while it runs), the default scenario (Reset all: a 1M-token context or a 65 536 batch
    the walk left holds hundreds of MB of arrays while it is the scenario, and lets them go when
    it is not), the Serve setup and the Plan settings as at start (each page keeps its last run and
    plan while another page is shown: 20 000 requests or disaggregated pools hold tens of MB more),
    then idle past the app's next heap trim."""
    from PySide6.QtTest import QTest
    from shiboken6 import isValid
    from ui.kit.qt_app import TRIM_EVERY_MS
    m = getattr(getattr(w, "custom_actions", None), "measurer", None)
    end = time.monotonic() + 300
    while m is not None and isValid(m) and m.running and time.monotonic() < end:
        QTest.qWait(200)
    if w.presenter.active:
        w.presenter.leave()
    w.set_chip_focus(False)
    w.show_explore()
    w.controller.reset()
    w.controller.flush()
    from model.planning.settings import PlanSettings
    from model.serving.knobs import DEFAULT
    w.controller.set_serving(DEFAULT)             # the Serve setup and the Plan settings as they start:
    w.controller.set_planning(PlanSettings())     # the run and the plan each page keeps are of them
    w.controller.flush()
    for show, page in ((w.show_serve, w._serve), (w.show_plan, w._plan)):
        if page is not None:
            show()
            app.processEvents()
            page.settle() if page is w._plan else page.settle(1)
            app.processEvents()
    w.show_explore()
    w.resize(1600, 900)
    app.processEvents()
    QTest.qWait(TRIM_EVERY_MS + 1000)


def one_seed(seed: int, actions: int) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    own = Path(tempfile.mkdtemp(prefix="memory-wall-soak-"))      # the walk measures, imports and saves
    os.environ["XDG_DATA_HOME"], os.environ["XDG_CONFIG_HOME"] = str(own / "data"), str(own / "config")
    try:                                                          # hardware: never into your own folders
        return _one_seed(seed, actions)
    finally:
        shutil.rmtree(own, ignore_errors=True)


def _one_seed(seed: int, actions: int) -> int:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from ui.kit import quick_start
    quick_start.begin()          # as main.py starts the window (no GC until the first paint, then frozen)
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    problems: list[str] = []

    def on_message(kind, _ctx, message):
        if kind != QtMsgType.QtDebugMsg and not message.startswith("This plugin does not support"):
            problems.append(f"Qt {kind.name}: {message}")
    qInstallMessageHandler(on_message)
    sys.excepthook = lambda *exc: problems.append("".join(traceback.format_exception(*exc)))
    from fuzz_walk import FuzzWalk
    from model import Scenario
    from ui.shell.app import build_window
    from ui.kit.qt_app import ensure_app, settle
    from ui.custom.measure_dialog import MachineMeasurer
    measured = [0]             # "Measure this machine" runs (the first keeps ~15 MB in the window)
    start = MachineMeasurer.start

    def counted_start(self):
        measured[0] += 1
        start(self)
    MachineMeasurer.start = counted_start
    app = ensure_app()
    w = build_window(Scenario(), st=None)
    w.resize(1600, 900)
    w.show()
    settle(app)
    print(f"seed {seed}: {actions} actions", flush=True)
    at: dict[int, tuple[float, int, int]] = {0: reading("start", app)}
    warm_up(w, app)
    reading("after warm-up", app)
    t0 = time.process_time()

    def every(done: int) -> None:
        print(f"  {'(as the action ended)':>22s}: RSS {rss_mb():6.1f} MB   machine measurements so far {measured[0]}",
              flush=True)
        same_state(w, app)
        at[done] = reading(f"after {done} actions", app)
    with tempfile.TemporaryDirectory() as tmp, FuzzWalk(w, seed, Path(tmp), real_time=True) as walk:
        try:
            walk.run(actions, every=every, every_n=1000)
        except Exception as exc:  # noqa: BLE001 - counted, and the seed stops
            problems.append(f"{type(exc).__name__}: {exc}")
        if walk.done not in at:
            every(walk.done)
    cpu = time.process_time() - t0
    print(f"  CPU {cpu:.0f} s = {1e3 * cpu / max(walk.done, 1):.1f} ms per action")
    print("  actions by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(walk.counts.items())))
    for p in problems[:5]:              # the last line, then where it came from (the innermost frames)
        lines = p.strip().splitlines()
        print(f"  PROBLEM: {lines[-1]}" + "".join(f"\n      {x}" for x in lines[-9:-1]))
    print("  " + summary(seed, walk.done, at, len(problems)), flush=True)
    return 1 if problems else 0


def summary(seed: int, done: int, at: dict[int, tuple[float, int, int]], problems: int) -> str:
    """One line per seed (the parent collects these lines for its table)."""
    first, last = at.get(1000), at.get(done) if done > 1000 else None

    def rss(r):
        return f"{r[0]:.1f}" if r else "-"
    ratio = f"{last[0] / first[0]:.3f}" if first and last else "-"
    objs = (f"{first[1]:,} → {last[1]:,} widgets, {first[2]:,} → {last[2]:,} QObjects" if first and last
            else "-")
    return (f"SUMMARY seed {seed}: {done} actions; RSS MB start {rss(at.get(0))}, after 1000 {rss(first)}, "
            f"after {done} {rss(last)}; ratio {ratio} (goal ≤ 1.25); {objs}; "
            f"exceptions and Qt warnings {problems} (must be 0)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, default=10_000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)     # run one seed in this process
    args = ap.parse_args()
    if args.one is not None:
        return one_seed(args.one, args.actions)
    worst, lines = 0, []
    for seed in args.seeds:     # a fresh process per seed: its memory is its own
        with subprocess.Popen([sys.executable, __file__, "--one", str(seed), "--actions", str(args.actions)],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True) as child:
            for line in child.stdout:
                print(line, end="", flush=True)
                if line.strip().startswith("SUMMARY"):
                    lines.append(line.strip()[len("SUMMARY "):])
        worst = max(worst, child.returncode)
    print("\nper seed:")
    for line in lines:
        print(f"  {line}")
    return worst


if __name__ == "__main__":
    sys.exit(main())
