#!/usr/bin/env python3
"""Soak: the UI fuzz walk (tests/fuzz_walk.py) for many actions per seed, with memory.

    python benches/soak_ui.py [--actions 10000] [--seeds 1 2 3]      (make soak)

Each seed runs in a fresh process: the main window at 1600×900, then N seeded random actions
(every control, key, page, resize, export and file action). Prints RSS at start, after the
warm-up (every page built once, every size seen once), and every 1 000 actions, with the C
heap's live and free bytes (glibc mallinfo2) and Python's live blocks, so a rise can be told
apart: pages built once, memory the allocator keeps but does not use, or a leak. Each reading
is taken in the same state — Explore page, 1600×900, not presenting, after the app has sat
idle past its heap trim (ui/app.steady_heap, every 10 s) — because live memory depends on the
state (a 2560×1440 presenter window holds twice the pixmaps of 1600×900). The raw RSS at the
moment the 1 000th action ended is printed too. Ends with RSS(N) / RSS(1 000) per seed
(goal ≤ 1.25). Any exception or Qt warning stops the seed with
exit status 1. Prints measurements; asserts nothing about time.
"""
from __future__ import annotations

import argparse
import ctypes
import os
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


def reading(label: str) -> float:
    live, free = c_heap_mb()
    rss = rss_mb()
    print(f"  {label:>22s}: RSS {rss:6.1f} MB   C heap live {live:6.1f} MB, free kept {free:6.1f} MB   "
          f"Python blocks {sys.getallocatedblocks():,}", flush=True)
    return rss


def warm_up(w, app) -> None:
    """Build every page once and see every size once: what the first 1 000 actions do anyway."""
    from fuzz_walk import SIZES
    for n in range(1, 9):
        w.show_chapter(n)
        app.processEvents()
    w.show_explore()
    for size in SIZES:
        w.resize(*size)
        app.processEvents()
    w.resize(1600, 900)
    app.processEvents()


def same_state(w, app) -> None:
    """Explore, 1600×900, no presenter, then idle past the app's next heap trim."""
    from PySide6.QtTest import QTest
    from ui.app import TRIM_EVERY_MS
    if w.presenter.active:
        w.presenter.leave()
    w.set_chip_focus(False)
    w.show_explore()
    w.resize(1600, 900)
    app.processEvents()
    QTest.qWait(TRIM_EVERY_MS + 1000)


def one_seed(seed: int, actions: int) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    problems: list[str] = []

    def on_message(kind, _ctx, message):
        if kind != QtMsgType.QtDebugMsg and not message.startswith("This plugin does not support"):
            problems.append(f"Qt {kind.name}: {message}")
    qInstallMessageHandler(on_message)
    sys.excepthook = lambda *exc: problems.append("".join(traceback.format_exception(*exc)))
    from fuzz_walk import FuzzWalk
    from model import Scenario
    from ui.app import build_window, ensure_app, settle
    app = ensure_app()
    w = build_window(Scenario(), st=None)
    w.resize(1600, 900)
    w.show()
    settle(app)
    print(f"seed {seed}: {actions} actions", flush=True)
    reading("start")
    warm_up(w, app)
    reading("after warm-up")
    rss: dict[int, float] = {}
    t0 = time.process_time()

    def every(done: int) -> None:
        print(f"  {'(as the action ended)':>22s}: RSS {rss_mb():6.1f} MB", flush=True)
        same_state(w, app)
        rss[done] = reading(f"after {done} actions")
        if problems:
            raise RuntimeError(problems[0])
    with tempfile.TemporaryDirectory() as tmp, FuzzWalk(w, seed, Path(tmp)) as walk:
        try:
            walk.run(actions, every=every, every_n=1000)
        except Exception as exc:  # noqa: BLE001 - reported as one failure
            problems.append(f"{type(exc).__name__}: {exc}")
    cpu = time.process_time() - t0
    print(f"  CPU {cpu:.0f} s = {1e3 * cpu / max(walk.done, 1):.1f} ms per action")
    if problems:
        print(f"  FAILED after {walk.done} actions: {problems[0].strip().splitlines()[-1]}")
        return 1
    if 1000 in rss and actions in rss:
        print(f"  RSS after {actions} / after 1000: {rss[actions] / rss[1000]:.3f} (goal ≤ 1.25)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, default=10_000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)     # run one seed in this process
    args = ap.parse_args()
    if args.one is not None:
        return one_seed(args.one, args.actions)
    worst = 0
    for seed in args.seeds:     # a fresh process per seed: its memory is its own
        worst = max(worst, subprocess.call([sys.executable, __file__, "--one", str(seed),
                                            "--actions", str(args.actions)], cwd=ROOT))
    return worst


if __name__ == "__main__":
    sys.exit(main())
