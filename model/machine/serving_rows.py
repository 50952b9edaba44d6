"""Published serving results (the rows of assets/measured.csv with a ``load``) and the run each describes.

A row is one metric of one published run: its load (``rate`` R/s Poisson, ``concurrency`` C
closed-loop clients, ``burst`` all at once), lengths (``fixed``; ``uniform`` in [min, max];
``sharegpt``), engine and version, the server flags the source states (``serving_flags``:
key=value;… over the engine's defaults) and the benchmark tool whose definitions the number
follows (``metric_tool``: model/serving/results.py computes TTFT, TPOT and ITL the same way).

    metric    serve_output_tokens_per_s | serve_request_per_s | serve_WHAT_STAT_ms,
              WHAT ∈ ttft, tpot, itl, e2e and STAT ∈ median, mean, p90, p95, p99
    family    throughput | tpot (TPOT and ITL, medians and means) | tpot_tail (their p90–p99)
              | ttft (median, mean) | ttft_tail (p90–p99) | e2e (median, mean) | e2e_tail
    requests  simulated: the published number of prompts, at most MAX_SIMULATED for a rate
              (its percentiles settle long before) and MAX_SIMULATED_CLOSED for the others; an
              MLPerf run as LoadGen makes it: at least LOADGEN_MIN_S of arrivals (rate × 600 s,
              MAX_SIMULATED_LONG at the least), read over its steady part. Its requests spend tens
              of seconds in the system near capacity (E2E ~30 s for llama2-70b), so a shorter run
              ends before the running batch has built up to its steady size
"""
from __future__ import annotations

import csv
import math
from functools import lru_cache
from pathlib import Path

from model.catalog.active import default_efficiency
from model.catalog.engines import VERSION_SEP
from model.errors import AssetError
from model.files.assets import ASSETS_DIR
from model.machine.measured import is_serving_row, load_publishers, publisher_of
from model.physics.scenario import Scenario
from model.serving.results import Summary
from model.serving.setup import ServingSetup
from model.values import frozen

STATS = ("median", "mean", "p90", "p95", "p99")
WHATS = ("ttft", "tpot", "itl", "e2e")
FAMILIES = {
    "throughput": ("serve_output_tokens_per_s", "serve_request_per_s"),
    "tpot": tuple(f"serve_{w}_{s}_ms" for w in ("tpot", "itl") for s in ("median", "mean")),
    "tpot_tail": tuple(f"serve_{w}_{s}_ms" for w in ("tpot", "itl") for s in ("p90", "p95", "p99")),
    "ttft": ("serve_ttft_median_ms", "serve_ttft_mean_ms"),
    "ttft_tail": ("serve_ttft_p90_ms", "serve_ttft_p95_ms", "serve_ttft_p99_ms"),
    "e2e": ("serve_e2e_median_ms", "serve_e2e_mean_ms"),
    "e2e_tail": ("serve_e2e_p90_ms", "serve_e2e_p95_ms", "serve_e2e_p99_ms"),
}
FAMILY_OF = {m: f for f, ms in FAMILIES.items() for m in ms}
METRICS = tuple(FAMILY_OF)
RUN_KEYS = ("model", "gpu", "n_gpus", "precision", "kv_precision", "input_len", "output_len", "engine", "load",
            "load_value", "num_prompts", "dataset", "input_min", "output_min", "serving_flags", "source_id",
            "metric_tool")


def _yes(text: str) -> bool:
    """A serving flag's on/off value: 1, true or yes."""
    return text.strip().lower() in ("1", "true", "yes")


# serving_flags keys → (setup field, type); kv_fraction is the engine's own KV budget flag
OVERRIDES = {"prefill": ("prefill", str), "preemption": ("preemption", str), "max_running": ("max_running", int),
             "max_tokens_per_step": ("max_tokens_per_step", int), "block_tokens": ("block_tokens", int),
             "scheduler_steps": ("scheduler_steps", int), "ep": ("ep", int), "replicas": ("replicas", int),
             "dp_attention": ("dp_attention", _yes), "eager": ("enforce_eager", _yes)}
# the benchmark tool (metric_tool column) → whose definitions the simulator computes
TOOLS = {"vllm-benchmark_serving": "vllm", "sglang-bench_serving": "sglang", "genai-perf": "genai-perf",
         "aiperf": "genai-perf", "llmperf": "llmperf", "mlperf-loadgen": "mlperf", "trtllm-bench": "trtllm-bench",
         "": "vllm"}
MAX_SIMULATED = 3000
MAX_SIMULATED_CLOSED = 10000
MAX_SIMULATED_LONG = 10000       # MLPerf's runs: read over the steady part (model/serving/results.py)
LOADGEN_MIN_S = 600.0            # MLPerf LoadGen's min_duration for the Server scenario (mlperf.conf: 600000 ms)


@frozen
class ServingRow:
    row_id: str
    source_id: str
    publisher: str
    engine: str
    metric: str
    value: float
    run: tuple                 # RUN_KEYS values: rows of one run share it
    label: str

    @property
    def family(self) -> str:
        return FAMILY_OF[self.metric]

    @property
    def load(self) -> str:
        return dict(zip(RUN_KEYS, self.run))["load"]

    @property
    def model(self) -> str:
        return self.run[0]


def tool_of(text: str) -> str:
    """The simulator's metric definitions for a row's ``metric_tool`` (custom tools: vLLM's)."""
    key = (text or "").strip().lower()
    return TOOLS.get(key) or next((v for k, v in TOOLS.items() if k and key.startswith(k)), "vllm")


def _engine(r: dict, table) -> str:
    """The row's engine at its version (vllm 0.6.0 → vllm@0.6), as the step-level rows read it."""
    engine = table.canonical(r["engine"].strip())
    return engine if VERSION_SEP in engine else table.with_version(engine, r.get("engine_version") or "")


def load_serving_rows(path=None) -> tuple[ServingRow, ...]:
    """The serving rows of measured.csv (or ``path``), read once per file version and engine table
    (every plan asks for them: parsing the CSV took ~50 ms a time, all of it holding the interpreter)."""
    p = Path(path or ASSETS_DIR / "measured.csv")
    table = default_efficiency()
    try:
        stamp = p.stat().st_mtime_ns
    except OSError:
        stamp = None
    return _read_serving_rows(str(p), stamp, id(table))


@lru_cache(maxsize=4)
def _read_serving_rows(p: str, _stamp, _table_id: int) -> tuple[ServingRow, ...]:
    pubs = load_publishers()
    table = default_efficiency()
    out = []
    with open(p, encoding="utf-8", newline="") as fh:
        for r in csv.DictReader(fh):
            if not is_serving_row(r):
                continue
            if r["metric"] not in METRICS:
                raise AssetError(f"measured.csv: serving row {r['row_id']} has unknown metric '{r['metric']}'")
            r = dict(r, engine=_engine(r, table))
            run = tuple((r.get(k) or "").strip() for k in RUN_KEYS)
            label = (f"{r['model']} {r['precision']} on {r['n_gpus']}× {r['gpu']}, {r['load']} {r['load_value']}, "
                     f"{r['num_prompts']} prompts, {r['dataset']} ({r['engine']})")
            out.append(ServingRow(r["row_id"], r["source_id"], publisher_of(r["source_id"], pubs), r["engine"],
                                  r["metric"], float(r["value"]), run, label))
    return tuple(out)


def _tokens(text: str) -> int:
    """A length column: whole tokens (a run's mean output, 300.6, rounds to 301); 0 when empty."""
    return int(round(float(text))) if text else 0


def _lengths(setup: ServingSetup, k: dict) -> ServingSetup:
    inp, out = _tokens(k["input_len"]), _tokens(k["output_len"])
    if k["dataset"] == "sharegpt":
        return setup.with_(lengths="sharegpt")
    if k["dataset"] not in ("fixed", "uniform", ""):      # a named dataset, around the run's own means if given
        return setup.with_(lengths=k["dataset"], input_len=inp or None, output_len=out or None)
    if k["dataset"] == "uniform":               # lengths uniform in [min, max]: centre L, ± r of it
        lo_i, lo_o = int(k["input_min"] or 1), max(1, int(k["output_min"] or 1))
        c_i, c_o = (lo_i + inp) / 2.0, (lo_o + out) / 2.0
        return setup.with_(lengths="uniform", input_len=int(round(c_i)), output_len=int(round(c_o)),
                           range_ratio=min(1.0, (inp - c_i) / c_i))
    return setup.with_(input_len=inp, output_len=out)


def run_inputs(run: tuple) -> tuple[Scenario, ServingSetup]:
    """The scenario and serving setup a row's published conditions describe."""
    k = dict(zip(RUN_KEYS, run))
    inp, out = _tokens(k["input_len"]), _tokens(k["output_len"])
    sc = Scenario(gpu=k["gpu"], model=k["model"], precision=k["precision"], kv_precision=k["kv_precision"] or None,
                  gpus=int(k["n_gpus"]), engine=k["engine"], input_len=max(inp, 1), output_len=max(out, 1))
    n = int(float(k["num_prompts"]))
    if k["load"] == "rate":
        rate = float(k["load_value"])
        cap = MAX_SIMULATED
        if tool_of(k["metric_tool"]) == "mlperf":
            cap = max(MAX_SIMULATED_LONG, math.ceil(LOADGEN_MIN_S * rate))
        setup = ServingSetup(load="rate", rate_per_s=rate, requests=min(n, cap))
    elif k["load"] == "concurrency":
        c = int(float(k["load_value"]))
        setup = ServingSetup(load="concurrency", concurrency=c, requests=min(n, max(MAX_SIMULATED_CLOSED, 2 * c)))
    else:
        setup = ServingSetup(load="burst", requests=min(n, MAX_SIMULATED_CLOSED))
    setup = _lengths(setup, k).with_(metrics=tool_of(k["metric_tool"]))
    for item in filter(None, k["serving_flags"].split(";")):
        name, _, value = item.partition("=")
        if name == "kv_fraction":               # the engine's own KV budget flag
            field = "kv_free_fraction" if sc.engine.startswith("tensorrt-llm") else "gpu_memory_utilization"
            setup = setup.with_(**{field: float(value)})
            continue
        if name not in OVERRIDES:
            raise AssetError(f"measured.csv: unknown serving flag '{name}'")
        field, kind = OVERRIDES[name]
        setup = setup.with_(**{field: kind(value)})
    return sc, setup


def metric_of(sm: Summary, metric: str) -> float:
    """A run's value of ``metric``: serve_output_tokens_per_s, serve_request_per_s, or serve_WHAT_STAT_ms."""
    if metric == "serve_output_tokens_per_s":
        return sm.output_tokens_per_s
    if metric == "serve_request_per_s":
        return sm.request_throughput_per_s
    _, what, stat, _ = metric.split("_")
    spread = {"ttft": sm.ttft, "tpot": sm.tpot, "itl": sm.itl, "e2e": sm.e2e}[what]
    return getattr(spread, {"median": "p50_ms", "mean": "mean_ms", "p90": "p90_ms", "p95": "p95_ms",
                            "p99": "p99_ms"}[stat])
