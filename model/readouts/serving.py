"""Every number and sentence a serving run shows (the Serve page and ``main.py serve``).

    serving_readouts(run, summary)["ttft_p90"].text  -> "78.8 ms"

The definitions are model/serving/results.py's: TTFT from the client's send, TPOT over the
output after the first token, percentiles by linear interpolation, goodput = requests per second
that meet both targets. "Fits" is the largest running batch the KV cache holds at the mean context.
"""
from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from model.physics.step import layer_equivalents
from model.readouts.evidence import Band
from model.readouts.format import duration, percent, si, sig3
from model.readouts.numbers import Readout, count_text
from model.readouts.serving_bands import band_derivation, engine_name, serving_band
from model.serving.datasets import datasets
from model.serving.results import Spread, Summary, per_request
from model.serving.run import ServingRun

LOAD_WORDS = {"rate": "Poisson arrivals", "concurrency": "clients, each waiting for its answer",
              "burst": "all at once", "trace": "from a trace"}
PREFILL_WORDS = {"chunked": "chunked prefill (prompts share steps with decodes)",
                 "mixed": "whole prompts join the decode steps",
                 "separate": "prompts in steps of their own, before decodes",
                 "chunked-separate": "prompts in chunks, in steps of their own, before decodes"}
SATURATED = 0.95          # served ÷ what it can serve, from which the sentence calls the GPU saturated
PREEMPT_WORDS = {"recompute": "evict the newest and recompute it", "swap": "swap the newest to host memory",
                 "none": "admit only what fits to the end"}


def _ms(key: str, label: str, ms: float, help_: str) -> Readout:
    return Readout(key, label, ms, "ms", duration(ms / 1e3) if math.isfinite(ms) else "—", help_)


def _rate(x: float) -> str:
    return f"{sig3(x)} req/s" if x is not None and math.isfinite(x) else "—"


def load_text(run: ServingRun) -> str:
    s = run.setup
    if s.load == "rate":
        cap = f", at most {s.concurrency:,} in flight" if s.concurrency else ""
        return f"{sig3(s.rate_per_s)} req/s, Poisson{cap}"
    if s.load == "concurrency":
        return f"{s.concurrency:,} clients"
    if s.load == "burst":
        return f"{run.requests.count:,} at once"
    return f"trace of {run.requests.count:,} requests"


def lengths_text(run: ServingRun) -> str:
    s, r = run.setup, run.requests
    mean_in, mean_out = float(r.input_len.mean()), float(r.output_len.mean())
    if s.lengths == "fixed" or s.load == "trace" and np.ptp(r.input_len) == 0 and np.ptp(r.output_len) == 0:
        base = f"{int(r.input_len[0]):,} in, {int(r.output_len[0]):,} out"
    elif s.lengths == "uniform":
        base = f"{sig3(mean_in)} in, {sig3(mean_out)} out on average (±{sig3(100 * s.range_ratio)}%)"
    else:
        base = f"{sig3(mean_in)} in, {sig3(mean_out)} out on average"
    named = datasets().get(s.lengths)
    word = {"sharegpt": "ShareGPT-like", "uniform": "uniform"}.get(s.lengths, named.name if named else "")
    return f"{base}{' (' + word + ')' if word and s.load != 'trace' else ''}"


def _spread(prefix: str, label: str, sp: Spread, what: str) -> list[Readout]:
    return [_ms(f"{prefix}_{k}", f"{label} {k}", getattr(sp, f"{k}_ms"), f"{what}: {k} of the requests")
            for k in ("mean", "p50", "p90", "p99")]


def _knobs(run: ServingRun) -> list[Readout]:
    s, sp = run.setup, run.speculation
    out = []
    hit = float(np.sum(run.requests.cached) / max(np.sum(run.requests.input_len), 1))
    out.append(Readout("prefix_hit", "Prompt tokens from the prefix cache", hit, "", percent(hit),
                       "share of all prompt tokens found in the cache (not prefilled)"))
    if sp.k:
        draft = {"ngram": "n-gram lookup", "mtp": "the model's MTP heads", "model": "a draft model"}[sp.draft]
        out.append(Readout("speculation", "Speculative decoding", sp.expected, "tokens/step",
                           f"k = {sp.k}, α = {sig3(s.spec_accept)}: {sig3(sp.expected)} tokens per step ({draft})",
                           "E = (1 − α^(k+1)) / (1 − α) tokens per verified step, each step verifying k + 1"))
    else:
        out.append(Readout("speculation", "Speculative decoding", 1.0, "tokens/step", "off", "one token per step"))
    out.append(Readout("replicas", "Replicas", s.replicas, "", f"{s.replicas} × {run.scenario.gpus} GPU"
                       f"{'s' if run.scenario.gpus > 1 else ''}", "data-parallel copies behind a round-robin router"))
    return out


def _issue(run: ServingRun) -> Readout:
    """Who issues a step's kernels: replayed CUDA graphs, or the host one by one (its time per step)."""
    tb = run.table
    host = max(tb.host_s, tb.prefill_host_s)
    if tb.host_s > 0:
        why = "--enforce-eager" if run.setup.enforce_eager else "the engine runs without CUDA graphs here"
        text = f"by the host, kernel by kernel ({why}): {duration(tb.host_s)} a step"
    elif tb.prefill_host_s > 0:
        text = (f"CUDA graphs for decode steps; a step with prompts by the host, kernel by kernel: "
                f"{duration(tb.prefill_host_s)} a step")
    else:
        return Readout("kernel_issue", "Kernels issued", 0.0, "s", "CUDA graphs, replayed",
                       "every step replays a captured graph: no host issue time")
    leq = layer_equivalents(run.resolved)
    return Readout("kernel_issue", "Kernels issued", host, "s", text,
                   f"host time = {leq:.2f} dense-layer equivalents × {host / leq * 1e6:.2f} µs a layer (the "
                   f"engine's fitted host time) = {duration(host)}; a step issued by the host takes ‖GPU, host‖₆")


def _scheduler(run: ServingRun) -> list[Readout]:
    lim = run.limits
    src = dict(lim.sources)
    mr = "only the KV cache" if lim.max_running is None else f"{lim.max_running:,}"
    n = lim.scheduler_steps
    return [
        Readout("max_running", "Running sequences at most", lim.max_running, "", mr, src.get("max_running", "")),
        Readout("max_tokens_per_step", "Tokens per step at most", lim.max_tokens_per_step, "tokens",
                f"{lim.max_tokens_per_step:,}", src.get("max_tokens_per_step", "")),
        Readout("prefill_mode", "Prompts", lim.prefill, "", PREFILL_WORDS[lim.prefill], src.get("prefill", "")),
        Readout("preemption", "When the KV cache is full", lim.preemption, "", PREEMPT_WORDS[lim.preemption],
                src.get("preemption", "")),
        Readout("scheduler_steps", "Decode steps per scheduler call", n, "",
                f"{n}: new prompts join every {n} steps" if n > 1 else "1",
                src.get("scheduler_steps", "") or "the engine schedules before every step"),
        _issue(run),
        Readout("kv_cache_tokens", "KV cache", run.kv_tokens, "tokens",
                f"{run.kv_tokens:,} tokens in blocks of {lim.block_tokens}",
                f"what fits after the weights and workspace, per replica; block size: {src.get('block_tokens', '')}"),
        Readout("largest_batch", "Batch the KV cache holds", run.largest_batch, "",
                count_text(run.largest_batch), "sequences the KV cache holds at the mean context, within the cap: "
                "the most that could run at once, not a batch this run reached (its running batch: mean and top "
                "on the chart)"),
        Readout("capacity", "What it can serve", run.capacity_req_per_s * run.setup.replicas, "req/s",
                _rate(run.capacity_req_per_s * run.setup.replicas),
                "steady state at the largest running batch: 1 / (prefill + decode steps ÷ batch), all replicas"),
    ]


def served_words(run: ServingRun, sm: Summary) -> str:
    """How the served rate is counted, and why it sits below an offered rate with an empty queue: a
    Poisson draw sends at its own rate, and the run lasts past the last send while the last are served."""
    sent = np.asarray(run.sent_s, dtype=float)
    first, last_send = float(sent.min()), float(sent.max())
    tail = max(0.0, float(sm.duration_s) - (last_send - first))
    out = f"requests ÷ (last finish − first send) = {sm.requests:,} ÷ {duration(sm.duration_s)}"
    if run.setup.load == "rate" and last_send > first:
        sent_rate = (sent.size - 1) / (last_send - first)
        out += (f". Offered {_rate(run.setup.rate_per_s)}, but this Poisson draw sent its {sent.size:,} requests over "
                f"{duration(last_send - first)} ({_rate(sent_rate)}), and the last finished {duration(tail)} after "
                f"the last send: a served rate below the offered one needs no queue")
    return out


def serving_readouts(run: ServingRun, sm: Summary) -> Mapping[str, Readout]:
    """Every number of a run, by key (see the module docstring)."""
    s = run.setup
    items: list[Readout] = [
        Readout("load", "Load", s.load, "", load_text(run), f"{LOAD_WORDS[s.load]}"),
        Readout("requests", "Requests", sm.requests, "", f"{sm.requests:,}", "requests in the run"),
        Readout("lengths", "Lengths", s.lengths, "tokens", lengths_text(run), "prompt and output tokens per request"),
        Readout("request_throughput", "Requests per second", sm.request_throughput_per_s, "req/s",
                _rate(sm.request_throughput_per_s), served_words(run, sm)),
        Readout("output_throughput", "Output tokens per second", sm.output_tokens_per_s, "tokens/s",
                si(sm.output_tokens_per_s, "tokens/s"), "output tokens ÷ duration, all replicas"),
        Readout("duration", "Duration", sm.duration_s, "s", duration(sm.duration_s), "first send to last finish"),
        Readout("mean_running", "Running batch, mean", sm.mean_running, "", sig3(sm.mean_running),
                "sequences in a step (decodes and prompts), time-weighted, per replica"),
        Readout("mean_waiting", "Queue, mean", sm.mean_waiting, "", sig3(sm.mean_waiting),
                "requests sent and not yet admitted, time-weighted"),
        Readout("max_waiting", "Queue, longest", sm.max_waiting, "", f"{sm.max_waiting:,}", "the most requests waiting at once"),
        Readout("preemptions", "Preemptions", sm.preemptions, "", f"{sm.preemptions:,}",
                f"requests evicted when the KV cache was full ({sm.preempted_requests:,} requests, none lost)"),
        Readout("littles_law", "Little's law", sm.littles_law_ratio, "", f"{sig3(sm.littles_law_ratio)}",
                "mean requests in the system ÷ (throughput × mean end-to-end): 1 when the books balance"),
    ]
    items += _spread("ttft", "TTFT", sm.ttft, "time to first token")
    items += _spread("tpot", "TPOT", sm.tpot, "time per output token after the first")
    items += _spread("itl", "ITL", sm.itl, "gap between consecutive tokens of a request")
    items += _spread("e2e", "End to end", sm.e2e, "send to last token")
    if sm.goodput_per_s is not None:
        items.append(Readout("goodput", "Goodput", sm.goodput_per_s, "req/s", _rate(sm.goodput_per_s),
                             f"requests per second meeting {targets_text(run)} ({percent(sm.met_share)} of them)"))
        items.append(Readout("targets", "Targets", sm.targets_met, "", "met" if sm.targets_met else "missed",
                             f"p90s against {targets_text(run)}"))
    items += _knobs(run) + _scheduler(run)
    return MappingProxyType({r.key: r for r in items})


def bands(run: ServingRun) -> dict[str, Band]:
    """Each predicted number's band (model/readouts/serving_bands.py), by readout key."""
    base = run.resolved.engine.partition("@")[0]
    name = engine_name(base)
    out = {}
    for key in KEYS_WITH_BANDS:
        b = serving_band(base, name, run.setup.load, key)
        if b is not None:
            out[key] = b
    return out


def with_bands(run: ServingRun, readouts: Mapping[str, Readout], in_label: bool = False) -> dict[str, Readout]:
    """The readouts with "± x%" after each predicted number (or, ``in_label``, after its label: a
    big number's tile keeps its number alone) and the band's derivation in its help."""
    out = dict(readouts)
    for key, b in bands(run).items():
        if key in out:
            r = out[key]
            label, text = (f"{r.label} {b.text}", r.text) if in_label else (r.label, f"{r.text} {b.text}")
            out[key] = Readout(r.key, label, r.value, r.unit, text, f"{r.help}. {band_derivation(b, r.text)}", r.short)
    return out


KEYS_WITH_BANDS = tuple(f"{w}_{s}" for w in ("ttft", "tpot", "itl", "e2e") for s in ("mean", "p50", "p90", "p99")) + (
    "request_throughput", "output_throughput", "goodput")


def targets_text(run: ServingRun) -> str:
    s = run.setup
    parts = []
    if s.ttft_p90_ms is not None:
        parts.append(f"TTFT ≤ {sig3(s.ttft_p90_ms)} ms")
    if s.tpot_p90_ms is not None:
        parts.append(f"TPOT ≤ {sig3(s.tpot_p90_ms)} ms")
    return " and ".join(parts) or "no targets"


def explain(run: ServingRun, sm: Summary) -> str:
    """One or two sentences: what the load did to the queue and the latencies."""
    r = serving_readouts(run, sm)
    load = r["load"].text
    share = sm.request_throughput_per_s / max(run.capacity_req_per_s * run.setup.replicas, 1e-12)
    if sm.mean_waiting >= 1.0 or sm.preemptions:
        state = (f"the queue holds {sig3(sm.mean_waiting)} requests on average (at most {sm.max_waiting:,})"
                 + (f" and {sm.preemptions:,} were evicted when the KV cache filled" if sm.preemptions else ""))
    elif share >= SATURATED:
        state = "it runs at what it can serve: the running batch keeps growing and every token slows"
    else:
        state = "requests rarely wait"
    return (f"{load}: {state}. TTFT p90 {r['ttft_p90'].text}, TPOT p90 {r['tpot_p90'].text}; "
            f"{r['request_throughput'].text} served ({percent(share)} of the {r['capacity'].text} it can serve), "
            f"{sig3(sm.mean_running)} sequences running on average ({count_text(run.largest_batch)} fit at the mean context).")


TABLE_KEYS = ("load", "requests", "lengths", "duration", "request_throughput", "output_throughput",
              "ttft_p50", "ttft_p90", "ttft_p99", "tpot_p50", "tpot_p90", "tpot_p99", "itl_p50", "itl_p99",
              "e2e_p50", "e2e_p90", "e2e_p99", "mean_running", "largest_batch", "capacity", "mean_waiting",
              "max_waiting", "preemptions", "goodput", "targets", "prefix_hit", "speculation", "replicas",
              "max_running", "max_tokens_per_step", "prefill_mode", "scheduler_steps", "kernel_issue", "preemption",
              "kv_cache_tokens", "littles_law")


def serving_table(run: ServingRun, sm: Summary) -> list[tuple[str, str]]:
    """(label, text) per line of ``main.py serve``: each predicted number with its band."""
    r = with_bands(run, serving_readouts(run, sm))
    return [(r[k].label, r[k].text) for k in TABLE_KEYS if k in r]


def _clean(v: Any):
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, (np.integer,)):
        return int(v)
    return v


def serving_json(run: ServingRun, sm: Summary) -> dict:
    r = serving_readouts(run, sm)
    bs = bands(run)

    def band_json(k: str, x: Readout):
        b = bs.get(k)
        return None if b is None else {"fraction": _clean(b.fraction), "text": b.text, "results": b.runs,
                                       "alike": b.alike, "widened": b.widened, "derivation": band_derivation(b, x.text)}
    return {"scenario": run.scenario.to_dict(), "engine": run.resolved.engine,
            "setup": {k: _clean(v) for k, v in run.setup.to_dict().items()},
            "readouts": {k: {"label": x.label, "value": _clean(x.value), "unit": x.unit, "text": x.text,
                             "band": band_json(k, x)} for k, x in r.items()},
            "explanation": explain(run, sm)}


PER_REQUEST_HEADER = ("request", "replica", "sent_s", "admitted_s", "first_token_s", "finish_s", "input_tokens",
                      "output_tokens", "cached_tokens", "ttft_ms", "tpot_ms", "e2e_ms", "preemptions")


def per_request_csv(run: ServingRun) -> str:
    """One line per request (header first)."""
    pr = per_request(run)
    cols = (np.arange(run.requests.count), run.replica, run.sent_s, run.admitted_s, run.first_token_s,
            run.finish_s, run.requests.input_len, run.requests.output_len, run.requests.cached,
            pr["ttft_s"] * 1e3, pr["tpot_s"] * 1e3, pr["e2e_s"] * 1e3, run.preemptions)
    lines = [",".join(PER_REQUEST_HEADER)]
    fmt = ("{:d}", "{:d}", "{:.6f}", "{:.6f}", "{:.6f}", "{:.6f}", "{:d}", "{:d}", "{:d}", "{:.4f}", "{:.4f}",
           "{:.4f}", "{:d}")
    for row in zip(*(c.tolist() for c in cols)):
        lines.append(",".join("" if isinstance(v, float) and not math.isfinite(v) else f.format(v)
                              for f, v in zip(fmt, row)))
    return "\n".join(lines) + "\n"
