"""Frozen-app size and start-up, each as a ratio to a bare PySide6 + pyqtgraph "hello window".

Both are built in this run from packaging/memory-wall.spec (same exclusions, same
PyInstaller) as one-folder bundles under build/bench/, then started the same way:
`EXE --smoke` under QT_QPA_PLATFORM=offscreen, which builds the window, paints it into
an image and exits. Start-up = wall time from exec to exit: the first run (files maybe
not in the page cache yet) and the median of the next runs.

    .venv/bin/python benches/bench_packaging.py [--runs 7]
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
SPEC = ROOT / "packaging" / "memory-wall.spec"
WORK = ROOT / "build" / "bench"

HELLO = textwrap.dedent("""
    import sys
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
    w.resize(1280, 800)
    w.show()
    app.processEvents()
    if "--smoke" in sys.argv:
        img = w.grab().toImage()   # paint the whole window once
        sys.exit(0 if not img.isNull() else 1)
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


def start_times(exe: Path, runs: int) -> tuple[float, float]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    times = []
    with tempfile.TemporaryDirectory() as home:
        env["HOME"] = home
        for _ in range(runs):
            t0 = time.perf_counter()
            proc = subprocess.run([str(exe), "--smoke"], env=env, capture_output=True, text=True, timeout=120)
            times.append(time.perf_counter() - t0)
            if proc.returncode != 0:
                raise SystemExit(f"{exe} --smoke failed: {proc.stderr.strip()[-300:]}")
    return times[0], statistics.median(times[1:]) if len(times) > 1 else times[0]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    hello_py = WORK / "hello_window.py"
    hello_py.write_text(HELLO)

    t0 = time.perf_counter()
    hello = build("hello-window", hello_py)
    t_hello = time.perf_counter() - t0
    t0 = time.perf_counter()
    app = build("memory-wall", None)
    t_app = time.perf_counter() - t0

    size_h, size_a = folder_bytes(hello), folder_bytes(app)
    first_h, med_h = start_times(hello / "hello-window", args.runs)
    first_a, med_a = start_times(app / "memory-wall", args.runs)

    mb = 1 / 1e6
    print(f"build time          hello {t_hello:6.1f} s   memory-wall {t_app:6.1f} s")
    print(f"bundle size         hello {size_h * mb:6.1f} MB  memory-wall {size_a * mb:6.1f} MB  "
          f"ratio {size_a / size_h:.2f}")
    print(f"start, first run    hello {first_h:6.2f} s   memory-wall {first_a:6.2f} s   "
          f"ratio {first_a / first_h:.2f}")
    print(f"start, median of {args.runs - 1} hello {med_h:6.2f} s   memory-wall {med_a:6.2f} s   "
          f"ratio {med_a / med_h:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
