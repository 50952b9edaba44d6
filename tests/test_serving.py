"""The request-level simulator (model/serving): its books balance, its limits are the step model's."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import model  # noqa: F401
from model.catalog.active import default_efficiency
from model.errors import ScenarioError
from model.physics.memory import footprint
from model.physics.scenario import Scenario, resolve
from model.physics.step import decode_pass, prefill_pass
from model.serving.results import in_system, summarize
from model.serving.run import serve
from model.serving.setup import ServingSetup, check, expected_tokens_per_step
from model.serving.steptable import step_table

SC = Scenario()


def _eff(s=SC):
    rs = resolve(s)
    return rs, default_efficiency().efficiency(rs.engine, rs.hw)


# ------------------------------------------------------------------ the step table is the step model

@pytest.mark.parametrize("scenario", [Scenario(), Scenario(model="llama-3.1-70b", gpus=4, precision="fp8"),
                                      Scenario(model="mixtral-8x7b", gpus=2), Scenario(model="mistral-7b", engine="transformers"),
                                      Scenario(model="deepseek-v3", gpu="h200", gpus=8, precision="fp8"),
                                      Scenario(model="deepseek-v3", gpu="h200", gpus=8, precision="fp8", engine="sglang"),
                                      Scenario(model="llama-3.1-70b", gpus=4, engine="vllm@0.6")])
def test_step_table_is_decode_pass_and_prefill_pass(scenario):
    rs, eff = _eff(scenario)
    tb = step_table(rs, eff, 16384)
    for b, c in ((1, 1000), (7, 300), (256, 1500), (3000, 2000), (5000, 100)):
        assert tb.decode_step_s(b, c) == pytest.approx(float(decode_pass(rs, b, c, eff).time_s), rel=1e-9)
    for L in (10, 1000, 8000):
        assert tb.prefill_s(L) == pytest.approx(float(prefill_pass(rs, 1, L, eff).time_s), rel=1e-9)


def test_a_step_table_keeps_its_own_arrays_only():
    """A plan keeps one step table per group (~160 in the window's Plan page): a row that is a view
    of the pass's (kernels × grid) array kept all nine rows alive, 45 MB of the soak's rise."""
    rs, eff = _eff(Scenario(model="llama-3.1-70b", gpus=4, precision="fp8"))
    tb = step_table(rs, eff, 16384)
    arrays = {k: v for k, v in vars(tb).items() if isinstance(v, np.ndarray)}
    assert {"tokens", "gemm_decode_s", "gemm_prefill_s", "lm_head_s"} <= set(arrays)
    for name, a in arrays.items():
        assert a.base is None, f"{name} is a view of a {a.base.nbytes}-byte array"


# ------------------------------------------------------------------ limits

def test_vanishing_rate_gives_one_prefill_and_the_batch_1_step():
    rs, eff = _eff()
    L, O = 512, 64
    run = serve(SC, ServingSetup(rate_per_s=0.01, requests=30, input_len=L, output_len=O))
    sm = summarize(run)
    tokenize = L * run.limits.tokenize_s_per_token              # the front end tokenises the prompt first
    assert sm.ttft.p50_ms / 1e3 == pytest.approx(tokenize + float(prefill_pass(rs, 1, L, eff).time_s), rel=1e-6)
    step = float(decode_pass(rs, 1, L + (O - 2) / 2.0, eff).time_s)     # mean context over the O − 1 steps
    assert sm.tpot.p50_ms / 1e3 == pytest.approx(step, rel=1e-6)
    assert sm.tpot.p50_ms == pytest.approx(model.estimate(SC.with_(input_len=L, output_len=O)).decode_ms_per_token, rel=1e-3)
    assert sm.mean_waiting < 1e-3 and sm.preemptions == 0


def test_saturation_approaches_the_largest_batch_that_fits():
    run = serve(SC, ServingSetup(load="concurrency", concurrency=4000, requests=6000, input_len=128, output_len=1024))
    sm = summarize(run)
    assert sm.request_throughput_per_s == pytest.approx(run.capacity_req_per_s, rel=0.10)
    rs, _ = _eff()
    fits = footprint(rs, default_efficiency().workspace_fraction, context=128 + 512).max_batch
    assert run.largest_batch == min(fits, run.limits.max_running)


def test_a_full_kv_cache_preempts_and_loses_nothing():
    run = serve(SC, ServingSetup(load="burst", requests=900, input_len=1024, output_len=1024))
    sm = summarize(run)
    assert sm.preemptions > 0 and sm.preempted_requests > 0
    assert np.all(np.isfinite(run.finish_s)) and sm.requests == 900


def test_swap_preemption_counts_too():
    sm = summarize(serve(SC, ServingSetup(load="burst", requests=900, input_len=1024, output_len=1024, preemption="swap")))
    assert sm.preemptions > 0 and np.isfinite(sm.e2e.p99_ms)


def test_preemption_none_never_evicts():
    sm = summarize(serve(SC, ServingSetup(load="burst", requests=900, input_len=1024, output_len=1024, preemption="none")))
    assert sm.preemptions == 0 and sm.requests == 900


# ------------------------------------------------------------------ the books balance

def test_littles_law_on_a_long_run():
    run = serve(SC, ServingSetup(requests=5000, lengths="sharegpt"))
    sm = summarize(run)
    t0, t1 = run.sent_s.min(), run.finish_s.max()
    grid = np.linspace(t0, t1, 200_001)[:-1] + (t1 - t0) / 400_000     # sampled, not the exact integral
    sampled = float(np.mean(in_system(run, grid)))
    assert sampled == pytest.approx(sm.request_throughput_per_s * sm.e2e.mean_ms / 1e3, rel=0.02)
    assert sm.littles_law_ratio == pytest.approx(1.0, rel=0.02)


def test_the_same_seed_gives_the_same_run_and_another_seed_another():
    a = serve(SC, ServingSetup(requests=400, lengths="uniform", range_ratio=0.5, seed=7))
    b = serve(SC, ServingSetup(requests=400, lengths="uniform", range_ratio=0.5, seed=7))
    c = serve(SC, ServingSetup(requests=400, lengths="uniform", range_ratio=0.5, seed=8))
    assert np.array_equal(a.finish_s, b.finish_s) and np.array_equal(a.requests.input_len, b.requests.input_len)
    assert not np.array_equal(a.finish_s, c.finish_s)


LOADS = st.sampled_from(["rate", "concurrency", "burst"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(load=LOADS, n=st.integers(1, 300), rate=st.floats(0.5, 60), conc=st.integers(1, 200),
       inp=st.integers(1, 3000), out=st.integers(1, 600), lengths=st.sampled_from(["fixed", "uniform", "sharegpt"]),
       prefill=st.sampled_from(["chunked", "mixed", "separate"]),
       preempt=st.sampled_from(["recompute", "swap", "none"]), max_running=st.integers(1, 512),
       budget=st.integers(64, 8192), block=st.sampled_from([1, 16, 32]), seed=st.integers(0, 99),
       replicas=st.integers(1, 3), k=st.integers(0, 4), alpha=st.floats(0, 1))
def test_every_request_completes_exactly_once_in_order(load, n, rate, conc, inp, out, lengths, prefill, preempt,
                                                         max_running, budget, block, seed, replicas, k, alpha):
    s = ServingSetup(load=load, rate_per_s=rate if load == "rate" else 0.0, concurrency=conc if load == "concurrency" else 0,
                     requests=n, lengths=lengths, range_ratio=0.5, input_len=inp, output_len=out, prefill=prefill,
                     preemption=preempt, max_running=max_running, max_tokens_per_step=budget, block_tokens=block,
                     seed=seed, replicas=replicas, spec_k=k, spec_accept=alpha if k else 0.0, spec_draft="ngram")
    run = serve(SC, s)
    assert run.requests.count == n
    for arr in (run.sent_s, run.admitted_s, run.first_token_s, run.finish_s):
        assert arr.shape == (n,) and np.all(np.isfinite(arr))
    assert np.all(run.sent_s <= run.admitted_s) and np.all(run.admitted_s <= run.first_token_s)
    assert np.all(run.first_token_s <= run.finish_s)
    if load == "concurrency":                    # never more than C requests in flight
        t = np.unique(run.sent_s)
        assert in_system(run, t).max() <= conc
    sm = summarize(run)
    assert sm.requests == n and sm.littles_law_ratio == pytest.approx(1.0, rel=1e-6)
    if preempt == "none":
        assert sm.preemptions == 0


# ------------------------------------------------------------------ knobs

def test_speculation_with_nothing_accepted_is_slower_and_all_accepted_nears_k_plus_1():
    base = ServingSetup(rate_per_s=0.05, requests=20, input_len=512, output_len=257)
    plain = summarize(serve(SC, base)).tpot.p50_ms
    none = summarize(serve(SC, base.with_(spec_k=3, spec_accept=0.0, spec_draft="ngram"))).tpot.p50_ms
    assert none > plain
    allk = serve(SC, base.with_(spec_k=3, spec_accept=1.0, spec_draft="ngram"))
    tpot = summarize(allk).tpot.p50_ms / 1e3
    verify = float(allk.table.decode_step_s(1, 512 + 128, 4))       # one step verifying k + 1 = 4 tokens
    assert tpot == pytest.approx(verify / 4, rel=0.02)
    assert expected_tokens_per_step(3, 1.0) == 4 and expected_tokens_per_step(3, 0.0) == 1
    assert expected_tokens_per_step(3, 0.5) == pytest.approx(1.875)


def test_a_draft_model_costs_its_own_steps():
    s = ServingSetup(rate_per_s=0.05, requests=10, input_len=256, output_len=65, spec_k=4, spec_accept=0.0)
    sc = Scenario(model="llama-3.1-70b", gpus=4)
    ngram = summarize(serve(sc, s.with_(spec_draft="ngram"))).tpot.p50_ms
    draft = summarize(serve(sc, s.with_(spec_draft="llama-3.1-8b"))).tpot.p50_ms
    assert draft > ngram
    with pytest.raises(ScenarioError, match="MTP"):
        serve(sc, s.with_(spec_draft="mtp"))


def test_a_full_prefix_hit_leaves_only_the_suffix_to_prefill():
    rs, eff = _eff()
    L, P = 2048, 1536
    run = serve(SC, ServingSetup(rate_per_s=0.01, requests=5, input_len=L, output_len=8, prefix_len=P))
    ttft = (run.first_token_s - run.sent_s) - L * run.limits.tokenize_s_per_token   # less the front end's tokenising
    assert ttft[0] == pytest.approx(run.table.prefill_s(L), rel=1e-9)            # the first computes the prefix
    assert ttft[1:] == pytest.approx(np.full(4, run.table.prefill_s(L, cached=P)), rel=1e-9)
    assert ttft[1] < ttft[0]
    every = serve(SC, ServingSetup(rate_per_s=0.01, requests=3, input_len=L, output_len=8, prefix_hit=1.0))
    assert (every.first_token_s - every.sent_s - L * every.limits.tokenize_s_per_token) == pytest.approx(
        np.full(3, every.table.prefill_s(L, cached=L - 1)))


def test_replicas_share_the_load():
    one = summarize(serve(SC, ServingSetup(load="burst", requests=800, input_len=256, output_len=256)))
    two = summarize(serve(SC, ServingSetup(load="burst", requests=800, input_len=256, output_len=256, replicas=2)))
    assert two.request_throughput_per_s > 1.5 * one.request_throughput_per_s


def test_goodput_counts_requests_within_both_targets():
    run = serve(SC, ServingSetup(requests=500, ttft_p90_ms=60, tpot_p90_ms=20))
    sm = summarize(run)
    assert 0 <= sm.goodput_per_s <= sm.request_throughput_per_s and 0 <= sm.met_share <= 1


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("changes, words", [
    (dict(rate_per_s=-1), "rate"), (dict(load="concurrency", concurrency=0), "client"),
    (dict(requests=0), "requests"), (dict(load="wave"), "load"), (dict(prefix_hit=1.5), "prefix hit"),
    (dict(spec_accept=0.5), "draft length"), (dict(load="trace"), "trace file"), (dict(ttft_p90_ms=-5), "TTFT"),
    (dict(rate_per_s=math.nan), "finite")])
def test_bad_setups_are_refused_with_one_line(changes, words):
    with pytest.raises(ScenarioError, match=words) as e:
        check(ServingSetup(**changes))
    assert "\n" not in str(e.value)


def test_a_target_that_can_never_be_met_is_refused():
    with pytest.raises(ScenarioError, match="never be met"):
        serve(SC, ServingSetup(tpot_p90_ms=1))
    with pytest.raises(ScenarioError, match="never be met"):
        serve(SC, ServingSetup(ttft_p90_ms=0.5, input_len=4096))


def test_weights_that_leave_no_kv_room_are_refused():
    with pytest.raises(ScenarioError, match="no room"):
        serve(Scenario(model="llama-3.1-70b"), ServingSetup())


def test_pipeline_stages_are_refused_with_the_way_out():
    with pytest.raises(ScenarioError, match="replicas"):
        serve(Scenario(model="llama-3.1-405b", gpus=16, precision="fp8"), ServingSetup())


def test_a_load_that_would_run_for_minutes_is_refused_in_one_line():
    """Outputs far past what the KV cache holds evict and recompute forever: refused once the run
    has logged its event budget (a few per request), not simulated for minutes (the fuzz walk's
    8 × H100 PCIe, 70B, output 1,048,576 tokens)."""
    from model.serving.budget import budget as allowed
    sc = Scenario(gpu="h100-pcie", model="llama-3.1-70b", precision="fp8", gpus=8, interconnect="pcie")
    with pytest.raises(ScenarioError) as err:
        serve(sc, ServingSetup(rate_per_s=4.0, requests=50, input_len=256, output_len=1_048_576))
    assert "scheduler steps" in str(err.value) and "\n" not in str(err.value)
    budget = allowed(50)
    assert f"{budget:,}" in str(err.value)
    run = serve(SC, ServingSetup(rate_per_s=4.0, requests=2000, input_len=512, output_len=256))
    assert len(run.log_start_s) < budget                     # an ordinary load stays far inside it
