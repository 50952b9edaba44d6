"""A plan: the frontier (steady state), its points run in the serving simulator, the cheapest
setups that meet the targets there, and why the runners-up fail.

    1. every configuration's steady state (model/planning/steady.py), the Pareto frontier of
       throughput per GPU against speed per user (model/planning/frontier.py)
    2. each frontier point served (model/serving): max running = its batch cap, tokens per step =
       its chunk, chunked prefill, its speculation; the load: the rate asked for (over its
       replicas), else 0.8 × the point's steady-state capacity; p90 TTFT and TPOT from the run
    3. the candidates whose steady state meets the targets, cheapest first, served one by one
       until the cheapest few distinct setups (GPUs, split, precision, engine) that meet both p90
       targets in the simulator are found; each that fails on the way says which target and by how much
"""
from __future__ import annotations

import math
from functools import partial
from typing import Callable

import numpy as np

from model.catalog.active import default_catalog
from model.catalog.parts import Catalog
from model.errors import ModelError
from model.planning.frontier import (PointTable, cost_order, frontier_indices, meets_steady, pareto_mask,
                                     point_table, shortfall)
from model.planning.disagg import DisaggPoints
from model.serving.parallel import expert_parallel_table
from model.planning.measured import gaps, measured_points
from model.planning.space import PlanRequest, axis, check_request
from model.serving.limits import mtp_heads
from model.serving.results import summarize
from model.serving.run import AUTO_LOAD, serve
from model.serving.setup import ServingSetup
from model.values import frozen
from model.work import cancel_point

CHEAPEST = 3


@frozen
class Served:
    """One point as the simulator served it (ms; NaN where it could not run, with why)."""

    index: int
    ttft_p90_ms: float
    tpot_p90_ms: float
    tokens_per_s_per_gpu: float
    tokens_per_s_per_user: float
    usd_per_mtok: float
    rate_per_s: float
    meets: bool
    misses: tuple[tuple[str, float, float], ...]    # (target, value, % over)
    error: str = ""


@frozen(eq=False)
class Plan:
    request: PlanRequest
    table: PointTable
    frontier: np.ndarray                 # indices into table, fastest per user first
    served: tuple[Served, ...]           # the frontier's points in the simulator (same order)
    cheapest: tuple[Served, ...]         # meeting every target in the simulator, cheapest first
    runners_up: tuple[Served, ...]       # cheaper candidates that failed, with why
    closest: Served | None               # when nothing meets: the smallest miss
    measured: tuple = ()                 # (MeasuredPoint, gap to the predicted frontier) of published runs that match

    @property
    def met(self) -> bool:
        return bool(self.cheapest)


def point_setup(t: PointTable, i: int, r: PlanRequest, requests: int | None = None) -> ServingSetup:
    """The serving run of point ``i``: its knobs as engine limits, its load (aggregated points)."""
    gp = t.points_of(i)
    k = int(t["spec_k"][i])
    draft = "" if k == 0 else ("mtp" if mtp_heads(gp.resolved.llm.id) else "ngram")
    n = axis("simulated_requests")
    count = requests or int(min(n["at_most"], max(n["at_least"], n["per_batch_slot"] * t["batch"][i])))
    rate = r.rate_per_s or float(f"{AUTO_LOAD * t['capacity_req_per_s'][i] * t['replicas'][i]:.3g}")
    return ServingSetup(load="rate", rate_per_s=float(rate), requests=count,
                        spec_k=k, spec_accept=float(t["spec_accept"][i]) if k else 0.0, spec_draft=draft,
                        replicas=int(t["replicas"][i]), ttft_p90_ms=r.ttft_p90_ms, tpot_p90_ms=r.tpot_p90_ms,
                        max_running=int(t["batch"][i]), max_tokens_per_step=int(t["chunk"][i]), prefill="chunked")


def _hook(gp):
    g = gp.group
    return partial(expert_parallel_table, rs=gp.resolved, ep=g.gpus) if g.mode == "ep" else None


def serve_point(t: PointTable, i: int, r: PlanRequest, catalog: Catalog | None = None,
                requests: int | None = None, targets: bool = True):
    """(ServingRun, Summary) of aggregated point ``i`` in the simulator (``targets``: the run carries
    them, and refuses one it can never meet; without, it only measures)."""
    gp = t.points_of(i)
    setup = point_setup(t, i, r, requests)
    if not targets:
        setup = setup.with_(ttft_p90_ms=None, tpot_p90_ms=None)
    run = serve(gp.resolved.scenario, setup, catalog, resolved=gp.resolved, table_hook=_hook(gp))
    return run, summarize(run)


def serve_disaggregated(t: PointTable, i: int, r: PlanRequest, catalog: Catalog | None = None):
    """(TTFT p90 ms, TPOT p90 ms, TPOT mean ms, output tokens/s, rate) of disaggregated point ``i``:
    the prefill pool served with one output token each (its TTFT: the prefill and its queue), the
    decode pool with each prompt already cached but its last token (the KV arrived), at the same
    rate; TTFT p90 ≤ prefill pool's p90 + KV transfer + decode pool's p90 (the sum is used)."""
    dp = t.points_of(i)
    base = point_setup(t, i, r).with_(ttft_p90_ms=None, tpot_p90_ms=None)
    rate = base.rate_per_s
    L = r.input_len
    x, y = t["prefill_instances"][i], t["decode_instances"][i]         # the xPyD unit
    pre = base.with_(rate_per_s=rate, replicas=int(x * t["replicas"][i]), output_len=1, spec_k=0,
                     spec_accept=0.0, spec_draft="", max_running=None, tpot_p90_ms=None)
    dec = base.with_(rate_per_s=rate, replicas=int(y * t["replicas"][i]), prefix_hit=(L - 1) / L,
                     ttft_p90_ms=None)
    a = summarize(serve(dp.prefill.resolved.scenario, pre, catalog, resolved=dp.prefill.resolved))
    b = summarize(serve(dp.decode.resolved.scenario, dec, catalog, resolved=dp.decode.resolved))
    return a.ttft.p90_ms + dp.transfer_s * 1e3 + b.ttft.p90_ms, b.tpot.p90_ms, b.tpot.mean_ms, b.output_tokens_per_s, rate


def simulate(t: PointTable, i: int, r: PlanRequest, catalog: Catalog | None = None) -> Served:
    """Point ``i`` served; what it costs per Mtok at the simulated throughput."""
    gp = t.points_of(i)
    try:
        if isinstance(gp, DisaggPoints):
            ttft, tpot, tpot_mean, tokens, rate = serve_disaggregated(t, i, r, catalog)
        else:
            run, sm = serve_point(t, i, r, catalog, targets=False)
            ttft, tpot, tpot_mean, tokens, rate = (sm.ttft.p90_ms, sm.tpot.p90_ms, sm.tpot.mean_ms,
                                                   sm.output_tokens_per_s, run.setup.rate_per_s)
    except ModelError as exc:
        nan = math.nan
        return Served(int(i), nan, nan, nan, nan, nan, nan, False, tuple(shortfall(nan, nan, r)), str(exc))
    per_gpu = tokens / float(t["gpus"][i])
    usd_h = float(t["usd_per_hour"][i])
    misses = tuple(shortfall(ttft, tpot, r))
    return Served(int(i), ttft, tpot, per_gpu, 1e3 / tpot_mean if tpot_mean > 0 else math.nan,
                  usd_h / 3600.0 / tokens * 1e6 if tokens > 0 else math.nan, rate, not misses, misses)


def like_frontier(t: PointTable, m) -> tuple[np.ndarray, np.ndarray]:
    """(speed per user, throughput per GPU) of the frontier of measured run ``m``'s own setup:
    its GPU kind and count, precision and engine, aggregated, without speculation."""
    own = np.array([not isinstance(gp, DisaggPoints) and gp.group.gpu == m.gpu and gp.group.gpus == m.gpus
                    and gp.group.precision == m.precision and gp.group.engine == m.engine and gp.group.mode == "tp"
                    for gp in t.groups], dtype=bool)
    sel = np.flatnonzero(own[t["group"]] & (t["spec_k"] == 0)) if len(t) else np.zeros(0, dtype=int)
    users, gpus = t["tokens_per_s_per_user"][sel], t["tokens_per_s_per_gpu"][sel]
    keep = pareto_mask(users, gpus)
    return users[keep], gpus[keep]


def _worst(s: Served) -> float:
    return max((m[2] for m in s.misses), default=0.0)


def make_plan(r: PlanRequest, catalog: Catalog | None = None, simulate_frontier: bool = True,
              disaggregated: bool = True, progress: Callable[[int, int, str], None] | None = None,
              limit: int | None = None) -> Plan:
    """The whole plan for ``r`` (ScenarioError / UnknownIdError, one line, for bad input; PlanTooLarge
    past ``limit``, model/planning/size.py, before anything is built). ``progress(done, total,
    label)`` before each stage: the sweep, each point served."""
    cat = catalog or default_catalog()
    r = check_request(r, cat)
    budget = int(axis("simulated_candidates"))
    report = progress or (lambda _done, _total, _label: None)
    report(0, 1 + budget, "sweeping the configurations")
    t = point_table(r, cat, disaggregated, limit)
    front = frontier_indices(t)
    total = 1 + (len(front) if simulate_frontier else 0) + budget

    def served_at(n: int, i: int, what: str) -> Served:
        report(n, total, f"serving {what} in the simulator ({t.label(i)})")
        cancel_point()
        return simulate(t, i, r, cat)
    served = tuple(served_at(1 + n, int(i), "the frontier") for n, i in enumerate(front)) if simulate_frontier else ()
    cheapest, runners = [], []
    tried: dict[int, Served] = {int(s.index): s for s in served}
    candidates = cost_order(t, r, np.flatnonzero(meets_steady(t, r)))
    shapes: set[str] = set()
    for i in candidates:
        if len(cheapest) >= CHEAPEST or budget <= 0:
            break
        if t.label(int(i)) in shapes:        # the cheapest few are distinct setups, not one setup's knobs
            continue
        s = tried.get(int(i)) or served_at(total - budget, int(i), "the cheapest candidates")
        budget -= int(i) not in tried
        tried[int(i)] = s
        if s.meets:
            cheapest.append(s)
            shapes.add(t.label(int(i)))
        else:
            runners.append(s)
    closest = None
    if not cheapest:
        pool = list(tried.values()) or [Served(int(i), t["ttft_s"][i] * 1e3, t["tpot_s"][i] * 1e3, 0, 0, 0, 0, False,
                                               tuple(shortfall(t["ttft_s"][i] * 1e3, t["tpot_s"][i] * 1e3, r)))
                                        for i in range(len(t))]
        pool = [p for p in pool if not p.error] or pool
        closest = min(pool, key=_worst) if pool else None
    measured = tuple(x for m in measured_points(r) for x in gaps([m], *like_frontier(t, m)))
    return Plan(r, t, front, served, tuple(cheapest), tuple(runners[:5]), closest, measured)
