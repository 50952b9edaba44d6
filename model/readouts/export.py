"""An Estimate as JSON, the form ``main.py estimate --json`` prints and exports keep.

    {every Estimate field (numbers; non-finite → null), "scenario": {...}, "notes": [the notes
     a screen shows], "explanation": "the footer's sentence", "readouts": {key: readout}}
"""
from __future__ import annotations

import math
from dataclasses import fields

from model.readouts.numbers import readouts_json
from model.readouts.sentences import explain, shown_notes


def _clean(v):
    return None if isinstance(v, float) and not math.isfinite(v) else v


def estimate_json(e) -> dict:
    """Every number of ``e`` and every readout made from it, JSON-ready."""
    d = {f.name: _clean(getattr(e, f.name)) for f in fields(e) if f.repr}
    d["scenario"] = e.scenario.to_dict()
    d["notes"] = shown_notes(e)
    d["explanation"] = explain(e)
    d["readouts"] = readouts_json(e)
    return d
