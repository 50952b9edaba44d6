"""``main.py estimate --json`` as a fresh process: wall time from spawn to exit.

    python benches/bench_cli_json.py [--runs 15]

The median of N runs (after one untimed run that byte-compiles and warms the page cache), as a
ratio to the 100 ms goal; beside it, for scale, a bare ``python -c "import numpy"`` timed the same
way, interleaved (a busy spell hits both alike): what the command cannot go below, with OpenBLAS's
default thread pool and with the one thread the command starts it with (cli.ONE_BLAS_THREAD). The
child's CPU time (user + system) is printed beside the wall time. Every child writes and reuses
byte-compiled modules in one scratch folder (PYTHONPYCACHEPREFIX, as benches/bench_ui_latency.py
starts its children: an installed app is byte-compiled; a PYTHONDONTWRITEBYTECODE in the
environment would otherwise make only our modules compile from source at every run). Asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benches"))
from bench_ui_latency import child_env  # noqa: E402  (the same byte-compiled start as the window's bench)
GOAL_S = 0.100
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1"}
CHILDREN = {"estimate --json": ([str(ROOT / "main.py"), "estimate", "--json"], {}),
            "python -c 'import numpy'": (["-c", "import numpy"], {}),
            "  with one BLAS thread": (["-c", "import numpy"], ONE_THREAD),
            "python -c pass": (["-c", "pass"], {})}


def run_s(argv: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds from spawn to exit, the child's CPU seconds, user + system: less swayed by a busy machine)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=str(ROOT), env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{argv} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in CHILDREN}
    with tempfile.TemporaryDirectory() as pycache:
        env = child_env(pycache)
        for rnd in range(args.runs + 1):
            for name, (argv, extra) in CHILDREN.items():
                t = run_s(argv, dict(env, **extra))
                if rnd:                                     # round 0: byte-compile, page cache
                    times[name].append(t)
    for name, ts in times.items():
        print(f"  {name:<26} wall median {statistics.median(t[0] for t in ts) * 1e3:6.1f} ms, "
              f"CPU median {statistics.median(t[1] for t in ts) * 1e3:6.1f} ms (of {len(ts)})")
    wall = statistics.median(t[0] for t in times["estimate --json"])
    cpu = statistics.median(t[1] for t in times["estimate --json"])
    print(f"estimate --json, fresh process: wall {wall * 1e3:.1f} ms, ratio to the {GOAL_S * 1e3:g} ms goal "
          f"{wall / GOAL_S:.2f}; CPU {cpu * 1e3:.1f} ms, ratio {cpu / GOAL_S:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
