"""Measured frontiers: published serving runs (assets/measured.csv rows with a load) as points on
the plan's axes, beside the same runs simulated, and the gap to the predicted frontier.

    measured point   tokens/s/GPU = published output tokens/s ÷ GPUs
                     tokens/s per user = 1000 / published TPOT (median; ITL median where TPOT is not given)
    predicted point  the same run in the serving simulator under its published load (the same
                     numbers read off it as the benchmark computes them)
    gap to the frontier at the measured speed per user: the predicted frontier of the run's own
                     setup (its GPU kind and count, precision and engine, aggregated, no speculation;
                     every batch cap and chunk) there, linear between its points (none beyond its
                     ends), ÷ the measured throughput per GPU − 1; and the frontier's speed per
                     user at the measured throughput per GPU ÷ the measured speed − 1
    gap of the run   the simulated run's throughput per GPU and speed per user ÷ the measured − 1
A run matches a plan when its model is the plan's, its GPU kind is available in that count,
and its lengths are the plan's (fixed lengths within 10%; datasets never match a fixed length).
"""
from __future__ import annotations

import math

import numpy as np

from model.errors import ModelError
from model.machine.validate_serving import RUN_KEYS, load_serving_rows, metric_of, run_inputs
from model.planning.space import PlanRequest
from model.serving.results import summarize
from model.serving.run import serve
from model.values import frozen

SPEED_METRICS = ("serve_tpot_median_ms", "serve_itl_median_ms", "serve_tpot_mean_ms", "serve_itl_mean_ms")
LENGTH_TOLERANCE = 0.10


@frozen
class MeasuredPoint:
    label: str
    source_id: str
    gpu: str
    precision: str
    engine: str
    load: str
    load_value: float
    gpus: int
    tokens_per_s_per_gpu: float          # measured
    tokens_per_s_per_user: float
    predicted_tokens_per_s_per_gpu: float   # the same run simulated (NaN if it cannot run)
    predicted_tokens_per_s_per_user: float
    speed_metric: str


def _runs():
    runs: dict[tuple, dict[str, float]] = {}
    labels = {}
    for r in load_serving_rows():
        runs.setdefault(r.run, {})[r.metric] = r.value
        labels[r.run] = r.label
    return runs, labels


def matches(run: tuple, req: PlanRequest) -> bool:
    k = dict(zip(RUN_KEYS, run))
    have = dict(req.gpus_available)
    if k["model"] != req.model or have.get(k["gpu"], 0) < int(k["n_gpus"]):
        return False
    if k["dataset"] not in ("fixed", ""):
        return False
    inp, out = float(k["input_len"] or 0), float(k["output_len"] or 0)
    return (abs(inp / req.input_len - 1) <= LENGTH_TOLERANCE and abs(out / req.output_len - 1) <= LENGTH_TOLERANCE)


def measured_points(req: PlanRequest, simulate: bool = True) -> list[MeasuredPoint]:
    """The published runs matching ``req`` that give a throughput and a per-token time."""
    runs, labels = _runs()
    out = []
    for run, metrics in runs.items():
        if not matches(run, req) or "serve_output_tokens_per_s" not in metrics:
            continue
        speed = next((m for m in SPEED_METRICS if m in metrics), None)
        if speed is None:
            continue
        k = dict(zip(RUN_KEYS, run))
        n = int(k["n_gpus"])
        pg = pu = math.nan
        if simulate:
            try:
                sc, setup = run_inputs(run)
                sm = summarize(serve(sc, setup))
                pg = sm.output_tokens_per_s / n
                pu = 1e3 / metric_of(sm, speed)
            except ModelError:
                pass
        out.append(MeasuredPoint(labels[run], k["source_id"], k["gpu"], k["precision"], k["engine"], k["load"], float(k["load_value"] or 0), n,
                                 metrics["serve_output_tokens_per_s"] / n, 1e3 / metrics[speed], pg, pu, speed))
    return sorted(out, key=lambda p: -p.tokens_per_s_per_user)


def frontier_at(users: np.ndarray, gpus: np.ndarray, speed: float) -> float:
    """The frontier's throughput per GPU at ``speed`` tokens/s per user (``users``, ``gpus``: the
    frontier's points), linear between its points, NaN outside them."""
    u, g = np.asarray(users, dtype=float), np.asarray(gpus, dtype=float)
    order = np.argsort(u)
    u, g = u[order], g[order]
    if u.size == 0 or not u[0] <= speed <= u[-1]:
        return math.nan
    return float(np.interp(speed, u, g))


def gaps(points: list[MeasuredPoint], users: np.ndarray, gpus: np.ndarray) -> list[tuple[MeasuredPoint, float, float]]:
    """(point, frontier ÷ measured throughput per GPU − 1 at the point's speed per user, frontier ÷
    measured speed per user − 1 at the point's throughput per GPU); ``users``, ``gpus``: the frontier's points."""
    return [(p, frontier_at(users, gpus, p.tokens_per_s_per_user) / p.tokens_per_s_per_gpu - 1.0,
             frontier_at(gpus, users, p.tokens_per_s_per_gpu) / p.tokens_per_s_per_user - 1.0) for p in points]
