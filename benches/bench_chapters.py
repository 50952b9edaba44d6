#!/usr/bin/env python3
"""Lessons speed: chapter switching and presenter glides, offscreen at 1920×1080.

    python benches/bench_chapters.py [--rounds 3]

1. Chapter switch → repainted window: the first visit (the page is built then), later
   visits (the page is kept), per chapter and as median / p95 in 16.7 ms frames, and the first
   visit after a pause (the page built while idle, as while a speaker talks: ui/lessons/page.py).
2. Glides (Space in presenter mode: the scenario glides to the next prepared state): the
   work per animation frame (the coalesced recompute and the repaint of what changed),
   median / p95 in frames, and the frames a glide got against the frames its duration allows.
Both let the event loop repaint what changed, as it does for a user (no forced repaint of
every widget; benches/bench_ui_latency.py prints that worst case for a control change).
Times are CPU time of this process (time.process_time: steady on a shared machine, and on
a single-threaded UI the time the user waits when the machine is not busy), with wall time
beside. Prints measurements; asserts nothing about time.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

FRAME_MS = 1000.0 / 60.0


def p95(values: list[float]) -> float:
    s = sorted(values)
    return s[max(0, int(round(0.95 * len(s))) - 1)]


def frames(values: list[float]) -> str:
    return (f"median {statistics.median(values):6.1f} ms = {statistics.median(values) / FRAME_MS:.2f} frames, "
            f"p95 {p95(values):6.1f} ms = {p95(values) / FRAME_MS:.2f} frames")


WALL: list[float] = []


def paint_rounds(app) -> None:
    """Let the event loop do what it does for a user: the recompute, then Qt's repaint of
    every widget that changed, then anything a paint left for later."""
    for _ in range(3):
        app.processEvents()


def idle(app, seconds: float) -> None:
    """The event loop with nothing to do for ``seconds`` (timers run)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.005)


def switch(w, app, n: int) -> float:
    t0, c0 = time.perf_counter(), time.process_time()
    w.show_chapter(n)
    paint_rounds(app)
    WALL.append((time.perf_counter() - t0) * 1e3)
    return (time.process_time() - c0) * 1e3


def glide_frames(w, app, chapter: int) -> tuple[list[float], int, int]:
    """Glide through every prepared state of ``chapter``: per-frame work (ms), frames got, frames allowed."""
    lessons = w.lessons
    lessons.show_chapter(chapter, 0, animate=False)
    app.processEvents()
    work: list[float] = []
    got = allowed = 0
    for index in range(1, len(lessons.chapters[chapter - 1].states)):
        t_start = time.perf_counter()
        lessons.show_chapter(chapter, index, animate=True)
        while lessons.glide.running:
            t0, c0 = time.perf_counter(), time.process_time()
            paint_rounds(app)            # the animation's step, the coalesced recompute, the repaint
            work.append((time.process_time() - c0) * 1e3)
            WALL.append((time.perf_counter() - t0) * 1e3)
            got += 1
            rest = FRAME_MS / 1e3 - (time.perf_counter() - t0)
            if rest > 0:
                time.sleep(rest)         # a display would wait for the next vsync
        allowed += int((time.perf_counter() - t_start) * 1e3 / FRAME_MS)
    return work, got, allowed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from model import Scenario
    from ui.shell.app import build_window
    from ui.kit.qt_app import ensure_app, settle
    app = ensure_app()
    w = build_window(Scenario(), st=None)
    w.resize(1920, 1080)
    w.show()
    settle(app)
    first = {n: switch(w, app, n) for n in range(1, 9)}
    later: list[float] = []
    for _ in range(args.rounds):
        for n in range(1, 9):
            later.append(switch(w, app, n))
    print("chapter switch → repainted window, 1920×1080:")
    print("  first visit (page built): " + ", ".join(f"{n}: {ms:.0f}" for n, ms in first.items()) + " ms")
    print(f"  first visit:  {frames(list(first.values()))}")
    print(f"  later visits: {frames(later)}  ({len(later)} switches)")
    w2 = build_window(Scenario(), st=None)             # a fresh window: every page still to build
    w2.resize(1920, 1080)
    w2.show()
    settle(app)
    warmed = []
    for n in range(1, 9):
        idle(app, 0.6)                                   # the speaker talks: the next page is built meanwhile
        warmed.append(switch(w2, app, n))
    w2.close()
    print(f"  first visit after a pause (its page built while idle): {frames(warmed)}")
    print(f"  (wall time of the same switches: {frames(WALL)})")
    WALL.clear()
    w.enter_presenter(fullscreen=False)
    w.resize(1920, 1080)
    settle(app)
    work: list[float] = []
    got = allowed = 0
    per_chapter = []
    for chapter in range(1, 9):
        wk, g, a = glide_frames(w, app, chapter)
        work += wk
        got += g
        allowed += a
        per_chapter.append(f"{chapter}: {statistics.median(wk):.0f}/{p95(wk):.0f}" if wk else f"{chapter}: -")
    print("presenter glides (every prepared state of every chapter), per animation frame:")
    print(f"  work {frames(work)}")
    print("  per chapter, median/p95 ms: " + ", ".join(per_chapter))
    print(f"  (wall time of the same frames: {frames(WALL)})")
    print(f"  frames drawn {got} of {allowed} the glides' time allows ({got / max(allowed, 1):.2f})")
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
