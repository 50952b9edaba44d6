"""An Estimate as JSON, the form ``main.py estimate --json`` prints and exports keep.

    {every Estimate field (numbers; non-finite → null), "scenario": {...}, "notes": [the notes
     a screen shows], "explanation": "the footer's sentence", "readouts": {key: readout},
     "derivations": {key: {equation, arithmetic, assumptions, inputs, source}}, "inputs": {key: readout},
     "kernels": {"decode": [...], "prefill": [...]}}
"""
from __future__ import annotations

import math
from dataclasses import asdict, fields

from model.readouts.numbers import readouts_json
from model.readouts.sentences import explain as sentence, shown_notes


def _clean(v):
    return None if isinstance(v, float) and not math.isfinite(v) else v


def estimate_json(e, explain: bool = True) -> dict:
    """Every number of ``e`` and every readout made from it, JSON-ready; with ``explain`` also
    each readout's derivation and the step's kernels."""
    d = {f.name: _clean(getattr(e, f.name)) for f in fields(e) if f.repr}
    d["scenario"] = e.scenario.to_dict()
    d["notes"] = shown_notes(e)
    d["explanation"] = sentence(e)
    d["readouts"] = readouts_json(e)
    if explain:                  # the derivations are imported only when asked for (estimate --json's start)
        from model.readouts.derivations import derivations
        from model.readouts.explain_text import derivation_json
        from model.readouts.terms import term_readouts
        d["derivations"] = {k: derivation_json(e, k) for k in derivations(e)}
        d["inputs"] = {k: {**asdict(r), "value": _clean(r.value)} for k, r in term_readouts(e).items()}
        d["kernels"] = {ph: [{"name": k.name, "bytes": k.bytes, "flops": k.flops, "memory_s": k.memory_s,
                              "compute_s": k.compute_s, "time_s": k.time_s, "bound": k.bound}
                             for k in (e.decode_kernels if ph == "decode" else e.prefill_kernels)]
                        for ph in ("decode", "prefill")}
    return d
