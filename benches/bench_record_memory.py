"""Memory of a GIF recording: peak RSS of a 1920×1080 chip recording at two lengths, in fresh
processes, and the slope per frame, extrapolated to the longest recording the limit allows
(1080p at 60 frames/s for 120 s = 7200 frames) against the 300 MB goal.

    python benches/bench_record_memory.py [--frames 20 60]

Peak RSS is the child's own (resource.getrusage ru_maxrss). Asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_MB = 300.0
LONGEST_FRAMES = 60 * 120

CHILD = r"""
import os, resource, sys
sys.path.insert(0, sys.argv[1])
from ui.kit.qt_app import ensure_app
ensure_app()
import pyqtgraph as pg
pg.setConfigOptions(antialias=True, useOpenGL=False)
from ui.present.recording import record
frames = int(sys.argv[3])
import inspect
extra = {"replace": True} if "replace" in inspect.signature(record).parameters else {}   # (older: no such flag)
record(sys.argv[2], seconds=frames / 60.0, size=(1920, 1080), fps=60, **extra)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
"""


def peak_mb(frames: int, folder: str) -> float:
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), os.path.join(folder, f"r{frames}.gif"), str(frames)],
                         env=env, capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, nargs=2, default=(20, 60))
    args = ap.parse_args()
    a, b = args.frames
    with tempfile.TemporaryDirectory() as folder:
        ra, rb = peak_mb(a, folder), peak_mb(b, folder)
    slope = (rb - ra) / (b - a)
    longest = rb + slope * (LONGEST_FRAMES - b)
    print(f"1920×1080 GIF: peak RSS {ra:.0f} MB at {a} frames, {rb:.0f} MB at {b} frames: "
          f"{slope:+.3f} MB per frame")
    print(f"extrapolated to {LONGEST_FRAMES} frames (60 frames/s × 120 s): {longest:.0f} MB; "
          f"ratio to the {GOAL_MB:.0f} MB goal: {longest / GOAL_MB:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
