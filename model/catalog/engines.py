"""Realistic efficiency: the gap between datasheet peaks and what an inference engine reaches.

Each engine (TensorRT-LLM, vLLM, llama.cpp …) carries readable factors, per platform
(CUDA, ROCm, Metal, Gaudi, TPU), in ``assets/engines.json``:

    effective bandwidth = sustained memory bytes/s × hbm_fraction
    sustained bytes/s   = the part's measured STREAM bandwidth, else datasheet × the median
                          STREAM/datasheet ratio of the catalogue's measured parts
    effective FLOP/s    = dense peak FLOP/s × compute_fraction_{decode,prefill}
    dequantisation      = dequant_ops_per_weight × weights / FP32 (CUDA-core) FLOP/s
                          (weight-only formats: each weight is unpacked before the matmul)
    per-pass overhead   = step_overhead_ms + layers × layer_overhead_us      (GPU side: each layer's
                          small kernels have a launch latency and a tail even when replayed from a graph)
    host issue time     = layers × host_layer_us, for engines that launch every kernel from the host
                          (eager frameworks, no CUDA graphs): the GPU runs behind the host's queue, so
                          a step takes max(GPU time, host time) and a faster GPU does not shorten it
                          once the host is the slower of the two; an engine whose graphs hold only
                          decode steps (SGLang, vLLM's V0 engine) pays it on every pass with prompts
    per-request         = request_overhead_ms, once per prefill (tokenise, schedule, bookkeeping)
    multi-GPU           = tensor parallel, or consecutive layers per GPU (llama.cpp's default
                          --split-mode layer): then the GPUs work one after another
    all-reduce latency  = link latency × allreduce_latency_scale
    versions            = an engine's older releases (``vllm@0.6``) where a source names the version
                          and speed changed a lot: factors of their own, anchored at the newest's

``python -m model.machine.calibrate`` fits the factors on every measured row (each engine's
factors shrink toward a physically motivated prior where it has few rows) and lists the
rows each set came from (model/files/assets.py reads them).  ``ideal`` is 100% of peak with no overhead: the roofline floor.
``auto`` picks the engine most people run on that hardware, by rules in the data file.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Mapping

import numpy as np

from model.catalog.parts import Hardware
from model.errors import ScenarioError
from model.values import frozen

AUTO = "auto"
IDEAL_ID = "ideal"
# factor name → (unit in the data file, scale to SI)
FACTORS = {
    "hbm_fraction": ("", 1.0),
    "compute_fraction_decode": ("", 1.0),
    "compute_fraction_prefill": ("", 1.0),
    "step_overhead_ms": ("ms", 1e-3),
    "layer_overhead_us": ("µs", 1e-6),
    "allreduce_latency_scale": ("×", 1.0),
    "dequant_ops_per_weight": ("ops", 1.0),
    "request_overhead_ms": ("ms", 1e-3),
    "kv_read_fraction": ("", 1.0),
    "host_layer_us": ("µs", 1e-6),
}
VERSION_SEP = "@"                     # vllm@0.6: an engine at one of its older releases


@frozen
class Efficiency:
    """How close one engine gets to the roofline floor: the fractions of peak HBM bandwidth and of
    peak FLOP/s it attains, and its fixed costs per step, per layer and per all-reduce (seconds)."""

    hbm_fraction: float
    compute_fraction_decode: float
    compute_fraction_prefill: float
    step_overhead_s: float
    layer_overhead_s: float
    allreduce_latency_scale: float
    dequant_ops_per_weight: float = 0.0
    request_overhead_s: float = 0.0      # once per request: tokenise, schedule, first-token bookkeeping
    communicates: float = 1.0            # 0 for the roofline floor: links cost nothing
    kv_read_fraction: float = 1.0        # attention kernels' share of the engine's bandwidth (paged KV gathers)
    calibrated_on: tuple[str, ...] = ()
    stack: str = "ideal"
    host_layer_s: float = 0.0            # host time to issue one layer's kernels (eager frameworks)
    eager: float = 0.0                   # 1 where the host issues every kernel (no CUDA graphs, no graph platform)
    eager_prefill: float = 0.0           # 1 where graphs hold only decode steps: a pass with prompts is issued kernel by kernel

    def host_issues(self, prompts: bool):
        """1 where the host issues a pass's kernels one by one: every pass of an eager engine, and a pass
        with prompts where the graphs hold decode steps only (fields may be arrays: the fit's)."""
        if not prompts:
            return self.eager
        a, b = self.eager, self.eager_prefill
        if a.__class__ is float and b.__class__ is float:
            return a if a >= b else b
        return np.maximum(a, b)


IDEAL = Efficiency(1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, (), IDEAL_ID)


@frozen
class EngineVersion:
    """An older release range of an engine whose speed differed a lot from the newest (a source
    names it): its own fitted factors, anchored at the newest's, and what changed since, in words.
    A row's version text belongs to the first range whose ``through`` version (or, for a text
    with a date and no version number, ``through_year``) it does not pass."""

    id: str                               # the suffix after '@': vllm@0.6
    label: str
    through: tuple[int, ...]              # last (major, minor) in the range; () when dated only
    through_year: int                     # last year in the range (0: none)
    why: str
    structure: tuple[tuple[str, object], ...] = ()   # Engine fields that differed (e.g. no chunked prefill)
    own_factors: bool = False             # fitted as a group of its own (else the newest's factors, its structure)


@frozen
class Engine:
    """An inference engine (assets/engines.json): how it runs (CUDA graphs, multi-GPU split), which
    published framework names it matches, and its fitted efficiency."""

    id: str
    name: str
    aliases: tuple[str, ...]
    framework_match: tuple[str, ...]      # lower-case substrings of a published framework name
    cuda_graphs: bool
    multi_gpu: str                        # tensor (tensor parallel) | layers (consecutive layers per GPU)
    matmul_units: str                     # tensor (tensor cores) | vector (CUDA cores: dp4a / half2)
    score_bytes: float                    # bytes moved per attention score (0: flash attention keeps them on chip)
    fp16_accumulate: bool                 # FP16 GEMMs accumulate in FP16 (cuBLAS COMPUTE_16F)
    why: tuple[tuple[str, str], ...]      # factor → one sentence of why
    prior: Efficiency
    fitted: tuple[tuple[str, Efficiency], ...]   # platform (or platform@version) → fitted factors
    batching: str = "continuous"          # continuous (requests join between steps) | static (one batch)
    prefill_chunk_tokens: int = 0         # prompts go through in passes of this many tokens (0: one pass)
    prefill_graphs: bool = True           # False: CUDA graphs hold decode steps only, a pass with prompts runs eager
    versions: tuple[EngineVersion, ...] = ()     # older releases with factors of their own
    newest: str = ""                      # what the default (newest) factors are fitted on, in words

    def for_platform(self, platform: str, version: str = "") -> Efficiency:
        """This platform's fit (at ``version``, else the newest's), else the CUDA fit, else the prior."""
        table = dict(self.fitted)
        return ((table.get(f"{platform}{VERSION_SEP}{version}") if version else None) or table.get(platform)
                or table.get("cuda") or self.prior)

    def version(self, version_id: str) -> EngineVersion:
        for v in self.versions:
            if v.id == version_id:
                return v
        known = ", ".join(f"{self.id}{VERSION_SEP}{v.id}" for v in self.versions) or "none"
        raise ScenarioError(f"{self.name} has no version '{version_id}' (older versions: {known}; "
                            f"'{self.id}' is the newest)")

    def version_of(self, text: str) -> str:
        """The version range a published version text falls in ('' for the newest): by its leading
        version number (0.6.3.post1 → ≤ 0.6), else by the year it names (May 2024 build → ≤ 2024)."""
        t = str(text or "").strip().lower()
        number = re.match(r"v?(\d+)\.(\d+)", t)
        year = re.search(r"\b(20\d\d)\b", t)
        for v in sorted(self.versions, key=lambda v: (v.through, v.through_year)):
            if number and v.through and (int(number[1]), int(number[2])) <= v.through:
                return v.id
            if not number and year and v.through_year and int(year[1]) <= v.through_year:
                return v.id
        return ""


@frozen
class AutoRule:
    """One line of the "auto" engine choice: a GPU whose ``field`` contains ``contains`` runs ``engine``."""

    field: str          # a Hardware attribute: vendor | name | hbm_kind | family
    contains: str       # case-insensitive substring; "" matches anything
    engine: str
    reason: str

    def matches(self, hw: Hardware) -> bool:
        return self.contains.lower() in str(getattr(hw, self.field, "")).lower()


@frozen
class EfficiencyTable:
    """Every engine with its efficiency, the auto-choice rules, and the shared constants
    (assets/engines.json)."""

    engines: tuple[Engine, ...]
    auto_rules: tuple[AutoRule, ...]
    platforms: tuple[tuple[str, str], ...]   # vendor → platform
    workspace_fraction: float
    max_inflight_batch: int
    prior_strength: tuple[tuple[str, float], ...] = ()   # factor → shrinkage τ (logit/log units)
    prior_offset_weight: float = 1.0          # share of an engine's prior offset kept in its anchor
    sustained_fraction_default: float = 1.0   # STREAM / datasheet where a part has no measurement
    vector_matmul_per_fp32: float = 4.0       # int8 dp4a multiply-adds per FP32 FMA
    fp16_accumulate_match: str = ""           # parts (by name) whose FP32-accumulate rate is half
    fp16_accumulate_speedup: float = 1.0
    graph_platforms: tuple[str, ...] = ()     # platforms that run every framework as compiled graphs

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.engines) + (AUTO, IDEAL_ID)

    @property
    def version_ids(self) -> tuple[str, ...]:
        """Every engine's older versions as scenario ids (vllm@0.6 …)."""
        return tuple(f"{e.id}{VERSION_SEP}{v.id}" for e in self.engines for v in e.versions)

    @staticmethod
    def split(engine_id: str) -> tuple[str, str]:
        """('vllm', '0.6') for 'vllm@0.6'; ('vllm', '') for the newest."""
        base, _, version = str(engine_id).partition(VERSION_SEP)
        return base, version

    def canonical(self, name: str) -> str:
        """Engine id for an id or alias, with its version suffix (vllm@0.6) where one is given;
        ScenarioError (one line) naming the known ones."""
        key = str(name).strip().lower()
        if key in (AUTO, IDEAL_ID):
            return key
        base, version = self.split(key)
        for e in self.engines:
            if base == e.id or base in e.aliases:
                return f"{e.id}{VERSION_SEP}{e.version(version).id}" if version else e.id
        raise ScenarioError(f"unknown engine '{name}' (known: {', '.join(self.ids)}; older versions as "
                            f"{self.version_ids[0] if self.version_ids else 'engine@version'})")

    def engine(self, engine_id: str) -> Engine:
        """The engine (at its version: the fields that version changed replaced), by id or alias;
        kept per table once looked up (an estimate asks a dozen times), as model.values keeps a hash."""
        cache = self.__dict__.get("_engine_by_id")
        if cache is None:
            cache = {}
            object.__setattr__(self, "_engine_by_id", cache)
        found = cache.get(engine_id)
        if found is None:
            found = cache[engine_id] = self._engine(engine_id)
        return found

    def _engine(self, engine_id: str) -> Engine:
        cid = self.canonical(engine_id)
        base, version = self.split(cid)
        for e in self.engines:
            if e.id == base:
                return replace(e, **dict(e.version(version).structure)) if version else e
        raise ScenarioError(f"engine '{engine_id}' has no factors (it is {cid})")

    def with_version(self, engine_id: str, version_text: str) -> str:
        """The engine id a published run refers to: its older version's id when the version text
        falls in one (vllm, '0.5.4' → vllm@0.6), else the engine's own (the newest)."""
        if engine_id in (AUTO, IDEAL_ID) or not version_text:
            return engine_id
        base, _ = self.split(engine_id)
        version = self.engine(base).version_of(version_text)
        return f"{base}{VERSION_SEP}{version}" if version else base

    def fit_group(self, engine_id: str) -> str:
        """Whose factors a run of ``engine_id`` is fitted with: its version's own where that version
        has them (vllm@0.6), else the newest's (a version that differs only in structure)."""
        base, version = self.split(engine_id)
        if version and self.engine(base).version(version).own_factors:
            return engine_id
        return base

    def auto_engine(self, hw: Hardware) -> tuple[str, str]:
        """(engine id, reason) of the first auto rule that matches ``hw``."""
        for rule in self.auto_rules:
            if rule.matches(hw):
                return rule.engine, rule.reason
        return self.engines[0].id, "no rule matched: the first engine in the table"

    def splits_layers(self, engine_id: str) -> bool:
        """Whether the engine puts consecutive layers on each GPU (pipeline) instead of tensor parallel."""
        return engine_id not in (AUTO, IDEAL_ID) and self.engine(engine_id).multi_gpu == "layers"

    def peak_flops(self, hw: Hardware, dtype: str) -> float | None:
        """The fastest tensor-core rate the part has for ``dtype``: the catalogue's, doubled for FP16
        on parts whose catalogued rate is FP32-accumulate (GeForce: FP16 accumulation runs at twice
        it). The roofline floor and the ``ideal`` engine use it, so no engine is ever below them."""
        tensor = hw.peak(dtype)
        if tensor and dtype == "fp16" and self._fp16_accumulate_part(hw):
            return tensor * self.fp16_accumulate_speedup
        return tensor

    def _fp16_accumulate_part(self, hw: Hardware) -> bool:
        return bool(self.fp16_accumulate_match) and self.fp16_accumulate_match.lower() in hw.name.lower()

    def matmul_flops(self, engine_id: str, hw: Hardware, dtype: str, quantised: bool) -> float:
        """Peak FLOP/s an engine's matmuls run against. Tensor cores by default; an engine whose
        quantised kernels use CUDA cores (dp4a) gets min(tensor peak, vector_matmul_per_fp32 × FP32);
        an engine accumulating FP16 in FP16 on a part that halves FP32-accumulate (GeForce) gets
        the full FP16-accumulate rate, for quantised weights too when its tensor-core path first
        dequantises them to FP16. ``ideal`` gets the part's fastest rate (``peak_flops``)."""
        tensor = hw.peak(dtype) or 0.0
        if engine_id == AUTO:
            return tensor
        if engine_id == IDEAL_ID:
            return self.peak_flops(hw, dtype) or 0.0
        e = self.engine(engine_id)
        if quantised and e.matmul_units == "vector":
            return min(tensor, self.vector_matmul_per_fp32 * (hw.peak("fp32") or tensor))
        if e.fp16_accumulate and dtype == "fp16" and self._fp16_accumulate_part(hw):
            return tensor * self.fp16_accumulate_speedup
        return tensor

    def score_bytes(self, engine_id: str) -> float:
        """Bytes each attention score costs in memory for this engine (0 with flash attention)."""
        return 0.0 if engine_id in (AUTO, IDEAL_ID) else self.engine(engine_id).score_bytes

    def prefill_chunk(self, engine_id: str) -> int:
        """Tokens per prefill pass (0: the whole batch of prompts in one pass)."""
        return 0 if engine_id in (AUTO, IDEAL_ID) else int(self.engine(engine_id).prefill_chunk_tokens)

    def continuous_batching(self, engine_id: str) -> bool:
        """Whether requests join a running batch between decode steps (their prefills interleave)."""
        return engine_id in (AUTO, IDEAL_ID) or self.engine(engine_id).batching == "continuous"

    def resolve_engine(self, name: str, hw: Hardware) -> str:
        cid = self.canonical(name)
        return self.auto_engine(hw)[0] if cid == AUTO else cid

    def platform(self, hw: Hardware) -> str:
        return dict(self.platforms).get(hw.vendor.split()[0], "cuda")

    def eager(self, engine_id: str, platform: str) -> bool:
        """Whether the host issues every kernel of a step (no CUDA graphs, and not a platform that
        compiles whole graphs): then the host's issue time can bound the step."""
        return (engine_id not in (AUTO, IDEAL_ID) and not self.engine(engine_id).cuda_graphs
                and platform not in self.graph_platforms)

    def eager_prefill(self, engine_id: str, platform: str) -> bool:
        """Whether a pass with prompt tokens is issued kernel by kernel although decode steps replay
        CUDA graphs (graphs captured for decode batch sizes only): then its host time can bound it."""
        return (engine_id not in (AUTO, IDEAL_ID) and self.engine(engine_id).cuda_graphs
                and not self.engine(engine_id).prefill_graphs and platform not in self.graph_platforms)

    def sustained_fraction(self, hw: Hardware) -> float:
        """What a STREAM copy reaches of the datasheet bandwidth: measured, else the median."""
        if hw.stream_bandwidth_bytes_per_s and hw.hbm_bandwidth_bytes_per_s:
            return min(1.0, hw.stream_bandwidth_bytes_per_s / hw.hbm_bandwidth_bytes_per_s)
        return self.sustained_fraction_default

    def efficiency(self, engine_id: str, hw: Hardware) -> Efficiency:
        """The factors step.py applies: the engine's (at its version), with its bandwidth fraction
        (of the sustained bandwidth) turned into a fraction of the datasheet figure."""
        cid = self.resolve_engine(engine_id, hw)
        if cid == IDEAL_ID:
            return IDEAL
        base, version = self.split(cid)
        plat = self.platform(hw)
        e = self.engine(base).for_platform(plat, version)
        return replace(e, hbm_fraction=e.hbm_fraction * self.sustained_fraction(hw),
                       eager=1.0 if self.eager(cid, plat) else 0.0,
                       eager_prefill=1.0 if self.eager_prefill(cid, plat) else 0.0)

    def with_fits(self, fits: Mapping[tuple[str, str], Efficiency]) -> "EfficiencyTable":
        """A copy whose engines carry ``fits`` ((engine[@version], platform) → factors) instead of theirs."""
        engines = []
        for e in self.engines:
            mine = tuple((plat + (VERSION_SEP + self.split(eid)[1] if self.split(eid)[1] else ""), eff)
                         for (eid, plat), eff in sorted(fits.items()) if self.split(eid)[0] == e.id)
            engines.append(replace(e, fitted=mine))
        return replace(self, engines=tuple(engines))
