"""One in-process estimate: the time per call of ``model.estimate`` (the window recomputes it at
every control change; the command line once).

    python benches/bench_estimate.py [--calls 2000]

For each of a few scenarios (the default, FP8 at batch 256, an 8-GPU MoE, a 16-GPU FP4 one, a PCIe
pair), the median over many rounds of the time per call; printed with the median over the
scenarios and its ratio to the 0.1 ms goal (< 1 meets it). Asserts nothing about time.

Each call is a different scenario, as in the window after a control change: the base scenario
with its batch, input and output lengths cycled through 64, 47 and 53 values (coprime: no
(batch, input, output) repeats within 159 744 calls), so nothing kept per whole scenario can
answer a call. ``--repeat`` times the base scenario itself over and over instead (what this
bench measured before: a cache of whole scenarios would only be hit there).
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


BATCHES = list(range(1, 17)) + [round(16 * 256 ** (k / 48)) for k in range(1, 49)]   # 1 … 4096
INPUTS = [128 + 173 * k for k in range(47)]            # 128 … 8086 tokens
OUTPUTS = [64 + 79 * k for k in range(53)]             # 64 … 4172 tokens


def variants(base: Scenario, calls: int) -> list[Scenario]:
    """``calls`` scenarios, each differing from the one before in batch, input and output length."""
    return [base.with_(batch=BATCHES[i % len(BATCHES)], input_len=INPUTS[i % len(INPUTS)],
                       output_len=OUTPUTS[i % len(OUTPUTS)]) for i in range(calls)]


def per_call_s(s: Scenario, calls: int, rounds: int = 15, repeat: bool = False) -> float:
    """Median over ``rounds`` of (time for calls/rounds estimates) / (calls/rounds); each call a new
    scenario (``variants``), or ``s`` itself every time with ``repeat``."""
    n = max(1, calls // rounds)
    todo = [s] * calls if repeat else variants(s, calls)
    samples = []
    for r in range(rounds):
        chunk = todo[r * n:(r + 1) * n]
        t0 = time.perf_counter()
        for x in chunk:
            estimate(x)
        samples.append((time.perf_counter() - t0) / len(chunk))
    return statistics.median(samples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000, help="estimates per scenario")
    ap.add_argument("--repeat", action="store_true", help="the same scenario at every call (not a control change)")
    args = ap.parse_args()
    for s in SCENARIOS:
        estimate(s)                                       # warm: catalogue read, caches
    times = [per_call_s(s, args.calls, repeat=args.repeat) for s in SCENARIOS]
    for s, t in zip(SCENARIOS, times):
        print(f"  {s.gpu:>8} {s.model:<14} {s.precision:<5} batch {s.batch:<4} × {s.gpus:<2} GPUs: {t * 1e3:.4f} ms")
    med = statistics.median(times)
    what = "the same scenario at every call" if args.repeat else "each call a new batch and context"
    print(f"estimate, in process ({what}): {med * 1e3:.4f} ms per call (median over {len(SCENARIOS)} scenarios); "
          f"ratio to the {GOAL_S * 1e3:g} ms goal: {med / GOAL_S:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
