"""Frozen-app size and start-up, each as a ratio to a bare PySide6 + pyqtgraph "hello window".

Both are built in this run from packaging/memory-wall.spec (same exclusions, same
PyInstaller) as one-folder bundles under build/bench/, then started the same way and timed
for the same work: `EXE --first-paint` under QT_QPA_PLATFORM=offscreen builds its main
window, shows it, lets the event loop paint its first frame (show, repaint, processEvents, as
benches/bench_ui_latency.py does) and prints FIRST-PAINT with the CPU seconds the process has
used (a grab() after that line checks that it renders). Start-up = wall time from exec to that line, and that CPU time (steadier on a shared
machine; the same point for both, exit costs excluded): the first run (files maybe not in
the page cache yet) and the median of the next runs. Memory Wall then builds what its first
paint left for later and prints BUILT: time to interactive. The ratios are also taken round by
round (each pair started one after the other, so the machine's drift through a run cancels),
with their range. Beside the plain hello window, the
same bundle started as Memory Wall starts (`--same-start`: no garbage collection before the
first paint, one OpenBLAS thread; ui/kit/quick_start.py): the ratio to it is what our own code costs.

    .venv/bin/python benches/bench_packaging.py [--runs 7] [--reuse]   (--reuse: bundles already built)
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benches"))
from start_lines import read_start_lines  # noqa: E402
SPEC = ROOT / "packaging" / "memory-wall.spec"
WORK = ROOT / "build" / "bench"

HELLO = textwrap.dedent("""
    import sys
    if "--same-start" in sys.argv:     # started as Memory Wall starts (ui/kit/quick_start.py; the bench
        import gc                      # also sets OPENBLAS_NUM_THREADS=1): what our own code costs
        gc.disable()
    from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget
    import pyqtgraph as pg

    app = QApplication(sys.argv)
    w = QWidget()
    w.setWindowTitle("hello")
    lay = QVBoxLayout(w)
    lay.addWidget(QLabel("hello, window"))
    plot = pg.PlotWidget()
    plot.plot([1, 4, 9, 16, 25])
    lay.addWidget(plot)
    w.resize(1600, 900)
    w.show()
    if "--first-paint" in sys.argv:
        import time
        w.repaint()
        app.processEvents()        # the first frame
        print("FIRST-PAINT", time.process_time(), flush=True)
        img = w.grab().toImage()   # it renders (a second paint: after the line)
        sys.exit(0 if not img.isNull() else 1)
    app.processEvents()
    sys.exit(app.exec())
""")


def build(name: str, entry: Path | None) -> Path:
    env = dict(os.environ, MEMORY_WALL_SPEC_NAME=name)
    env.pop("MEMORY_WALL_ONEFILE", None)
    if entry:
        env["MEMORY_WALL_SPEC_ENTRY"] = str(entry)
    subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "ERROR",
                    "--workpath", str(WORK / f"work-{name}"), "--distpath", str(WORK / "dist"), str(SPEC)],
                   cwd=ROOT, env=env, check=True)
    return WORK / "dist" / name


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def first_paint(cmd: list[str], env: dict) -> tuple[float, float, float | None]:
    """(wall seconds from exec to the FIRST-PAINT line, CPU seconds the process had used then,
    wall seconds to the BUILT line or None)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall, cpu, built = read_start_lines(proc, t0, "FIRST-PAINT")
    err = proc.stderr.read()
    proc.wait(120)
    if wall is None or proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} --first-paint failed: {err.strip()[-300:]}")
    return wall, cpu, built


def start_times(cmds: list[tuple[list[str], dict]], runs: int) -> tuple[list[tuple[tuple, tuple]], list[list[float]]]:
    """Per (command, extra environment): ((first wall, first CPU, first BUILT), (median wall,
    median CPU, median BUILT or None) of the later runs); and each command's wall times of the
    later runs, round by round. The commands take turns, so a busy spell hits all alike."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    with tempfile.TemporaryDirectory() as home:
        env["HOME"] = home
        env.pop("XDG_CONFIG_HOME", None)
        got = [[] for _ in cmds]
        for _ in range(runs):
            for i, (cmd, extra) in enumerate(cmds):
                got[i].append(first_paint(cmd + ["--first-paint"], dict(env, **extra)))
    out = []
    for g in got:
        rest = g[1:] or g
        built = [r[2] for r in rest if r[2] is not None]
        out.append((g[0], (statistics.median(r[0] for r in rest), statistics.median(r[1] for r in rest),
                           statistics.median(built) if built else None)))
    return out, [[r[0] for r in (g[1:] or g)] for g in got]


def round_ratios(app: list[float], base: list[float]) -> str:
    """The app's wall time over the base's, taken within each round (the two started one after
    the other, so the machine's drift through a run cancels): median and range."""
    r = sorted(a / b for a, b in zip(app, base))
    return f"{statistics.median(r):.2f} ({r[0]:.2f}–{r[-1]:.2f})"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--reuse", action="store_true", help="use the bundles an earlier run built")
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    hello_py = WORK / "hello_window.py"
    hello_py.write_text(HELLO)

    t0 = time.perf_counter()
    hello = WORK / "dist" / "hello-window" if args.reuse else build("hello-window", hello_py)
    t_hello = time.perf_counter() - t0
    t0 = time.perf_counter()
    app = WORK / "dist" / "memory-wall" if args.reuse else build("memory-wall", None)
    t_app = time.perf_counter() - t0

    size_h, size_a = folder_bytes(hello), folder_bytes(app)
    hello_exe = str(hello / "hello-window")
    ((first_h, med_h), (first_s, med_s), (first_a, med_a)), (walls_h, walls_s, walls_a) = start_times(
        [([hello_exe], {}), ([hello_exe, "--same-start"], {"OPENBLAS_NUM_THREADS": "1"}),
         ([str(app / "memory-wall")], {})], args.runs)

    mb = 1 / 1e6
    if not args.reuse:
        print(f"build time          hello {t_hello:6.1f} s   memory-wall {t_app:6.1f} s")
    print(f"bundle size         hello {size_h * mb:6.1f} MB  memory-wall {size_a * mb:6.1f} MB  "
          f"ratio {size_a / size_h:.2f}")
    for name, h, s, a in (("first paint, first run", first_h, first_s, first_a),
                          (f"first paint, median of {max(args.runs - 1, 1)}", med_h, med_s, med_a)):
        print(f"{name:32s} wall: hello {h[0]:5.3f} s, memory-wall {a[0]:5.3f} s, ratio {a[0] / h[0]:.2f}   "
              f"CPU: hello {h[1]:5.3f} s, memory-wall {a[1]:5.3f} s, ratio {a[1] / h[1]:.2f}")
        print(f"{'':32s} to the hello window started as Memory Wall starts (wall {s[0]:5.3f} s, CPU "
              f"{s[1]:5.3f} s): wall {a[0] / s[0]:.2f}, CPU {a[1] / s[1]:.2f}")
    print(f"{'':32s} round by round, wall: {round_ratios(walls_a, walls_h)} the hello window, "
          f"{round_ratios(walls_a, walls_s)} it started as Memory Wall starts")
    if med_a[2] is not None:
        print(f"time to interactive (memory-wall, median): {med_a[2]:.2f} s "
              f"(first paint + {med_a[2] - med_a[0]:.2f} s of deferred building)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
