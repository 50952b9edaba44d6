"""What the user chose (Scenario) and what it resolves to (ResolvedScenario).

The one place that says what is legal:
    1 ≤ batch ≤ 65 536,  1 ≤ GPUs ≤ 64,  1 ≤ input/output length ≤ 1 048 576 tokens
    tensor parallel degree  tp = min(GPUs, GPUs per node on the chosen link), must divide
    the query heads; pipeline stages  pp = GPUs / tp  across nodes, at most one per layer.
Interconnect: the fabric the tensor-parallel all-reduces cross — ``nvlink`` (the part's
scale-up fabric: NVLink, Infinity Fabric, ICI, Gaudi RoCE), ``pcie``, or ``network`` (one
GPU per node). Pipeline hops beyond a node always cross the network. Engine: an id or alias of
``assets/engines.json`` (``auto`` picks by hardware, ``ideal`` is the roofline floor).
"""
from __future__ import annotations

import math
from dataclasses import fields, replace
from operator import attrgetter
from typing import Any, Mapping

from model.catalog.parts import Catalog, Hardware, KVPrecision, Link, LLM, Precision
from model.catalog.active import default_catalog
from model.catalog.active import default_efficiency
from model.errors import ScenarioError
from model.values import filled, frozen, kept

INTERCONNECTS = ("nvlink", "pcie", "network")
PHASES = ("decode", "prefill")
MAX_BATCH = 65_536
MAX_GPUS = 64
MAX_TOKENS = 1_048_576
GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)


@frozen
class Scenario:
    """A user's choice. The defaults (what Explore opens on and Reset returns to) fit and run:
    Llama 3.1 8B in BF16 on one H100 at batch 1, memory-bound at ~9 ms per token. (70B on one
    H100, which does not fit, is lesson 5's first state.)"""

    gpu: str = "h100-sxm5-80gb"
    model: str = "llama-3.1-8b"
    precision: str = "bf16"
    kv_precision: str | None = None      # None: the precision's default
    batch: int = 1
    gpus: int = 1
    interconnect: str = "nvlink"
    input_len: int = 1024
    output_len: int = 1024
    phase: str = "decode"
    engine: str = "auto"                 # an engine id or alias (model/catalog/engines.py); auto: by hardware

    def with_(self, **changes: Any) -> "Scenario":
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Scenario":
        if not isinstance(data, Mapping):
            raise ScenarioError("a scenario must be a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ScenarioError(f"unknown scenario field '{unknown[0]}' (known: {', '.join(sorted(known))})")
        return cls(**dict(data))


@frozen
class ResolvedScenario:
    """A Scenario with its catalogue entries looked up (GPU, model, precisions) and its derived
    choices made (compute type, tensor/pipeline parallelism, engine). Keep with it (model.values.kept)
    only what its parts alone decide: ``resolve`` shares one store among scenarios with the same parts."""

    scenario: Scenario
    hw: Hardware
    llm: LLM
    precision: Precision
    kv: KVPrecision
    compute_dtype: str
    emulated: bool
    tp: int
    pp: int
    tp_link: Link | None
    notes: tuple[str, ...]
    engine: str = "ideal"                # the concrete engine (auto resolved)

    @property
    def peak_flops(self) -> float:
        """The part's fastest tensor-core rate for the maths type (GeForce FP16: the FP16-accumulate
        rate, twice the catalogued FP32-accumulate one): the roofline's ceiling and the floor's.
        Worked out once per resolved scenario (every pass and readout asks)."""
        return kept(self, "peak_flops", lambda rs: default_efficiency().peak_flops(rs.hw, rs.compute_dtype))

    @property
    def tp_kv(self) -> int:
        """How many ways the KV cache is split: KV heads shard across tp (replicated beyond
        the number of KV heads); an MLA latent is shared by all heads, so it replicates."""
        return kept(self, "tp_kv", _tp_kv)


def _tp_kv(rs: ResolvedScenario) -> int:
    llm = rs.llm
    if llm.shape.kinds:         # each kind splits its own cache (model/physics/mixers.py); this: the attention's
        return min([rs.tp] + [min(rs.tp, k.shards) for k in llm.shape.kinds if k.kind != "linear"])
    if llm.shape.kv_values_per_token < 2 * llm.layers * llm.kv_heads * llm.head_dim:
        return 1  # MLA
    return min(rs.tp, llm.kv_heads)


def _int(name: str, value: Any, lo: int, hi: int) -> int:
    if value.__class__ is int and lo <= value <= hi:
        return value                    # (the usual case, as the checks below would find it)
    if isinstance(value, bool):
        raise ScenarioError(f"{name} must be a whole number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ScenarioError(f"{name} must be a whole number, got {value!r}") from None
    if not math.isfinite(number) or number != int(number):
        raise ScenarioError(f"{name} must be a whole number, got {value!r}")
    if not lo <= number <= hi:
        raise ScenarioError(f"{name} must be between {lo:,} and {hi:,}, got {int(number):,}")
    return int(number)


def compute_path(hw: Hardware, p: Precision) -> tuple[str, bool, str | None]:
    """(the data type the maths runs in, emulated?, the note saying so): the precision's own tensor-core
    path, else its first fallback the part has; ScenarioError when it has none."""
    if hw.peak(p.compute) is not None:
        return p.compute, False, None
    for alt in p.fallbacks:
        if hw.peak(alt) is not None:
            bits = f"{p.weight_bits:g}-bit" + (f", experts {p.expert_weight_bits:g}-bit" if p.mixed else "")
            return alt, True, (f"{hw.short_name} has no {p.compute.upper()} tensor-core path: "
                               f"{p.name} runs emulated (weights stay {bits}, maths in {alt.upper()})")
    raise ScenarioError(f"{hw.short_name} cannot run {p.name}: no {p.compute.upper()} path and no fallback")


def _tp_link(hw: Hardware, interconnect: str, tp: int) -> tuple[Link | None, list[str]]:
    notes: list[str] = []
    if tp == 1:
        return None, notes
    if interconnect == "network":
        return hw.network, notes
    if interconnect == "nvlink":
        if hw.scale_up is None:
            notes.append(f"{hw.short_name} has no NVLink-class fabric: all-reduces cross PCIe")
            return hw.pcie, notes
        if tp > hw.scale_up.max_gpus:
            notes.append(f"{hw.scale_up.name} joins {hw.scale_up.max_gpus} GPUs: a {tp}-way all-reduce crosses PCIe")
            return hw.pcie, notes
        return hw.scale_up, notes
    if hw.pcie is None:
        notes.append(f"{hw.short_name} has no PCIe path between chips: all-reduces cross {hw.scale_up.name}")
        return hw.scale_up, notes
    return hw.pcie, notes


def resolve(s: Scenario, catalog: Catalog | None = None) -> ResolvedScenario:
    """Validate ``s`` and look up its parts. Raises ScenarioError / UnknownIdError (one line).

    What the parts resolve to (GPU, model, precisions, GPU count, interconnect, engine: no batch or
    length changes it) is kept with the catalogue once checked, so a control change that moves the
    batch or a length checks only those; the checks and their order are the same either way.
    What is kept with a ResolvedScenario (model.values.kept: its peak FLOP/s, its passes' constants)
    depends on its parts alone, so every scenario resolved to the same parts shares one store."""
    cat = catalog or default_catalog()
    engines = default_efficiency()
    key = _parts_key(s)
    kept_parts = kept(cat, "resolved parts", lambda _cat: {})
    found = kept_parts.get(key) if key is not None else None
    if found is None or found[0] is not engines:
        found = (engines, _parts(s, cat, engines), {})
        if key is not None:
            if len(kept_parts) >= MAX_KEPT_PARTS:
                kept_parts.clear()
            kept_parts[key] = found
    hw, llm, p, kv, compute, emulated, tp, pp, link, notes, engine, engine_choice, gpus, interconnect = found[1]
    batch = _int("batch", s.batch, 1, MAX_BATCH)
    input_len = _int("input length", s.input_len, 1, MAX_TOKENS)
    output_len = _int("output length", s.output_len, 1, MAX_TOKENS)
    phase = _phase(s)
    clean = filled(Scenario, gpu=hw.id, model=llm.id, precision=p.id, kv_precision=kv.id, batch=batch, gpus=gpus,
                   interconnect=interconnect, input_len=input_len, output_len=output_len, phase=phase,
                   engine=engine_choice)     # (every field, checked above)
    rs = ResolvedScenario(clean, hw, llm, p, kv, compute, emulated, tp, pp, link, notes, engine)
    object.__setattr__(rs, "_value_kept", found[2])      # what is kept with it: the same for these parts
    return rs


MAX_KEPT_PARTS = 256          # part combinations kept per catalogue (then it starts again)
PART_FIELDS = ("gpu", "model", "precision", "kv_precision", "gpus", "interconnect", "engine")
_part_values = attrgetter(*PART_FIELDS)


def _parts_key(s: Scenario) -> tuple | None:
    """The fields ``_parts`` reads, each with its type (True and 1 are equal keys but not equal
    choices); None when one cannot key a dict (then nothing is kept)."""
    values = _part_values(s)
    key = values + tuple(map(type, values))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _phase(s: Scenario) -> str:
    phase = str(s.phase).lower()
    if phase not in PHASES:
        raise ScenarioError(f"phase must be decode or prefill, got '{s.phase}'")
    return phase


def _parts(s: Scenario, cat: Catalog, engines) -> tuple:
    """Every check of ``resolve``, in its order, and what the parts resolve to: (hw, llm, precision,
    kv, compute type, emulated, tp, pp, tp link, notes, engine, engine choice, GPUs, interconnect)."""
    hw, llm, p = cat.gpu(s.gpu), cat.model(s.model), cat.precision(s.precision)
    kv = cat.kv_precision(s.kv_precision or p.default_kv)
    _int("batch", s.batch, 1, MAX_BATCH)
    gpus = _int("GPU count", s.gpus, 1, MAX_GPUS)
    _int("input length", s.input_len, 1, MAX_TOKENS)
    _int("output length", s.output_len, 1, MAX_TOKENS)
    interconnect = str(s.interconnect).lower()
    if interconnect not in INTERCONNECTS:
        raise ScenarioError(f"interconnect must be one of {', '.join(INTERCONNECTS)}, got '{s.interconnect}'")
    _phase(s)
    engine_choice = engines.canonical(s.engine if s.engine is not None else "auto")
    engine = engines.resolve_engine(engine_choice, hw)
    compute, emulated, note = compute_path(hw, p)
    notes = [note] if note else []

    per_node = 1 if interconnect == "network" else 8
    if interconnect == "nvlink" and hw.scale_up is not None:
        per_node = max(8, min(hw.scale_up.max_gpus, 72)) if hw.scale_up.max_gpus > 8 else 8
    tp = gpus if interconnect == "network" else min(gpus, per_node)
    if engines.splits_layers(engine):
        tp = 1              # consecutive layers on each GPU: pipeline stages, one after another
    if gpus % tp:
        raise ScenarioError(f"{gpus} GPUs do not split into nodes of {tp}")
    pp = gpus // tp
    if llm.heads % tp:
        raise ScenarioError(f"{llm.name} has {llm.heads} attention heads: they cannot be split over {tp} GPUs")
    if pp > llm.layers:
        raise ScenarioError(f"{llm.name} has {llm.layers} layers: too few for {pp} pipeline stages")
    link, link_notes = _tp_link(hw, interconnect, tp)
    notes += link_notes
    if pp > 1 and tp == 1 and engines.splits_layers(engine):
        notes.append(f"{engines.engine(engine).name} puts consecutive layers on each of the {gpus} GPUs: "
                     "they work one after another, so per-token latency does not drop with more GPUs")
    elif pp > 1:
        notes.append(f"{gpus} GPUs = {pp} pipeline stages of {tp} (tensor parallel inside a node); "
                     "per-token latency does not drop with more stages")
    return hw, llm, p, kv, compute, emulated, tp, pp, link, tuple(notes), engine, engine_choice, gpus, interconnect
