"""Load assets/ (hardware, models, precisions) into frozen values, and resolve ids.

Data files keep readable units (GB, GB/s, TFLOP/s, MHz, µs); this module converts every
number to SI once, at load: bytes, bytes/s, FLOP/s, Hz, seconds. Each value keeps the
source string of its section so the UI can show where a number came from.
"""
from __future__ import annotations

import weakref
from dataclasses import field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from model import units
from model.architecture import ParamBreakdown, Shape, param_breakdown, shape
from model.errors import AssetError, UnknownIdError
from model.values import frozen

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets"


@frozen
class MemoryLevel:
    """One level of the memory hierarchy, whole-chip totals."""

    key: str                            # registers | smem | l2 | hbm | host
    label: str
    capacity_bytes: float | None
    bandwidth_bytes_per_s: float | None
    latency_s: float | None
    derived: tuple[str, ...]            # which of the numbers are derived, not published/measured
    source: str
    notes: str = ""


@frozen
class Link:
    """A GPU-to-GPU (or GPU-to-host) link: bandwidth per direction per GPU, call latency."""

    kind: str                           # nvlink | infinity-fabric | ici | roce | pcie | network
    name: str
    bandwidth_bytes_per_s: float
    latency_s: float
    max_gpus: int
    source: str
    notes: str = ""


@frozen
class Hardware:
    """One accelerator from assets/hardware.json: memory levels, dense peak FLOP/s per data type,
    links (scale-up, PCIe, network), power and price, each number with its source."""

    id: str
    name: str
    short_name: str
    aliases: tuple[str, ...]
    vendor: str
    family: str
    year: int
    unit_name: str
    units: int
    tensor_cores: int
    clock_hz: float | None
    peak_flops: tuple[tuple[str, float], ...]   # (dtype, dense FLOP/s), tensor paths only
    hbm_kind: str
    hbm_stacks: int | None
    hbm_capacity_bytes: float
    hbm_bandwidth_bytes_per_s: float
    stream_bandwidth_bytes_per_s: float | None  # measured STREAM, if any
    levels: tuple[MemoryLevel, ...]             # registers → smem → l2 → hbm → host
    scale_up: Link | None
    pcie: Link | None                           # None: no PCIe path between chips (GB200, TPU)
    network: Link
    tdp_w: float
    usd_per_hour: float
    sources: tuple[tuple[str, str], ...] = field(compare=False)

    def peak(self, dtype: str) -> float | None:
        for key, value in self.peak_flops:
            if key == dtype:
                return value
        return None

    @property
    def dtypes(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.peak_flops)

    def level(self, key: str) -> MemoryLevel:
        for lvl in self.levels:
            if lvl.key == key:
                return lvl
        raise KeyError(key)

    def source(self, section: str) -> str:
        return dict(self.sources).get(section, "")


@frozen
class LLM:
    """One model's architecture (assets/models.json or a config.json): layers, widths, heads,
    vocabulary, and the parameter counts that follow from them."""

    id: str
    name: str
    aliases: tuple[str, ...]
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    params: ParamBreakdown
    shape: Shape
    published_params: float
    source: str
    notes: str

    @property
    def is_moe(self) -> bool:
        return self.params.experts > 0


@frozen
class Precision:
    """A weight/activation precision (assets/precisions.json): bits per weight and the data type
    the maths runs in, with fallbacks where a GPU lacks it."""

    id: str
    name: str
    weight_bits: float
    activation_bits: float
    compute: str
    fallbacks: tuple[str, ...]
    default_kv: str
    notes: str
    source: str

    @property
    def bytes_per_weight(self) -> float:
        return self.weight_bits / 8.0

    @property
    def activation_bytes(self) -> float:
        # Activations crossing kernels and links are at least 8-bit; FP4 runs keep FP8 between kernels.
        return max(self.activation_bits, 8) / 8.0

    @property
    def comm_bytes(self) -> float:
        # Tensor-parallel all-reduces sum partial results in 16-bit (FP32 runs: 32-bit).
        return max(self.activation_bits, 16) / 8.0


@frozen
class KVPrecision:
    """A KV-cache precision: bits per cached value."""

    id: str
    name: str
    bits: float
    hidden: bool
    notes: str
    source: str

    @property
    def bytes_per_value(self) -> float:
        return self.bits / 8.0


@frozen
class Catalog:
    """The GPUs, models and precisions the app knows: the shipped ones plus the user's own."""

    gpus: tuple[Hardware, ...]
    models: tuple[LLM, ...]
    precisions: tuple[Precision, ...]
    kv_precisions: tuple[KVPrecision, ...]
    # user entries (hardware files, Hugging Face configs): (kind "hardware" | "model", id, JSON text)
    custom_documents: tuple[tuple[str, str, str], ...] = ()

    def with_hardware(self, hw: Hardware, document: str = "") -> "Catalog":
        """A new catalogue with ``hw`` added as a custom entry (replacing a custom one of the same id)."""
        gpus = tuple(g for g in self.gpus if g.id != hw.id) + (hw,)
        return replace(self, gpus=gpus, custom_documents=self._docs_without(hw.id) + (("hardware", hw.id, document),))

    def with_model(self, llm: LLM, document: str = "") -> "Catalog":
        """A new catalogue with ``llm`` added as a custom entry (replacing a custom one of the same id)."""
        models = tuple(m for m in self.models if m.id != llm.id) + (llm,)
        return replace(self, models=models, custom_documents=self._docs_without(llm.id) + (("model", llm.id, document),))

    def without_custom(self, ident: str) -> "Catalog":
        """A new catalogue without the custom entry ``ident`` (shipped entries stay)."""
        if not self.is_custom(ident):
            return self
        return replace(self, gpus=tuple(g for g in self.gpus if g.id != ident),
                       models=tuple(m for m in self.models if m.id != ident),
                       custom_documents=self._docs_without(ident))

    def is_custom(self, ident: str) -> bool:
        return any(i == ident for _, i, _ in self.custom_documents)

    def custom_document(self, ident: str) -> str:
        """The JSON text a custom entry was read from ("" if none)."""
        return next((doc for _, i, doc in self.custom_documents if i == ident), "")

    def _docs_without(self, ident: str) -> tuple[tuple[str, str, str], ...]:
        return tuple(d for d in self.custom_documents if d[1] != ident)

    def gpu(self, key: str) -> Hardware:
        return _resolve(self.gpus, key, "GPU")

    def model(self, key: str) -> LLM:
        return _resolve(self.models, key, "model")

    def precision(self, key: str) -> Precision:
        return _resolve(self.precisions, key, "precision")

    def kv_precision(self, key: str) -> KVPrecision:
        return _resolve(self.kv_precisions, key, "KV-cache precision")


def _resolve(items: Iterable[Any], key: str, what: str) -> Any:
    wanted = str(key).strip().lower()
    names: list[str] = []
    for item in items:
        ids = (item.id, *getattr(item, "aliases", ()))
        if wanted in ids:
            return item
        names.extend(ids)
    import difflib        # only for a mistyped id: not on the start path
    close = difflib.get_close_matches(wanted, names, n=1, cutoff=0.5)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise UnknownIdError(f"unknown {what} '{key}'{hint} (list them with: main.py list)")


# ---------------------------------------------------------------- loading

def _read_json(path: Path) -> Mapping[str, Any]:
    """Through model.safe_io (size, depth and integer limits; pipes and devices refused)."""
    from model.safe_io import SafeIOError, read_json
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


def _hardware(g: Mapping[str, Any]) -> Hardware:
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


def _llm(m: Mapping[str, Any]) -> LLM:
    return LLM(
        id=m["id"], name=m["name"], aliases=tuple(a.lower() for a in m.get("aliases", ())),
        layers=int(m["layers"]), hidden=int(m["hidden"]), heads=int(m["heads"]),
        kv_heads=int(m["kv_heads"]), head_dim=int(m["head_dim"]), ffn=int(m["ffn"]),
        vocab=int(m["vocab"]), params=param_breakdown(m), shape=shape(m),
        published_params=float(m["published_params_B"]) * 1e9,
        source=str(m.get("source", "")), notes=str(m.get("notes", "")),
    )


def _load_section(path: Path, key: str, build) -> tuple:
    doc = _read_json(path)
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
        notes=p.get("notes", ""), source=p.get("source", "")))
    kv = _load_section(base / "precisions.json", "kv_precisions", lambda p: KVPrecision(
        id=p["id"], name=p["name"], bits=float(p["bits"]), hidden=bool(p.get("hidden", False)),
        notes=p.get("notes", ""), source=p.get("source", "")))
    return Catalog(
        gpus=_load_section(base / "hardware.json", "gpus", _hardware),
        models=_load_section(base / "models.json", "models", _llm),
        precisions=precisions, kv_precisions=kv,
    )


@lru_cache(maxsize=1)
def shipped_catalog() -> Catalog:
    """The catalogue shipped in assets/ (loaded once)."""
    return load_catalog()


_active: Catalog | None = None
_listeners: list[Callable[[], Callable[[Catalog], None] | None]] = []


def default_catalog() -> Catalog:
    """The catalogue every model function uses when given none: the shipped one, plus any
    custom entries installed with ``set_default_catalog`` (--hardware-file, the window's editor)."""
    return _active if _active is not None else shipped_catalog()


def set_default_catalog(catalog: Catalog | None) -> None:
    """Make ``catalog`` the process-wide default (None: back to the shipped catalogue)."""
    global _active
    _active = catalog
    current = default_catalog()
    for ref in list(_listeners):
        fn = ref()
        if fn is None:
            _listeners.remove(ref)
        else:
            fn(current)


def on_default_catalog_changed(fn: Callable[[Catalog], None]) -> None:
    """Call ``fn(catalog)`` after each ``set_default_catalog`` (held weakly: a closed window's
    method is dropped, not kept alive)."""
    ref = weakref.WeakMethod(fn) if hasattr(fn, "__self__") else (lambda f=fn: f)
    _listeners.append(ref)
