"""How far to trust a realistic number: its error band, and the published runs nearest to it.

    band             = the 68th percentile of |ln(predicted ÷ measured)| over the held-out runs alike
                       (model/machine/residuals.py: each predicted with nothing its publisher published), shown as
                       ± (e^band − 1)
    alike            = the same engine, the same kind of machine, the same regime (decode / prefill /
                       a whole request) and batch 1 or batched; with fewer than MIN_ALIKE such runs
                       the group widens step by step (and says so): engine + machine + regime →
                       engine + machine → machine + regime → regime → every run
    nearest runs     = the measured rows closest to this scenario by GPU, model size, precision,
                       batch and engine, each with the model's prediction of it (in-sample)

Floors (``decode_floor``, ``prefill_floor``) are bounds, not predictions: they carry no band.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from model.catalog.active import default_catalog
from model.errors import ModelError
from model.machine.residuals import Residual, platform_class, stored_residuals
from model.readouts.format import sig3
from model.values import frozen

MIN_ALIKE = 8
QUANTILE = 0.68
# readout → the regime of prediction it is (None: no band)
REGIME_OF = {"decode_time": "decode", "tokens_per_s_per_user": "decode", "output_tokens_per_s": "decode",
             "usd_per_million_tokens": "decode", "joules_per_token": "decode", "mbu": "decode", "mfu": "decode",
             "prefill_time": "prefill", "e2e_latency": "e2e"}


@frozen
class Band:
    """± ``fraction`` of the number (68% of held-out runs alike were within it)."""

    fraction: float
    runs: int
    alike: str                  # what the runs have in common: "vLLM on data-centre GPUs, decode at batch 1"
    widened: bool               # fewer than MIN_ALIKE runs were alike: a wider group stands in

    @property
    def text(self) -> str:
        """± x% — or, past ± 100% (a factor of two and more), "×/÷ k": the band is symmetric in
        ln(predicted ÷ measured), so a number may be k times too large or too small."""
        if self.fraction > 1.0:
            return f"×/÷ {sig3(1.0 + self.fraction)}"
        return f"± {100 * self.fraction:.0f}%"

    @property
    def label(self) -> str:
        few = "few runs alike: " if self.widened else ""
        return f"{self.text} ({few}{self.alike}, {self.runs} published runs)"


def band_of(residuals, q: float = QUANTILE) -> float:
    """± fraction from held-out residuals: e^{quantile of |ln ratio|} − 1."""
    logs = np.abs([r.log_error for r in residuals])
    return float(math.exp(np.quantile(logs, q)) - 1.0) if len(logs) else math.nan


def _regime_words(regime: str, batch1: bool) -> str:
    what = {"decode": "decode", "prefill": "prefill", "e2e": "whole requests"}[regime]
    return f"{what} at batch 1" if batch1 else f"batched {what}"


def band(e, key: str, residuals: tuple[Residual, ...] | None = None) -> Band | None:
    """The error band of readout ``key`` of ``e``, or None (a floor, a count, a datasheet number)."""
    regime = REGIME_OF.get(key)
    if regime is None or e.engine_id == "ideal":
        return None
    rows = stored_residuals() if residuals is None else residuals
    hw = e.resolved.hw
    cls, eng, b1 = platform_class(hw), e.engine_id, e.scenario.batch == 1
    name = e.engine_name
    steps = [(f"{name} on {cls}, {_regime_words(regime, b1)}",
              lambda r: r.engine == eng and r.platform_class == cls and r.regime == regime and r.batch1 == b1),
             (f"{name} on {cls}, {regime}", lambda r: r.engine == eng and r.platform_class == cls and r.regime == regime),
             (f"{name} on {cls}, every kind of run", lambda r: r.engine == eng and r.platform_class == cls),
             (f"any engine on {cls}, {regime}", lambda r: r.platform_class == cls and r.regime == regime),
             (f"any engine, {regime}", lambda r: r.regime == regime),
             ("every published run", lambda r: True)]
    for i, (alike, keep) in enumerate(steps):
        group = [r for r in rows if keep(r)]
        if len(group) >= MIN_ALIKE or i == len(steps) - 1:
            return Band(band_of(group), len(group), alike, i > 0) if group else None
    return None


@frozen
class NearRun:
    """A published run near this scenario, with the model's prediction of it."""

    row_id: str
    label: str
    metric: str
    measured: float
    predicted: float
    source: str
    distance: float

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1.0


@lru_cache(maxsize=1)
def _comparisons():
    from model.machine.validate import compare      # every row predicted: ~1 s, once, when first asked
    return compare()


def nearest_runs(e, n: int = 3) -> tuple[NearRun, ...]:
    """The ``n`` measured rows nearest to ``e``'s scenario (GPU, model size, precision, batch, engine)."""
    cat, s = default_catalog(), e.scenario
    here_params = e.resolved.llm.params.total
    out = []
    for c in _comparisons():
        r = c.row
        try:
            hw, llm = cat.gpu(r.gpu), cat.model(r.model)
        except ModelError:
            continue
        d = (0.0 if hw.id == s.gpu else 1.0 if platform_class(hw) == platform_class(e.resolved.hw) else 2.0)
        d += abs(math.log(llm.params.total / here_params))
        d += 0.0 if r.precision == s.precision else 0.5
        d += abs(math.log((r.batch or 64) / s.batch)) / 3.0
        d += 0.0 if r.engine == e.engine_id else 0.5
        d += 0.0 if r.n_gpus == s.gpus else 0.5
        out.append(NearRun(r.row_id, r.label, r.metric, r.value, c.predicted, r.source, d))
    return tuple(sorted(out, key=lambda x: x.distance)[:n])
