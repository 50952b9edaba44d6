"""Predicted against measured, by publisher: leave one publisher out.

    error = predicted / measured − 1     (for latencies and throughputs alike; the sign says
                                          which way: + means the model is slower/higher)

The headline is leave-one-publisher-out (LOPO): for each publisher (assets/publishers.json:
every document of a vendor, lab, project or reviewer together), fit the engine factors on
every *other* publisher's rows (model.machine.calibrate.fit) and predict this one's. A random
split of rows from the same benchmark family cannot show how the model does on other people's
runs; nor can holding out one document while the same vendor's other pages stay in the fit.
Leave-one-source-out (LOSO: one document at a time) is kept beside it. Every summary is also
broken down per engine, GPU, publisher, source and regime (batch 1 or batched × decode, prefill
or end to end). ``python -m model.machine.validate --markdown > docs/validation.md`` regenerates
the tables.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Callable, Iterable

import numpy as np

from model.machine.calibrate import all_plans, design, fit
from model.machine.fit_cache import cached_theta, use_disk
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


Progress = Callable[[int, int, str], None]      # (fits done, fits in all, what is being fitted)


def leave_one_out(rows: tuple[MeasuredRow, ...] | None = None, efficiency: EfficiencyTable | None = None,
                  key: Callable[[MeasuredRow], str] = lambda r: r.source_id,
                  cache: dict | None = None, progress: Progress | None = None) -> tuple[Comparison, ...]:
    """Each group's rows (by ``key``: source, publisher …) predicted by factors fitted on all
    the other groups' rows, in the order of the rows. ``cache``: fits by held-out rows, shared
    between calls (a publisher with one source holds out the same rows as that source); every fit
    is also kept by its inputs (model/machine/fit_cache.py). ``progress(done, total, group)``
    before each group's fit."""
    table = efficiency or default_efficiency()
    plans = all_plans(rows, table)
    shared = design(plans, table)
    keys = np.array([key(p.row) for p in plans])
    cache = {} if cache is None else cache
    out: dict[str, Comparison] = {}
    groups = sorted(set(keys))
    for n, group in enumerate(groups):
        if progress is not None:
            progress(n, len(groups), group)
        train = keys != group
        held = tuple(p.row.row_id for p, t in zip(plans, train) if not t)
        if held not in cache:
            cache[held] = table.with_fits(fit(plans, table, shared=shared, active=train, theta_for=cached_theta)
                                          if train.any() else {})
        for c in _predict([p for p in plans if key(p.row) == group], cache[held]):
            out[c.row.row_id] = c
    return tuple(out[p.row.row_id] for p in plans)


def leave_one_source_out(rows: tuple[MeasuredRow, ...] | None = None,
                         efficiency: EfficiencyTable | None = None) -> tuple[Comparison, ...]:
    """Each source's rows predicted by factors fitted on all the other sources."""
    return leave_one_out(rows, efficiency, lambda r: r.source_id)


def leave_one_publisher_out(rows: tuple[MeasuredRow, ...] | None = None,
                            efficiency: EfficiencyTable | None = None) -> tuple[Comparison, ...]:
    """Each publisher's rows (all its documents) predicted by factors fitted on every other publisher's."""
    return leave_one_out(rows, efficiency, lambda r: r.publisher)


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


PHASES = {"ms_per_output_token": "decode", "output_tokens_per_s_per_user": "decode", "ttft_ms": "prefill",
          "prefill_tokens_per_s": "prefill", "end_to_end_latency_s": "end to end",
          "total_output_tokens_per_s": "end to end"}


def batch_regime(r: MeasuredRow) -> str:
    """'batch 1' (one sequence) or 'batched' (a fixed batch > 1, or in-flight batching at 'max')."""
    return "batch 1" if r.batch == 1 else "batched"


def regime(r: MeasuredRow) -> str:
    """The row's regime: batch 1 or batched, × decode, prefill or end to end."""
    return f"{batch_regime(r)}, {PHASES[r.metric]}"


BREAKDOWNS = {"engine": lambda r: r.base_engine, "gpu": lambda r: r.gpu, "publisher": lambda r: r.publisher,
              "source": lambda r: r.source_id, "batch": batch_regime, "phase": lambda r: PHASES[r.metric],
              "regime": regime}


@frozen
class Report:
    lopo: tuple[Comparison, ...]
    loso: tuple[Comparison, ...]
    in_sample: tuple[Comparison, ...]
    floor: tuple[Comparison, ...]

    def as_dict(self) -> dict:
        floor = {c.row.row_id: c.predicted for c in self.floor}
        fitted = {c.row.row_id: c.predicted for c in self.in_sample}
        loso = {c.row.row_id: c.predicted for c in self.loso}
        return {
            "headline": "leave-one-publisher-out",
            "summary": {"lopo": asdict(summarize(self.lopo)), "loso": asdict(summarize(self.loso)),
                        "in_sample": asdict(summarize(self.in_sample)), "floor": asdict(summarize(self.floor))},
            **{f"lopo_by_{k}": {g: asdict(s) for g, s in by(self.lopo, f).items()} for k, f in BREAKDOWNS.items()},
            **{f"loso_by_{k}": {g: asdict(s) for g, s in by(self.loso, f).items()} for k, f in BREAKDOWNS.items()},
            "rows": [{"row_id": c.row.row_id, "source_id": c.row.source_id, "publisher": c.row.publisher,
                      "engine": c.row.engine, "gpu": c.row.gpu, "label": c.row.label, "metric": c.row.metric,
                      "regime": regime(c.row), "measured": c.row.value,
                      "predicted_lopo": c.predicted, "error_lopo": c.error, "predicted_loso": loso[c.row.row_id],
                      "predicted_in_sample": fitted[c.row.row_id], "floor": floor[c.row.row_id]}
                     for c in self.lopo],
        }


def report(rows: tuple[MeasuredRow, ...] | None = None, progress: Progress | None = None) -> Report:
    """Leave one publisher out, leave one source out, in-sample and the floor. ``progress(done,
    total, label)`` before each refit (one per publisher, then one per source)."""
    cache: dict = {}
    every = rows or default_measured()
    publishers, sources = len({r.publisher for r in every}), len({r.source_id for r in every})

    def step(offset: int, what: str) -> Progress | None:
        if progress is None:
            return None
        return lambda n, _total, group: progress(offset + n, publishers + sources, f"{what} {group}")
    return Report(leave_one_out(rows, key=lambda r: r.publisher, cache=cache,
                                progress=step(0, "fitting the engine factors without publisher")),
                  leave_one_out(rows, key=lambda r: r.source_id, cache=cache,
                                progress=step(publishers, "fitting the engine factors without source")),
                  compare(rows), compare(rows, engine="ideal"))




def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


ROW_HEADER = ("row", "publisher", "engine", "scenario", "measured", "LOPO", "error", "unit")
BREAKDOWN_HEADER = ("rows", "median |error|", "within ±25%", "mean ln(pred/meas)", "LOSO median", "LOSO within ±25%")


def row_cells(rep: Report) -> list[tuple[str, ...]]:
    """ROW_HEADER, then per row: publisher, engine, scenario, measured, leave-one-publisher-out
    prediction, error, unit (cells for a table that fits a terminal: model/readouts/table_fit.py)."""
    out = [ROW_HEADER]
    for c in rep.lopo:
        r = c.row
        out.append((r.row_id, r.publisher, r.engine, r.label, f"{r.value:.4g}", f"{c.predicted:.4g}",
                    f"{100 * c.error:+.0f}%", UNITS.get(r.metric, "")))
    return out


def row_lines(rep: Report) -> list[str]:
    """One line per row, the names cut to fixed columns (``python -m model.machine.validate``)."""
    return [f"{r[0]:5s} {r[1][:24]:24s} {r[2][:14]:14s} {r[3][:80]:80s} {r[4]:>10s} {r[5]:>10s} {r[6]:>6s}"
            + (f"  {r[7]}" if i else "") for i, r in enumerate(row_cells(rep))]


def _stats(s: Summary) -> str:
    return f"median |error| {_pct(s.median_abs_error)}, {100 * s.within_25:.0f}% within ±25%"


def headline_lines(rep: Report) -> list[str]:
    """The headline: leave-one-publisher-out, with leave-one-source-out, in-sample and the floor for scale."""
    s = summarize(rep.lopo)
    lines = [f"leave-one-publisher-out: {s.rows} rows, {len({c.row.publisher for c in rep.lopo})} publishers, "
             f"{_stats(s)}, mean ln(pred/meas) {s.mean_log_error:+.2f}"]
    for name, cs in (("leave-one-source-out", rep.loso), ("in-sample (fitted on every row)", rep.in_sample),
                     ("pure roofline floor", rep.floor)):
        lines.append(f"for scale, {name}: {_stats(summarize(cs))}")
    return lines


def breakdown_cells(rep: Report) -> dict[str, list[tuple[str, ...]]]:
    """Per breakdown (engine, GPU, …): one row per group: its name, then BREAKDOWN_HEADER's cells."""
    out = {}
    for k, f in BREAKDOWNS.items():
        loso = by(rep.loso, f)
        out[k] = [(g, str(sm.rows), _pct(sm.median_abs_error), f"{100 * sm.within_25:.0f}%",
                   f"{sm.mean_log_error:+.2f}", _pct(loso[g].median_abs_error), f"{100 * loso[g].within_25:.0f}%")
                  for g, sm in by(rep.lopo, f).items()]
    return out


def summary_lines(rep: Report) -> list[str]:
    """The headline in plain text: overall, then per engine, GPU, publisher, source and regime."""
    lines = headline_lines(rep)
    for k, rows in breakdown_cells(rep).items():
        lines.append(f"by {k} (leave-one-publisher-out; leave-one-source-out in brackets):")
        lines += [f"  {g:34s} {n:>4s} rows  median {m:>6s}  {w:>4s} within ±25%  mean ln {x}  [{om}, {ow}]"
                  for g, n, m, w, x, om, ow in rows]
    return lines


def _table(title: str, key: str, lopo: dict[str, Summary], loso: dict[str, Summary]) -> list[str]:
    out = ["", f"## {title}", "", f"| {key} | rows | median abs error | within ±25% | mean ln(pred/meas) | "
           "LOSO median | LOSO within ±25% |", "|---|---:|---:|---:|---:|---:|---:|"]
    for g, sm in lopo.items():
        o = loso[g]
        out.append(f"| {g} | {sm.rows} | {_pct(sm.median_abs_error)} | {100 * sm.within_25:.0f}% | "
                   f"{sm.mean_log_error:+.2f} | {_pct(o.median_abs_error)} | {100 * o.within_25:.0f}% |")
    return out


def markdown(rep: Report) -> str:
    s = summarize(rep.lopo)
    out = ["# Validation: the model against published measurements", "",
           "Generated by `python -m model.machine.validate --markdown > docs/validation.md`. Headline: "
           "**leave-one-publisher-out** — each publisher's rows (every document it published: "
           "assets/publishers.json) are predicted by engine factors fitted on every other publisher's; "
           "leave-one-source-out (one document at a time) beside it (see docs/model.md). "
           "Error = predicted / measured − 1.", "",
           f"**{s.rows} rows from {len({c.row.publisher for c in rep.lopo})} publishers: median |error| "
           f"{_pct(s.median_abs_error)}, {100 * s.within_25:.0f}% within ±25%.**", "",
           "| rows | count | median abs error | within ±25% | mean ln(pred/meas) |", "|---|---:|---:|---:|---:|"]
    for name, cs in (("leave-one-publisher-out", rep.lopo), ("leave-one-source-out", rep.loso),
                     ("in-sample (fitted on every row)", rep.in_sample),
                     ("pure roofline floor (100% of peak, no overhead)", rep.floor)):
        sm = summarize(cs)
        out.append(f"| {name} | {sm.rows} | {_pct(sm.median_abs_error)} | {100 * sm.within_25:.0f}% | "
                   f"{sm.mean_log_error:+.2f} |")
    titles = {"regime": "By regime", "batch": "By batch", "phase": "By phase", "engine": "By engine",
              "gpu": "By GPU", "publisher": "By publisher", "source": "By source"}
    for k in ("regime", "batch", "phase", "engine", "gpu", "publisher", "source"):
        out += _table(f"{titles[k]} (leave-one-publisher-out, LOSO beside it)", k, by(rep.lopo, BREAKDOWNS[k]),
                      by(rep.loso, BREAKDOWNS[k]))
    fitted = {c.row.row_id: c.predicted for c in rep.in_sample}
    loso = {c.row.row_id: c.predicted for c in rep.loso}
    out += ["", "## Every row", "", "| row | publisher | engine | scenario | measured | LOPO | error | LOSO | in-sample |",
            "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for c in rep.lopo:
        u = UNITS.get(c.row.metric, "")
        out.append(f"| {c.row.row_id} | {c.row.publisher} | {c.row.engine} | {c.row.label} | {c.row.value:.4g} {u} | "
                   f"{c.predicted:.4g} | {100 * c.error:+.0f}% | {loso[c.row.row_id]:.4g} | {fitted[c.row.row_id]:.4g} |")
    return "\n".join(out) + "\n"


def main(argv=None, progress: Progress | None = None) -> int:
    """The command: rows and summary, --markdown or --json on stdout (``progress``: see ``report``)."""
    ap = argparse.ArgumentParser(description="The model against published measurements, leave-one-publisher-out.")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="docs/validation.md")
    ap.add_argument("--serving", action="store_true", help="the published serving runs, simulated (validate_serving.py)")
    ap.add_argument("--no-cache", action="store_true", help="refit everything; read and write no cached fits")
    args = ap.parse_args(argv)
    if args.no_cache:
        use_disk(False)
    if args.serving:
        from model.machine.validate_serving import main as serving_main
        return serving_main(["--json"] if args.json else [], progress=progress)
    rep = report(progress=progress)
    if args.markdown:
        print(markdown(rep), end="")
    elif args.json:
        print(json.dumps(rep.as_dict(), indent=2))
    else:
        print("\n".join(row_lines(rep) + [""] + summary_lines(rep)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
