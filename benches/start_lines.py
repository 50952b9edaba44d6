"""Read a started app's timing lines: the start benches share this (bench_ui_latency, bench_packaging)."""
from __future__ import annotations

import subprocess
import time


def read_start_lines(proc: subprocess.Popen, t0: float, marker: str) -> tuple[float | None, float | None, float | None]:
    """(wall seconds from ``t0`` to the ``marker`` line, the CPU seconds that line printed, wall
    seconds to the BUILT line or None) from ``proc``'s standard output, read to its end."""
    wall = cpu = built = None
    for line in proc.stdout:
        if line.startswith(marker):
            wall, cpu = time.perf_counter() - t0, float(line.split()[1])
        elif line.startswith("BUILT"):
            built = time.perf_counter() - t0
    return wall, cpu, built
