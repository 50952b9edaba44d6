"""What a serving run is asked to do: the load, the request lengths, the knobs and the targets.

    load          rate R (Poisson arrivals, R requests/s), concurrency C (C clients, each sending
                  its next request when the last one finished: --max-concurrency), burst (all N at
                  t = 0), or a trace (arrival s, input tokens, output tokens per request); a rate
                  may also carry a concurrency cap
    lengths       fixed, uniform in [L(1 − r), L(1 + r)] (the random dataset's --random-range-ratio),
                  ShareGPT-like (lognormal, assets/serving.json), or a named dataset of serving.json
                  (MLPerf's: lognormal with the published means and spreads, model/serving/datasets.py)
    knobs         prefix caching (a shared prefix of P tokens, or a hit rate h of each prompt's
                  tokens), speculative decoding (k drafts accepted with probability α, drafted by
                  an n-gram lookup, the model's MTP heads or a draft model), R data-parallel replicas
    engine limits the scheduler's (assets/serving.json), each overridable: max running sequences,
                  tokens per step, prefill mode, KV block size, preemption, multi-step scheduling
                  (``scheduler_steps``: new prompts join only every N decode steps)
    KV budget     the share of GPU memory the engine takes for weights, activations and KV cache
                  (``gpu_memory_utilization``: vLLM --gpu-memory-utilization, SGLang
                  --mem-fraction-static) or the share of what the weights leave that goes to the KV
                  cache (``kv_free_fraction``: TensorRT-LLM's free_gpu_memory_fraction)
    parallelism   ``ep``: experts spread over E GPUs (all-to-all instead of the MoE all-reduce);
                  ``dp_attention``: attention data-parallel over the group (each GPU holds its own
                  sequences' KV cache: SGLang --enable-dp-attention, vLLM/TensorRT-LLM attention DP)
    metrics       how TTFT, TPOT and ITL are computed: the benchmark tool whose numbers they are
                  compared with (model/serving/results.py: vllm, sglang, genai-perf, llmperf, mlperf)
    targets       TTFT p90 and TPOT p90 in ms (goodput counts the requests that meet both)

Every value is checked here (ScenarioError, one line); model/serving/simulate.py trusts them.
"""
from __future__ import annotations

import math
from dataclasses import fields, replace
from typing import Any, Mapping

from model.errors import ScenarioError
from model.files.limits import ceiling, check_amount, least
from model.serving.datasets import datasets
from model.values import frozen

LOADS = ("rate", "concurrency", "burst", "trace")
LENGTHS = ("fixed", "uniform", "sharegpt")
PREFILL_MODES = ("chunked", "mixed", "separate", "chunked-separate")
CHUNKED = ("chunked", "chunked-separate")        # prompts cut to the step's token budget
ALONE = ("separate", "chunked-separate")         # prompt steps run without the decodes, which wait
PREEMPTIONS = ("recompute", "swap", "none")
METRIC_TOOLS = ("vllm", "sglang", "genai-perf", "llmperf", "mlperf", "trtllm-bench")
PRETOKENIZED = ("mlperf", "trtllm-bench")       # their clients send token ids: the server tokenises nothing
MAX_REQUESTS = 1_000_000
MAX_RATE = ceiling("rate_per_s")[0]       # model/files/limits.py: the one place
MIN_RATE = least("rate_per_s")[0]         # (a rate of 0 is "auto": 0.8 × what the replicas serve)
MAX_REPLICAS = 64
MAX_SPEC_K = 16
MAX_SEED = 2 ** 32 - 1


@frozen
class ServingSetup:
    """One serving run's request. ``None`` means "the scenario's" (lengths) or "the engine's"
    (scheduler limits). ``trace`` holds (arrival s, input, output) rows once a file was read."""

    load: str = "rate"
    rate_per_s: float = 0.0            # rate: requests per second (0 with load "rate": chosen from capacity)
    concurrency: int = 0               # concurrency: clients; with a rate: a cap (0 = none)
    requests: int = 1000
    lengths: str = "fixed"
    input_len: int | None = None       # None: the scenario's
    output_len: int | None = None
    range_ratio: float = 0.0           # uniform: ± this share of the length
    seed: int = 0
    prefix_len: int = 0                # a shared prefix in every prompt (cached after the first)
    prefix_hit: float = 0.0            # share of each prompt's tokens found in the cache
    spec_k: int = 0                    # draft tokens per step (0: no speculation)
    spec_accept: float = 0.0           # α: each draft token accepted with this probability
    spec_draft: str = ""               # ngram | mtp | a catalogue model id ("" : mtp where the model has it, else ngram)
    replicas: int = 1
    ttft_p90_ms: float | None = None
    tpot_p90_ms: float | None = None
    max_running: int | None = None     # engine limits (None: the engine's documented default)
    max_tokens_per_step: int | None = None
    prefill: str | None = None
    block_tokens: int | None = None
    preemption: str | None = None
    scheduler_steps: int | None = None     # multi-step scheduling: decode steps per scheduler call (None: the engine's)
    gpu_memory_utilization: float | None = None   # share of GPU memory the engine takes (None: the engine's)
    kv_free_fraction: float | None = None  # share of the memory the weights leave that holds KV (TensorRT-LLM)
    ep: int | None = None                  # expert-parallel degree (None or 1: experts split by tensor parallelism)
    dp_attention: bool = False             # attention data-parallel over the GPU group
    enforce_eager: bool = False            # no CUDA graphs: the host issues every step kernel by kernel
    metrics: str = "vllm"                  # whose definitions TTFT, TPOT and ITL follow (METRIC_TOOLS)
    trace: tuple = ()                  # ((arrival_s, input, output), …) from a trace file

    def with_(self, **changes: Any) -> "ServingSetup":
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The setup as a scenario file's "serving" object (a trace is not stored: its file is the user's)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "trace"}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ServingSetup":
        if not isinstance(data, Mapping):
            raise ScenarioError("a serving setup must be a JSON object")
        known = {f.name for f in fields(cls)} - {"trace"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ScenarioError(f"unknown serving field '{unknown[0]}' (known: {', '.join(sorted(known))})")
        return check(cls(**dict(data)))


def _number(name: str, value: Any, lo: float, hi: float, whole: bool = False, lo_open: bool = False) -> float:
    if isinstance(value, bool):
        raise ScenarioError(f"{name} must be a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ScenarioError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ScenarioError(f"{name} must be a finite number, got {value!r}")
    if whole and x != int(x):
        raise ScenarioError(f"{name} must be a whole number, got {value!r}")
    if x < lo or x > hi or (lo_open and x == lo):
        low = f"more than {lo:g}" if lo_open else f"at least {lo:g}"
        raise ScenarioError(f"{name} must be {low} and at most {hi:,.6g}, got {x:g}")
    return int(x) if whole else x


def _amount(label: str, kind: str, value: float, unit: str) -> float:
    """``value`` within its kind's least and ceiling (model/files/limits.py); ScenarioError otherwise."""
    why = check_amount(label, kind, value, unit)
    if why:
        raise ScenarioError(why)
    return value


def _choice(name: str, value: Any, options: tuple[str, ...]) -> str:
    text = str(value).strip().lower()
    if text not in options:
        raise ScenarioError(f"{name} must be one of {', '.join(options)}, got '{value}'")
    return text


def check(s: ServingSetup) -> ServingSetup:
    """``s`` with every value checked and normalised; ScenarioError (one line) otherwise."""
    load = _choice("load", s.load, LOADS)
    lengths = _choice("lengths", s.lengths, LENGTHS + tuple(datasets()))
    c = dict(
        load=load, lengths=lengths,
        rate_per_s=_number("rate", s.rate_per_s, 0.0, MAX_RATE),
        concurrency=_number("concurrency", s.concurrency, 0, MAX_REQUESTS, whole=True),
        requests=_number("requests", s.requests, 1, MAX_REQUESTS, whole=True),
        range_ratio=_number("range ratio", s.range_ratio, 0.0, 1.0, lo_open=False),
        seed=_number("seed", s.seed, 0, MAX_SEED, whole=True),
        prefix_len=_number("prefix length", s.prefix_len, 0, 1_048_576, whole=True),
        prefix_hit=_number("prefix hit rate", s.prefix_hit, 0.0, 1.0),
        spec_k=_number("speculative draft length", s.spec_k, 0, MAX_SPEC_K, whole=True),
        spec_accept=_number("speculative acceptance rate", s.spec_accept, 0.0, 1.0),
        spec_draft=str(s.spec_draft or "").strip().lower(),
        replicas=_number("replicas", s.replicas, 1, MAX_REPLICAS, whole=True),
    )
    for name, label in (("input_len", "input length"), ("output_len", "output length")):
        v = getattr(s, name)
        c[name] = None if v is None else _number(label, v, 1, 1_048_576, whole=True)
    for name, label in (("ttft_p90_ms", "TTFT p90 target"), ("tpot_p90_ms", "TPOT p90 target")):
        v = getattr(s, name)
        c[name] = None if v is None else _amount(label, "target_ms", _number(f"{label} (ms)", v, 0.0, math.inf,
                                                                              lo_open=True), "ms")
    if c["rate_per_s"]:
        _amount("rate", "rate_per_s", c["rate_per_s"], "requests/s")
    c["max_running"] = None if s.max_running is None else _number("max running sequences", s.max_running, 1, 65_536, whole=True)
    c["max_tokens_per_step"] = (None if s.max_tokens_per_step is None
                                else _number("max tokens per step", s.max_tokens_per_step, 1, 1_048_576, whole=True))
    c["block_tokens"] = None if s.block_tokens is None else _number("KV block size", s.block_tokens, 1, 4096, whole=True)
    c["prefill"] = None if s.prefill is None else _choice("prefill", s.prefill, PREFILL_MODES)
    c["preemption"] = None if s.preemption is None else _choice("preemption", s.preemption, PREEMPTIONS)
    c["scheduler_steps"] = (None if s.scheduler_steps is None
                            else _number("scheduler steps", s.scheduler_steps, 1, 64, whole=True))
    c["gpu_memory_utilization"] = (None if s.gpu_memory_utilization is None else
                                   _number("GPU memory utilization", s.gpu_memory_utilization, 0.0, 1.0, lo_open=True))
    c["kv_free_fraction"] = (None if s.kv_free_fraction is None else
                             _number("KV free-memory fraction", s.kv_free_fraction, 0.0, 1.0, lo_open=True))
    c["ep"] = None if s.ep is None else _number("expert-parallel degree", s.ep, 1, 1024, whole=True)
    for name in ("dp_attention", "enforce_eager"):
        if not isinstance(getattr(s, name), bool):
            raise ScenarioError(f"{name} must be true or false, got {getattr(s, name)!r}")
    c["metrics"] = _choice("metrics", s.metrics, METRIC_TOOLS)
    if c["gpu_memory_utilization"] is not None and c["kv_free_fraction"] is not None:
        raise ScenarioError("give the KV budget one way: a GPU memory utilization or a free-memory fraction")
    if load == "rate" and c["rate_per_s"] < 0:
        raise ScenarioError("the rate must not be negative")
    if load == "concurrency" and c["concurrency"] < 1:
        raise ScenarioError("a concurrency load needs at least 1 client (--concurrency C)")
    if load == "trace" and not s.trace:
        raise ScenarioError("a trace load needs a trace file (--trace FILE)")
    if c["spec_k"] == 0 and c["spec_accept"] > 0:
        raise ScenarioError("a speculative acceptance rate needs a draft length (--spec-k K)")
    return replace(s, **c)


def expected_tokens_per_step(k: int, alpha: float) -> float:
    """Tokens a sequence gains per verified step with k drafts each accepted with probability α:
    E = 1 + α + α² + … + α^k = (1 − α^(k+1)) / (1 − α)   (k + 1 at α = 1; 1 without drafts)."""
    if k <= 0:
        return 1.0
    if alpha >= 1.0:
        return float(k + 1)
    return (1.0 - alpha ** (k + 1)) / (1.0 - alpha)


def serving_from_document(doc: Mapping[str, Any], name: str = "scenario") -> ServingSetup | None:
    """A scenario file's "serving" object as a checked setup (None when the file has none)."""
    raw = doc.get("serving") if isinstance(doc, Mapping) else None
    if raw is None:
        return None
    try:
        return ServingSetup.from_dict(raw)
    except (ScenarioError, TypeError) as exc:
        raise ScenarioError(f"{name}: serving: {exc}") from None
