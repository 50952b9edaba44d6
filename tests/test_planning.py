"""The planner: the frontier, disaggregated pools, expert parallelism, the cheapest setup."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from model import resolve, Scenario
from model.catalog.active import default_catalog
from model.errors import ScenarioError, UnknownIdError
from model.planning.disagg import pair_points
from model.planning.frontier import meets_steady, pareto_mask, point_table
from model.planning.links import kv_bytes_per_request, kv_transfer_s
from model.serving.parallel import all_to_all_bytes, all_to_all_s
from model.planning.plan import make_plan, serve_point
from model.planning.space import Group, PlanRequest, check_request, parse_available
from model.planning.steady import group_points


def _weakly_dominated_by(x, y, i, among):
    return np.any((x[among] >= x[i]) & (y[among] >= y[i]))


def _strictly_dominated(x, y, i):
    better = (x >= x[i]) & (y >= y[i]) & ((x > x[i]) | (y > y[i]))
    return bool(np.any(better))


@pytest.mark.parametrize("seed", range(6))
def test_the_frontier_keeps_exactly_the_undominated_points(seed):
    rng = np.random.default_rng(seed)
    n = 300
    # coarse values so that ties in x, in y and in both occur
    x = rng.integers(0, 25, n).astype(float)
    y = rng.integers(0, 25, n).astype(float)
    keep = pareto_mask(x, y)
    kept = np.flatnonzero(keep)
    assert kept.size >= 1
    for i in kept:
        assert not _strictly_dominated(x, y, i)
    for i in np.flatnonzero(~keep):
        assert _weakly_dominated_by(x, y, i, kept)
    # identical points: one is kept
    assert len({(x[i], y[i]) for i in kept}) == kept.size


@pytest.fixture(scope="module")
def table_70b():
    r = check_request(PlanRequest("llama-3.1-70b", 1000, 200, parse_available("h100:8,mi300x:4"),
                                  500, 25, precisions=("fp8",), engines=("vllm",)))
    return r, point_table(r)


def test_the_frontier_of_a_real_sweep_is_pareto_optimal(table_70b):
    _, t = table_70b
    x, y = t["tokens_per_s_per_user"], t["tokens_per_s_per_gpu"]
    keep = pareto_mask(x, y)
    kept = np.flatnonzero(keep)
    assert len(t) > 500 and 3 <= kept.size < len(t)
    for i in kept:
        assert not _strictly_dominated(x, y, i)
    dropped = np.flatnonzero(~keep)
    # every dropped point is dominated by a kept one: checked in one broadcast
    dom = (x[kept][None, :] >= x[dropped][:, None]) & (y[kept][None, :] >= y[dropped][:, None])
    assert dom.any(axis=1).all()


@pytest.mark.parametrize("rate", [None, 6.0])
def test_more_gpus_of_a_kind_never_make_the_best_feasible_cost_worse(rate):
    best = []
    for n in (1, 2, 4, 8):
        r = check_request(PlanRequest("llama-3.1-8b", 1000, 200, (("h100", n),), 400, 30, rate,
                                      precisions=("bf16", "fp8"), engines=("vllm",)))
        t = point_table(r)
        ok = meets_steady(t, r)
        key = t["usd_per_hour"] if rate else t["usd_per_mtok"]
        best.append(float(key[ok].min()) if ok.any() else np.inf)
    assert all(b2 <= b1 for b1, b2 in zip(best, best[1:])), best
    assert np.isfinite(best[-1])


def _gp(model="llama-3.1-8b", gpu="h100", n=1, mode="tp", precision="fp8", engine="vllm", L=2000, O=200):
    r = check_request(PlanRequest(model, L, O, ((gpu, 8),)))
    cat = default_catalog()
    p = cat.precision(precision)
    return r, group_points(Group(cat.gpu(gpu).id, n, mode, p.id, p.default_kv, engine, 8), r)


@pytest.mark.parametrize("model, gpu, n", [("llama-3.1-8b", "h100", 1), ("llama-3.1-70b", "h200", 4),
                                           ("mixtral-8x7b", "h100", 2)])
def test_disaggregated_with_a_free_link_and_equal_pools_is_no_slower_to_first_token(model, gpu, n):
    r, gp = _gp(model, gpu, n)
    d = pair_points(gp, gp, r, link=None)
    one = (d.x == 1) & (d.y == 1)
    checked = 0
    for i in np.flatnonzero(one):
        same = (gp.batch == d.batch[i]) & (gp.chunk == d.chunk[i]) & (gp.spec_k == d.spec_k[i]) & gp.feasible
        for j in np.flatnonzero(same):
            assert d.ttft_s[i] <= gp.ttft_s[j] * (1 + 1e-12)
            checked += 1
    assert checked > 10
    assert d.transfer_s == 0.0


def test_kv_transfer_time_scales_with_the_link():
    rs = resolve(Scenario(gpu="h100", model="llama-3.1-70b", precision="fp8", gpus=4))
    link = rs.hw.network
    slow = dataclasses.replace(link, bandwidth_bytes_per_s=link.bandwidth_bytes_per_s / 4)
    a = kv_transfer_s(rs, 2000, link) - link.latency_s
    b = kv_transfer_s(rs, 2000, slow) - link.latency_s
    assert b == pytest.approx(4 * a)
    # bytes: 2 000 tokens × 80 layers × 8 KV heads × 128 × (K and V) × 1 byte (FP8), over 4 GPUs
    assert kv_bytes_per_request(rs, 2000) == pytest.approx(2000 * 80 * 8 * 128 * 2 * 1 / 4)
    assert kv_transfer_s(rs, 4000, link) - link.latency_s == pytest.approx(2 * a)


@pytest.mark.parametrize("model, precision, gpus, ep, tokens, layers, k, d, b", [
    ("mixtral-8x7b", "bf16", 8, 8, 64, 32, 2, 4096, 2.0),
    ("deepseek-v3", "fp8", 8, 16, 256, 58, 8, 7168, 1.0),
])
def test_all_to_all_bytes_match_the_hand_calculation(model, precision, gpus, ep, tokens, layers, k, d, b):
    rs = resolve(Scenario(gpu="h100", model=model, precision=precision, gpus=gpus))
    hand = layers * 2 * (tokens / ep) * k * d * b * (ep - 1) / ep
    assert all_to_all_bytes(rs, tokens, ep) == pytest.approx(hand)


@pytest.mark.parametrize("model, precision", [("mixtral-8x7b", "bf16"), ("deepseek-v3", "fp8")])
def test_two_nodes_over_the_network_are_slower_per_token_than_one_over_nvlink(model, precision):
    rs = resolve(Scenario(gpu="h100", model=model, precision=precision, gpus=8))
    tokens = np.array([16.0, 256.0, 4096.0])
    one_fabric = all_to_all_s(rs, tokens, 16, per_node=16)      # 16 GPUs on one NVLink domain
    two_nodes = all_to_all_s(rs, tokens, 16, per_node=8)        # 2 × 8 over InfiniBand
    assert np.all(two_nodes > one_fabric)
    # and the whole step: an EP16 replica over two nodes against EP8 in one, per output token per GPU
    if model == "deepseek-v3":
        r, one = _gp(model, "h200", 8, "ep", precision, L=1000, O=200)
        r2 = check_request(PlanRequest(model, 1000, 200, (("h200", 16),)))
        cat = default_catalog()
        two = group_points(Group(cat.gpu("h200").id, 16, "ep", "fp8", cat.precision("fp8").default_kv, "vllm", 16), r2)
        sel = lambda gp: (gp.spec_k == 0) & (gp.chunk == 2048) & (gp.batch == 64)
        per_token_one = one.tpot_s[sel(one)]
        per_token_two = two.tpot_s[sel(two)]
        assert per_token_two[0] > per_token_one[0] / 2      # 16 GPUs do not halve the step: the network costs


def test_the_cheapest_setup_meets_every_target_in_the_simulator():
    r = PlanRequest("llama-3.1-8b", 1000, 200, (("h100", 4), ("l40s", 4)), 400, 30,
                    precisions=("bf16", "fp8"), engines=("vllm",), speculative=False)
    p = make_plan(r, simulate_frontier=False, disaggregated=False)
    assert p.met and p.cheapest
    for s in p.cheapest:
        run, sm = serve_point(p.table, s.index, p.request)
        assert sm.targets_met is True
        assert sm.ttft.p90_ms <= 400 and sm.tpot.p90_ms <= 30
    costs = [p.table["usd_per_mtok"][s.index] for s in p.cheapest]
    assert costs == sorted(costs)
    for s in p.runners_up:               # cheaper (steady-state) setups that the simulator failed
        assert s.misses or s.error


def test_a_target_no_setup_meets_names_the_closest():
    p = make_plan(PlanRequest("llama-3.1-8b", 1000, 200, (("l4", 2),), 1.0, 0.5, engines=("vllm",)),
                  simulate_frontier=False, disaggregated=False)
    assert not p.met and p.closest is not None


def test_bad_requests_are_refused_in_one_line():
    with pytest.raises(UnknownIdError):
        parse_available("h900:8")
    with pytest.raises(ScenarioError):
        parse_available("h100:lots")
    with pytest.raises(ScenarioError):
        parse_available("h100:0")
    with pytest.raises(ScenarioError):
        check_request(PlanRequest("llama-3.1-8b", 0, 200, (("h100", 1),)))


def test_measured_points_are_the_published_runs_that_match_the_plan():
    from model.machine.validate_serving import load_serving_rows
    from model.planning.measured import measured_points
    r = check_request(PlanRequest("llama-3.1-70b", 5000, 500, (("h100", 8),)))
    pts = measured_points(r, simulate=False)
    assert pts
    from model.planning.measured import SPEED_METRICS
    timed = {x.run for x in load_serving_rows() if x.metric in SPEED_METRICS}      # runs that give a speed per user
    rows = [x for x in load_serving_rows() if x.metric == "serve_output_tokens_per_s" and x.run in timed
            and dict(zip(("model", "gpu"), x.run[:2])) == {"model": "llama-3.1-70b", "gpu": "h100-sxm5-80gb"}
            and x.run[5:7] == ("5000", "500")]
    assert sorted(p.tokens_per_s_per_gpu * p.gpus for p in pts) == pytest.approx(sorted(x.value for x in rows))
    # other lengths, or too few GPUs of the kind, match nothing
    assert measured_points(check_request(PlanRequest("llama-3.1-70b", 1000, 200, (("h100", 8),))), simulate=False) == []
    assert measured_points(check_request(PlanRequest("llama-3.1-70b", 5000, 500, (("h100", 1),))), simulate=False) == []


def test_every_point_carries_a_chunk_size_of_the_sweep():
    from model.planning.space import axis
    r, gp = _gp("llama-3.1-8b", "h100", 1)
    assert set(np.unique(gp.chunk)) == set(float(c) for c in axis("chunk_tokens"))
    assert set(np.unique(gp.spec_k)) == {0.0, 3.0}


def test_lesson_6_ends_on_the_frontier_and_batching_moves_the_point_along_it():
    from model import estimate
    from model.lessons.chapters import default_chapters
    from model.lessons.deck import chapter_chart, chapter_facts
    ch = default_chapters()[5]
    last = ch.states[-1]
    assert dict(last.params).get("key") == "frontier"
    pts = []
    for b in (1, 16, 64):
        e = estimate(last.scenario.with_(batch=b))
        fr = chapter_chart(6, e, dict(last.params)).frontier
        facts = chapter_facts(6, e, dict(last.params))
        assert facts.values["user_speed"] and fr.now.label == f"batch {b:,}"
        pts.append((fr.now.x, fr.now.y))
        assert np.all(np.diff(fr.x) < 0) and np.all(np.diff(fr.y) > 0)   # along the caps: slower per user, busier
    assert pts[0][0] > pts[1][0] > pts[2][0] and pts[0][1] < pts[1][1] < pts[2][1]
    # the other states draw no frontier
    assert chapter_chart(6, estimate(ch.states[0].scenario), dict(ch.states[0].params)).frontier is None


def test_a_point_loads_as_an_explore_scenario_and_a_serve_setup():
    from model import estimate
    from model.planning.explore import point_scenario
    p = make_plan(PlanRequest("llama-3.1-70b", 1000, 200, (("h100", 8),), 500, 25, precisions=("fp8",),
                              engines=("vllm",)), simulate_frontier=False)
    t = p.table
    assert len(p.frontier) >= 3
    for i in p.frontier:
        s, setup = point_scenario(p, int(i))
        e = estimate(s)                                   # Explore can run it
        assert s.batch == int(t["batch"][i]) and setup.max_running == int(t["batch"][i])
        assert setup.max_tokens_per_step == int(t["chunk"][i]) and setup.spec_k == int(t["spec_k"][i])
        assert e.scenario.model == "llama-3.1-70b" and s.precision == "fp8"


def test_a_plans_table_keeps_each_disaggregated_point_once_and_names_it_as_before():
    """A table kept every xPyD pair's per-point arrays beside its own columns of the same points
    (the window's Plan page held ~130 MB of them for the default request: the soak's rise). The
    pairs now keep only their pools; the points' x and y are columns, and each point's label, setup
    and serving run read the same as from the pair itself."""
    from model.planning.disagg import DisaggPoints, disaggregated_points
    from model.planning.explore import point_scenario
    from model.planning.plan import point_setup, serve_disaggregated
    r = check_request(PlanRequest("llama-3.1-8b", 1000, 200, (("h100", 4), ("l40s", 4)),
                                  precisions=("bf16",), engines=("vllm",), speculative=False))
    t = point_table(r, disaggregated=True)
    pairs = [gp for gp in t.groups if isinstance(gp, DisaggPoints)]
    assert pairs and all(getattr(gp, f.name).size == 0 for gp in pairs for f in dataclasses.fields(gp)
                         if isinstance(getattr(gp, f.name), np.ndarray))
    full = [gp for gp in point_table(r, disaggregated=False).groups]
    whole = disaggregated_points(full, r)                   # the same pairs, in the same order, kept whole
    agg = len(full)
    rows = np.flatnonzero(t["group"] >= agg)
    rng = np.random.default_rng(3)
    plan = dataclasses.replace(make_plan(r, simulate_frontier=False, disaggregated=False), table=t)
    for i in rng.choice(rows, size=5, replace=False):
        pair, j = whole[int(t["group"][i]) - agg], int(t["local"][i])
        assert (t["prefill_instances"][i], t["decode_instances"][i]) == (pair.x[j], pair.y[j])
        assert t.label(i) == pair.label(j)
        setup = point_setup(t, i, r)
        assert point_scenario(plan, i)[1] == setup.with_(replicas=int(pair.y[j] * t["replicas"][i]), requests=600)
    assert np.isfinite(serve_disaggregated(t, int(rows[0]), r)[0])
    assert not np.any(t["prefill_instances"][t["group"] < agg])         # aggregated points: no pools
