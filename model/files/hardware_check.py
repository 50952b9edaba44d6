"""Is a hardware-file document usable, and physically possible? One reason per field.

Rules (each problem names the field's path, e.g. ``memory.hbm.bandwidth_bytes_per_s``):
    every number finite; capacities, bandwidths, latencies, FLOP/s, TDP > 0; price ≥ 0;
    counts whole numbers ≥ 1 (tensor cores ≥ 0);
    plausibility ceiling: no number above 100 × the largest of its kind in the shipped
    catalogue (so "what if ×2" works six times over, while FLOP/s of 1e30 is refused);
    physical floor: none below the lowest of its kind (model/files/limits.py, with reasons:
    FLOP/s of 1e-300 is refused instead of dividing by ~0 later);
    names at most 80 characters on one line, sources and notes at most 2000;
    FLOP/s keys are data types the catalogue knows; at least one;
    the id is a new one (letters, digits, . _ -), not a shipped id or alias.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Mapping

from model.catalog.active import shipped_catalog
from model.files.limits import MAX_TEXT_CHARS, check_id, check_text, floor
from model.values import frozen

FORMAT_KEY = "memory_wall_hardware"      # the key that makes a JSON object a hardware file
FORMAT_VERSION = 1
CEILING_FACTOR = 100.0
REQUIRED_LEVELS = ("hbm",)


@frozen
class Problem:
    path: str       # dotted path of the field ("" for the whole document)
    reason: str


@lru_cache(maxsize=1)
def ceilings() -> dict[str, float]:
    """100 × the largest value of each kind in the shipped catalogue."""
    cat = shipped_catalog()
    out: dict[str, float] = {"flops": max(v for g in cat.gpus for _, v in g.peak_flops),
                             "units": max(g.units for g in cat.gpus), "tensor_cores": max(g.tensor_cores for g in cat.gpus),
                             "tdp_w": max(g.tdp_w for g in cat.gpus), "usd_per_hour": max(g.usd_per_hour for g in cat.gpus),
                             "clock_hz": max(g.clock_hz or 0.0 for g in cat.gpus),
                             "stream": max(g.hbm_bandwidth_bytes_per_s for g in cat.gpus)}
    for key in ("registers", "smem", "l2", "hbm", "host"):
        lv = [g.level(key) for g in cat.gpus]
        out[f"{key}.capacity_bytes"] = max(x.capacity_bytes or 0.0 for x in lv)
        out[f"{key}.bandwidth_bytes_per_s"] = max(x.bandwidth_bytes_per_s or 0.0 for x in lv)
        out[f"{key}.latency_s"] = max(x.latency_s or 0.0 for x in lv)
    links = [lk for g in cat.gpus for lk in (g.scale_up, g.pcie, g.network) if lk is not None]
    out["link.bandwidth_bytes_per_s"] = max(lk.bandwidth_bytes_per_s for lk in links)
    out["link.latency_s"] = max(lk.latency_s for lk in links)
    out["link.max_gpus"] = max(lk.max_gpus for lk in links)
    out["stacks"] = max(g.hbm_stacks or 0 for g in cat.gpus)
    return {k: v * CEILING_FACTOR for k, v in out.items()}


@lru_cache(maxsize=1)
def known_dtypes() -> tuple[str, ...]:
    cat = shipped_catalog()
    names = {d for g in cat.gpus for d in g.dtypes} | {p.compute for p in cat.precisions}
    return tuple(sorted(names))


@lru_cache(maxsize=1)
def shipped_ids() -> frozenset[str]:
    cat = shipped_catalog()
    return frozenset(i for g in cat.gpus for i in (g.id, *g.aliases))


def check_number(value: Any, kind: str, *, optional: bool = False, whole: bool = False,
                 allow_zero: bool = False) -> str | None:
    """The reason ``value`` cannot be a ``kind`` number, or None when it can."""
    if value is None:
        return None if optional else "missing (a number is needed)"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number, got {value!r}"[:120]
    if not math.isfinite(value):
        return "must be a finite number"
    if whole and value != int(value):
        return f"must be a whole number (got {value:g})"
    if value < 0 or (value == 0 and not allow_zero):
        return f"must be {'at least 0' if allow_zero else 'greater than 0'} (got {value:g})"
    low = floor(kind)
    if low and value < low[0] and not (value == 0 and allow_zero):
        return f"physically implausible: below {low[0]:.3g}, {low[1]} (got {value:.3g})"
    top = ceilings().get(kind)
    if top and value > top:
        return (f"physically implausible: over 100× the largest in the catalogue "
                f"(got {value:.3g}; the largest is {top / CEILING_FACTOR:.3g})")
    return None


class _Checker:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: str, reason: str | None) -> None:
        if reason:
            self.problems.append(Problem(path, reason))

    def section(self, doc: Mapping[str, Any], key: str, path: str, optional: bool = False) -> Mapping[str, Any] | None:
        sec = doc.get(key)
        if sec is None and optional:
            return None
        if not isinstance(sec, Mapping):
            self.add(path, "missing section" if sec is None else "must be a JSON object")
            return None
        return sec

    def number(self, sec: Mapping[str, Any], key: str, path: str, kind: str, **kw) -> None:
        self.add(f"{path}.{key}", check_number(sec.get(key), kind, **kw))

    def text(self, sec: Mapping[str, Any], key: str, path: str, optional: bool = True) -> None:
        self.add(f"{path}.{key}" if path else key, check_text(sec.get(key), required=not optional))


def _check_identity(c: _Checker, doc: Mapping[str, Any]) -> None:
    ident = doc.get("id")
    if ident is None:
        c.add("id", "missing (give your hardware an id such as \"my-gpu\")")
    elif check_id(ident):
        c.add("id", check_id(ident))
    elif ident in shipped_ids():
        c.add("id", f"'{ident}' is a catalogue entry: give your hardware its own id")
    c.text(doc, "name", "", optional=False)
    for key in ("short_name", "vendor", "family", "based_on"):
        c.text(doc, key, "")
    year = doc.get("year")
    if year is not None and (isinstance(year, bool) or not isinstance(year, int) or not 1900 <= year <= 2200):
        c.add("year", f"must be a year, got {year!r}"[:80])


def _check_compute(c: _Checker, doc: Mapping[str, Any]) -> None:
    comp = c.section(doc, "compute", "compute")
    if comp is None:
        return
    c.number(comp, "units", "compute", "units", whole=True)
    c.number(comp, "tensor_cores", "compute", "tensor_cores", whole=True, allow_zero=True, optional=True)
    c.number(comp, "clock_hz", "compute", "clock_hz", optional=True)
    peaks = comp.get("peak_flops_per_s")
    if not isinstance(peaks, Mapping) or not any(v is not None for v in peaks.values()):
        c.add("compute.peak_flops_per_s", "needs at least one data type with its peak FLOP/s, e.g. {\"bf16\": 9.89e14}")
        return
    for dtype, value in peaks.items():
        if dtype not in known_dtypes():
            c.add(f"compute.peak_flops_per_s.{dtype}", f"unknown data type (known: {', '.join(known_dtypes())})")
        else:
            c.add(f"compute.peak_flops_per_s.{dtype}", check_number(value, "flops", optional=True))


def _check_memory(c: _Checker, doc: Mapping[str, Any]) -> None:
    mem = c.section(doc, "memory", "memory")
    if mem is None:
        return
    for key in ("registers", "smem", "l2", "hbm", "host"):
        required = key in REQUIRED_LEVELS
        sec = c.section(mem, key, f"memory.{key}", optional=not required)
        if sec is None:
            continue
        path = f"memory.{key}"
        for field in ("capacity_bytes", "bandwidth_bytes_per_s"):
            c.number(sec, field, path, f"{key}.{field}", optional=not required)
        c.number(sec, "latency_s", path, f"{key}.latency_s", optional=True)
        if key == "hbm":
            c.number(sec, "stream_bandwidth_bytes_per_s", path, "stream", optional=True)
            c.number(sec, "stacks", path, "stacks", optional=True, whole=True)


def _check_links(c: _Checker, doc: Mapping[str, Any]) -> None:
    links = c.section(doc, "links", "links")
    if links is None:
        return
    for key in ("scale_up", "pcie", "network"):
        sec = c.section(links, key, f"links.{key}", optional=key != "network")
        if sec is None:
            continue
        path = f"links.{key}"
        c.number(sec, "bandwidth_bytes_per_s", path, "link.bandwidth_bytes_per_s")
        c.number(sec, "latency_s", path, "link.latency_s")
        c.number(sec, "max_gpus", path, "link.max_gpus", optional=True, whole=True)


def _check_long_texts(c: _Checker, value: Any, path: str, depth: int = 0) -> None:
    """Every text anywhere in the document (sources, notes, labels): at most MAX_TEXT_CHARS."""
    if isinstance(value, str):
        c.add(path, check_text(value, max_chars=MAX_TEXT_CHARS))
    elif isinstance(value, Mapping) and depth < 8:
        for k, v in value.items():
            _check_long_texts(c, v, f"{path}.{k}" if path else str(k), depth + 1)
    elif isinstance(value, list) and depth < 8:
        for k, v in enumerate(value[:100]):
            _check_long_texts(c, v, f"{path}[{k}]", depth + 1)


def check_document(doc: Any) -> list[Problem]:
    """Every problem with a hardware-file document ([] when it is usable)."""
    if not isinstance(doc, Mapping):
        return [Problem("", "is not a Memory Wall hardware file (expected a JSON object)")]
    if FORMAT_KEY not in doc:
        return [Problem("", f"is not a Memory Wall hardware file (no \"{FORMAT_KEY}\" key; "
                            "make one with: main.py hardware export ID)")]
    if doc[FORMAT_KEY] != FORMAT_VERSION:
        return [Problem(FORMAT_KEY, f"format {doc[FORMAT_KEY]!r}; this version reads {FORMAT_VERSION}")]
    c = _Checker()
    _check_identity(c, doc)
    _check_long_texts(c, doc, "")
    _check_compute(c, doc)
    _check_memory(c, doc)
    _check_links(c, doc)
    for key, field, kind, zero in (("power", "tdp_w", "tdp_w", False), ("price", "usd_per_hour", "usd_per_hour", True)):
        sec = c.section(doc, key, key)
        if sec is not None:
            c.number(sec, field, key, kind, allow_zero=zero)
    return c.problems
