"""Predicted against measured, row by row, with summary statistics.

    error = predicted / measured − 1     (for latencies and throughputs alike; the sign says
                                          which way: + means the model is slower/higher)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dataclasses import replace

from model.catalog import Catalog
from model.efficiency import IDEAL, EfficiencyTable, default_efficiency
from model.measured import MeasuredRow, default_measured, predict


@dataclass(frozen=True)
class Comparison:
    row: MeasuredRow
    predicted: float

    @property
    def error(self) -> float:
        return self.predicted / self.row.value - 1.0


@dataclass(frozen=True)
class Summary:
    rows: int
    median_abs_error: float
    within_25: float            # share of rows with |error| ≤ 25%


def compare(rows: tuple[MeasuredRow, ...] | None = None, catalog: Catalog | None = None,
            efficiency: EfficiencyTable | None = None) -> tuple[Comparison, ...]:
    return tuple(Comparison(r, predict(r, catalog, efficiency)) for r in (rows or default_measured()))


def summarize(comparisons) -> Summary:
    errs = np.abs([c.error for c in comparisons])
    if len(errs) == 0:
        return Summary(0, float("nan"), float("nan"))
    return Summary(len(errs), float(np.median(errs)), float(np.mean(errs <= 0.25)))


def by_split(comparisons) -> dict[str, Summary]:
    return {split: summarize([c for c in comparisons if c.row.split == split]) for split in ("calibrate", "holdout")}


def by_gpu(comparisons, split: str | None = None) -> dict[str, Summary]:
    out: dict[str, list] = {}
    for c in comparisons:
        if split is None or c.row.split == split:
            out.setdefault(c.row.gpu, []).append(c)
    return {gpu: summarize(cs) for gpu, cs in out.items()}


def ideal_table() -> EfficiencyTable:
    """Every stack at 100% of peak with no overhead: the pure roofline floor, for comparison."""
    base = default_efficiency()
    return replace(base, stacks=tuple((name, replace(IDEAL, stack=name)) for name, _ in base.stacks))
