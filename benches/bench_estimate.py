"""One in-process estimate: the time per call of ``model.estimate`` (the window recomputes it at
every control change; the command line once).

    python benches/bench_estimate.py [--calls 2000]

For each of a few scenarios (the default, FP8 at batch 256, an 8-GPU MoE, a 16-GPU FP4 one, a PCIe
pair), the median over many rounds of the time per call; printed with the median over the
scenarios and its ratio to the 0.1 ms goal (< 1 meets it). Asserts nothing about time.
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from model import Scenario, estimate  # noqa: E402

GOAL_S = 1e-4
SCENARIOS = [
    Scenario(),
    Scenario(gpu="h200", model="llama-3.1-8b", precision="fp8", batch=256),
    Scenario(gpu="mi300x", model="mixtral-8x7b", precision="bf16", batch=64, gpus=8),
    Scenario(gpu="b200", model="deepseek-v3", precision="fp4", batch=512, gpus=16),
    Scenario(gpu="4090", model="llama-2-7b", precision="int4", batch=4, gpus=2, interconnect="pcie"),
]


def per_call_s(s: Scenario, calls: int, rounds: int = 15) -> float:
    """Median over ``rounds`` of (time for calls/rounds estimates) / (calls/rounds)."""
    n = max(1, calls // rounds)
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            estimate(s)
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000, help="estimates per scenario")
    args = ap.parse_args()
    for s in SCENARIOS:
        estimate(s)                                       # warm: catalogue read, caches
    times = [per_call_s(s, args.calls) for s in SCENARIOS]
    for s, t in zip(SCENARIOS, times):
        print(f"  {s.gpu:>8} {s.model:<14} {s.precision:<5} batch {s.batch:<4} × {s.gpus:<2} GPUs: {t * 1e3:.4f} ms")
    med = statistics.median(times)
    print(f"estimate, in process: {med * 1e3:.4f} ms per call (median over {len(SCENARIOS)} scenarios); "
          f"ratio to the {GOAL_S * 1e3:g} ms goal: {med / GOAL_S:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
