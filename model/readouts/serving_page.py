"""What the Serve page draws, made from a run: its big numbers, the two distributions with their
percentile marks and targets, the run over time, the queue's words and the animation's clock.

    distribution  log-spaced bins between the 0.5th and the 99.5th percentile (a few outliers
                  land in the end bins); marks at p50, p90, p99; the target line where one is set
    clock         screen seconds per simulated second: the 1-2-5 value that plays the whole run
                  in about PLAY_S seconds (a run shorter than that plays at 1×)
"""
from __future__ import annotations

import math

import numpy as np

from model.readouts.flow import nice_125
from model.readouts.format import duration, si, sig3
from model.readouts.numbers import Readout, count_text
from model.readouts.serving import serving_readouts, with_bands
from model.serving.results import Summary, per_request, series
from model.serving.run import ServingRun
from model.values import frozen

PLAY_S = 20.0
BINS = 28
BUSY = "Simulating… (the numbers below are the last run's until it is done)"
TILE_KEYS = ("ttft_p90", "tpot_p90", "request_throughput", "mean_waiting", "preemptions")
LANES = ("Arriving", "Waiting", "Running on the GPU", "Done")
LANE_SHORT = {"Arriving": "Sent", "Waiting": "Queue", "Running on the GPU": "Running", "Done": "Done"}  # a narrow lane
STATE_WORDS = {"waiting": "waiting", "prefill": "prefilling its prompt", "decode": "decoding",
               "done": "finished"}


@frozen(eq=False)
class Distribution:
    title: str
    edges_ms: np.ndarray
    counts: np.ndarray
    marks: tuple[tuple[str, float, str], ...]        # (p50 | p90 | p99, ms, "41.7 ms")
    target: tuple[float, str] | None                 # (ms, "target 500 ms")
    ticks: tuple[tuple[float, str], ...]             # (ms, label) along the axis
    empty: str = ""                                   # what to say when there is nothing to draw


@frozen(eq=False)
class OverTime:
    t_s: np.ndarray
    output_tokens_per_s: np.ndarray
    running: np.ndarray
    waiting: np.ndarray
    peak_tokens_per_s: float
    peak_running: float
    x_ticks: tuple[tuple[float, str], ...]
    tokens_label: str
    running_label: str


@frozen
class Clock:
    sim_s_per_screen_s: float
    loop_s: float                  # simulated seconds before the animation starts again
    text: str                      # "1 s here = 5 s of serving"

    def label(self, t_sim_s: float) -> str:
        """'t = 42.5 s of 2.70 min': where the replay is in the run the charts show whole."""
        return f"t = {duration(max(0.0, t_sim_s))} of {duration(self.loop_s)}"

    def forms(self, t_sim_s: float) -> tuple[str, ...]:
        """The clock line, longest first, for the room there is: where the replay is, and the time scale."""
        return (f"{self.label(t_sim_s)}   ·   {self.text}", self.label(t_sim_s), f"t = {duration(max(0.0, t_sim_s))}")


def _ticks(lo: float, hi: float) -> tuple[tuple[float, str], ...]:
    """Ticks at 1-2-5 × 10^k ms inside [lo, hi]; 1-2-3-5-7 when that leaves fewer than three."""
    out = _ticks_at(lo, hi, (1, 2, 5))
    return out if len(out) >= 3 else _ticks_at(lo, hi, (1, 1.5, 2, 3, 5, 7))


def _ticks_at(lo: float, hi: float, steps) -> tuple[tuple[float, str], ...]:
    out = []
    e = math.floor(math.log10(max(lo, 1e-9)))
    while 10.0 ** e <= hi * 1.0001:
        for m in steps:
            v = m * 10.0 ** e
            if lo <= v <= hi:
                out.append((v, duration(v / 1e3)))
        e += 1
    return tuple(out)


def distribution(title: str, values_s: np.ndarray, marks: dict, target_ms: float | None) -> Distribution:
    v = np.asarray(values_s, dtype=float) * 1e3
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        return Distribution(title, np.zeros(0), np.zeros(0), (), None, (), "no requests with more than one token")
    lo, hi = np.percentile(v, (0.5, 99.5))
    for x in list(marks.values()) + ([target_ms] if target_ms else []):
        if x and math.isfinite(x):
            lo, hi = min(lo, x), max(hi, x)
    lo, hi = max(lo * 0.9, 1e-3), max(hi * 1.1, lo * 1.5)
    edges = np.geomspace(lo, hi, BINS + 1)
    counts, _ = np.histogram(np.clip(v, lo, hi), bins=edges)
    mk = tuple((k, float(x), duration(x / 1e3)) for k, x in marks.items() if math.isfinite(x))
    tgt = (float(target_ms), f"target {duration(target_ms / 1e3)}") if target_ms else None
    return Distribution(title, edges, counts, mk, tgt, _ticks(lo, hi))


def distributions(run: ServingRun, sm: Summary) -> tuple[Distribution, Distribution]:
    pr = per_request(run)
    s = run.setup
    ttft = distribution("Time to first token (TTFT)", pr["ttft_s"],
                        {"p50": sm.ttft.p50_ms, "p90": sm.ttft.p90_ms, "p99": sm.ttft.p99_ms}, s.ttft_p90_ms)
    tpot = distribution("Time per output token (TPOT)", pr["tpot_s"],
                        {"p50": sm.tpot.p50_ms, "p90": sm.tpot.p90_ms, "p99": sm.tpot.p99_ms}, s.tpot_p90_ms)
    return ttft, tpot


def over_time(run: ServingRun, bins: int = 90) -> OverTime:
    sr = series(run, bins)
    t = sr["t_s"]
    span = float(t[-1] + (t[1] - t[0]) / 2) if t.size > 1 else 1.0
    step = nice_125(span / 4)
    ticks = tuple((k * step, duration(k * step) if k else "0 s") for k in range(int(span // step) + 1))
    peak_tok, peak_run = float(sr["output_tokens_per_s"].max(initial=0.0)), float(sr["running"].max(initial=0.0))
    return OverTime(t, sr["output_tokens_per_s"], sr["running"], sr["waiting"].astype(float), peak_tok, peak_run,
                    ticks, f"output tokens/s, top {si(peak_tok, '').strip()}",
                    f"running, top {count_text(round(peak_run))}")


def tiles(run: ServingRun, sm: Summary) -> list[Readout]:
    """The page's big numbers, each prediction's band after its label ("TTFT p90 ± 23%")."""
    r = with_bands(run, serving_readouts(run, sm), in_label=True)
    keys = list(TILE_KEYS)
    if "goodput" in r:
        keys[3] = "goodput"
    return [r[k] for k in keys]


def clock(run: ServingRun) -> Clock:
    t0, t1 = float(np.min(run.sent_s)), float(np.max(run.finish_s))
    span = max(t1 - t0, 1e-3)
    k = nice_125(span / PLAY_S) if span > PLAY_S else 1.0
    text = "1 s here = 1 s of serving" if k == 1.0 else f"1 s here = {duration(k)} of serving"
    return Clock(k, span, text)


def lane_counts(run: ServingRun, t_s: float) -> dict[str, str]:
    """How many requests are in each lane at ``t_s`` (the words under the lanes)."""
    return {name: forms[0] for name, forms in lane_count_forms(run, t_s).items()}


def lane_count_forms(run: ServingRun, t_s: float) -> dict[str, tuple[str, ...]]:
    """``lane_counts`` with shorter forms after each, for a narrow lane (longest first)."""
    sent, adm, fin = run.sent_s, run.admitted_s, run.finish_s
    arrived = int(np.count_nonzero(sent <= t_s))
    waiting = int(np.count_nonzero((sent <= t_s) & ~(adm <= t_s)))
    running = int(np.count_nonzero((adm <= t_s) & ~(fin <= t_s)))
    done = int(np.count_nonzero(fin <= t_s))
    return {"Arriving": (f"{arrived:,} of {run.requests.count:,} sent", f"{arrived:,} of {run.requests.count:,}",
                         f"{arrived:,}"),
            "Waiting": (f"{waiting:,} waiting", f"{waiting:,}"),
            "Running on the GPU": (f"{running:,} running · {run.largest_batch:,} fit at the mean context",
                                   f"{running:,} running · {run.largest_batch:,} fit", f"{running:,} running",
                                   f"{running:,}"),
            "Done": (f"{done:,} done", f"{done:,}")}
