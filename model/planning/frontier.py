"""The configurations of a plan as one table, its Pareto frontier, and what each point costs.

    frontier      the points no other point beats on both speed per user (tokens/s per user =
                  1/TPOT) and throughput per GPU (tokens/s/GPU): sorted by speed, descending, a
                  point is kept when its throughput exceeds every faster (or equally fast) point's
    $ per hour    = GPUs × $/GPU-hour                       (assets/hardware.json price)
                    GPUs = replicas × GPUs per replica; replicas = ⌈rate / capacity per replica⌉
                    with a rate, else one
    $ per Mtok    = $/GPU-hour / 3600 / (tokens/s/GPU) × 10⁶      (every GPU busy at the point)
                    with a rate: $ per hour / 3600 / (rate × O) × 10⁶
    kWh per Mtok  = TDP / (tokens/s/GPU) × 10⁶ / 3.6·10⁶      (an upper bound: TDP, not measured power)
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from model.catalog.parts import Catalog
from model.errors import ModelError
from model.planning.disagg import DisaggPoints, each_pair
from model.planning.size import check_size
from model.planning.space import PlanRequest, groups
from model.planning.steady import GroupPoints, group_points
from model.values import frozen
from model.work import cancel_point

COLUMNS = ("tokens_per_s_per_user", "tokens_per_s_per_gpu", "ttft_s", "tpot_s", "batch", "chunk", "spec_k",
           "spec_accept", "capacity_req_per_s", "usd_per_hour", "usd_per_mtok", "kwh_per_mtok", "gpus",
           "replicas", "group", "local", "prefill_instances", "decode_instances")   # xPyD: x, y (aggregated: 0, 0)


@frozen(eq=False)
class PointTable:
    """Every feasible configuration (arrays, index-aligned; ``group`` indexes ``groups``)."""

    groups: tuple[GroupPoints, ...]
    cols: dict
    dropped: tuple[tuple[str, str], ...]       # (group label, why it cannot run)
    swept: int                                 # configurations looked at (feasible or not)

    def __len__(self) -> int:
        return int(self.cols["batch"].size)

    def __getitem__(self, key: str) -> np.ndarray:
        return self.cols[key]

    def points_of(self, i: int):
        return self.groups[int(self.cols["group"][i])]

    def label(self, i: int) -> str:
        """The setup of point ``i`` in words: GPUs, split, precision, engine (disaggregated: both pools)."""
        gp = self.points_of(i)
        if isinstance(gp, DisaggPoints):
            return gp.pool_label(int(self.cols["prefill_instances"][i]), int(self.cols["decode_instances"][i]))
        return gp.label(int(self.cols["local"][i]))


def pareto_mask(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """True where no other point has x' ≥ x and y' ≥ y with one of them larger (maximising both);
    of identical points the first is kept. O(n log n): sort by x descending (y descending within),
    keep a point when its y exceeds the running maximum of the points before it."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size == 0:
        return np.zeros(0, dtype=bool)
    order = np.lexsort((-y, -x))
    ys = y[order]
    best_before = np.concatenate(([-np.inf], np.maximum.accumulate(ys)[:-1]))
    keep = np.zeros(x.size, dtype=bool)
    keep[order] = ys > best_before
    return keep


def _costs(gp: GroupPoints, r: PlanRequest, n: int) -> dict:
    """Costs of a set of points (aggregated GroupPoints or disaggregated DisaggPoints: both give
    GPUs, $/hour and TDP per replica, scalars or arrays)."""
    if r.rate_per_s:
        with np.errstate(divide="ignore"):
            replicas = np.ceil(r.rate_per_s / gp.capacity_req_per_s)
    else:
        replicas = np.ones(n)
    gpus = replicas * gp.gpus_per_replica
    usd_h = replicas * gp.usd_per_hour_per_replica
    tokens_per_replica = gp.tokens_per_s_per_gpu * gp.gpus_per_replica
    if r.rate_per_s:
        usd_mtok = usd_h / 3600.0 / (r.rate_per_s * r.output_len) * 1e6
    else:
        usd_mtok = gp.usd_per_hour_per_replica / 3600.0 / tokens_per_replica * 1e6
    kwh = gp.tdp_w_per_replica / tokens_per_replica * 1e6 / 3.6e6
    return {"usd_per_hour": usd_h, "usd_per_mtok": usd_mtok, "kwh_per_mtok": kwh, "gpus": gpus,
            "replicas": replicas, "fits_available": replicas <= gp.max_replicas}


def point_table(r: PlanRequest, catalog: Catalog | None = None, disaggregated: bool = True,
                limit: int | None = None) -> PointTable:
    """All groups' feasible points, aggregated and (``disaggregated``) xPyD pools of them. A plan
    past ``limit`` (model/planning/size.py) is refused before any group is built; the pools are
    made one pair at a time, each kept only as its table's columns."""
    shapes = groups(r, catalog)
    check_size(r, shapes, disaggregated, limit)
    kept, dropped = [], []
    for g in shapes:
        cancel_point()
        try:
            kept.append(group_points(g, r, catalog))
        except ModelError as exc:
            dropped.append((g.label(), str(exc)))
    parts: dict[str, list] = {k: [] for k in COLUMNS}
    slim: list = []
    swept = 0
    for gp in itertools.chain(kept, each_pair(kept, r) if disaggregated else ()):
        cancel_point()
        swept += gp.batch.size
        _add_columns(parts, gp, len(slim), r)
        # a pair's points are now columns: kept whole they held ~130 MB for the default request's 1 760 pairs
        slim.append(gp.without_points() if isinstance(gp, DisaggPoints) else gp)
    cols = {k: np.concatenate(v) if v else np.zeros(0) for k, v in parts.items()}
    cols["group"] = cols["group"].astype(np.int64)
    cols["local"] = cols["local"].astype(np.int64)
    return PointTable(tuple(slim), cols, tuple(dropped), swept)


def _add_columns(parts: dict[str, list], gp, i: int, r: PlanRequest) -> None:
    """Group ``i``'s feasible points (those whose replicas fit the GPUs on hand) onto ``parts``."""
    n = gp.batch.size
    c = _costs(gp, r, n)
    ok = gp.feasible & c["fits_available"]
    vals = {"tokens_per_s_per_user": gp.tokens_per_s_per_user, "tokens_per_s_per_gpu": gp.tokens_per_s_per_gpu,
            "ttft_s": gp.ttft_s, "tpot_s": gp.tpot_s, "batch": gp.batch, "chunk": gp.chunk,
            "spec_k": gp.spec_k, "spec_accept": gp.spec_accept, "capacity_req_per_s": gp.capacity_req_per_s,
            "group": np.full(n, i), "local": np.arange(n),
            "prefill_instances": getattr(gp, "x", np.zeros(n)), "decode_instances": getattr(gp, "y", np.zeros(n)),
            **{k: c[k] for k in ("usd_per_hour", "usd_per_mtok", "kwh_per_mtok", "gpus", "replicas")}}
    for k in COLUMNS:
        parts[k].append(np.asarray(vals[k], dtype=float)[ok])


def frontier_indices(t: PointTable) -> np.ndarray:
    """The frontier's points, fastest per user first."""
    keep = np.flatnonzero(pareto_mask(t["tokens_per_s_per_user"], t["tokens_per_s_per_gpu"]))
    return keep[np.argsort(-t["tokens_per_s_per_user"][keep], kind="stable")]


def meets_steady(t: PointTable, r: PlanRequest) -> np.ndarray:
    """Points whose steady-state TTFT and TPOT are within the targets (a first cut: the
    percentiles of a run under load are higher)."""
    ok = np.ones(len(t), dtype=bool)
    if r.ttft_p90_ms is not None:
        ok &= t["ttft_s"] * 1e3 <= r.ttft_p90_ms
    if r.tpot_p90_ms is not None:
        ok &= t["tpot_s"] * 1e3 <= r.tpot_p90_ms
    return ok


def cost_order(t: PointTable, r: PlanRequest, idx: np.ndarray) -> np.ndarray:
    """``idx`` cheapest first: $/hour with a rate (the bill for serving it), else $ per Mtok."""
    key = t["usd_per_hour"] if r.rate_per_s else t["usd_per_mtok"]
    tie = t["usd_per_mtok"]
    return idx[np.lexsort((tie[idx], key[idx]))]


def shortfall(ttft_ms: float, tpot_ms: float, r: PlanRequest) -> list[tuple[str, float, float]]:
    """(target, value, how far over in %) for each target ``ttft_ms``/``tpot_ms`` miss."""
    out = []
    for name, v, goal in (("TTFT p90", ttft_ms, r.ttft_p90_ms), ("TPOT p90", tpot_ms, r.tpot_p90_ms)):
        if goal is not None and (not math.isfinite(v) or v > goal):
            out.append((name, v, (v / goal - 1.0) * 100.0 if math.isfinite(v) else math.inf))
    return out
