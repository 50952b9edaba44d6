"""Published serving runs (model/machine/serving_rows.py) against the simulator, leave one publisher out.

Each run is simulated under its published load (rate, concurrency or burst, number of prompts,
lengths or dataset, engine and its published scheduler settings, the benchmark tool's metric
definitions) with model/serving, and its metrics are read off the run as that tool computes them.
The headline is leave one publisher out: a publisher's runs are simulated with engine factors
fitted on every *other* publisher's step-level rows (model.machine.calibrate.fit) — the simulator
itself has nothing fitted, and no serving row is ever fitted on.

    error = predicted / measured − 1     grouped by family (serving_rows.FAMILIES), engine, load
                                         kind, and DeepSeek's runs on a line of their own
    python -m model.machine.validate_serving [--json]    or    main.py validate --serving
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Callable

import numpy as np

from model.catalog.active import default_efficiency
from model.catalog.engines import EfficiencyTable
from model.errors import ModelError
from model.machine.calibrate import all_plans, design, fit
from model.machine.fit_cache import cached_theta
from model.machine.serving_rows import (FAMILIES, METRICS, RUN_KEYS, ServingRow, load_serving_rows,  # noqa: F401
                                        metric_of, run_inputs)
from model.serving.results import Summary, summarize
from model.serving.run import serve
from model.values import frozen

GOALS = {"throughput": 0.15, "tpot": 0.15, "ttft": 0.25, "ttft_tail": 0.25}    # median |error| at most
GOAL_ROWS = 20
Progress = Callable[[int, int, str], None]      # (done, in all, what is being done): cli/progress.py draws it


@frozen
class ServingComparison:
    row: ServingRow
    predicted: float

    @property
    def error(self) -> float:
        return self.predicted / self.row.value - 1.0

    @property
    def ok(self) -> bool:
        return math.isfinite(self.predicted) and self.predicted > 0


def predict_rows(rows, table: EfficiencyTable) -> list[ServingComparison]:
    """Each row's run simulated once with ``table``'s factors (rows of one run share it)."""
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


def held_out(rows, key: Callable[[ServingRow], str], step_key: Callable,
             progress: Progress | None = None) -> list[ServingComparison]:
    """Each group's runs (``key``) simulated with factors fitted on the step-level rows of every
    other group (``step_key`` names a step-level row's group the same way; the fits are kept by
    their inputs: model/machine/fit_cache.py); ``progress(done, total, label)`` before each group."""
    table = default_efficiency()
    plans = all_plans(None, table)
    shared = design(plans, table)
    groups = np.array([step_key(p.row) for p in plans])
    by_id: dict[str, ServingComparison] = {}
    names = sorted({key(r) for r in rows})
    for n, g in enumerate(names):
        if progress is not None:
            progress(n, len(names), f"simulating the serving runs of {g}, fitted without it")
        fitted = table.with_fits(fit(plans, table, shared=shared, active=groups != g, theta_for=cached_theta))
        for c in predict_rows([r for r in rows if key(r) == g], fitted):
            by_id[c.row.row_id] = c
    if progress is not None:
        progress(len(names), len(names), "done")
    return [by_id[r.row_id] for r in rows]


def leave_one_publisher_out(rows=None, progress: Progress | None = None) -> list[ServingComparison]:
    """The headline: each publisher's serving runs with factors fitted without anything it published."""
    rows = rows if rows is not None else load_serving_rows()
    return held_out(rows, lambda r: r.publisher, lambda m: m.publisher, progress)


def leave_one_source_out(rows=None, progress: Progress | None = None) -> list[ServingComparison]:
    rows = rows if rows is not None else load_serving_rows()
    return held_out(rows, lambda r: r.source_id, lambda m: m.source_id, progress)


def summary(cs) -> dict:
    ok = [c for c in cs if c.ok]
    if not ok:
        return {"rows": 0, "median_abs_error": None, "within_25": None, "mean_log_error": None, "unpredicted": len(cs)}
    errs = np.abs([c.error for c in ok])
    return {"rows": len(ok), "median_abs_error": float(np.median(errs)), "within_25": float(np.mean(errs <= 0.25)),
            "mean_log_error": float(np.mean(np.log([c.predicted / c.row.value for c in ok]))),
            "unpredicted": len(cs) - len(ok)}


def is_deepseek(r: ServingRow) -> bool:
    return r.model.startswith(("deepseek", "kimi"))


def _engine(r: ServingRow) -> str:
    return r.engine.partition("@")[0]


def breakdown(cs, key: Callable[[ServingRow], str]) -> dict:
    """family → key value → summary."""
    out = {}
    for fam, metrics in FAMILIES.items():
        mine = [c for c in cs if c.row.metric in metrics]
        out[fam] = {k: summary([c for c in mine if key(c.row) == k]) for k in sorted({key(c.row) for c in mine})}
    return out


def report(rows=None, progress: Progress | None = None) -> dict:
    rows = rows if rows is not None else load_serving_rows()
    lopo = leave_one_publisher_out(rows, progress)
    fam = {f: summary([c for c in lopo if c.row.metric in ms]) for f, ms in FAMILIES.items()}
    deepseek = {f: summary([c for c in lopo if c.row.metric in ms and is_deepseek(c.row)]) for f, ms in FAMILIES.items()}
    goal = {f: {"median": fam[f]["median_abs_error"], "goal": g, "rows": fam[f]["rows"],
                "met": bool(fam[f]["rows"] >= GOAL_ROWS and fam[f]["median_abs_error"] is not None
                            and fam[f]["median_abs_error"] <= g)} for f, g in GOALS.items()}
    return {"headline": "leave-one-publisher-out (serving runs, simulated)", "all": summary(lopo), "by_family": fam,
            "deepseek": deepseek, "goal": goal,
            "by_engine": breakdown(lopo, _engine), "by_load": breakdown(lopo, lambda r: r.load),
            "by_publisher": {p: summary([c for c in lopo if c.row.publisher == p]) for p in sorted({r.publisher for r in rows})},
            "documents": len({r.source_id for r in rows}), "publishers": len({r.publisher for r in rows}),
            "runs": len({r.run for r in rows}),
            "rows": [{"row_id": c.row.row_id, "source_id": c.row.source_id, "publisher": c.row.publisher,
                      "label": c.row.label, "metric": c.row.metric, "family": c.row.family, "load": c.row.load,
                      "engine": _engine(c.row), "measured": c.row.value, "predicted_lopo": c.predicted,
                      "error_lopo": c.error if c.ok else None} for c in lopo]}


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


ROW_HEADER = ("row", "publisher", "metric", "run", "measured", "LOPO", "error")
BLOCK_HEADER = ("results", "median |error|", "within ±25%", "mean ln(pred/meas)")


def row_cells(rep: dict) -> list[tuple[str, ...]]:
    """ROW_HEADER, then one row per result (cells for a table that fits a terminal)."""
    out = [ROW_HEADER]
    for r in rep["rows"]:
        err = "n/a" if r["error_lopo"] is None else f"{100 * r['error_lopo']:+.0f}%"
        pred = "—" if r["error_lopo"] is None else f"{r['predicted_lopo']:.4g}"
        out.append((r["row_id"], r["publisher"], r["metric"][6:], r["label"], f"{r['measured']:.4g}", pred, err))
    return out


def headline_lines(rep: dict) -> list[str]:
    a = rep["all"]
    out = [f"serving, leave-one-publisher-out: {a['rows']} results of {rep['runs']} runs from {rep['documents']} "
           f"documents by {rep['publishers']} publishers; median |error| {_pct(a['median_abs_error'])}, "
           f"{_pct(a['within_25'])} within ±25%"]
    for f, g in rep["goal"].items():
        s = rep["by_family"][f]
        out.append(f"goal {f}: median |error| ≤ {100 * g['goal']:.0f}% over at least {GOAL_ROWS} results: "
                   f"{_pct(s['median_abs_error'])} over {s['rows']}, {'met' if g['met'] else 'not met'}")
    return out


def _cells(block: dict) -> list[tuple[str, ...]]:
    return [(g, str(s["rows"]), _pct(s["median_abs_error"]), _pct(s["within_25"]),
             f"{s['mean_log_error']:+.2f}" if s["rows"] else "—") for g, s in block.items() if s["rows"]]


def block_cells(rep: dict) -> dict[str, list[tuple[str, ...]]]:
    """Each summary block (by family, DeepSeek alone, by engine, by load, by publisher): one row per
    group, its name then BLOCK_HEADER's cells."""
    flat = {key: {f"{f} · {k}": s for f, groups in rep[key].items() for k, s in groups.items()}
            for key in ("by_engine", "by_load")}
    return {"by family": _cells(rep["by_family"]),
            "DeepSeek-V3/R1-class models (MLA, many experts) on their own": _cells(rep["deepseek"]),
            "by engine": _cells(flat["by_engine"]), "by load": _cells(flat["by_load"]),
            "by publisher": _cells(rep["by_publisher"])}


def lines(rep: dict, summary_only: bool = False) -> list[str]:
    """The rows (names cut to fixed columns), then the headline and the blocks (``python -m``)."""
    out = [] if summary_only else [f"{r[0]:6s} {r[1][:22]:22s} {r[2][:16]:16s} {r[3][:60]:60s} {r[4]:>10s} "
                                   f"{r[5]:>10s} {r[6]:>6s}" for r in row_cells(rep)] + [""]
    out += headline_lines(rep)
    for name, rows in block_cells(rep).items():
        out.append(f"{name}:")
        out += [f"  {g[:34]:34s} {n:>5s} results  median {m:>6s}  {w:>6s} within ±25%  mean ln {x}"
                for g, n, m, w, x in rows]
    return out


def markdown(rep: dict) -> str:
    """The validation as a Markdown page (``--markdown``, on stdout): every table, then every result."""
    def table(title: str, groups: dict, key_name: str) -> list[str]:
        out = [f"### {title}", "", f"| {key_name} | results | median \\|error\\| | within ±25% | mean ln(pred/meas) |",
               "|---|---:|---:|---:|---:|"]
        for k, s in groups.items():
            if s["rows"]:
                out.append(f"| {k} | {s['rows']} | {_pct(s['median_abs_error'])} | {_pct(s['within_25'])} | "
                           f"{s['mean_log_error']:+.2f} |")
        return out + [""]
    a = rep["all"]
    out = ["# Serving validation, result by result", "",
           "Written by `python -m model.machine.validate_serving --markdown` (a test checks it is today's). Each "
           "published serving run is simulated under its published load with engine factors fitted without "
           "anything its publisher published; error = predicted ÷ measured − 1.", "",
           f"{a['rows']} results of {rep['runs']} runs from {rep['documents']} documents by {rep['publishers']} "
           f"publishers: median |error| {_pct(a['median_abs_error'])}, {_pct(a['within_25'])} within ±25%.", ""]
    goal = {f: s for f, s in rep["by_family"].items()}
    out += table("By family", goal, "family")
    out += table("DeepSeek-V3/R1-class models alone", {f: s for f, s in rep["deepseek"].items()}, "family")
    for title, key in (("By engine", "by_engine"), ("By load", "by_load")):
        out += table(title, {f"{f} · {k}": s for f, g in rep[key].items() for k, s in g.items()}, "family · " + title[3:])
    out += table("By publisher", rep["by_publisher"], "publisher")
    out += ["### Every result", "", "| row | publisher | metric | run | measured | predicted | error |",
            "|---|---|---|---|---:|---:|---:|"]
    for r in rep["rows"]:
        err = "n/a" if r["error_lopo"] is None else f"{100 * r['error_lopo']:+.0f}%"
        pred = "—" if r["error_lopo"] is None else f"{r['predicted_lopo']:.4g}"
        out.append(f"| {r['row_id']} | {r['publisher']} | {r['metric'][6:]} | {r['label']} | {r['measured']:.4g} | "
                   f"{pred} | {err} |")
    return "\n".join(out) + "\n"


def _stderr_progress(done: int, total: int, label: str) -> None:
    """``python -m`` runs: a plain line at the start and at each quarter (the CLI draws its own)."""
    if total and (done == 0 or 4 * done // total != 4 * (done - 1) // total) and done < total:
        print(f"validate --serving: {label} [{done + 1}/{total}]", file=sys.stderr)


def main(argv=None, progress: Progress | None = None) -> int:
    ap = argparse.ArgumentParser(description="Published serving runs against the request-level simulator.")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--summary", action="store_true", help="the tables only, not every result")
    ap.add_argument("--markdown", action="store_true", help="the validation as a Markdown page, on stdout")
    ap.add_argument("--publisher", help="only this publisher's results (as assets/publishers.json names it)")
    args = ap.parse_args(argv)
    rows = load_serving_rows()
    if args.publisher:
        rows = tuple(r for r in rows if r.publisher == args.publisher)
        if not rows:
            known = ", ".join(sorted({r.publisher for r in load_serving_rows()}))
            print(f"validate --serving: no published serving results by '{args.publisher}' (known: {known})",
                  file=sys.stderr)
            return 2
    rep = report(rows, progress or _stderr_progress)
    if args.json:
        print(json.dumps(rep, indent=2))
    elif args.markdown:
        print(markdown(rep), end="")
    else:
        print("\n".join(lines(rep, args.summary)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
