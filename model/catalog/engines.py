"""Realistic efficiency: the gap between datasheet peaks and what an inference engine reaches.

Each engine (TensorRT-LLM, vLLM, llama.cpp …) carries readable factors, per platform
(CUDA, ROCm, Metal, Gaudi, TPU), in ``assets/engines.json``:

    effective bandwidth = sustained memory bytes/s × hbm_fraction
    sustained bytes/s   = the part's measured STREAM bandwidth, else datasheet × the median
                          STREAM/datasheet ratio of the catalogue's measured parts
    effective FLOP/s    = dense peak FLOP/s × compute_fraction_{decode,prefill}
    dequantisation      = dequant_ops_per_weight × weights / FP32 (CUDA-core) FLOP/s
                          (weight-only formats: each weight is unpacked before the matmul)
    per-pass overhead   = step_overhead_ms + layers × layer_overhead_us
                          (engines that capture CUDA graphs pay almost no per-layer launch cost)
    per-request         = request_overhead_ms, once per prefill (tokenise, schedule, bookkeeping)
    multi-GPU           = tensor parallel, or consecutive layers per GPU (llama.cpp's default
                          --split-mode layer): then the GPUs work one after another
    all-reduce latency  = link latency × allreduce_latency_scale

``python -m model.machine.calibrate`` fits the factors on every measured row (each engine's
factors shrink toward a physically motivated prior where it has few rows) and lists the
rows each set came from (model/files/assets.py reads them).  ``ideal`` is 100% of peak with no overhead: the roofline floor.
``auto`` picks the engine most people run on that hardware, by rules in the data file.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping

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
}


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


IDEAL = Efficiency(1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, (), IDEAL_ID)


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
    fitted: tuple[tuple[str, Efficiency], ...]   # platform → fitted factors

    def for_platform(self, platform: str) -> Efficiency:
        """This platform's fit, else the CUDA fit, else the prior."""
        table = dict(self.fitted)
        return table.get(platform) or table.get("cuda") or self.prior


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

    def canonical(self, name: str) -> str:
        """Engine id for an id or alias; ScenarioError (one line) naming the known ones."""
        key = str(name).strip().lower()
        if key in (AUTO, IDEAL_ID):
            return key
        for e in self.engines:
            if key == e.id or key in e.aliases:
                return e.id
        raise ScenarioError(f"unknown engine '{name}' (known: {', '.join(self.ids)})")

    def engine(self, engine_id: str) -> Engine:
        cid = self.canonical(engine_id)
        for e in self.engines:
            if e.id == cid:
                return e
        raise ScenarioError(f"engine '{engine_id}' has no factors (it is {cid})")

    def auto_engine(self, hw: Hardware) -> tuple[str, str]:
        """(engine id, reason) of the first auto rule that matches ``hw``."""
        for rule in self.auto_rules:
            if rule.matches(hw):
                return rule.engine, rule.reason
        return self.engines[0].id, "no rule matched: the first engine in the table"

    def splits_layers(self, engine_id: str) -> bool:
        """Whether the engine puts consecutive layers on each GPU (pipeline) instead of tensor parallel."""
        return engine_id not in (AUTO, IDEAL_ID) and self.engine(engine_id).multi_gpu == "layers"

    def matmul_flops(self, engine_id: str, hw: Hardware, dtype: str, quantised: bool) -> float:
        """Peak FLOP/s an engine's matmuls run against. Tensor cores by default; an engine whose
        quantised kernels use CUDA cores (dp4a) gets min(tensor peak, vector_matmul_per_fp32 × FP32);
        an engine accumulating FP16 in FP16 on a part that halves FP32-accumulate (GeForce) gets
        the full FP16-accumulate rate, for quantised weights too when its tensor-core path first
        dequantises them to FP16."""
        tensor = hw.peak(dtype) or 0.0
        if engine_id in (AUTO, IDEAL_ID):
            return tensor
        e = self.engine(engine_id)
        if quantised and e.matmul_units == "vector":
            return min(tensor, self.vector_matmul_per_fp32 * (hw.peak("fp32") or tensor))
        if (e.fp16_accumulate and dtype == "fp16"
                and self.fp16_accumulate_match and self.fp16_accumulate_match.lower() in hw.name.lower()):
            return tensor * self.fp16_accumulate_speedup
        return tensor

    def score_bytes(self, engine_id: str) -> float:
        """Bytes each attention score costs in memory for this engine (0 with flash attention)."""
        return 0.0 if engine_id in (AUTO, IDEAL_ID) else self.engine(engine_id).score_bytes

    def resolve_engine(self, name: str, hw: Hardware) -> str:
        cid = self.canonical(name)
        return self.auto_engine(hw)[0] if cid == AUTO else cid

    def platform(self, hw: Hardware) -> str:
        return dict(self.platforms).get(hw.vendor.split()[0], "cuda")

    def sustained_fraction(self, hw: Hardware) -> float:
        """What a STREAM copy reaches of the datasheet bandwidth: measured, else the median."""
        if hw.stream_bandwidth_bytes_per_s and hw.hbm_bandwidth_bytes_per_s:
            return min(1.0, hw.stream_bandwidth_bytes_per_s / hw.hbm_bandwidth_bytes_per_s)
        return self.sustained_fraction_default

    def efficiency(self, engine_id: str, hw: Hardware) -> Efficiency:
        """The factors step.py applies: the engine's, with its bandwidth fraction (of the
        sustained bandwidth) turned into a fraction of the datasheet figure."""
        cid = self.resolve_engine(engine_id, hw)
        if cid == IDEAL_ID:
            return IDEAL
        e = self.engine(cid).for_platform(self.platform(hw))
        return replace(e, hbm_fraction=e.hbm_fraction * self.sustained_fraction(hw))

    def with_fits(self, fits: Mapping[tuple[str, str], Efficiency]) -> "EfficiencyTable":
        """A copy whose engines carry ``fits`` ((engine, platform) → factors) instead of theirs."""
        engines = []
        for e in self.engines:
            mine = tuple((plat, eff) for (eid, plat), eff in sorted(fits.items()) if eid == e.id)
            engines.append(replace(e, fitted=mine))
        return replace(self, engines=tuple(engines))
