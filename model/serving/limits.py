"""Each engine's scheduler limits (assets/serving.json), and the ShareGPT-like length distribution.

    limits_for(engine, hw, setup) → SchedulerLimits: the engine's documented defaults, its rules for
    the GPU in hand (HBM in GiB as the engine reads it, a word in the name), then the setup's
    overrides (--max-running, --max-tokens-per-step, --prefill, --block-tokens, --preemption).
"""
from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from model.catalog.parts import Hardware
from model.errors import AssetError, ScenarioError
from model.files.assets import ASSETS_DIR, read_asset_json
from model.serving.setup import PREEMPTIONS, PREFILL_MODES, ServingSetup
from model.values import frozen

GIB = 2 ** 30
KEYS = ("max_running", "max_tokens_per_step", "prefill", "batching", "block_tokens", "preemption")
OPTIONAL = {"scheduler_steps": 1, "watermark": 0.0, "frontend_s": 0.0,     # keys an engine may leave out,
            "tokenize_s_per_token": 0.0, "overlap_schedule": False}          # with their defaults


@frozen
class SchedulerLimits:
    """The scheduler one replica runs (see assets/serving.json for the words)."""

    engine: str
    max_running: int | None          # None: the KV cache alone limits it
    max_tokens_per_step: int
    prefill: str                     # chunked | mixed | separate
    batching: str                    # continuous | static
    block_tokens: int
    preemption: str                  # recompute | swap | none
    sources: tuple[tuple[str, str], ...] = ()   # key → where the value comes from (or "your setting")
    scheduler_steps: int = 1         # decode steps per scheduler call: new prompts join only every N steps
    watermark: float = 0.0           # share of the KV blocks a new prompt must leave free to be admitted
    frontend_s: float = 0.0          # the server's front end per request (HTTP, scheduling it in), one at a time
    tokenize_s_per_token: float = 0.0   # … and per prompt token (tokenising)
    overlap_schedule: bool = False   # the next step is formed while the GPU runs the current one


@frozen
class LengthDistribution:
    """A lognormal with the published mean; σ its spread (ln units)."""

    input_mean_tokens: float
    output_mean_tokens: float
    sigma: float
    source: str


def _value(entry: Mapping[str, Any], key: str, where: str):
    item = entry.get(key)
    if not isinstance(item, Mapping) or "value" not in item or not item.get("source"):
        raise AssetError(f"serving.json: {where}.{key} needs a value and a source")
    return item["value"], str(item["source"])


def _matches(when: Mapping[str, Any], hw: Hardware) -> bool:
    gib = hw.hbm_capacity_bytes / GIB
    if "hbm_gib_at_least" in when and gib < float(when["hbm_gib_at_least"]):
        return False
    if "hbm_gib_below" in when and gib >= float(when["hbm_gib_below"]):
        return False
    lacks = when.get("name_lacks")
    return not (lacks and str(lacks).lower() in f"{hw.name} {hw.id}".lower())


@lru_cache(maxsize=4)
def serving_table(path: str | None = None) -> Mapping[str, Any]:
    """assets/serving.json, read once through the safe reader."""
    doc = read_asset_json(Path(path) if path else ASSETS_DIR / "serving.json")
    if not isinstance(doc, Mapping) or not isinstance(doc.get("engines"), Mapping):
        raise AssetError("serving.json: no 'engines' object")
    return doc


def engine_limits(engine: str, hw: Hardware, doc: Mapping[str, Any] | None = None) -> SchedulerLimits:
    """The engine's documented defaults on ``hw`` (engines without an entry: the default's engine)."""
    doc = doc or serving_table()
    engines = doc["engines"]
    base = engine.partition("@")[0]       # vllm@0.6: its own entry if it has one, else the engine's newest
    eid = engine if engine in engines else base if base in engines else str(doc.get("default", {}).get("same_as", "vllm"))
    entry = engines.get(eid)
    if not isinstance(entry, Mapping):
        raise AssetError(f"serving.json: no limits for engine '{eid}'")
    values, sources = {}, {}
    for k in KEYS:
        values[k], sources[k] = _value(entry, k, eid)
    for k, default in OPTIONAL.items():
        values[k], sources[k] = _value(entry, k, eid) if k in entry else (default, "no such setting")
    for rule in entry.get("rules", ()):
        if _matches(rule.get("when", {}), hw):
            for k in (*KEYS, *OPTIONAL):
                if k in rule:
                    values[k], sources[k] = _value(rule, k, f"{eid} rule")
    if values["prefill"] not in PREFILL_MODES or values["preemption"] not in PREEMPTIONS:
        raise AssetError(f"serving.json: {eid} has an unknown prefill or preemption mode")
    if not isinstance(values["overlap_schedule"], bool):
        raise AssetError(f"serving.json: {eid} overlap_schedule must be true or false")
    if values["batching"] not in ("continuous", "static"):
        raise AssetError(f"serving.json: {eid} batching must be continuous or static")
    if eid not in (engine, base):
        sources = {k: f"{v} (the default: {engine} has no entry)" for k, v in sources.items()}
    mr = values["max_running"]
    return SchedulerLimits(engine, None if mr is None else int(mr), int(values["max_tokens_per_step"]),
                           values["prefill"], values["batching"], int(values["block_tokens"]),
                           values["preemption"], tuple(sources.items()), int(values["scheduler_steps"]),
                           float(values["watermark"]), float(values["frontend_s"]),
                           float(values["tokenize_s_per_token"]), values["overlap_schedule"])


def trtllm_bench_limits(lim: SchedulerLimits, kv_tokens: int, mean_input: float, mean_output: float,
                        longest_input: int) -> SchedulerLimits:
    """TensorRT-LLM as trtllm-bench starts it: the bench sizes the executor from the dataset when it
    is not told (tensorrt_llm/bench/build/tuning.py finetune_setting; bench/benchmark/utils/general.py
    get_settings), here from the KV cache the simulator gives the engine:

        requests   R = min(KV tokens ÷ (mean input + mean output), 4096)
        batch      max(64, R rounded up to 32) below 256; to 128 below 1 024; else to 256
        tokens     min(R·(1 + input ÷ output), 32 768), at least 2 048, rounded up to 256 / 512 / 1 024
                   (below 4 096 / below 8 192 / above); chunked prefill off (the bench's default), so
                   never fewer than the longest prompt + the batch: a prompt runs in one step

    A value you set yourself (--max-running, --max-tokens-per-step) stays."""
    mine = {k for k, v in lim.sources if v == "your setting"}
    raw_bs = min(kv_tokens / max(mean_input + mean_output, 1.0), 4096.0)
    if raw_bs < 256:
        batch = max(64, 32 * math.ceil(raw_bs / 32))
    elif raw_bs < 1024:
        batch = 128 * math.ceil(raw_bs / 128)
    else:
        batch = 256 * math.ceil(raw_bs / 256)
    raw_tokens = min(raw_bs * (1.0 + mean_input / max(mean_output, 1.0)), 32768.0)
    step = 256 if raw_tokens < 4096 else 512 if raw_tokens < 8192 else 1024
    tokens = max(2048 if raw_tokens < 4096 else 0, step * math.ceil(raw_tokens / step))
    tokens = max(tokens, int(longest_input) + batch)
    src = "trtllm-bench's own settings from the dataset (tensorrt_llm/bench/build/tuning.py finetune_setting)"
    changes = {k: v for k, v in (("max_running", batch), ("max_tokens_per_step", tokens)) if k not in mine}
    if not changes:
        return lim
    sources = dict(lim.sources)
    sources.update({k: src for k in changes})
    return replace(lim, **changes, sources=tuple(sources.items()))


def limits_for(engine: str, hw: Hardware, setup: ServingSetup) -> SchedulerLimits:
    """The engine's limits with the setup's overrides."""
    base = engine_limits(engine, hw)
    changes, sources = {}, dict(base.sources)
    for k in ("max_running", "max_tokens_per_step", "prefill", "block_tokens", "preemption", "scheduler_steps"):
        v = getattr(setup, k)
        if v is not None:
            changes[k] = v
            sources[k] = "your setting"
    if not changes:
        return base
    return replace(base, **changes, sources=tuple(sources.items()))


def mtp_heads(model_id: str, doc: Mapping[str, Any] | None = None) -> int:
    """Multi-token-prediction heads the model ships with (0: none)."""
    doc = doc or serving_table()
    item = doc.get("mtp_heads", {}).get(model_id)
    return int(item["value"]) if isinstance(item, Mapping) else 0


def sharegpt(doc: Mapping[str, Any] | None = None) -> LengthDistribution:
    doc = doc or serving_table()
    d = doc.get("datasets", {}).get("sharegpt")
    if not isinstance(d, Mapping):
        raise AssetError("serving.json: no ShareGPT length distribution")
    (i, si), (o, so), (s, ss) = (_value(d, k, "sharegpt") for k in ("input_mean_tokens", "output_mean_tokens", "sigma"))
    if not (float(i) > 0 and float(o) > 0 and float(s) > 0):
        raise ScenarioError("serving.json: ShareGPT means and spread must be positive")
    return LengthDistribution(float(i), float(o), float(s), "; ".join(dict.fromkeys((si, so, ss))))
