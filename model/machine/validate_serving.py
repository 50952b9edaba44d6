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
from model.machine.serving_rows import (FAMILIES, METRICS, RUN_KEYS, ServingRow, load_serving_rows,  # noqa: F401
                                        metric_of, run_inputs)
from model.serving.results import Summary, summarize
from model.serving.run import serve
from model.values import frozen

GOALS = {"throughput": 0.15, "tpot": 0.15, "ttft": 0.25, "ttft_tail": 0.25}    # median |error| at most
GOAL_ROWS = 20


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


def predict_rows(rows, table: EfficiencyTable, progress: Callable[[int], None] | None = None) -> list[ServingComparison]:
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
            if progress:
                progress(1)
        sm = runs[r.run]
        out.append(ServingComparison(r, metric_of(sm, r.metric) if sm is not None else math.nan))
    return out


def held_out(rows, key: Callable[[ServingRow], str], step_key: Callable, progress=None) -> list[ServingComparison]:
    """Each group's runs (``key``) simulated with factors fitted on the step-level rows of every
    other group (``step_key`` names a step-level row's group the same way)."""
    table = default_efficiency()
    plans = all_plans(None, table)
    shared = design(plans, table)
    groups = np.array([step_key(p.row) for p in plans])
    by_id: dict[str, ServingComparison] = {}
    for g in sorted({key(r) for r in rows}):
        fitted = table.with_fits(fit(plans, table, shared=shared, active=groups != g))
        for c in predict_rows([r for r in rows if key(r) == g], fitted, progress):
            by_id[c.row.row_id] = c
    return [by_id[r.row_id] for r in rows]


def leave_one_publisher_out(rows=None, progress=None) -> list[ServingComparison]:
    """The headline: each publisher's serving runs with factors fitted without anything it published."""
    rows = rows if rows is not None else load_serving_rows()
    return held_out(rows, lambda r: r.publisher, lambda m: m.publisher, progress)


def leave_one_source_out(rows=None, progress=None) -> list[ServingComparison]:
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


def report(rows=None, progress=None) -> dict:
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


def _line(name: str, s: dict, width: int = 30) -> str:
    if not s["rows"]:
        return f"  {name[:width]:{width}s}    0 rows"
    return (f"  {name[:width]:{width}s} {s['rows']:5d} rows  median {_pct(s['median_abs_error']):>6s}  "
            f"{_pct(s['within_25']):>6s} within ±25%  mean ln {s['mean_log_error']:+.2f}")


def summary_lines(rep: dict) -> list[str]:
    a = rep["all"]
    out = [f"serving, leave-one-publisher-out: {a['rows']} results of {rep['runs']} runs from {rep['documents']} "
           f"documents by {rep['publishers']} publishers; median |error| {_pct(a['median_abs_error'])}, "
           f"{_pct(a['within_25'])} within ±25%", "by family (goal: median |error|, at least "
           f"{GOAL_ROWS} results):"]
    for f, s in rep["by_family"].items():
        g = rep["goal"].get(f)
        goal = "" if g is None else f"  goal ≤ {100 * g['goal']:.0f}%: {'met' if g['met'] else 'not met'}"
        out.append(_line(f, s) + goal)
    out.append("DeepSeek-V3/R1-class models (MLA, many experts) on their own:")
    out += [_line(f, s) for f, s in rep["deepseek"].items() if s["rows"]]
    for title, key in (("by engine", "by_engine"), ("by load", "by_load")):
        out.append(f"{title}:")
        for f, groups in rep[key].items():
            out += [_line(f"{f} · {k}", s) for k, s in groups.items() if s["rows"]]
    out.append("by publisher:")
    out += [_line(p, s) for p, s in rep["by_publisher"].items()]
    return out


def row_lines(rep: dict, width: int = 100) -> list[str]:
    label = max(20, width - 60)
    out = [f"{'row':6s} {'metric':18s} {'run':{label}s} {'measured':>10s} {'LOPO':>10s} {'error':>6s}"]
    for r in rep["rows"]:
        err = "   n/a" if r["error_lopo"] is None else f"{100 * r['error_lopo']:+5.0f}%"
        text = r["label"] if len(r["label"]) <= label else r["label"][:label - 1].rsplit(" ", 1)[0] + "…"
        out.append(f"{r['row_id']:6s} {r['metric'][6:][:18]:18s} {text:{label}s} {r['measured']:>10.4g} "
                   f"{r['predicted_lopo']:>10.4g} {err}")
    return out


def markdown(rep: dict) -> str:
    """The validation as docs/serving_validation.md (``--markdown``): every table, then every result."""
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


class Progress:
    """Runs simulated so far, on stderr: one overwritten line on a terminal, a few lines otherwise."""

    def __init__(self, total: int, stream=None):
        self.total, self.done, self.stream = total, 0, stream or sys.stderr
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self._next = 0.0

    def __call__(self, n: int) -> None:
        self.done += n
        share = self.done / max(self.total, 1)
        if self.tty:
            self.stream.write(f"\rsimulating published serving runs: {self.done}/{self.total}")
            if self.done >= self.total:
                self.stream.write("\n")
        elif share >= self._next:
            self.stream.write(f"simulating published serving runs: {self.done}/{self.total}\n")
            self._next += 0.25
        self.stream.flush()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Published serving runs against the request-level simulator.")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--summary", action="store_true", help="the tables only, not every result")
    ap.add_argument("--markdown", action="store_true", help="docs/serving_validation.md")
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
    rep = report(rows, Progress(len({r.run for r in rows})))
    if args.json:
        print(json.dumps(rep, indent=2))
    elif args.markdown:
        print(markdown(rep), end="")
    else:
        print("\n".join(([] if args.summary else row_lines(rep) + [""]) + summary_lines(rep)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
