"""What a plan is asked (PlanRequest) and the configurations it sweeps (groups × knobs).

    request    a model, input and output lengths, the accelerators available (kind → count),
               TTFT p90 and TPOT p90 targets (ms) and optionally a request rate to serve
    group      what needs its own step table: GPU kind, GPUs per replica (tensor parallel, or
               expert parallel for a MoE model), precision, KV precision, engine
    knobs      inside a group, vectorised: batch cap (max running sequences), chunk size (tokens
               per step), speculative decoding on or off
    replicas   data parallel: as many copies of the replica as the GPUs of that kind allow (a rate
               asks for ⌈rate / capacity per replica⌉ of them)
The axes are assets/planning.json's, each with its source.
"""
from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache
from typing import Any, Mapping

from model.catalog.active import default_catalog, default_efficiency
from model.catalog.parts import Catalog
from model.errors import AssetError, ScenarioError
from model.files.assets import ASSETS_DIR, read_asset_json
from model.files.limits import check_amount
from model.physics.scenario import ResolvedScenario, Scenario, resolve
from model.values import frozen

MODES = ("tp", "ep")
PER_NODE = 8


@frozen
class PlanRequest:
    """One planning question. ``gpus_available``: ((GPU id or alias, count), …)."""

    model: str
    input_len: int
    output_len: int
    gpus_available: tuple[tuple[str, int], ...]
    ttft_p90_ms: float | None = None
    tpot_p90_ms: float | None = None
    rate_per_s: float | None = None
    precisions: tuple[str, ...] = ()      # () : assets/planning.json's
    engines: tuple[str, ...] = ()
    speculative: bool = True              # sweep speculative decoding on as well as off


@frozen
class Group:
    """A replica's shape: what one step table is built for."""

    gpu: str                  # catalogue id
    gpus: int                 # GPUs per replica (the tensor- or expert-parallel degree)
    mode: str                 # tp | ep (experts spread over the replica, all-to-all between them)
    precision: str
    kv_precision: str
    engine: str
    available: int            # GPUs of this kind on hand

    @property
    def nodes(self) -> int:
        return -(-self.gpus // PER_NODE)

    @property
    def max_replicas(self) -> int:
        return self.available // self.gpus

    def label(self) -> str:
        par = f"EP{self.gpus}" if self.mode == "ep" else f"TP{self.gpus}"
        return f"{self.gpu} {par} {self.precision}/kv {self.kv_precision} {self.engine}"


@lru_cache(maxsize=2)
def planning_table(path: str | None = None) -> Mapping[str, Any]:
    """assets/planning.json, read once through the safe reader."""
    doc = read_asset_json(ASSETS_DIR / "planning.json" if path is None else path)
    for k, v in doc.items():
        if isinstance(v, Mapping) and ("value" not in v or not v.get("source")):
            raise AssetError(f"planning.json: {k} needs a value and a source")
    return doc


def axis(name: str):
    return planning_table()[name]["value"]


def parse_available(text: str, catalog: Catalog | None = None) -> tuple[tuple[str, int], ...]:
    """'h100:16,h200:8' → (('h100-sxm5-80gb', 16), ('h200-sxm-141gb', 8)). UnknownIdError for a
    GPU the catalogue lacks, ScenarioError for a malformed item."""
    cat = catalog or default_catalog()
    out: dict[str, int] = {}
    for item in (x.strip() for x in str(text).split(",")):
        if not item:
            continue
        name, _, count = item.partition(":")
        try:
            n = int(count) if count else 8
        except ValueError:
            raise ScenarioError(f"--gpus-available: '{item}' needs a whole count, e.g. h100:8") from None
        if not 1 <= n <= 64:
            raise ScenarioError(f"--gpus-available: '{item}': the count must be from 1 to 64")
        gid = cat.gpu(name).id
        out[gid] = out.get(gid, 0) + n
    if not out:
        raise ScenarioError("--gpus-available needs at least one GPU kind, e.g. h100:8")
    return tuple(out.items())


def check_request(r: PlanRequest, catalog: Catalog | None = None) -> PlanRequest:
    cat = catalog or default_catalog()
    llm = cat.model(r.model)
    for name, v in (("input length", r.input_len), ("output length", r.output_len)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 1_048_576:
            raise ScenarioError(f"{name} must be a whole number from 1 to 1,048,576, got {v!r}")
    for name, kind, unit, v in (("TTFT p90 target", "target_ms", "ms", r.ttft_p90_ms),
                                ("TPOT p90 target", "target_ms", "ms", r.tpot_p90_ms),
                                ("rate", "rate_per_s", "requests/s", r.rate_per_s)):
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not v > 0:
            raise ScenarioError(f"{name} must be a number more than 0, got {v!r}")
        why = check_amount(name, kind, float(v), unit)          # model/files/limits.py
        if why:
            raise ScenarioError(why)
    avail = tuple((cat.gpu(g).id, int(n)) for g, n in r.gpus_available)
    if not avail:
        raise ScenarioError("no GPUs available to plan on")
    return replace(r, model=llm.id, gpus_available=avail)


def group_scenario(g: Group, r: PlanRequest) -> Scenario:
    """The Explore scenario of one replica (batch 1; the planner sets the batch per point)."""
    return Scenario(gpu=g.gpu, model=r.model, precision=g.precision, kv_precision=g.kv_precision,
                    gpus=min(g.gpus, PER_NODE) if g.mode == "ep" and g.gpus > PER_NODE else g.gpus,
                    input_len=r.input_len, output_len=r.output_len, engine=g.engine)


def resolve_group(g: Group, r: PlanRequest, catalog: Catalog | None = None) -> ResolvedScenario:
    """The replica resolved. An expert-parallel replica beyond one node is one group of ``gpus``
    (weights and KV split ``gpus`` ways) whose attention all-reduces cross the network."""
    rs = resolve(group_scenario(g, r), catalog)
    if g.mode == "ep" and g.gpus > PER_NODE:
        if rs.llm.heads % g.gpus:
            raise ScenarioError(f"{rs.llm.name} has {rs.llm.heads} heads: not split over {g.gpus} GPUs")
        s = rs.scenario.with_(gpus=g.gpus, interconnect="network")
        rs = replace(rs, scenario=s, tp=g.gpus, pp=1, tp_link=rs.hw.network)
    if rs.pp != 1 or rs.tp != g.gpus:
        raise ScenarioError(f"{g.label()}: not one tensor-parallel group")
    return rs


def groups(r: PlanRequest, catalog: Catalog | None = None) -> list[Group]:
    """Every replica shape the request allows (those that cannot run are dropped later, with why)."""
    cat = catalog or default_catalog()
    table = default_efficiency()
    llm = cat.model(r.model)
    precisions = {prec.id: prec for prec in map(cat.precision, r.precisions or axis("precisions"))}.values()
    platforms = axis("engines")
    engines = tuple(dict.fromkeys(table.canonical(e) for e in (r.engines or tuple(platforms))))
    out: dict[Group, None] = {}          # a precision or engine named twice (or by two aliases) counts once
    for gid, count in r.gpus_available:
        hw = cat.gpu(gid)
        for eng in engines:
            concrete = table.resolve_engine(eng, hw)
            if table.platform(hw) not in platforms.get(concrete, ()):
                continue
            shapes = [("tp", n) for n in axis("tensor_parallel") if n <= count]
            if llm.is_moe:
                shapes += [("ep", n) for n in axis("expert_parallel") if n <= count]
            for mode, n in shapes:
                for prec in precisions:
                    for kv in dict.fromkeys((prec.default_kv, *axis("kv_precisions"))):
                        out[Group(hw.id, n, mode, prec.id, kv, concrete, count)] = None
    return list(out)
