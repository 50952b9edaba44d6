"""Realistic efficiency: the gap between datasheet peaks and what serving software reaches.

    effective bandwidth   = peak HBM bytes/s   × hbm_fraction
    effective FLOP/s      = dense peak FLOP/s  × compute_fraction_{decode,prefill}
    per-step overhead     = step_overhead_ms + layers × layer_overhead_us   (launches, sampling)
    all-reduce latency    = link latency × allreduce_latency_scale

One set of factors per vendor software stack (CUDA, ROCm, SynapseAI…), fitted by
``python -m model.calibrate`` on half of the published measurements; each set lists the
rows it came from. ``IDEAL`` is 100% of peak with no overhead: the floor.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from model.catalog import ASSETS_DIR, _read_json
from model.errors import AssetError


@dataclass(frozen=True)
class Efficiency:
    hbm_fraction: float
    compute_fraction_decode: float
    compute_fraction_prefill: float
    step_overhead_s: float
    layer_overhead_s: float
    allreduce_latency_scale: float
    calibrated_on: tuple[str, ...] = ()
    stack: str = "ideal"


IDEAL = Efficiency(1.0, 1.0, 1.0, 0.0, 0.0, 0.0, (), "ideal")


@dataclass(frozen=True)
class EfficiencyTable:
    stacks: tuple[tuple[str, Efficiency], ...]
    workspace_fraction: float
    max_inflight_batch: int

    def for_vendor(self, vendor: str) -> Efficiency:
        table = dict(self.stacks)
        key = vendor.split()[0] if vendor else "default"
        return table.get(key, table["default"])


def parse_stack(name: str, raw: Mapping[str, Any]) -> Efficiency:
    return Efficiency(
        hbm_fraction=float(raw["hbm_fraction"]),
        compute_fraction_decode=float(raw["compute_fraction_decode"]),
        compute_fraction_prefill=float(raw["compute_fraction_prefill"]),
        step_overhead_s=float(raw["step_overhead_ms"]) * 1e-3,
        layer_overhead_s=float(raw["layer_overhead_us"]) * 1e-6,
        allreduce_latency_scale=float(raw["allreduce_latency_scale"]),
        calibrated_on=tuple(raw.get("calibrated_on", ())),
        stack=name,
    )


def load_efficiency(path: Path | str | None = None) -> EfficiencyTable:
    p = Path(path) if path else ASSETS_DIR / "efficiency.json"
    doc = _read_json(p)
    try:
        stacks = tuple((name, parse_stack(name, raw)) for name, raw in doc["stacks"].items())
        if "default" not in dict(stacks):
            raise KeyError("stacks.default")
        return EfficiencyTable(stacks, float(doc["workspace_fraction"]), int(doc["max_inflight_batch"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise AssetError(f"{p.name} is malformed: {exc}") from None


@lru_cache(maxsize=1)
def default_efficiency() -> EfficiencyTable:
    return load_efficiency()
