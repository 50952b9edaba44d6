"""What the hardware editor edits: fields in display units, and "what if" actions.

The editor (ui/custom/hardware_editor.py) only moves text: every field here says where it lives in
a hardware-file document, its display unit and scale (shown = stored / scale), and
``field_text`` / ``set_field_text`` do the conversion. "What if" actions scale numbers in a
document (×2 HBM bandwidth: memory.hbm.bandwidth_bytes_per_s × 2) and say so in the
section's source, so an edited file still tells where each number came from.
"""
from __future__ import annotations

import copy
import math
from typing import Any, Iterable, Mapping

from model.files.hardware_check import Problem, check_document, known_dtypes
from model.values import frozen


@frozen
class EditorField:
    path: tuple[str, ...]    # keys into the document
    label: str
    unit: str                # display unit ("" for text)
    scale: float             # stored SI value = shown × scale (0: a text field)
    group: str
    optional: bool = True

    @property
    def key(self) -> str:
        return ".".join(self.path)


def _num(path: str, label: str, unit: str, scale: float, group: str, optional: bool = True) -> EditorField:
    return EditorField(tuple(path.split(".")), label, unit, scale, group, optional)


FIXED_FIELDS: tuple[EditorField, ...] = (
    EditorField(("id",), "Id", "", 0.0, "Identity", False),
    EditorField(("name",), "Name", "", 0.0, "Identity", False),
    _num("compute.units", "Compute units (SMs, CUs…)", "", 1.0, "Compute", False),
    _num("compute.clock_hz", "Boost clock", "MHz", 1e6, "Compute"),
    _num("memory.hbm.capacity_bytes", "Memory capacity", "GB", 1e9, "Memory", False),
    _num("memory.hbm.bandwidth_bytes_per_s", "Memory bandwidth", "GB/s", 1e9, "Memory", False),
    _num("memory.l2.capacity_bytes", "L2 capacity", "MB", 1e6, "On chip"),
    _num("memory.l2.bandwidth_bytes_per_s", "L2 bandwidth", "GB/s", 1e9, "On chip"),
    _num("memory.smem.capacity_bytes", "Shared memory (whole chip)", "MB", 1e6, "On chip"),
    _num("memory.smem.bandwidth_bytes_per_s", "Shared memory bandwidth", "GB/s", 1e9, "On chip"),
    _num("memory.registers.capacity_bytes", "Registers (whole chip)", "MB", 1e6, "On chip"),
    _num("memory.registers.bandwidth_bytes_per_s", "Register bandwidth", "GB/s", 1e9, "On chip"),
    _num("links.scale_up.bandwidth_bytes_per_s", "Scale-up link (per direction)", "GB/s", 1e9, "Links"),
    _num("links.pcie.bandwidth_bytes_per_s", "PCIe (per direction)", "GB/s", 1e9, "Links"),
    _num("links.network.bandwidth_bytes_per_s", "Network (per direction)", "GB/s", 1e9, "Links", False),
    _num("power.tdp_w", "Power (TDP)", "W", 1.0, "Cost", False),
    _num("price.usd_per_hour", "Price", "$/hour", 1.0, "Cost", False),
)


def editor_fields() -> tuple[EditorField, ...]:
    """Identity, then peak FLOP/s for every data type the catalogue knows, then the rest."""
    flops = tuple(EditorField(("compute", "peak_flops_per_s", d), f"Peak {d.upper()}", "TFLOP/s", 1e12, "Compute")
                  for d in known_dtypes())
    return FIXED_FIELDS[:2] + flops + FIXED_FIELDS[2:]


def _get(doc: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = doc
    for key in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def field_text(doc: Mapping[str, Any], f: EditorField) -> str:
    """The field's value as shown ("" when absent)."""
    value = _get(doc, f.path)
    if value is None:
        return ""
    if not f.scale:
        return str(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value / f.scale:.6g}"


def set_field_text(doc: Mapping[str, Any], f: EditorField, text: str) -> dict[str, Any]:
    """A copy of ``doc`` with the field set from what the user typed. Text that is not a number
    is stored as typed, so the check names it ("must be a number"); "" removes an optional value."""
    out = copy.deepcopy(dict(doc))
    text = text.strip()
    node = out
    for key in f.path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            if not text:
                return out          # nothing to clear
            child = node[key] = dict(_new_section(f.path))
        node = child
    last = f.path[-1]
    if not f.scale:
        node[last] = text
    elif not text:
        if f.path[:2] == ("compute", "peak_flops_per_s"):
            node.pop(last, None)
        else:
            node[last] = None
    else:
        try:
            value = float(text.replace(",", "").replace("_", ""))
            node[last] = value * f.scale if math.isfinite(value) else text
        except ValueError:
            node[last] = text
    return out


def _new_section(path: tuple[str, ...]) -> dict[str, Any]:
    """A link or memory level the start-from part lacked, added by typing a number into it."""
    if path[0] == "links":
        return {"kind": path[1], "name": path[1], "bandwidth_bytes_per_s": None, "latency_s": None,
                "max_gpus": 8, "source": "entered in the hardware editor"}
    return {"source": "entered in the hardware editor"}


def field_problems(doc: Mapping[str, Any], taken_ids: Iterable[str] = ()) -> dict[str, str]:
    """Problem reasons by field key (a whole-section problem is given to each field in it);
    "" key: problems no field shows. ``taken_ids``: ids of your other entries (not to be replaced)."""
    problems = check_document(doc)
    if doc.get("id") in set(taken_ids):
        problems.append(Problem("id", f"'{doc.get('id')}' is already one of yours: choose another id "
                                      "(or start from it to edit it)"))
    keys = [f.key for f in editor_fields()]
    out: dict[str, str] = {}
    for p in problems:
        hits = [k for k in keys if k == p.path or k.startswith(p.path + ".")] if p.path else []
        for k in hits:         # beside a field: the reason without stored SI numbers ("(got 5e+06)")
            out.setdefault(k, p.reason.split(" (got ")[0])
        if not hits:
            out.setdefault("", f"{p.path}: {p.reason}" if p.path else p.reason)
    return out


# ---------------------------------------------------------------- what if

@frozen
class WhatIf:
    key: str
    label: str
    factor: float
    paths: tuple[tuple[str, ...], ...]      # () for FLOP/s: every data type
    tip: str


WHAT_IFS: tuple[WhatIf, ...] = (
    WhatIf("hbm_bandwidth_x2", "×2 memory bandwidth", 2.0, (("memory", "hbm", "bandwidth_bytes_per_s"),
                                                           ("memory", "hbm", "stream_bandwidth_bytes_per_s")),
           "HBM4-style: twice the bytes per second from memory (decode at batch 1 gets ~2× faster)"),
    WhatIf("hbm_capacity_x2", "×2 memory capacity", 2.0, (("memory", "hbm", "capacity_bytes"),),
           "Twice the memory: bigger models and batches fit; no faster"),
    WhatIf("flops_x2", "×2 FLOP/s", 2.0, (),
           "Twice the peak FLOP/s in every data type (prefill and big batches get faster, batch-1 decode hardly)"),
    WhatIf("links_x2", "×2 link bandwidth", 2.0, tuple(("links", k, "bandwidth_bytes_per_s")
                                                        for k in ("scale_up", "pcie", "network")),
           "Twice the bandwidth on every GPU-to-GPU link"),
    WhatIf("l2_x2", "×2 L2 cache", 2.0, (("memory", "l2", "capacity_bytes"),), "Twice the L2 capacity"),
)


def what_if(key: str) -> WhatIf:
    for w in WHAT_IFS:
        if w.key == key:
            return w
    raise KeyError(f"unknown what-if '{key}' (known: {', '.join(w.key for w in WHAT_IFS)})")


def apply_what_if(doc: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A copy of ``doc`` with the what-if's numbers × factor; each touched section's source says so."""
    w = what_if(key)
    out = copy.deepcopy(dict(doc))
    paths = w.paths or tuple(("compute", "peak_flops_per_s", d) for d in (_get(out, ("compute", "peak_flops_per_s")) or {}))
    touched: list[dict] = []
    for path in paths:
        parent = _get(out, path[:-1])
        value = parent.get(path[-1]) if isinstance(parent, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            parent[path[-1]] = value * w.factor
            section = out.get("compute") if path[0] == "compute" else _get(out, path[:2])
            if isinstance(section, dict) and all(section is not t for t in touched):
                touched.append(section)
    for section in touched:
        src = str(section.get("source") or "")
        section["source"] = f"what if {w.label} of: {src}" if src else f"what if {w.label}"
    return out
