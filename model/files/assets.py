"""Read assets/ into the catalogue's frozen values: hardware, models, precisions and engines.

Data files keep readable units (GB, GB/s, TFLOP/s, MHz, µs); this module converts every
number to SI once, at load: bytes, bytes/s, FLOP/s, Hz, seconds. Every file goes through
model/files/safe_io.py (size, depth and integer limits). Importing this module registers the
shipped catalogue and engine table as the defaults (model/catalog/active.py).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from model import units
from model.catalog import active
from model.catalog.architecture import param_breakdown, shape
from model.catalog.engines import AutoRule, Efficiency, EfficiencyTable, Engine, EngineVersion
from model.catalog.parts import LLM, Catalog, Hardware, KVPrecision, Link, MemoryLevel, Precision
from model.errors import AssetError
from model.files.safe_io import SafeIOError, read_json

ASSETS_DIR = Path(__file__).resolve().parent.parent.parent / "assets"


def read_asset_json(path: Path) -> Mapping[str, Any]:
    """A data file, through model.files.safe_io (size, depth and integer limits; pipes and devices refused)."""
    if not path.exists():
        raise AssetError(f"missing data file {path}")
    try:
        return read_json(path, max_bytes=50_000_000)
    except SafeIOError as exc:
        raise AssetError(f"broken data file {exc}") from None


def _num(value: Any, scale: float = 1.0) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value) * scale


def _level(key: str, label: str, sec: Mapping[str, Any], capacity: float | None,
           bw_scale: float = units.GB) -> MemoryLevel:
    lat = sec.get("latency_ns")
    lat_s = _num(lat, units.NS) if lat is not None else _num(sec.get("latency_us"), units.US)
    return MemoryLevel(
        key=key, label=label, capacity_bytes=capacity,
        bandwidth_bytes_per_s=_num(sec.get("bandwidth_GBps"), bw_scale),
        latency_s=lat_s, derived=tuple(sorted((sec.get("derived") or {}).keys())),
        source=str(sec.get("source", "")), notes=str(sec.get("notes", "")),
    )


def _link(kind: str, sec: Mapping[str, Any], default_max: int) -> Link:
    return Link(
        kind=kind, name=str(sec.get("name") or sec.get("gen") or kind),
        bandwidth_bytes_per_s=_num(sec["bandwidth_GBps"], units.GB),
        latency_s=_num(sec["latency_us"], units.US),
        max_gpus=int(sec.get("max_gpus") or default_max),
        source=str(sec.get("source", "")), notes=str(sec.get("notes", "")),
    )


def hardware_from_entry(g: Mapping[str, Any]) -> Hardware:
    comp, mem, ic = g["compute"], g["memory"], g["interconnect"]
    units_n = int(comp["units"])
    hbm = mem["hbm"]
    l2, smem, regs, host = mem.get("l2") or {}, mem.get("smem") or {}, mem.get("registers") or {}, mem.get("host") or {}
    clock = _num(comp.get("boost_clock_MHz"), units.MEGA)
    smem_cap = _num(smem.get("capacity_per_unit_KB"), units.KIB)
    regs_cap = _num(regs.get("capacity_per_unit_KB"), units.KIB)
    levels = (
        _level("registers", "Registers", regs, regs_cap * units_n if regs_cap else None),
        _level("smem", "Shared mem / L1", smem, smem_cap * units_n if smem_cap else None),
        _level("l2", "L2 cache", l2, _num(l2.get("capacity_MB"), units.MB)),
        _level("hbm", str(hbm.get("kind") or "HBM"), hbm, _num(hbm["capacity_GB"], units.GB)),
        _level("host", f"Host RAM ({host.get('link', 'PCIe')})", host, _num(host.get("capacity_GB"), units.GB)),
    )
    peaks = tuple((k, float(v) * units.TERA) for k, v in comp["peak_tflops"].items()
                  if isinstance(v, (int, float)) and not isinstance(v, bool))
    su = ic.get("scale_up")
    sources = tuple((name, str(sec.get("source", ""))) for name, sec in
                    (("compute", comp), ("hbm", hbm), ("l2", l2), ("smem", smem), ("registers", regs),
                     ("host", host), ("scale_up", su or {}), ("pcie", ic.get("pcie") or {}), ("network", ic["network"]),
                     ("power", g["power"]), ("price", g["price"])))
    return Hardware(
        id=g["id"], name=g["name"], short_name=g.get("short_name") or g["name"],
        aliases=tuple(a.lower() for a in g.get("aliases", ())), vendor=g["vendor"],
        family=g.get("family", ""), year=int(g["year"]),
        unit_name=comp.get("unit_name", "SM"), units=units_n, tensor_cores=int(comp.get("tensor_cores") or 0),
        clock_hz=clock, peak_flops=peaks,
        hbm_kind=str(hbm.get("kind") or "HBM"), hbm_stacks=hbm.get("stacks"),
        hbm_capacity_bytes=_num(hbm["capacity_GB"], units.GB),
        hbm_bandwidth_bytes_per_s=_num(hbm["bandwidth_GBps"], units.GB),
        stream_bandwidth_bytes_per_s=_num(hbm.get("stream_bandwidth_GBps"), units.GB),
        levels=levels,
        scale_up=_link(su.get("kind", "nvlink"), su, 8) if su else None,
        pcie=_link("pcie", ic["pcie"], 8) if ic.get("pcie") else None,
        network=_link("network", ic["network"], 1 << 16),
        tdp_w=float(g["power"]["tdp_W"]), usd_per_hour=float(g["price"]["usd_per_gpu_hour"]),
        sources=sources,
    )


def llm_from_entry(m: Mapping[str, Any]) -> LLM:
    return LLM(
        id=m["id"], name=m["name"], aliases=tuple(a.lower() for a in m.get("aliases", ())),
        layers=int(m["layers"]), hidden=int(m["hidden"]), heads=int(m["heads"]),
        kv_heads=int(m["kv_heads"]), head_dim=int(m["head_dim"]), ffn=int(m["ffn"]),
        vocab=int(m["vocab"]), params=param_breakdown(m), shape=shape(m),
        published_params=float(m["published_params_B"]) * 1e9,
        source=str(m.get("source", "")), notes=str(m.get("notes", "")),
    )


def _load_section(path: Path, key: str, build) -> tuple:
    doc = read_asset_json(path)
    out = []
    for i, entry in enumerate(doc.get(key, ())):
        try:
            out.append(build(entry))
        except (KeyError, TypeError, ValueError) as exc:
            ident = entry.get("id", f"#{i}") if isinstance(entry, Mapping) else f"#{i}"
            raise AssetError(f"{path.name}: entry {ident} is malformed ({type(exc).__name__}: {exc})") from None
    if not out:
        raise AssetError(f"{path.name}: no '{key}' entries")
    return tuple(out)


def load_catalog(assets_dir: Path | str | None = None) -> Catalog:
    """Read hardware.json, models.json and precisions.json from ``assets_dir``."""
    base = Path(assets_dir) if assets_dir else ASSETS_DIR
    precisions = _load_section(base / "precisions.json", "precisions", lambda p: Precision(
        id=p["id"], name=p["name"], weight_bits=float(p["weight_bits"]),
        activation_bits=float(p["activation_bits"]), compute=p["compute"],
        fallbacks=tuple(p.get("fallbacks", ())), default_kv=p["default_kv"],
        notes=p.get("notes", ""), source=p.get("source", ""),
        expert_weight_bits=float(p.get("expert_weight_bits", 0.0)), aliases=tuple(a.lower() for a in p.get("aliases", ())),
        moe_tile_rows=int(p.get("moe_tile_rows", 1)),
        activation_quant_kernels=int(p.get("activation_quant_kernels", 0))))
    kv = _load_section(base / "precisions.json", "kv_precisions", lambda p: KVPrecision(
        id=p["id"], name=p["name"], bits=float(p["bits"]), hidden=bool(p.get("hidden", False)),
        notes=p.get("notes", ""), source=p.get("source", "")))
    return Catalog(
        gpus=_load_section(base / "hardware.json", "gpus", hardware_from_entry),
        models=_load_section(base / "models.json", "models", llm_from_entry),
        precisions=precisions, kv_precisions=kv,
    )


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
            host_layer_s=float(raw.get("host_layer_us", 0.0)) * 1e-6,
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
        "host_layer_us": round(e.host_layer_s * 1e6, 3),
    }


def _version(eid: str, raw: Mapping[str, Any]) -> EngineVersion:
    through = tuple(int(x) for x in str(raw.get("through", "")).split(".") if x)
    return EngineVersion(id=str(raw["id"]), label=str(raw["label"]), through=through,
                         through_year=int(raw.get("through_year", 0)), why=str(raw["why"]),
                         structure=tuple(sorted((k, v) for k, v in raw.get("structure", {}).items())),
                         own_factors=bool(raw.get("own_factors", False)))


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
        batching=str(raw.get("batching", "continuous")), prefill_chunk_tokens=int(raw.get("prefill_chunk_tokens", 0)),
        prefill_graphs=bool(raw.get("prefill_graphs", True)),
        versions=tuple(_version(eid, v) for v in raw.get("versions", ())), newest=str(raw.get("newest", "")),
    )


def _si_keys(raw: Mapping[str, Any]) -> dict[str, float]:
    """Data-file factor names (step_overhead_ms …) → Efficiency field names (step_overhead_s …)."""
    rename = {"step_overhead_ms": "step_overhead_s", "layer_overhead_us": "layer_overhead_s",
              "request_overhead_ms": "request_overhead_s", "host_layer_us": "host_layer_s"}
    return {rename.get(k, k): float(v) for k, v in raw.items()}


def load_efficiency(path: Path | str | None = None) -> EfficiencyTable:
    p = Path(path) if path else ASSETS_DIR / "engines.json"
    doc = read_asset_json(p)
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
    for e in engines:
        if e.batching not in ("continuous", "static") or e.prefill_chunk_tokens < 0:
            raise AssetError(f"{p.name}: engine {e.id} has batching '{e.batching}' (continuous | static) "
                             f"or a negative prefill_chunk_tokens")
    return table



active.provide(load_catalog, load_efficiency)     # the shipped defaults, read on first use
