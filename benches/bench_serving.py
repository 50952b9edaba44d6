"""How fast the serving simulator runs, and how much memory it takes.

Goals (issue 24): 1 000 requests in at most 100 ms, 10 000 in at most 1 s, at most 200 MB for
100 000 requests. The run is the Serve page's: Llama 3.1 8B in BF16 on one H100 (vLLM's scheduler),
ShareGPT-like lengths, Poisson arrivals at 80% of what it can serve ("auto"), the step table built
inside the timing. Prints medians of 5 runs and the ratio to each goal (< 1 meets it), then the
peers' published figures for scale, and one run of each load kind. Memory: tracemalloc's peak
(Python and numpy allocations) while one 100 000-request run and its summary are made, in a
fresh process, and that process's peak RSS (the interpreter and numpy included).
"""
from __future__ import annotations

import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import model  # noqa: E402,F401  (registers the catalogue loaders)
from model.physics.scenario import Scenario  # noqa: E402
from model.serving.results import summarize  # noqa: E402
from model.serving.run import serve  # noqa: E402
from model.serving.setup import ServingSetup  # noqa: E402

SCENARIO = Scenario()
PEERS = ("LLMServingSim reports ~353 s per experiment; Vidur, seconds per simulated run (as issue 24 quotes them)")
MEMORY_CHILD = """
import sys, tracemalloc, resource
sys.path.insert(0, {root!r})
import model
from model.physics.scenario import Scenario
from model.serving.results import summarize
from model.serving.run import serve
from model.serving.setup import ServingSetup
tracemalloc.start()
run = serve(Scenario(), ServingSetup(requests=100_000, lengths="sharegpt"))
sm = summarize(run)
peak = tracemalloc.get_traced_memory()[1]
print(peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, sm.requests)
"""


def timed(setup: ServingSetup, rounds: int = 5) -> tuple[float, float]:
    """(wall s, CPU s) medians: the machine is shared, so its wall clock carries other people's work."""
    wall, cpu = [], []
    for _ in range(rounds):
        t0, c0 = time.perf_counter(), time.process_time()
        summarize(serve(SCENARIO, setup))
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def main() -> int:
    serve(SCENARIO, ServingSetup(requests=50))          # first use: the catalogue, the tables' code paths
    base = ServingSetup(lengths="sharegpt")
    for n, goal in ((1_000, 0.1), (10_000, 1.0)):
        t, c = timed(base.with_(requests=n), rounds=5 if n <= 1000 else 3)
        print(f"{n:>6,} requests: {t * 1e3:8.1f} ms wall, {c * 1e3:8.1f} ms CPU (medians); ratio to the "
              f"{goal * 1e3:.0f} ms goal: {t / goal:.2f} wall, {c / goal:.2f} CPU")
    for name, s in (("concurrency 64, 1024/128, 1 000 requests", ServingSetup(load="concurrency", concurrency=64,
                                                                               input_len=1024, output_len=128)),
                    ("burst of 1 000, 1024/1024 (KV cache full: preemptions)", ServingSetup(load="burst",
                                                                                            input_len=1024, output_len=1024)),
                    ("rate auto, speculative k = 3, α = 0.7, 1 000 requests", ServingSetup(spec_k=3, spec_accept=0.7))):
        t, c = timed(s, rounds=3)
        print(f"  {name}: {t * 1e3:.1f} ms wall, {c * 1e3:.1f} ms CPU")
    out = subprocess.run([sys.executable, "-c", MEMORY_CHILD.format(root=str(ROOT))], capture_output=True, text=True,
                         check=True).stdout.split()
    peak, rss = int(out[0]), int(out[1])
    print(f"100,000 requests: tracemalloc peak {peak / 1e6:.1f} MB, process peak RSS {rss / 1e6:.1f} MB; "
          f"ratio to the 200 MB goal: {peak / 200e6:.2f} (RSS: {rss / 200e6:.2f})")
    print(f"for scale: {PEERS}")
    print(f"(load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
