"""What a measurement of this machine becomes: a hardware file, and measured vs datasheet.

    measured / datasheet   for memory bandwidth and each data type's FLOP/s (device in the catalogue)
    decode efficiency      = the floor the cost model predicts (weight bytes / measured bandwidth)
                             / the measured step time, at batch 1

The hardware file ("this machine (measured DATE)") starts from the catalogue entry when the
device is one (matched by name), else from assets/machine_defaults.json (links, power, price:
assumptions, labelled so); measured numbers replace the datasheet's and say so in "source".
"""
from __future__ import annotations

import re
from typing import Any

from model.files.assets import ASSETS_DIR, read_asset_json
from model.catalog.parts import Hardware
from model.catalog.active import shipped_catalog
from model.readouts.format import duration, percent, si
from model.files.hardware_file import FORMAT_KEY, FORMAT_VERSION, hardware_document
from model.machine.benchmark import Measurements


def match_catalogue(device: str) -> Hardware | None:
    """The catalogue entry whose short name or an alias appears in the device's name (longest wins)."""
    text = re.sub(r"[^a-z0-9]+", " ", device.lower())
    best, best_len = None, 0
    for g in shipped_catalog().gpus:
        for key in (g.short_name, *g.aliases):
            k = re.sub(r"[^a-z0-9]+", " ", key.lower()).strip()
            if k and re.search(rf"\b{re.escape(k)}\b", text) and len(k) > best_len:
                best, best_len = g, len(k)
    return best


def _source(m: Measurements) -> str:
    return f"measured by main.py calibrate on {m.date} ({m.backend}, {m.device})"


def _template(m: Measurements) -> dict[str, Any]:
    """A document for a device the catalogue lacks: measured numbers, assumed links/power/price."""
    defaults = read_asset_json(ASSETS_DIR / "machine_defaults.json")
    unified = m.backend in ("numpy", "torch-mps")
    return {
        FORMAT_KEY: FORMAT_VERSION, "vendor": "This machine", "family": "Measured", "year": int(m.date[:4]),
        "compute": {"unit_name": m.unit_name, "units": m.units, "tensor_cores": 0, "clock_hz": None,
                    "peak_flops_per_s": {}, "source": ""},
        "memory": {
            "hbm": {"label": "System RAM" if unified else "GPU memory", "kind": "RAM (unified)" if unified else "GPU memory",
                    "stacks": None, "capacity_bytes": m.memory_capacity_bytes or None, "bandwidth_bytes_per_s": None,
                    "latency_s": None, "derived": [], "source": "", "notes": ""},
            **{k: None for k in ("registers", "smem", "l2", "host")},
        },
        "links": defaults["links"], "power": defaults["power"], "price": defaults["price"],
    }


def measured_document(m: Measurements) -> dict[str, Any]:
    """The hardware-file document for this machine, as measured."""
    base = match_catalogue(m.device) if m.backend != "numpy" else None
    doc = hardware_document(base, based_on=base.id) if base else _template(m)
    src = _source(m)
    doc.update(id=f"this-machine-{m.date}", name=f"this machine (measured {m.date})",
               short_name=f"this machine ({m.date})")
    comp = doc["compute"]
    kept = {k: v for k, v in comp["peak_flops_per_s"].items() if k not in m.flops}
    comp["peak_flops_per_s"] = {**{k: v for k, v in m.flops.items() if m.flops_fast_path.get(k)}, **kept}
    if not comp["peak_flops_per_s"]:
        comp["peak_flops_per_s"] = dict(m.flops)
    comp["source"] = f"FLOP/s {src}" + (f"; not measured, from the datasheet: {comp['source']}" if kept else "")
    hbm = doc["memory"]["hbm"]
    hbm.update(bandwidth_bytes_per_s=m.memory_bandwidth_bytes_per_s, stream_bandwidth_bytes_per_s=m.memory_bandwidth_bytes_per_s,
               source=f"bandwidth {src} (copy of {si(m.bandwidth_array_bytes, 'B')})"
                      + (f"; capacity from the datasheet: {hbm['source']}" if base else "; capacity: the OS"))
    if m.memory_capacity_bytes and not base:
        hbm["capacity_bytes"] = m.memory_capacity_bytes
    return doc


def comparison_rows(m: Measurements) -> list[tuple[str, str, str, str]]:
    """(quantity, measured, datasheet, measured/datasheet) rows."""
    base = match_catalogue(m.device) if m.backend != "numpy" else None
    rows = []
    sheet_bw = base.hbm_bandwidth_bytes_per_s if base else None
    rows.append(("memory bandwidth", si(m.memory_bandwidth_bytes_per_s, "B/s"),
                 si(sheet_bw, "B/s") if sheet_bw else "—",
                 percent(m.memory_bandwidth_bytes_per_s / sheet_bw) if sheet_bw else "—"))
    for dtype, value in m.flops.items():
        sheet = base.peak(dtype) if base else None
        path = "" if m.flops_fast_path.get(dtype) else " (numpy loop, no BLAS)"
        rows.append((f"matmul {dtype.upper()}{path}", si(value, "FLOP/s"), si(sheet, "FLOP/s") if sheet else "—",
                     percent(value / sheet) if sheet else "—"))
    return rows


def decode_rows(m: Measurements) -> list[tuple[str, str, str, str]]:
    """(batch, measured step, the model's floor at the measured bandwidth, floor/measured) rows."""
    if not m.decode_shape:
        return []
    floor = m.decode_floor_s
    return [(str(b), duration(t), duration(floor) if b == 1 else "—", percent(floor / t) if b == 1 else "—")
            for b, t in sorted(m.decode_s_by_batch.items())]


def caveats(m: Measurements) -> list[str]:
    """What a reader must know to trust the numbers (caches that hold the test arrays)."""
    out = []
    if m.backend == "numpy" and m.load_average > 0.75 * m.units:
        out.append(f"the machine was busy (load average {m.load_average:.1f} on {m.units} cores): other work shares "
                   "the cores and the memory, so these numbers are lower than the machine gives when idle")
    if m.cache_bytes and m.bandwidth_array_bytes * 2 <= m.cache_bytes:
        out.append(f"the copied arrays ({si(2 * m.bandwidth_array_bytes, 'B')}) fit in the CPU's last-level cache "
                   f"({si(m.cache_bytes, 'B')} as the OS reports it): the bandwidth may be the cache's, not RAM's")
    t1 = m.decode_s_by_batch.get(1)
    if t1 and m.decode_floor_s > t1:
        where = (f"the weights ({si(m.decode_weight_bytes, 'B')}) fit in the last-level cache ({si(m.cache_bytes, 'B')})"
                 if m.cache_bytes >= m.decode_weight_bytes else "reading is faster than copying (a copy also writes)")
        out.append(f"the decode step beat the bandwidth floor: {where}")
    return out


def report_json(m: Measurements) -> dict[str, Any]:
    base = match_catalogue(m.device) if m.backend != "numpy" else None
    return {
        "device": m.device, "backend": m.backend, "caveats": caveats(m), "cache_bytes": m.cache_bytes, "date": m.date, "catalogue_id": base.id if base else None,
        "memory_bandwidth_bytes_per_s": m.memory_bandwidth_bytes_per_s, "bandwidth_array_bytes": m.bandwidth_array_bytes,
        "datasheet_bandwidth_bytes_per_s": base.hbm_bandwidth_bytes_per_s if base else None,
        "matmul_flops_per_s": dict(m.flops), "blas_path": dict(m.flops_fast_path),
        "datasheet_flops_per_s": {d: base.peak(d) for d in m.flops} if base else None,
        "decode": {"shape": m.decode_shape.label() if m.decode_shape else None, "dtype": m.decode_dtype,
                   "weight_bytes": m.decode_weight_bytes, "floor_s_at_measured_bandwidth": m.decode_floor_s,
                   "step_s_by_batch": {str(b): t for b, t in sorted(m.decode_s_by_batch.items())}},
    }


def summary_line(m: Measurements) -> str:
    """One line for the window: bandwidth, the fastest matmul, the batch-1 decode step."""
    parts = [f"memory {si(m.memory_bandwidth_bytes_per_s, 'B/s')}"]
    fast = {d: v for d, v in m.flops.items() if m.flops_fast_path.get(d)} or m.flops
    if fast:
        best = max(fast, key=fast.get)
        parts.append(f"{best.upper()} matmul {si(fast[best], 'FLOP/s')}")
    if 1 in m.decode_s_by_batch:
        parts.append(f"decode step {duration(m.decode_s_by_batch[1])} (model floor {duration(m.decode_floor_s)})")
    return ", ".join(parts)


def report_text(m: Measurements) -> str:
    lines = [f"Measured {m.device} ({m.backend}) on {m.date}", ""]
    rows = [("quantity", "measured", "datasheet", "measured/datasheet")] + comparison_rows(m)
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines += ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows]
    if m.decode_shape:
        lines += ["", f"Decode step, {m.decode_dtype.upper()}, {m.decode_shape.label()} "
                      f"({si(m.decode_weight_bytes, 'B')} of weights):"]
        rows = [("batch", "measured", "model floor", "floor/measured")] + decode_rows(m)
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        lines += ["  " + "  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows]
    lines += [f"note: {n}" for n in caveats(m)]
    return "\n".join(lines)
