"""Predicted against measured, by source: leave one source out.

    error = predicted / measured − 1     (for latencies and throughputs alike; the sign says
                                          which way: + means the model is slower/higher)

The headline is leave-one-source-out (LOSO): for each public source, fit the engine factors
on every *other* source's rows (model.machine.calibrate.fit) and predict this source's rows. A
random split of rows from the same benchmark family cannot show how the model does on
other people's runs; this can. ``python -m model.machine.validate --markdown > docs/validation.md``
regenerates the table.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Callable, Iterable

import numpy as np

from model.machine.calibrate import all_plans, design, fit
from model.catalog.parts import Catalog
from model.catalog.engines import EfficiencyTable
from model.catalog.active import default_efficiency
from model.machine.measured import UNITS, MeasuredRow, RowPlan, default_measured, evaluate
from model.values import frozen


@frozen
class Comparison:
    row: MeasuredRow
    predicted: float

    @property
    def error(self) -> float:
        return self.predicted / self.row.value - 1.0


@frozen
class Summary:
    rows: int
    median_abs_error: float
    within_25: float            # share of rows with |error| ≤ 25%
    mean_log_error: float       # mean ln(predicted / measured): + means the model is slow on average


def _predict(plans: Iterable[RowPlan], table: EfficiencyTable, engine: str | None = None) -> tuple[Comparison, ...]:
    return tuple(Comparison(p.row, evaluate(p, table.efficiency(engine or p.engine, p.hw))) for p in plans)


def compare(rows: tuple[MeasuredRow, ...] | None = None, catalog: Catalog | None = None,
            efficiency: EfficiencyTable | None = None, engine: str | None = None) -> tuple[Comparison, ...]:
    """Every row with its own engine's stored factors (in-sample), or all with one ``engine``
    (e.g. ideal: the floor)."""
    table = efficiency or default_efficiency()
    return _predict(all_plans(rows, table, catalog), table, engine)


def leave_one_source_out(rows: tuple[MeasuredRow, ...] | None = None,
                         efficiency: EfficiencyTable | None = None) -> tuple[Comparison, ...]:
    """Each source's rows predicted by factors fitted on all the other sources."""
    table = efficiency or default_efficiency()
    plans = all_plans(rows, table)
    shared = design(plans, table)
    sources = np.array([p.row.source_id for p in plans])
    out: dict[str, Comparison] = {}
    for source in sorted(set(sources)):
        train = sources != source
        fitted = table.with_fits(fit(plans, table, shared=shared, active=train) if train.any() else {})
        for c in _predict([p for p in plans if p.row.source_id == source], fitted):
            out[c.row.row_id] = c
    return tuple(out[p.row.row_id] for p in plans)


def summarize(comparisons) -> Summary:
    cs = list(comparisons)
    if not cs:
        return Summary(0, float("nan"), float("nan"), float("nan"))
    errs = np.abs([c.error for c in cs])
    logs = np.log([c.predicted / c.row.value for c in cs])
    return Summary(len(cs), float(np.median(errs)), float(np.mean(errs <= 0.25)), float(np.mean(logs)))


def by(comparisons, key: Callable[[MeasuredRow], str]) -> dict[str, Summary]:
    groups: dict[str, list] = {}
    for c in comparisons:
        groups.setdefault(key(c.row), []).append(c)
    return {k: summarize(v) for k, v in sorted(groups.items())}


BREAKDOWNS = {"engine": lambda r: r.engine, "gpu": lambda r: r.gpu, "source": lambda r: r.source_id}


@frozen
class Report:
    loso: tuple[Comparison, ...]
    in_sample: tuple[Comparison, ...]
    floor: tuple[Comparison, ...]

    def as_dict(self) -> dict:
        floor = {c.row.row_id: c.predicted for c in self.floor}
        fitted = {c.row.row_id: c.predicted for c in self.in_sample}
        return {
            "headline": "leave-one-source-out",
            "summary": {"loso": asdict(summarize(self.loso)), "in_sample": asdict(summarize(self.in_sample)),
                        "floor": asdict(summarize(self.floor))},
            **{f"loso_by_{k}": {g: asdict(s) for g, s in by(self.loso, f).items()} for k, f in BREAKDOWNS.items()},
            "rows": [{"row_id": c.row.row_id, "source_id": c.row.source_id, "engine": c.row.engine,
                      "gpu": c.row.gpu, "label": c.row.label, "metric": c.row.metric, "measured": c.row.value,
                      "predicted_loso": c.predicted, "error_loso": c.error,
                      "predicted_in_sample": fitted[c.row.row_id], "floor": floor[c.row.row_id]}
                     for c in self.loso],
        }


def report(rows: tuple[MeasuredRow, ...] | None = None) -> Report:
    return Report(leave_one_source_out(rows), compare(rows), compare(rows, engine="ideal"))




def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def row_lines(rep: Report) -> list[str]:
    """One line per row: source, engine, scenario, measured, leave-one-source-out prediction, error."""
    out = [f"{'row':5s} {'source':24s} {'engine':12s} {'scenario':80s} {'measured':>10s} {'LOSO':>10s} {'error':>6s}"]
    for c in rep.loso:
        r = c.row
        out.append(f"{r.row_id:5s} {r.source_id[:24]:24s} {r.engine[:12]:12s} {r.label[:80]:80s} {r.value:>10.4g} "
                   f"{c.predicted:>10.4g} {100 * c.error:+5.0f}%  {UNITS.get(r.metric, '')}")
    return out


def summary_lines(rep: Report) -> list[str]:
    """The headline in plain text: overall, then per engine, GPU and source."""
    s = summarize(rep.loso)
    lines = [f"leave-one-source-out: {s.rows} rows, median |error| {_pct(s.median_abs_error)}, "
             f"{100 * s.within_25:.0f}% within ±25%, mean ln(pred/meas) {s.mean_log_error:+.2f}"]
    for name, sm in (("in-sample (fitted on every row)", summarize(rep.in_sample)),
                     ("pure roofline floor", summarize(rep.floor))):
        lines.append(f"for scale, {name}: median |error| {_pct(sm.median_abs_error)}, "
                     f"{100 * sm.within_25:.0f}% within ±25%")
    for k, f in BREAKDOWNS.items():
        lines.append(f"by {k}:")
        for g, sm in by(rep.loso, f).items():
            lines.append(f"  {g:34s} {sm.rows:4d} rows  median {_pct(sm.median_abs_error):>6s}  "
                         f"{100 * sm.within_25:3.0f}% within ±25%  mean ln {sm.mean_log_error:+.2f}")
    return lines


def markdown(rep: Report) -> str:
    s = summarize(rep.loso)
    out = ["# Validation: the model against published measurements", "",
           "Generated by `python -m model.machine.validate --markdown > docs/validation.md`. Headline: "
           "**leave-one-source-out** — each source's rows are predicted by engine factors fitted on every "
           "other source (see docs/model.md). Error = predicted / measured − 1.", "",
           f"**{s.rows} rows: median |error| {_pct(s.median_abs_error)}, {100 * s.within_25:.0f}% within ±25%.**", "",
           "| rows | count | median abs error | within ±25% | mean ln(pred/meas) |", "|---|---:|---:|---:|---:|"]
    for name, cs in (("leave-one-source-out", rep.loso), ("in-sample (fitted on every row)", rep.in_sample),
                     ("pure roofline floor (100% of peak, no overhead)", rep.floor)):
        sm = summarize(cs)
        out.append(f"| {name} | {sm.rows} | {_pct(sm.median_abs_error)} | {100 * sm.within_25:.0f}% | "
                   f"{sm.mean_log_error:+.2f} |")
    for k, f in BREAKDOWNS.items():
        out += ["", f"## Leave-one-source-out by {k}", "",
                f"| {k} | rows | median abs error | within ±25% | mean ln(pred/meas) |", "|---|---:|---:|---:|---:|"]
        for g, sm in by(rep.loso, f).items():
            out.append(f"| {g} | {sm.rows} | {_pct(sm.median_abs_error)} | {100 * sm.within_25:.0f}% | "
                       f"{sm.mean_log_error:+.2f} |")
    fitted = {c.row.row_id: c.predicted for c in rep.in_sample}
    out += ["", "## Every row", "", "| row | source | engine | scenario | measured | LOSO | error | in-sample |",
            "|---|---|---|---|---:|---:|---:|---:|"]
    for c in rep.loso:
        u = UNITS.get(c.row.metric, "")
        out.append(f"| {c.row.row_id} | {c.row.source_id} | {c.row.engine} | {c.row.label} | {c.row.value:.4g} {u} | "
                   f"{c.predicted:.4g} | {100 * c.error:+.0f}% | {fitted[c.row.row_id]:.4g} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="The model against published measurements, leave-one-source-out.")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="docs/validation.md")
    ap.add_argument("--serving", action="store_true", help="the published serving runs, simulated (validate_serving.py)")
    args = ap.parse_args(argv)
    if args.serving:
        from model.machine.validate_serving import main as serving_main
        return serving_main(["--json"] if args.json else [])
    rep = report()
    if args.markdown:
        print(markdown(rep), end="")
    elif args.json:
        print(json.dumps(rep.as_dict(), indent=2))
    else:
        print("\n".join(row_lines(rep) + [""] + summary_lines(rep)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
