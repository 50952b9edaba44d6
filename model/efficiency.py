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

``python -m model.calibrate`` fits the factors on every measured row (each engine's
factors shrink toward a physically motivated prior where it has few rows) and lists the
rows each set came from. ``ideal`` is 100% of peak with no overhead: the roofline floor.
``auto`` picks the engine most people run on that hardware, by rules in the data file.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from model.catalog import ASSETS_DIR, Hardware, _read_json
from model.errors import AssetError, ScenarioError
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


def parse_factors(raw: Mapping[str, Any], stack: str, rows=()) -> Efficiency:
    try:
        return Efficiency(
            hbm_fraction=float(raw["hbm_fraction"]),
            compute_fraction_decode=float(raw["compute_fraction_decode"]),
            compute_fraction_prefill=float(raw["compute_fraction_prefill"]),
            step_overhead_s=float(raw["step_overhead_ms"]) * 1e-3,
            layer_overhead_s=float(raw["layer_overhead_us"]) * 1e-6,
            allreduce_latency_scale=float(raw["allreduce_latency_scale"]),
            dequant_ops_per_weight=float(raw.get("dequant_ops_per_weight", 0.0)),
            request_overhead_s=float(raw.get("request_overhead_ms", 0.0)) * 1e-3,
            kv_read_fraction=float(raw.get("kv_read_fraction", 1.0)),
            calibrated_on=tuple(rows),
            stack=stack,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise AssetError(f"engines.json: factors of {stack} are malformed: {exc}") from None


def factors_as_json(e: Efficiency) -> dict:
    return {
        "hbm_fraction": round(e.hbm_fraction, 4),
        "compute_fraction_decode": round(e.compute_fraction_decode, 4),
        "compute_fraction_prefill": round(e.compute_fraction_prefill, 4),
        "step_overhead_ms": round(e.step_overhead_s * 1e3, 4),
        "layer_overhead_us": round(e.layer_overhead_s * 1e6, 3),
        "allreduce_latency_scale": round(e.allreduce_latency_scale, 4),
        "dequant_ops_per_weight": round(e.dequant_ops_per_weight, 3),
        "request_overhead_ms": round(e.request_overhead_s * 1e3, 4),
        "kv_read_fraction": round(e.kv_read_fraction, 4),
    }


def _engine(eid: str, raw: Mapping[str, Any]) -> Engine:
    fitted = tuple((plat, parse_factors(f["factors"], f"{eid}/{plat}", f.get("fitted_on", ())))
                   for plat, f in raw.get("fitted", {}).items())
    return Engine(
        id=eid, name=str(raw["name"]), aliases=tuple(a.lower() for a in raw.get("aliases", ())),
        framework_match=tuple(m.lower() for m in raw.get("framework_match", (eid,))),
        cuda_graphs=bool(raw.get("cuda_graphs", False)), multi_gpu=str(raw.get("multi_gpu", "tensor")),
        matmul_units=str(raw.get("matmul_units", "tensor")), score_bytes=float(raw.get("score_bytes", 0.0)),
        fp16_accumulate=bool(raw.get("fp16_accumulate", False)),
        why=tuple((k, str(v)) for k, v in raw.get("why", {}).items()),
        prior=parse_factors(raw["prior"], f"{eid}/prior"), fitted=fitted,
    )


def _si_keys(raw: Mapping[str, Any]) -> dict[str, float]:
    """Data-file factor names (step_overhead_ms …) → Efficiency field names (step_overhead_s …)."""
    rename = {"step_overhead_ms": "step_overhead_s", "layer_overhead_us": "layer_overhead_s",
              "request_overhead_ms": "request_overhead_s"}
    return {rename.get(k, k): float(v) for k, v in raw.items()}


def load_efficiency(path: Path | str | None = None) -> EfficiencyTable:
    p = Path(path) if path else ASSETS_DIR / "engines.json"
    doc = _read_json(p)
    try:
        engines = tuple(_engine(eid, raw) for eid, raw in doc["engines"].items())
        rules = tuple(AutoRule(r["field"], r["contains"], r["engine"], r["reason"]) for r in doc["auto"])
        table = EfficiencyTable(engines, rules, tuple(doc["platforms"].items()),
                                float(doc["workspace_fraction"]), int(doc["max_inflight_batch"]),
                                tuple(_si_keys(doc["prior_width"]).items()), float(doc.get("prior_offset_weight", 1.0)),
                                float(doc["sustained_bandwidth"]["default_fraction"]),
                                float(doc["vector_matmul"]["per_fp32"]),
                                str(doc["fp16_accumulate"]["name_contains"]), float(doc["fp16_accumulate"]["speedup"]),
                                tuple(doc.get("graph_platforms", {}).get("platforms", ())))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AssetError(f"{p.name} is malformed: {exc}") from None
    if not engines:
        raise AssetError(f"{p.name} lists no engines")
    for r in rules:
        if r.engine not in {e.id for e in engines}:
            raise AssetError(f"{p.name}: auto rule names unknown engine '{r.engine}'")
    return table


@lru_cache(maxsize=1)
def default_efficiency() -> EfficiencyTable:
    return load_efficiency()


def engine_ids() -> tuple[str, ...]:
    """Every engine id the scenario accepts (auto and ideal included)."""
    return default_efficiency().ids


def engine_choices() -> list[tuple[str, str, str]]:
    """(id, label, tooltip) for an engine picker: auto, each engine, ideal."""
    table = default_efficiency()
    rules = "; ".join(f"{r.contains or 'otherwise'} → {r.engine}" for r in table.auto_rules)
    out = [(AUTO, "auto (most used on this GPU)", f"The engine most people run on the chosen hardware: {rules}")]
    for e in table.engines:
        why = dict(e.why)
        tip = f"{e.name}: " + " ".join(f"{v[0].upper()}{v[1:]}." for v in (why.get("layer_overhead_us"),
                                                                         why.get("hbm_fraction")) if v)
        out.append((e.id, e.name, tip))
    out.append((IDEAL_ID, "ideal (roofline floor)", "100% of peak bandwidth and FLOP/s, no overhead: the floor"))
    return out
