"""A run's numbers, as serving benchmarks report them.

    TTFT      = first token − sent                   (the client's clock starts when it sends)
    TPOT      = (finish − first token) / (output − 1)     (requests with more than one output token)
    ITL       = the gap between consecutive chunks a client receives, pooled over every request: the
                steps' durations, one per token each running decode gains in them (a jump of
                decode-only steps: its mean step); a step of prompts alone that the decodes waited
                through is added to their next gap; with multi-step scheduling (N steps per call)
                the server streams N tokens at once: one gap of N steps
    E2E       = finish − sent
    whose definitions (ServingSetup.metrics; the tools differ, so a comparison uses the one the
    numbers were made with):
      vllm, sglang   as above (benchmark_serving.py, bench_serving.py; trtllm-bench likewise)
      genai-perf     ITL is per request, (finish − first token) / (output − 1): the TPOT above
                     (NVIDIA GenAI-Perf and AIPerf "inter_token_latency")
      llmperf        TPOT and ITL are per request E2E / output tokens: the first token included
                     (Anyscale LLMPerf "inter_token_latency")
      mlperf         TTFT and E2E from the query's scheduled arrival, not from a send a client
                     cap held back (MLPerf LoadGen); and since LoadGen runs at least ten minutes,
                     whose warm-up and drain are a negligible part, a shorter simulated run is read
                     over its steady part: the requests that arrive in the last 3/4 of the arrival
                     window (percentiles) and the output tokens of those finishing in it (throughput)
    duration  = last finish − first send;  throughput = requests (output tokens) / duration
    percentiles: numpy's linear interpolation (as vLLM's and SGLang's benchmark scripts)
    goodput   = requests meeting TTFT ≤ target and TPOT ≤ target, per second of the duration
    Little    = mean requests in the system (time average of the in-system curve) against
                throughput × mean E2E
"""
from __future__ import annotations

import math

import numpy as np

from model.serving.run import ServingRun
from model.values import frozen

PERCENTILES = (50.0, 90.0, 95.0, 99.0)


@frozen
class Spread:
    """Mean and p50/p90/p95/p99 of one quantity (ms)."""

    mean_ms: float
    p50_ms: float
    p90_ms: float
    p95_ms: float
    p99_ms: float

    @staticmethod
    def of(values_s: np.ndarray, weights: np.ndarray | None = None) -> "Spread":
        v = np.asarray(values_s, dtype=float) * 1e3
        if v.size == 0:
            return Spread(math.nan, math.nan, math.nan, math.nan, math.nan)
        if weights is None:
            p = np.percentile(v, PERCENTILES)
            return Spread(float(v.mean()), *(float(x) for x in p))
        w = np.asarray(weights, dtype=float)
        keep = w > 0
        v, w = v[keep], w[keep]
        if v.size == 0:
            return Spread(math.nan, math.nan, math.nan, math.nan, math.nan)
        order = np.argsort(v, kind="stable")
        v, w = v[order], w[order]
        cum = np.cumsum(w) / w.sum()
        p = [float(v[min(v.size - 1, int(np.searchsorted(cum, q / 100.0)))]) for q in PERCENTILES]
        return Spread(float(np.average(v, weights=w)), *p)


@frozen
class Summary:
    requests: int
    duration_s: float
    request_throughput_per_s: float
    output_tokens_per_s: float
    total_tokens_per_s: float
    ttft: Spread
    tpot: Spread
    itl: Spread
    e2e: Spread
    mean_running: float            # sequences in a step, time-weighted, per replica
    mean_waiting: float            # requests queued, time-weighted (all replicas)
    max_waiting: int
    preemptions: int
    preempted_requests: int
    goodput_per_s: float | None    # None without targets
    met_share: float | None        # share of requests meeting both targets
    targets_met: bool | None       # TTFT p90 and TPOT p90 within the targets
    mean_in_system: float
    littles_law_ratio: float       # mean in system / (throughput × mean E2E)


def per_request(run: ServingRun) -> dict[str, np.ndarray]:
    """TTFT, TPOT, E2E (s) per request, by the run's metric definitions; TPOT NaN for single-token outputs."""
    out = run.requests.output_len
    start = run.requests.arrival_s if run.setup.metrics == "mlperf" else run.sent_s
    ttft = run.first_token_s - start
    e2e = run.finish_s - start
    with np.errstate(invalid="ignore", divide="ignore"):
        if run.setup.metrics == "llmperf":
            tpot = (run.finish_s - run.sent_s) / np.maximum(out, 1)
        else:
            tpot = np.where(out > 1, (run.finish_s - run.first_token_s) / np.maximum(out - 1, 1), np.nan)
    return {"ttft_s": ttft, "tpot_s": tpot, "e2e_s": e2e}


def itl_spread(run: ServingRun, tpot_s: np.ndarray) -> "Spread":
    """ITL by the run's definitions: per request for GenAI-Perf and LLMPerf (their TPOT), else the
    pooled gaps between streamed chunks (see the module's docstring)."""
    if run.setup.metrics in ("genai-perf", "llmperf"):
        return Spread.of(tpot_s[np.isfinite(tpot_s)])
    n = max(1, run.limits.scheduler_steps)
    steps = np.maximum(run.log_steps, 1)
    gap = run.log_s / steps * n
    weight = run.log_decode_steps / n
    stalled = (run.log_stall_s > 0) & (run.log_decode_steps > 0)
    if not stalled.any():
        return Spread.of(gap, weight)
    first = run.log_decode_steps[stalled] / steps[stalled] / n       # the decodes' first gap after the stall
    values = np.concatenate((gap, gap[stalled] + run.log_stall_s[stalled]))
    weights = np.concatenate((weight - np.where(stalled, run.log_decode_steps / steps / n, 0.0), first))
    return Spread.of(values, weights)


def in_system(run: ServingRun, times: np.ndarray) -> np.ndarray:
    """Requests sent and not finished at each of ``times``."""
    sent = np.sort(run.sent_s)
    fin = np.sort(run.finish_s)
    return np.searchsorted(sent, times, side="right") - np.searchsorted(fin, times, side="right")


def waiting(run: ServingRun, times: np.ndarray) -> np.ndarray:
    """Requests sent and not yet admitted (first admission) at each of ``times``."""
    sent = np.sort(run.sent_s)
    adm = np.sort(run.admitted_s)
    return np.searchsorted(sent, times, side="right") - np.searchsorted(adm, times, side="right")


def _time_average(run: ServingRun, fn, t0: float, t1: float) -> tuple[float, int]:
    """Exact time average of a step curve that changes only at the runs' event times."""
    edges = np.unique(np.concatenate((run.sent_s, run.admitted_s, run.finish_s, [t0, t1])))
    edges = edges[(edges >= t0) & (edges <= t1)]
    if edges.size < 2:
        return 0.0, 0
    vals = fn(run, edges[:-1])
    return float(np.sum(vals * np.diff(edges)) / (t1 - t0)), int(vals.max(initial=0))


STEADY_FROM = 0.25          # MLPerf: the steady part starts this share into the arrival window


def _steady(run: ServingRun, pr: dict) -> tuple[dict, float, float, float, float]:
    """(per-request values of the steady part, requests, output and input tokens finishing in it, its
    length): MLPerf's long runs read over a short simulation's steady part (module docstring)."""
    arr = run.requests.arrival_s
    a = float(arr.min() + STEADY_FROM * (arr.max() - arr.min()))
    b = float(arr.max())
    if b - a <= 0:
        return pr, float(arr.size), float(run.requests.output_len.sum()), float(run.requests.input_len.sum()), 0.0
    keep = arr >= a
    done = (run.finish_s >= a) & (run.finish_s <= b)
    return ({k: v[keep] for k, v in pr.items()}, float(done.sum()), float(run.requests.output_len[done].sum()),
            float(run.requests.input_len[done].sum()), b - a)


def summarize(run: ServingRun) -> Summary:
    pr = per_request(run)
    n = run.requests.count
    t0, t1 = float(np.min(run.sent_s)), float(np.max(run.finish_s))
    dur = max(t1 - t0, 1e-12)
    out_tokens = float(run.requests.output_len.sum())
    in_tokens = float(run.requests.input_len.sum())
    served, span = float(n), dur
    if run.setup.metrics == "mlperf" and run.setup.load == "rate":
        steady, done, out_done, in_done, window = _steady(run, pr)
        if window > 0 and done > 0:
            pr, served, out_tokens, in_tokens, span = steady, done, out_done, in_done, window
    running_w = run.log_s
    mean_running = float(np.sum(run.log_running * running_w) / max(np.sum(running_w), 1e-12))
    mean_sys, _ = _time_average(run, in_system, t0, t1)
    mean_wait, max_wait = _time_average(run, waiting, t0, t1)
    itl = itl_spread(run, pr["tpot_s"])
    s = run.setup
    goodput = met = ok = None
    if s.ttft_p90_ms is not None or s.tpot_p90_ms is not None:
        good = np.ones(n, dtype=bool)
        if s.ttft_p90_ms is not None:
            good &= pr["ttft_s"] * 1e3 <= s.ttft_p90_ms
        if s.tpot_p90_ms is not None:
            good &= ~(pr["tpot_s"] * 1e3 > s.tpot_p90_ms)
        goodput, met = float(good.sum() / dur), float(good.mean())
        ttft, tpot = Spread.of(pr["ttft_s"]), Spread.of(pr["tpot_s"][np.isfinite(pr["tpot_s"])])
        ok = bool((s.ttft_p90_ms is None or ttft.p90_ms <= s.ttft_p90_ms)
                  and (s.tpot_p90_ms is None or not tpot.p90_ms > s.tpot_p90_ms))
    mean_e2e = float(np.mean(pr["e2e_s"]))
    return Summary(
        requests=n, duration_s=dur, request_throughput_per_s=served / span, output_tokens_per_s=out_tokens / span,
        total_tokens_per_s=(out_tokens + in_tokens) / span,
        ttft=Spread.of(pr["ttft_s"]), tpot=Spread.of(pr["tpot_s"][np.isfinite(pr["tpot_s"])]), itl=itl,
        e2e=Spread.of(pr["e2e_s"]), mean_running=mean_running,
        mean_waiting=mean_wait, max_waiting=max_wait, preemptions=int(run.preemptions.sum()),
        preempted_requests=int(np.count_nonzero(run.preemptions)), goodput_per_s=goodput, met_share=met,
        targets_met=ok, mean_in_system=mean_sys,
        littles_law_ratio=mean_sys / ((n / dur) * mean_e2e) if mean_e2e > 0 else math.nan,
    )


def series(run: ServingRun, bins: int = 120) -> dict[str, np.ndarray]:
    """The run over time in ``bins`` equal slices: queue length and in-system count (at each slice's
    middle), output tokens/s and mean running sequences per replica (over each slice)."""
    t0, t1 = float(np.min(run.sent_s)), float(np.max(run.finish_s))
    edges = np.linspace(t0, max(t1, t0 + 1e-9), bins + 1)
    mid = (edges[:-1] + edges[1:]) / 2
    width = edges[1] - edges[0]
    # spread each log entry's tokens and sequence-seconds uniformly over its span
    start, end = run.log_start_s, run.log_start_s + run.log_s
    tokens = np.zeros(bins)
    seq_s = np.zeros(bins)
    lo = np.clip(np.searchsorted(edges, start, side="right") - 1, 0, bins - 1)
    hi = np.clip(np.searchsorted(edges, end, side="left") - 1, 0, bins - 1)
    single = lo == hi
    np.add.at(tokens, lo[single], run.log_output_tokens[single])
    np.add.at(seq_s, lo[single], (run.log_running * run.log_s)[single])
    for j in np.flatnonzero(~single):             # entries that span slices (jumps): split by overlap
        a, b = lo[j], hi[j] + 1
        overlap = np.minimum(end[j], edges[a + 1:b + 1]) - np.maximum(start[j], edges[a:b])
        share = np.clip(overlap, 0, None) / max(run.log_s[j], 1e-15)
        tokens[a:b] += run.log_output_tokens[j] * share
        seq_s[a:b] += run.log_running[j] * run.log_s[j] * share
    reps = max(1, int(run.replica.max()) + 1)
    return {"t_s": mid - t0, "waiting": waiting(run, mid), "in_system": in_system(run, mid),
            "output_tokens_per_s": tokens / width, "running": seq_s / width / reps}
