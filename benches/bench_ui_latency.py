"""UI latency: control change → repainted window, and cold start to first paint.

    python benches/bench_ui_latency.py [--changes 200]

1. In-process, after the window's first moments on screen (START_IDLE_S, untimed: what it defers
   at start, the Lessons page and then its first chapter, is start-up work, not a change's): move
   the batch slider (one user action) and let the event loop do what it does for a user: the
   coalesced recompute, the views' updates, and Qt's repaint of every widget that changed (the
   time until the loop is idle again, the window painted).
   Median and p95 over many changes, as a ratio to one 16.7 ms frame (60 Hz), for the batch
   slider and for every other scenario control (GPU, model, precision, GPU count, KV precision,
   interconnect, input and output length, phase, engine), and the worst p95. Each control
   cycles through a few values, as a user going back and forth does (what the views keep of a
   value shown before helps there); "GPU, each one not shown before" changes to every
   catalogued GPU once, in each of FIRST_VISIT_ROUNDS fresh windows (pooled), so nothing a view
   kept of an earlier visit helps. What the window makes ahead while idle, after start and after
   every change, for the GPU menu's parts in the present scenario (the chip's frames and words,
   ui/chip/warm.py; the roofline's axis pictures, ui/explore/roofline_ahead.py) it makes here in the
   untimed start: the visits follow one another with no idle between them. Also printed: the
   batch change followed by a forced repaint of the *whole* window (every widget, changed or
   not): a worst case no user action causes.
2. Cold start, in subprocesses started the same way: time from spawn to the first painted
   main window, as a ratio to a bare PySide6 + pyqtgraph window (same machine, same run).
   Both run the same lines (build, show, repaint, processEvents, print the line); CPU is the
   child's own process time at that line (all threads), so exit costs count for neither.
   Both children write and reuse byte-compiled modules in one scratch folder
   (PYTHONPYCACHEPREFIX; one untimed warm-up start each): an installed app and its libraries
   are byte-compiled, and a PYTHONDONTWRITEBYTECODE in the environment would otherwise make
   only the app compile its ~100 modules from source at every start (~0.1 s here).
   The app is started as a user starts it (`main.py --first-paint`, ui/shell/app._first_paint),
   which starts without garbage collection and with one OpenBLAS thread (ui/kit/quick_start.py);
   the bare window is also timed started that way, and the ratio to it is what our own code
   costs. Then time to interactive: from spawn until the window has built what the first paint
   left for later (the Lessons page …; MainWindow.when_built).
Prints measured numbers; asserts nothing about time.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benches"))
from start_lines import read_start_lines  # noqa: E402
FRAME_MS = 1000.0 / 60.0

BARE = r"""
import time, sys
from PySide6.QtWidgets import QApplication, QMainWindow
from PySide6.QtCore import QTimer
import pyqtgraph as pg
app = QApplication([])
w = QMainWindow(); p = pg.PlotWidget(); p.plot([1, 2, 3], [1, 4, 9]); w.setCentralWidget(p)
w.resize(1600, 900); w.show(); w.repaint(); app.processEvents()
print("PAINTED", time.process_time(), flush=True)
"""

APP = ["main.py", "--first-paint"]          # the app as a user starts it (ui/shell/app._first_paint)

# The bare window started the way Memory Wall starts (ui/kit/quick_start.py: one OpenBLAS thread,
# no garbage collection before the first paint): the ratio to it is what our own code costs.
BARE_SAME_START = "import gc; gc.disable()\n" + BARE


def child_env(pycache: str) -> dict:
    """The same environment for both children: offscreen, byte-compiled modules kept in ``pycache``."""
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"), PYTHONPYCACHEPREFIX=pycache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_to_paint(child: str | list[str], env: dict) -> tuple[float, float, float | None]:
    """(wall seconds from spawn to the first-paint line, CPU seconds the child had used by then,
    wall seconds from spawn to the BUILT line or None when there is none). ``child``: Python code
    (prints PAINTED) or a script's argv (main.py --first-paint prints FIRST-PAINT)."""
    args, marker = (["-c", child], "PAINTED") if isinstance(child, str) else (child, "FIRST-PAINT")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env, cwd=str(ROOT))
    painted, cpu, built = read_start_lines(proc, t0, marker)
    proc.wait()
    if painted is None:
        raise RuntimeError("the subprocess never painted")
    return painted, cpu, built


def cold_starts(n: int) -> dict[str, list[tuple[float, float, float | None]]]:
    """n starts of each child, interleaved (a busy spell hits all alike), after one untimed warm-up each."""
    children = {"bare": (BARE, {}), "bare, same start": (BARE_SAME_START, {"OPENBLAS_NUM_THREADS": "1"}),
                "app": (APP, {})}
    out: dict[str, list] = {k: [] for k in children}
    with tempfile.TemporaryDirectory() as pycache:
        env = child_env(pycache)
        for rnd in range(n + 1):
            for name, (child, extra) in children.items():
                t = time_to_paint(child, dict(env, **extra))
                if rnd:                                     # round 0: byte-compile, page cache
                    out[name].append(t)
    return out


def print_cold_starts(starts: dict, n: int) -> None:
    print(f"cold start to first paint (median of {n}; the app as started by main.py --first-paint):")
    app = starts["app"]
    for what, i in (("wall", 0), ("CPU ", 1)):
        am = statistics.median(a[i] for a in app)
        bm = statistics.median(b[i] for b in starts["bare"])
        sm = statistics.median(b[i] for b in starts["bare, same start"])
        print(f"  {what}: bare PySide6+pyqtgraph window {bm:.3f} s; Memory Wall {am:.3f} s; ratio {am / bm:.2f}× "
              f"(to the bare window started as Memory Wall starts, {sm:.3f} s: {am / sm:.2f}×)")
    built = [a[2] for a in app if a[2] is not None]
    if built:
        tti, paint = statistics.median(built), statistics.median(a[0] for a in app)
        print(f"  time to interactive (everything built, wall): Memory Wall {tti:.2f} s "
              f"(first paint + {tti - paint:.2f} s of deferred building)")


CONTROLS = ("GPU", "model", "precision", "GPU count", "KV precision", "interconnect", "input length",
            "output length", "phase", "engine")        # every scenario control besides the batch slider
FIRST_VISIT = "GPU, each one not shown before"    # every catalogued GPU once: nothing of its own kept
FIRST_VISIT_ROUNDS = 3     # fresh windows, pooled: 29 first visits each, so its p95 is not the second-worst of 29
WARM = 13                                         # changes before the timed ones (fonts, glyphs, first layouts)


def _actions(w, kind: str, n: int) -> list:
    """n user actions of one kind, each a change from the one before (as a user makes them)."""
    from ui.explore.controls import batch_to_slider
    c = w.controller
    if kind == "batch slider":
        seq = [2 ** ((i + 1) % 13) for i in range(n)]          # 2, 4 … 4096, 1, 2 … (the default is 1)
        return [lambda b=b: w.controls.batch_slider.setValue(batch_to_slider(b)) for b in seq]
    choices = {"GPU": ("gpu", ["a100-sxm4-80gb", "h200-sxm-141gb", "l40s-48gb", "mi300x-192gb", "h100-sxm5-80gb"]),
               "model": ("model", ["llama-3.1-70b", "mixtral-8x7b", "llama-2-7b", "llama-3.1-8b"]),
               "precision": ("precision", ["fp8", "int4", "fp16", "bf16"]),
               "GPU count": ("gpus", [2, 4, 8, 1]),
               "KV precision": ("kv_precision", ["fp8", "int4", "bf16", None]),
               "interconnect": ("interconnect", ["pcie", "network", "nvlink"]),
               "input length": ("input_len", [2048, 4096, 512, 1024]),
               "output length": ("output_len", [2048, 4096, 512, 1024]),
               "phase": ("phase", ["prefill", "decode"]),
               "engine": ("engine", ["vllm", "sglang", "llama.cpp", "tensorrt-llm", "auto"])}
    if kind == FIRST_VISIT:         # the warm-up moves the batch; then each change is a GPU not shown before
        seq = [2 ** ((i + 1) % 13) for i in range(WARM)]
        warm = [lambda b=b: w.controls.batch_slider.setValue(batch_to_slider(b)) for b in seq]
        return warm + [lambda g=g: c.set(gpu=g) for g in _unseen_gpus(c.scenario)[:n]]
    field, values = choices[kind]
    return [lambda v=values[i % len(values)]: c.set(**{field: v}) for i in range(n)]


def _unseen_gpus(s) -> list[str]:
    """Every catalogued GPU the scenario runs on, but its own (none of them drawn yet)."""
    from model import estimate
    from model.catalog.active import default_catalog
    from model.errors import ModelError
    out = []
    for g in default_catalog().gpus:
        gid = getattr(g, "id", g)
        try:
            estimate(s.with_(gpu=gid))
        except ModelError:
            continue
        if gid != s.gpu:
            out.append(gid)
    return out


START_IDLE_S = 1.5     # untimed, before the first change: what the window defers at start (the Lessons page,
                       # then its first chapter 400 ms later: ~45 ms at once) is start-up, not a control change;
                       # what is made ahead (from 400 ms, a GPU per turn of the loop: ui/kit/idle_work.py) falls in it too


def _idle(app, seconds: float) -> None:
    """Run the event loop (timers included) for ``seconds``, as the window's first moments on screen."""
    from PySide6.QtCore import QEventLoop
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents(QEventLoop.AllEvents, 20)
        time.sleep(0.002)


def change_latency(n: int, kind: str = "batch slider", full: bool = False) -> tuple[list[float], list[float]]:
    """(wall ms, CPU ms) per change, until the event loop has painted the window; with
    ``full``, then also a forced repaint of every widget in the window."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    from ui.kit import quick_start
    quick_start.begin()              # as main.py starts the window: collection resumes after its first paint
    from ui.shell.app import build_window
    from ui.kit.qt_app import ensure_app, settle
    app = ensure_app()
    w = build_window(None, st=None)
    w.resize(1600, 900)
    w.show()
    settle(app)
    _idle(app, START_IDLE_S)
    done = []
    w.controller.changed.connect(lambda _snap: done.append(1))
    warm = WARM                                          # the first round warms caches (fonts, glyphs)
    out, cpu = [], []
    for i, act in enumerate(_actions(w, kind, n + warm)):
        before = len(done)
        t0, c0 = time.perf_counter(), time.process_time()
        act()                                            # the user action
        for _ in range(1000):                            # the recompute, posted ahead of the repaint
            if len(done) > before:
                break
            app.processEvents()
        else:
            raise RuntimeError(f"{kind}: no new estimate ({w.controller.problem or 'no change'})")
        for _ in range(3):                               # Qt's repaint of what changed (low priority),
            app.processEvents()                          # then anything a paint left for later
        if full:
            w.repaint()                                  # every widget, changed or not
        if i >= warm:
            out.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
    w.close()
    w.deleteLater()
    return out, cpu


def _in_fresh_process(kind: str, n: int, full: bool) -> tuple[list[float], list[float]]:
    """``change_latency`` in a process of its own: one window, as a user has (windows left
    over from an earlier run would still filter every event and skew the later runs)."""
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    out = subprocess.run([sys.executable, __file__, "--one", kind, str(n), "1" if full else "0"], env=env,
                         cwd=str(ROOT), capture_output=True, text=True, check=True).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return data["wall"], data["cpu"]


def _stats(xs: list[float]) -> tuple[float, float]:
    return statistics.median(xs), sorted(xs)[max(0, int(round(0.95 * len(xs))) - 1)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=200)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--starts-only", action="store_true", help="only the cold starts")
    ap.add_argument("--changes-only", action="store_true", help="only the control changes")
    ap.add_argument("--one", nargs=3, metavar=("KIND", "N", "FULL"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        lat, cpu = change_latency(int(args.one[1]), args.one[0], args.one[2] == "1")
        print(json.dumps({"wall": lat, "cpu": cpu}))
        return 0

    starts = None if args.changes_only else cold_starts(args.starts)
    if args.starts_only:
        print_cold_starts(starts, args.starts)
        return 0
    print(f"control change → repainted window at 1600×900 (one frame = {FRAME_MS:.1f} ms):")
    runs = [("batch slider", args.changes, False)] + [(k, args.changes // 4, False) for k in CONTROLS]
    runs.append((FIRST_VISIT, args.changes // 4, False))
    runs.append(("batch slider", args.changes // 2, True))
    worst = (0.0, "")
    for kind, n, full in runs:
        lat, cpu = [], []
        for _ in range(FIRST_VISIT_ROUNDS if kind == FIRST_VISIT else 1):
            more = _in_fresh_process(kind, n, full)
            lat, cpu = lat + more[0], cpu + more[1]
        n = len(lat)
        what = f"{kind}, then every widget forced" if full else kind
        (wm, wp), (cm, cp) = _stats(lat), _stats(cpu)
        print(f"  {what:<36} ({n:>3}): wall median {wm:5.1f} ms p95 {wp:5.1f} ms = {wp / FRAME_MS:.2f} frames; "
              f"CPU median {cm:5.1f} ms p95 {cp:5.1f} ms = {cp / FRAME_MS:.2f} frames")
        if not full and kind != FIRST_VISIT:
            worst = max(worst, (wp / FRAME_MS, kind))
    print(f"  worst control (values shown before): {worst[1]}, wall p95 {worst[0]:.2f} frames (goal ≤ 1)")
    if starts is not None:
        print_cold_starts(starts, args.starts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
