"""Hardware files: one accelerator as editable JSON, in SI units named in every key.

    {"memory_wall_hardware": 1, "id": "my-gpu", "name": "…", "based_on": "h100-sxm5-80gb",
     "compute": {"units": 132, "peak_flops_per_s": {"bf16": 9.89e14, …}, "source": "…"},
     "memory": {"hbm": {"capacity_bytes": 8e10, "bandwidth_bytes_per_s": 3.35e12, …}, "l2": {…}, …},
     "links": {"scale_up": {…} | null, "pcie": {…} | null, "network": {…}},
     "power": {"tdp_w": 700, …}, "price": {"usd_per_hour": 3.0, …}}

Capacities are whole-chip totals (shared memory and registers: per unit × units). The
schema is documented in docs/custom-hardware.md. ``hardware_document`` writes a catalogue
entry; ``hardware_from_document`` reads one back, checking every number (see
model/files/hardware_check.py) and raising HardwareFileError with one line. Reading never runs
code (JSON only, through model/files/safe_io.py's guards); writing is atomic (safe_io.atomic_write_text:
temporary file, fsync, rename, the user's umask).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from model.catalog.parts import Hardware, Link, MemoryLevel
from model.errors import ModelError
from model.files.hardware_check import FORMAT_KEY, FORMAT_VERSION, check_document
from model.files.safe_io import SafeIOError, atomic_write_text, read_json

MAX_FILE_BYTES = 1_000_000
LEVEL_KEYS = ("registers", "smem", "l2", "hbm", "host")
LINK_KEYS = ("scale_up", "pcie", "network")


class HardwareFileError(ModelError):
    """A hardware (or model) file that cannot be used: one line naming the file and the reason."""


# ---------------------------------------------------------------- Hardware → document

def _level_doc(lvl: MemoryLevel) -> dict[str, Any]:
    return {"label": lvl.label, "capacity_bytes": lvl.capacity_bytes,
            "bandwidth_bytes_per_s": lvl.bandwidth_bytes_per_s, "latency_s": lvl.latency_s,
            "derived": list(lvl.derived), "source": lvl.source, "notes": lvl.notes}


def _link_doc(link: Link | None) -> dict[str, Any] | None:
    if link is None:
        return None
    return {"kind": link.kind, "name": link.name, "bandwidth_bytes_per_s": link.bandwidth_bytes_per_s,
            "latency_s": link.latency_s, "max_gpus": link.max_gpus, "source": link.source, "notes": link.notes}


def _tidy(value: Any) -> Any:
    """Floats to 12 significant figures (4.9e-10, not the 4.900000000000001e-10 a unit conversion
    leaves): a file people read and edit. Relative change below 1e-12."""
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, dict):
        return {k: _tidy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tidy(v) for v in value]
    return value


def hardware_document(hw: Hardware, based_on: str | None = None) -> dict[str, Any]:
    """``hw`` as a hardware-file document (plain JSON types, SI units, floats tidied)."""
    memory = {lvl.key: _level_doc(lvl) for lvl in hw.levels}
    memory["hbm"].update(kind=hw.hbm_kind, stacks=hw.hbm_stacks,
                         stream_bandwidth_bytes_per_s=hw.stream_bandwidth_bytes_per_s)
    doc: dict[str, Any] = {
        FORMAT_KEY: FORMAT_VERSION, "id": hw.id, "name": hw.name, "short_name": hw.short_name,
        "vendor": hw.vendor, "family": hw.family, "year": hw.year,
    }
    if based_on:
        doc["based_on"] = based_on
    doc.update({
        "compute": {"unit_name": hw.unit_name, "units": hw.units, "tensor_cores": hw.tensor_cores,
                    "clock_hz": hw.clock_hz, "peak_flops_per_s": dict(hw.peak_flops),
                    "source": hw.source("compute")},
        "memory": memory,
        "links": {key: _link_doc(getattr(hw, key)) for key in LINK_KEYS},
        "power": {"tdp_w": hw.tdp_w, "source": hw.source("power")},
        "price": {"usd_per_hour": hw.usd_per_hour, "source": hw.source("price")},
    })
    return _tidy(doc)


def export_document(hw: Hardware) -> dict[str, Any]:
    """A catalogue entry ready to edit: its own id and name (``-custom``), sources kept."""
    doc = hardware_document(hw, based_on=hw.id)
    doc.update(id=f"{hw.id}-custom", name=f"{hw.name} (custom)", short_name=f"{hw.short_name} (custom)")
    return doc


def document_text(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- document → Hardware

def hardware_from_document(doc: Any, name: str = "hardware file") -> Hardware:
    """Check ``doc`` and build the Hardware. Raises HardwareFileError (one line) on the first problem."""
    problems = check_document(doc)
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        where = f"{first.path}: " if first.path else ""
        raise HardwareFileError(f"{name}: {where}{first.reason}{more}")
    return _build(doc)


def _level(key: str, sec: Mapping[str, Any]) -> MemoryLevel:
    return MemoryLevel(key=key, label=str(sec.get("label") or key), capacity_bytes=_f(sec.get("capacity_bytes")),
                       bandwidth_bytes_per_s=_f(sec.get("bandwidth_bytes_per_s")), latency_s=_f(sec.get("latency_s")),
                       derived=tuple(str(d) for d in sec.get("derived") or ()), source=str(sec.get("source", "")),
                       notes=str(sec.get("notes", "")))


def _link(sec: Mapping[str, Any] | None, kind: str) -> Link | None:
    if sec is None:
        return None
    return Link(kind=str(sec.get("kind") or kind), name=str(sec.get("name") or kind),
                bandwidth_bytes_per_s=float(sec["bandwidth_bytes_per_s"]), latency_s=float(sec["latency_s"]),
                max_gpus=int(sec.get("max_gpus") or 1), source=str(sec.get("source", "")),
                notes=str(sec.get("notes", "")))


def _f(value: Any) -> float | None:
    return None if value is None else float(value)


def _build(doc: Mapping[str, Any]) -> Hardware:
    comp, mem, links = doc["compute"], doc["memory"], doc["links"]
    hbm = mem["hbm"]
    levels = tuple(_level(k, mem.get(k) or {}) for k in LEVEL_KEYS)
    sources = (("compute", str(comp.get("source", ""))),
               *((k, str((mem.get(k) or {}).get("source", ""))) for k in ("hbm", "l2", "smem", "registers", "host")),
               *((k, str((links.get(k) or {}).get("source", ""))) for k in LINK_KEYS),
               ("power", str(doc["power"].get("source", ""))), ("price", str(doc["price"].get("source", ""))))
    return Hardware(
        id=str(doc["id"]), name=str(doc["name"]), short_name=str(doc.get("short_name") or doc["name"]),
        aliases=(), vendor=str(doc.get("vendor") or "Custom"), family=str(doc.get("family") or ""),
        year=int(doc.get("year") or 0), unit_name=str(comp.get("unit_name") or "unit"), units=int(comp["units"]),
        tensor_cores=int(comp.get("tensor_cores") or 0), clock_hz=_f(comp.get("clock_hz")),
        peak_flops=tuple((str(k), float(v)) for k, v in comp["peak_flops_per_s"].items() if v is not None),
        hbm_kind=str(hbm.get("kind") or "HBM"), hbm_stacks=None if hbm.get("stacks") is None else int(hbm["stacks"]),
        hbm_capacity_bytes=float(hbm["capacity_bytes"]), hbm_bandwidth_bytes_per_s=float(hbm["bandwidth_bytes_per_s"]),
        stream_bandwidth_bytes_per_s=_f(hbm.get("stream_bandwidth_bytes_per_s")), levels=levels,
        scale_up=_link(links.get("scale_up"), "nvlink"), pcie=_link(links.get("pcie"), "pcie"),
        network=_link(links["network"], "network"), tdp_w=float(doc["power"]["tdp_w"]),
        usd_per_hour=float(doc["price"]["usd_per_hour"]), sources=sources,
    )


# ---------------------------------------------------------------- files

def read_json_file(path: str | os.PathLike, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """A JSON file through model/files/safe_io.py's guards (size, depth and integer limits; FIFOs and
    devices refused; NaN/Infinity refused). Raises HardwareFileError with safe_io's one line."""
    try:
        return read_json(path, max_bytes=max_bytes, unique_keys=True)     # a user's file: no key twice
    except SafeIOError as exc:
        raise HardwareFileError(str(exc)) from None


def load_hardware_file(path: str | os.PathLike) -> tuple[Hardware, str]:
    """(Hardware, the canonical JSON text) from a hardware file."""
    doc = read_json_file(path)
    hw = hardware_from_document(doc, Path(path).name)
    return hw, document_text(doc)


def save_hardware_file(path: str | os.PathLike, doc: Mapping[str, Any], overwrite: bool = False) -> Hardware:
    """Check ``doc`` (nothing is written if it is broken), then write it atomically (an existing
    file only with ``overwrite``)."""
    hw = hardware_from_document(doc, Path(path).name)
    atomic_write_text(path, document_text(doc), overwrite=overwrite)
    return hw
