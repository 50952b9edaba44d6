"""How fast the model answers: one in-process estimate, and a 4096-point batch sweep.

Goals (so the window never waits on the model): estimate < 0.1 ms, sweep < 5 ms.
Prints the measured medians and their ratio to each goal (< 1 meets it).
"""
from __future__ import annotations

import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from model import estimate  # noqa: E402
from model.physics.sweep import sweep_batch  # noqa: E402

from bench_estimate import SCENARIOS  # noqa: E402  (the same five scenarios)


def per_call_s(fn, repeats: int, rounds: int = 7) -> float:
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        samples.append((time.perf_counter() - t0) / repeats)
    return statistics.median(samples)


def main() -> int:
    for s in SCENARIOS:
        estimate(s)
    est = statistics.median(per_call_s(lambda s=s: estimate(s), 500) for s in SCENARIOS)
    batches = np.arange(1, 4097)
    sw = statistics.median(per_call_s(lambda s=s: sweep_batch(s, batches), 20) for s in SCENARIOS)
    print(f"estimate: {est * 1e3:.4f} ms per call (median over {len(SCENARIOS)} scenarios); "
          f"ratio to the 0.1 ms goal: {est / 1e-4:.2f}")
    print(f"sweep (4096 batches): {sw * 1e3:.3f} ms per call; ratio to the 5 ms goal: {sw / 5e-3:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
