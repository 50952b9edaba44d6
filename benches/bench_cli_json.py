"""``main.py estimate --json`` as a fresh process: wall time from spawn to exit.

    python benches/bench_cli_json.py [--runs 15]

The median of N runs (after one untimed run that byte-compiles and warms the page cache), as a
ratio to the 100 ms goal; beside it, for scale, a bare ``python -c "import numpy"`` timed the same
way, interleaved (a busy spell hits both alike): what the command cannot go below. Asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_S = 0.100
CHILDREN = {"estimate --json": [str(ROOT / "main.py"), "estimate", "--json"],
            "python -c 'import numpy'": ["-c", "import numpy"],
            "python -c pass": ["-c", "pass"]}


def wall_s(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   cwd=str(ROOT), env=dict(os.environ))
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    times: dict[str, list[float]] = {k: [] for k in CHILDREN}
    for rnd in range(args.runs + 1):
        for name, argv in CHILDREN.items():
            t = wall_s(argv)
            if rnd:
                times[name].append(t)
    for name, ts in times.items():
        print(f"  {name:<26} median {statistics.median(ts) * 1e3:6.1f} ms (of {len(ts)})")
    med = statistics.median(times["estimate --json"])
    print(f"estimate --json, fresh process: {med * 1e3:.1f} ms; ratio to the {GOAL_S * 1e3:g} ms goal: {med / GOAL_S:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
