"""How fast the planner draws a frontier (issue 25: at least 500 configurations in at most 2 s).

The frontier is the steady state of every configuration (model/planning/steady.py,
disaggregated.py) and its Pareto filter; the serving simulator then runs only on the frontier's
points (timed apart). Three plans: Llama 3.1 8B on consumer and data-centre GPUs, Llama 3.1 70B
on H100/H200/MI300X, DeepSeek-V3 on one or two nodes of H100 or H200. Prints the median of 3 runs (wall and
CPU), configurations swept, the ratio to the 2 s goal (< 1 meets it) and configurations per second,
then aiconfigurator's published figure for scale.
"""
from __future__ import annotations

import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import model  # noqa: E402,F401  (registers the catalogue loaders)
from model.planning.frontier import frontier_indices, point_table  # noqa: E402
from model.planning.plan import simulate  # noqa: E402
from model.planning.space import PlanRequest, check_request, parse_available  # noqa: E402

GOAL_S = 2.0
PEER = "NVIDIA aiconfigurator reports under 30 s per search (as issue 25 quotes it)"
CASES = (
    ("8B, consumer + data-centre", PlanRequest("llama-3.1-8b", 1000, 200, parse_available("4090:8,l40s:8,h100:8"), 500, 25)),
    ("70B, H100/H200/MI300X", PlanRequest("llama-3.1-70b", 1000, 200, parse_available("h100:16,h200:8,mi300x:8"), 500, 25)),
    ("DeepSeek-V3, 1–2 nodes of H100/H200", PlanRequest("deepseek-v3", 1000, 200, parse_available("h100:16,h200:16"), 1000, 50,
                                                 precisions=("fp8",))),
)


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    for name, req in CASES:
        r = check_request(req)
        walls, cpus = [], []
        for _ in range(3):
            (t, front), w, c = timed(lambda: (lambda t: (t, frontier_indices(t)))(point_table(r)))
            walls.append(w)
            cpus.append(c)
        w, c = statistics.median(walls), statistics.median(cpus)
        _, sw, sc = timed(lambda: [simulate(t, int(i), r) for i in front])
        print(f"{name}: {t.swept:,} configurations ({len(t):,} feasible, {len(front)} on the frontier) in "
              f"{w * 1e3:.0f} ms wall / {c * 1e3:.0f} ms CPU: ratio to the {GOAL_S:g} s goal {w / GOAL_S:.2f} "
              f"(CPU {c / GOAL_S:.2f}); {t.swept / w:,.0f} configurations/s; the simulator on the "
              f"{len(front)} frontier points: {sw:.2f} s wall / {sc:.2f} s CPU")
    print(f"for scale: {PEER}")


if __name__ == "__main__":
    main()
