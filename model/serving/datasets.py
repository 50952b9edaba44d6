"""Named request-length datasets (assets/serving.json "datasets"): the lengths a benchmark draws.

    each length  ~ lognormal, kept to [min, max], with the published mean and spread:
                   σ = sqrt(ln(1 + (sd / mean)²)) and μ set so the kept values average the mean
                   (model/serving/workload._mu); sd 0: every request at the mean
    a run's own means (``input_len``/``output_len`` of its setup) replace the dataset's: a
    benchmark run whose outputs averaged 273.8 tokens draws around 273.8, with the dataset's
    relative spread (sd / mean) and bounds
ShareGPT (``sharegpt``) keeps its own sampler (one σ, prompt + output ≤ 2 048, workload.py).
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Mapping

from model.errors import AssetError
from model.files.assets import ASSETS_DIR, read_asset_json
from model.values import frozen


@frozen
class Lengths:
    """One side (prompt or output) of a dataset."""

    mean: float
    sd: float
    lo: int
    hi: int

    @property
    def sigma(self) -> float:
        return math.sqrt(math.log1p((self.sd / self.mean) ** 2)) if self.sd > 0 else 0.0


@frozen
class Dataset:
    id: str
    name: str
    input: Lengths
    output: Lengths
    source: str


def _side(d: Mapping[str, Any], key: str, where: str) -> Lengths:
    item = d.get(key)
    if not isinstance(item, Mapping) or not item.get("source"):
        raise AssetError(f"serving.json: datasets.{where}.{key} needs mean, sd, min, max and a source")
    try:
        side = Lengths(float(item["mean"]), float(item["sd"]), int(item["min"]), int(item["max"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise AssetError(f"serving.json: datasets.{where}.{key}: {exc}") from None
    if not (side.mean > 0 and side.sd >= 0 and 1 <= side.lo <= side.mean <= side.hi):
        raise AssetError(f"serving.json: datasets.{where}.{key}: need 1 ≤ min ≤ mean ≤ max and sd ≥ 0")
    return side


@lru_cache(maxsize=2)
def datasets(path: str | None = None) -> Mapping[str, Dataset]:
    """Every named dataset but ShareGPT (which has its own sampler), by id."""
    from pathlib import Path
    doc = read_asset_json(Path(path) if path else ASSETS_DIR / "serving.json")
    out = {}
    for did, d in (doc.get("datasets") or {}).items():
        if did == "sharegpt":
            continue
        out[did] = Dataset(did, str(d.get("name", did)), _side(d, "input", did), _side(d, "output", did),
                           "; ".join(dict.fromkeys(str(d[k]["source"]) for k in ("input", "output"))))
    return out
