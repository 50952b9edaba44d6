"""Fit the efficiency factors on the calibration half of assets/measured.csv.

    python -m model.calibrate            # fit, print, and write assets/efficiency.json
    python -m model.calibrate --dry-run  # fit and print only

Objective: mean |ln(predicted / measured)| over the stack's calibration rows, minimised
by coordinate descent (from the best of 200 seeded random starts) over bounded,
physically meaningful ranges (a fraction of peak is
in (0, 1]; overheads are non-negative). The CUDA stack (NVIDIA rows) fits all six factors;
stacks with few rows fit only what their rows can tell apart — with four rows or more
(ROCm) the bandwidth fraction, per-step and per-layer overheads and all-reduce latency;
with fewer (SynapseAI, 2 rows) the bandwidth fraction and per-step overhead — and take
the rest from the CUDA fit. No factor is ever set per row.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import replace

import numpy as np

from model.catalog import ASSETS_DIR, default_catalog
from model.efficiency import Efficiency, EfficiencyTable, default_efficiency
from model.measured import default_measured, predict

BOUNDS = {
    "hbm_fraction": (0.2, 1.0),
    "compute_fraction_decode": (0.2, 0.95),
    "compute_fraction_prefill": (0.2, 0.95),
    "step_overhead_s": (0.0, 10e-3),
    "layer_overhead_s": (0.0, 200e-6),
    "allreduce_latency_scale": (0.25, 10.0),
}
FULL = tuple(BOUNDS)
FEW = ("hbm_fraction", "step_overhead_s")
SOME = FEW + ("allreduce_latency_scale", "layer_overhead_s")   # four rows or more tell these apart too
# A fixed starting point, so a fit does not depend on the factors already in the file.
START = Efficiency(hbm_fraction=0.85, compute_fraction_decode=0.6, compute_fraction_prefill=0.7,
                   step_overhead_s=1e-3, layer_overhead_s=10e-6, allreduce_latency_scale=1.0, stack="start")


def _loss(rows, table: EfficiencyTable) -> float:
    cat = default_catalog()
    return float(np.mean([abs(np.log(predict(r, cat, table) / r.value)) for r in rows]))


def fit_stack(name: str, rows, base: EfficiencyTable, start: Efficiency, params, passes: int = 4) -> Efficiency:
    best = start
    def table_with(e: Efficiency) -> EfficiencyTable:
        stacks = dict(base.stacks)
        stacks[name] = e
        return replace(base, stacks=tuple(stacks.items()))
    best_loss = _loss(rows, table_with(best))
    for p in range(passes):
        for param in params:
            lo, hi = BOUNDS[param]
            cur = getattr(best, param)
            width = (hi - lo) / (2 ** p)
            grid = np.clip(np.linspace(cur - width / 2, cur + width / 2, 21), lo, hi)
            for value in np.unique(grid):
                trial = replace(best, **{param: float(value)})
                loss = _loss(rows, table_with(trial))
                if loss < best_loss - 1e-12:
                    best, best_loss = trial, loss
    return replace(best, calibrated_on=tuple(r.row_id for r in rows), stack=name)


def fit_stack_multistart(name: str, rows, base: EfficiencyTable, start: Efficiency, params,
                         samples: int = 200, keep: int = 3, seed: int = 0) -> Efficiency:
    """Coordinate descent from the ``keep`` best of ``samples`` seeded random starting points
    (and from ``start``): the loss has several shallow valleys."""
    rng = np.random.default_rng(seed)

    def table_with(e: Efficiency) -> EfficiencyTable:
        stacks = dict(base.stacks)
        stacks[name] = e
        return replace(base, stacks=tuple(stacks.items()))
    candidates = [start]
    for _ in range(samples):
        draw = {}
        for p in params:
            lo, hi = BOUNDS[p]
            if p == "allreduce_latency_scale":
                draw[p] = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
            else:
                draw[p] = float(rng.uniform(lo, hi))
        candidates.append(replace(start, **draw))
    scored = sorted(candidates, key=lambda e: _loss(rows, table_with(e)))[:keep]
    fits = [fit_stack(name, rows, base, c, params) for c in scored]
    return min(fits, key=lambda e: _loss(rows, table_with(e)))


def calibrate() -> tuple[EfficiencyTable, dict[str, float]]:
    base = default_efficiency()
    cat = default_catalog()
    rows = [r for r in default_measured() if r.split == "calibrate"]
    vendor_of = {g.id: g.vendor.split()[0] for g in cat.gpus}
    groups: dict[str, list] = {}
    for r in rows:
        groups.setdefault(vendor_of[r.gpu], []).append(r)
    cuda = fit_stack_multistart("NVIDIA", groups.pop("NVIDIA"), base, replace(START, stack="NVIDIA"), FULL)
    stacks = {"default": replace(cuda, stack="default"), "NVIDIA": cuda}
    table = replace(base, stacks=tuple(stacks.items()))
    for vendor, vrows in sorted(groups.items()):
        params = SOME if len(vrows) >= 4 else FEW
        stacks[vendor] = fit_stack_multistart(vendor, vrows, table, replace(cuda, stack=vendor), params)
        table = replace(base, stacks=tuple(stacks.items()))
    losses = {v: _loss(rs, table) for v, rs in [("NVIDIA", [r for r in rows if vendor_of[r.gpu] == "NVIDIA"])]
              + [(k, v) for k, v in groups.items()]}
    return table, losses


def _as_json(e: Efficiency, notes: str) -> dict:
    return {
        "hbm_fraction": round(e.hbm_fraction, 4),
        "compute_fraction_decode": round(e.compute_fraction_decode, 4),
        "compute_fraction_prefill": round(e.compute_fraction_prefill, 4),
        "step_overhead_ms": round(e.step_overhead_s * 1e3, 4),
        "layer_overhead_us": round(e.layer_overhead_s * 1e6, 3),
        "allreduce_latency_scale": round(e.allreduce_latency_scale, 4),
        "calibrated_on": list(e.calibrated_on),
        "notes": notes,
    }


NOTES = {
    "default": "copy of the CUDA fit, used for vendors with no measured rows (Google TPU)",
    "NVIDIA": "TensorRT-LLM and vLLM on CUDA; all six factors fitted",
    "AMD": "vLLM on ROCm (2024); bandwidth fraction, step and layer overheads and all-reduce latency fitted, compute fractions from CUDA",
    "Intel": "DeepSpeed on SynapseAI (Gaudi); bandwidth fraction and step overhead fitted (2 rows), the rest from CUDA",
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    table, losses = calibrate()
    for name, e in table.stacks:
        print(f"{name:8s} hbm {e.hbm_fraction:.3f}  compute dec {e.compute_fraction_decode:.3f} "
              f"pre {e.compute_fraction_prefill:.3f}  step {e.step_overhead_s * 1e3:.2f} ms  "
              f"layer {e.layer_overhead_s * 1e6:.1f} us  allreduce x{e.allreduce_latency_scale:.2f}  "
              f"rows {len(e.calibrated_on)}")
    for k, v in losses.items():
        print(f"mean |ln error| {k}: {v:.3f}")
    if not args.dry_run:
        path = ASSETS_DIR / "efficiency.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["stacks"] = {name: _as_json(e, NOTES.get(name, "")) for name, e in table.stacks}
        path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
