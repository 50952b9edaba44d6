"""Published serving runs (the rows of assets/measured.csv with a ``load``) against the simulator.

Each run is simulated under its published load (rate or concurrency, number of prompts, lengths or
dataset, engine and its published scheduler settings) with model/serving, and its metrics are read
off the run as the benchmark computes them (model/serving/results.py). The headline is leave one
source out: a source's serving runs are simulated with engine factors fitted on every *other*
source's step-level rows (model.machine.calibrate.fit) — the simulator itself has nothing fitted.

    error = predicted / measured − 1          grouped: throughput (output tokens/s, requests/s),
                                              TPOT (TPOT and ITL, medians and means), TTFT (median or
                                              mean), TTFT tail (p90, p99), end to end
    python -m model.machine.validate_serving [--json]    or    main.py validate --serving
"""
from __future__ import annotations

import argparse
import csv
import json
import math
from typing import Callable

import numpy as np

from model.catalog.active import default_efficiency
from model.catalog.engines import EfficiencyTable
from model.errors import AssetError, ModelError
from model.files.assets import ASSETS_DIR
from model.machine.calibrate import all_plans, design, fit
from model.machine.fit_cache import cached_theta
from model.machine.measured import is_serving_row
from model.physics.scenario import Scenario
from model.serving.results import Summary, summarize
from model.serving.run import serve
from model.serving.setup import ServingSetup
from model.values import frozen

GROUPS = {"throughput": ("serve_output_tokens_per_s", "serve_request_per_s"),
          "tpot": ("serve_tpot_median_ms", "serve_tpot_mean_ms", "serve_itl_median_ms", "serve_itl_mean_ms"),
          "ttft": ("serve_ttft_median_ms", "serve_ttft_mean_ms"),
          "ttft_tail": ("serve_ttft_p90_ms", "serve_ttft_p99_ms"),
          "e2e": ("serve_e2e_median_ms", "serve_e2e_mean_ms")}
METRICS = tuple(m for ms in GROUPS.values() for m in ms)
RUN_KEYS = ("model", "gpu", "n_gpus", "precision", "kv_precision", "input_len", "output_len", "engine", "load",
            "load_value", "num_prompts", "dataset", "input_min", "output_min", "serving_flags", "source_id")
Progress = Callable[[int, int, str], None]      # (done, in all, what is being done)
OVERRIDES = {"prefill": str, "preemption": str, "max_running": int, "max_tokens_per_step": int, "block_tokens": int}


@frozen
class ServingRow:
    row_id: str
    source_id: str
    engine: str
    metric: str
    value: float
    run: tuple                 # RUN_KEYS values: rows of one run share it
    label: str


@frozen
class ServingComparison:
    row: ServingRow
    predicted: float

    @property
    def error(self) -> float:
        return self.predicted / self.row.value - 1.0


def load_serving_rows(path=None) -> tuple[ServingRow, ...]:
    p = path or ASSETS_DIR / "measured.csv"
    out = []
    with open(p, encoding="utf-8", newline="") as fh:
        for r in csv.DictReader(fh):
            if not is_serving_row(r):
                continue
            if r["metric"] not in METRICS:
                raise AssetError(f"measured.csv: serving row {r['row_id']} has unknown metric '{r['metric']}'")
            run = tuple((r.get(k) or "").strip() for k in RUN_KEYS)
            label = (f"{r['model']} {r['precision']} on {r['n_gpus']}× {r['gpu']}, {r['load']} {r['load_value']}, "
                     f"{r['num_prompts']} prompts, {r['dataset']} ({r['engine']})")
            out.append(ServingRow(r["row_id"], r["source_id"], r["engine"], r["metric"], float(r["value"]), run, label))
    return tuple(out)


def run_inputs(run: tuple) -> tuple[Scenario, ServingSetup]:
    """The scenario and serving setup a row's published conditions describe."""
    k = dict(zip(RUN_KEYS, run))
    inp, out = int(k["input_len"] or 0), int(k["output_len"] or 0)
    sc = Scenario(gpu=k["gpu"], model=k["model"], precision=k["precision"], kv_precision=k["kv_precision"] or None,
                  gpus=int(k["n_gpus"]), engine=k["engine"], input_len=max(inp, 1), output_len=max(out, 1))
    n = int(k["num_prompts"])
    if k["load"] == "rate":
        setup = ServingSetup(load="rate", rate_per_s=float(k["load_value"]), requests=n)
    elif k["load"] == "concurrency":
        setup = ServingSetup(load="concurrency", concurrency=int(float(k["load_value"])), requests=n)
    else:
        setup = ServingSetup(load="burst", requests=n)
    if k["dataset"] == "sharegpt":
        setup = setup.with_(lengths="sharegpt")
    elif k["dataset"] == "uniform":               # lengths uniform in [min, max]: centre L, ± r of it
        lo_i, lo_o = int(k["input_min"] or 1), int(k["output_min"] or 1)
        c_i, c_o = (lo_i + inp) / 2.0, (lo_o + out) / 2.0
        setup = setup.with_(lengths="uniform", input_len=int(round(c_i)), output_len=int(round(c_o)),
                            range_ratio=min(1.0, (inp - c_i) / c_i))
    else:
        setup = setup.with_(input_len=inp, output_len=out)
    for item in filter(None, k["serving_flags"].split(";")):
        name, _, value = item.partition("=")
        if name not in OVERRIDES:
            raise AssetError(f"measured.csv: unknown serving flag '{name}'")
        setup = setup.with_(**{name: OVERRIDES[name](value)})
    return sc, setup


def metric_of(sm: Summary, metric: str) -> float:
    """A run's value of ``metric``: serve_output_tokens_per_s, serve_request_per_s, or serve_WHAT_STAT_ms."""
    if metric == "serve_output_tokens_per_s":
        return sm.output_tokens_per_s
    if metric == "serve_request_per_s":
        return sm.request_throughput_per_s
    _, what, stat, _ = metric.split("_")
    spread = {"ttft": sm.ttft, "tpot": sm.tpot, "itl": sm.itl, "e2e": sm.e2e}[what]
    return getattr(spread, {"median": "p50_ms", "mean": "mean_ms", "p90": "p90_ms", "p99": "p99_ms"}[stat])


def predict_rows(rows, table: EfficiencyTable) -> list[ServingComparison]:
    runs: dict[tuple, Summary | None] = {}
    out = []
    for r in rows:
        if r.run not in runs:
            sc, setup = run_inputs(r.run)
            try:
                runs[r.run] = summarize(serve(sc, setup, efficiency=table))
            except ModelError:
                runs[r.run] = None
        sm = runs[r.run]
        out.append(ServingComparison(r, metric_of(sm, r.metric) if sm is not None else math.nan))
    return out


def leave_one_source_out(rows=None, progress: Progress | None = None) -> list[ServingComparison]:
    """Each source's serving runs simulated with factors fitted on every other source's step-level
    rows (fits kept by their inputs: model/machine/fit_cache.py); ``progress(done, total, label)``
    before each source."""
    rows = rows if rows is not None else load_serving_rows()
    table = default_efficiency()
    plans = all_plans(None, table)
    shared = design(plans, table)
    sources = np.array([p.row.source_id for p in plans])
    by_id: dict[str, ServingComparison] = {}
    held_out = sorted({r.source_id for r in rows})
    for n, source in enumerate(held_out):
        if progress is not None:
            progress(n, len(held_out), f"simulating the runs of source {source}, fitted without it")
        fitted = table.with_fits(fit(plans, table, shared=shared, active=sources != source, theta_for=cached_theta))
        for c in predict_rows([r for r in rows if r.source_id == source], fitted):
            by_id[c.row.row_id] = c
    return [by_id[r.row_id] for r in rows]


def summary(cs) -> dict:
    ok = [c for c in cs if math.isfinite(c.predicted) and c.predicted > 0]
    if not ok:
        return {"rows": 0, "median_abs_error": None, "within_25": None, "mean_log_error": None, "unpredicted": len(cs)}
    errs = np.abs([c.error for c in ok])
    return {"rows": len(ok), "median_abs_error": float(np.median(errs)), "within_25": float(np.mean(errs <= 0.25)),
            "mean_log_error": float(np.mean(np.log([c.predicted / c.row.value for c in ok]))),
            "unpredicted": len(cs) - len(ok)}


def report(rows=None, progress: Progress | None = None) -> dict:
    """Leave one source out and the stored factors, by metric group and by source."""
    rows = rows if rows is not None else load_serving_rows()
    loso = leave_one_source_out(rows, progress)
    stored_cs = predict_rows(rows, default_efficiency())
    stored = {c.row.row_id: c.predicted for c in stored_cs}
    groups = {g: summary([c for c in loso if c.row.metric in ms]) for g, ms in GROUPS.items()}
    sources = {s: summary([c for c in loso if c.row.source_id == s]) for s in sorted({r.source_id for r in rows})}
    return {"headline": "leave-one-source-out (serving runs, simulated)", "all": summary(loso), "by_group": groups,
            "stored_factors": summary(stored_cs),
            "by_source": sources,
            "rows": [{"row_id": c.row.row_id, "source_id": c.row.source_id, "label": c.row.label,
                      "metric": c.row.metric, "measured": c.row.value, "predicted_loso": c.predicted,
                      "error_loso": c.error if math.isfinite(c.predicted) else None,
                      "predicted_stored_factors": stored[c.row.row_id]} for c in loso]}


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


ROW_HEADER = ("row", "source", "metric", "run", "measured", "LOSO", "error")
BLOCK_HEADER = ("rows", "median |error|", "within ±25%", "mean ln(pred/meas)")


def row_cells(rep: dict) -> list[tuple[str, ...]]:
    """ROW_HEADER, then one row per serving row (cells for a table that fits a terminal)."""
    out = [ROW_HEADER]
    for r in rep["rows"]:
        err = "n/a" if r["error_loso"] is None else f"{100 * r['error_loso']:+.0f}%"
        out.append((r["row_id"], r["source_id"], r["metric"][6:], r["label"], f"{r['measured']:.4g}",
                    f"{r['predicted_loso']:.4g}", err))
    return out


def headline_lines(rep: dict) -> list[str]:
    a, b = rep["all"], rep["stored_factors"]
    return [f"serving, leave-one-source-out: {a['rows']} rows, median |error| {_pct(a['median_abs_error'])}, "
            f"{_pct(a['within_25'])} within ±25%",
            f"for scale, with the stored factors (fitted on every step-level row): median |error| "
            f"{_pct(b['median_abs_error'])}, {_pct(b['within_25'])} within ±25%"]


def block_cells(rep: dict) -> dict[str, list[tuple[str, ...]]]:
    """'by metric' and 'by source': one row per group, its name then BLOCK_HEADER's cells ('—': none published)."""
    return {name: [(g, str(s["rows"]), _pct(s["median_abs_error"]), _pct(s["within_25"]),
                    f"{s['mean_log_error']:+.2f}" if s["rows"] else "—") for g, s in block.items()]
            for name, block in (("by metric", rep["by_group"]), ("by source", rep["by_source"]))}


def lines(rep: dict) -> list[str]:
    """The rows, the names cut to fixed columns, then the summary (``python -m model.machine.validate_serving``)."""
    out = [f"{r[0]:5s} {r[1][:24]:24s} {r[2][:26]:26s} {r[3][:70]:70s} {r[4]:>10s} {r[5]:>10s} {r[6]:>6s}"
           for r in row_cells(rep)]
    out += [""] + headline_lines(rep)
    for name, rows in block_cells(rep).items():
        out.append(f"{name}:")
        out += [f"  {g:34s} {n:>4s} rows  median {m:>6s}  {w:>6s} within ±25%  mean ln {x}" if n != "0"
                else f"  {g:34s}    0 rows  (none published)" for g, n, m, w, x in rows]
    return out


def main(argv=None, progress: Progress | None = None) -> int:
    """The command: rows and summary (or --json) on stdout."""
    ap = argparse.ArgumentParser(description="Published serving runs against the request-level simulator.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rep = report(progress=progress)
    print(json.dumps(rep, indent=2) if args.json else "\n".join(lines(rep)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
