"""Published measurements beside the model: only rows whose model, precision and GPU match the
scenario a lesson shows, each with the model's prediction of the same run."""
from __future__ import annotations

import math

from model.catalog.active import default_catalog
from model.catalog.parts import Catalog
from model.machine.measured import default_measured
from model.machine.validate import compare
from model.physics.scenario import Scenario
from model.values import frozen


def matching_measurements(model_id: str | None = None, gpu_id: str | None = None, precision: str | None = None,
                          metric: str | None = None, catalog: Catalog | None = None):
    """Published measurements (with the model's prediction of each) that match the given ids.
    Ids and aliases are resolved, so 'h100' finds rows of 'h100-sxm5-80gb'."""
    cat = catalog or default_catalog()
    m = cat.model(model_id).id if model_id else None
    g = cat.gpu(gpu_id).id if gpu_id else None
    p = cat.precision(precision).id if precision else None
    rows = tuple(r for r in default_measured()
                 if (m is None or r.model == m) and (g is None or r.gpu == g)
                 and (p is None or r.precision == p) and (metric is None or r.metric == metric))
    return compare(rows, cat) if rows else ()


@frozen
class MeasuredPoint:
    """A published run beside the model's prediction of the same run (same conditions)."""

    row: object
    measured: float
    predicted: float

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1.0


def measured_e2e(s: Scenario, catalog: Catalog | None = None, n_gpus: int | None = None) -> tuple[MeasuredPoint, ...]:
    """Published end-to-end latencies of this scenario's model, precision and GPU (and lengths)."""
    cat = catalog or default_catalog()
    out = []
    for c in matching_measurements(s.model, s.gpu, s.precision, "end_to_end_latency_s", cat):
        r = c.row
        if (r.input_len, r.output_len) == (s.input_len, s.output_len) and r.batch and \
                (n_gpus is None or r.n_gpus == n_gpus):
            out.append(MeasuredPoint(r, r.value, c.predicted))
    return tuple(sorted(out, key=lambda m: (m.row.n_gpus, m.row.batch)))


def error_text(err: float | None) -> str:
    """The model's error against a measurement: predicted ÷ measured − 1."""
    return f"model error {err:+.1%}" if err is not None and math.isfinite(err) else "model error —"


def measured_tip(row, lines) -> str:
    """A published measurement's hover text: where it comes from, how it was run, then ``lines``
    (measured vs model, with the error)."""
    b = "max (in-flight, not reported)" if row.batch is None else f"{row.batch:,}"
    gpus = f"{row.n_gpus} GPU{'s' if row.n_gpus != 1 else ''}"
    return "\n".join([f"★ Published: {row.model} {row.precision} on {row.n_gpus}× {row.gpu}",
                       f"Source: {row.source}",
                       f"Framework: {row.framework}",
                       f"Conditions: {gpus}, batch {b}, {row.input_len:,} input / {row.output_len:,} output tokens",
                       *lines])


def source_line(row) -> str:
    """A published run named with its source, for the CSV export."""
    return f"{row.label}; {row.source}"


def short_source(row) -> str:
    """Who published a run, in a few words for a claim ("LLM-Inference-Bench"): its source up to the
    paper's number or the first ';'."""
    return row.source.split(";")[0].split(" arXiv")[0].split(" (")[0].strip() or "a published run"
