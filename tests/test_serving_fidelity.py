"""What the serving simulator does the way engines do (issue 38): each rule here failed before it.

Stalls count in ITL; a step that evicted admits nothing; multi-step scheduling; the KV budget as a
knob; expert parallelism's all-to-all bytes; data-parallel attention's KV room; the benchmark
tools' metric definitions; steps issued by the host without CUDA graphs (--enforce-eager).
"""
import re

import numpy as np
import pytest

import model  # noqa: F401
from model.catalog.active import default_efficiency
from model.physics.memory import footprint, kv_bytes_per_sequence
from model.physics.scenario import Scenario, resolve
from model.physics.step import layer_equivalents
from model.readouts.serving import serving_readouts
from model.serving.parallel import all_to_all_bytes
from model.serving.results import itl_spread, per_request, summarize
from model.serving.run import serve
from model.serving.setup import ServingSetup

SC = Scenario()                                  # Llama 3.1 8B, BF16, one H100


def _run(scenario=SC, **setup):
    return serve(scenario, ServingSetup(**setup))


def test_a_prompt_only_step_raises_the_itl_of_the_decodes_it_delays():
    """Prefill "separate" (vLLM V0): a step of prompts alone while decodes wait is part of the gap
    between their tokens, as a streaming client sees it (it was left out: ITL p99 far too short)."""
    run = _run(load="rate", rate_per_s=8.0, requests=300, input_len=2000, output_len=200, prefill="separate")
    assert run.log_stall_s.max() > 0
    stalled = (run.log_stall_s > 0) & (run.log_decode_steps > 0)
    longest_step = float((run.log_s / np.maximum(run.log_steps, 1))[run.log_decode_steps > 0].max())
    sm = summarize(run)
    assert sm.itl.p99_ms / 1e3 > longest_step                    # a gap longer than any decode step: a stall
    plain = np.average(run.log_s / np.maximum(run.log_steps, 1), weights=run.log_decode_steps)
    assert sm.itl.mean_ms / 1e3 > plain                          # the stalls lengthen the mean gap
    # the stalls' time is exactly the prompt-only steps run while decodes waited
    waited = run.log_s[(run.log_decode_steps == 0) & (run.log_prompt_tokens > 0)].sum()
    assert run.log_stall_s[stalled].sum() == pytest.approx(run.log_stall_s.sum()) and run.log_stall_s.sum() <= waited


def test_a_step_that_evicts_admits_no_new_prompt():
    """vLLM (V0 and V1) and SGLang admit nothing new in a step that had to preempt: before, the
    evicted request was re-admitted at once and evicted again (a preemption storm)."""
    sc = Scenario(gpu="l4", model="llama-3.1-8b", precision="fp8")
    run = _run(sc, load="burst", requests=400, input_len=1500, output_len=600, prefill="separate")
    sm = summarize(run)
    assert sm.preemptions / sm.requests < 3          # was ~30 per request on such a burst
    assert sm.request_throughput_per_s > 0


def test_multi_step_scheduling_admits_new_prompts_only_every_n_steps():
    base = dict(load="rate", rate_per_s=6.0, requests=200, input_len=300, output_len=300, seed=3)
    one = summarize(_run(**base))
    ten = _run(**base, scheduler_steps=10)
    # admissions happen only at window boundaries: every admitted request entered at a step
    # that followed a multiple of 10 decode steps (or when nothing was decoding)
    assert summarize(ten).ttft.p50_ms > one.ttft.p50_ms
    # ITL per streamed chunk: 10 tokens at once
    assert summarize(ten).itl.p50_ms > 5 * one.itl.p50_ms
    assert summarize(ten).tpot.p50_ms == pytest.approx(one.tpot.p50_ms, rel=0.25)


def test_the_multi_step_window_is_where_prompts_join():
    """With decodes always running (a steady load of long outputs), the decode steps between two
    steps that take new prompts come in whole windows of 8."""
    run = _run(load="rate", rate_per_s=20.0, requests=300, input_len=200, output_len=400, scheduler_steps=8,
               prefill="separate")
    assert (run.log_running[1:] > 0).all()
    steps = np.where(run.log_decode_steps > 0, run.log_steps, 0).astype(int)
    between, count = [], 0
    for s, p in zip(steps, run.log_prompt_tokens > 0):
        if p:
            between.append(count)
            count = 0
        else:
            count += s
    assert len(between) > 20 and all(c % 8 == 0 for c in between[1:])


def test_a_kv_budget_of_a_quarter_caps_the_running_sequences():
    rs = resolve(SC)
    base = dict(load="burst", requests=600, input_len=1000, output_len=1000)
    full = _run(**base)
    quarter = _run(**base, gpu_memory_utilization=0.25)
    fp = footprint(rs, 0.1)
    kv_token = kv_bytes_per_sequence(rs, 1.0)
    expected_tokens = (0.25 * fp.capacity_bytes - fp.weight_bytes) // (16 * kv_token) * 16
    assert quarter.kv_tokens == expected_tokens
    assert quarter.largest_batch < full.largest_batch
    assert int(quarter.log_running.max()) <= quarter.kv_tokens // 1000 + 1      # sequences ≤ KV tokens / prompt
    with pytest.raises(model.ModelError, match="no room for a KV cache"):
        _run(Scenario(model="llama-3.1-70b", precision="fp8"), **base, gpu_memory_utilization=0.5)


def test_trtllm_free_fraction_is_of_what_the_weights_leave():
    rs = resolve(SC)
    fp = footprint(rs, 0.1)
    run = _run(load="burst", requests=50, input_len=100, output_len=10, kv_free_fraction=0.5)
    assert run.kv_tokens == (0.5 * (fp.capacity_bytes - fp.weight_bytes)) // (16 * kv_bytes_per_sequence(rs, 1.0)) * 16


def test_expert_parallel_all_to_all_bytes_are_the_hand_calculation_for_deepseek_v3():
    """DeepSeek-V3 on 8 GPUs, EP 8, 256 tokens in a step, FP8 activations (1 byte):
    per MoE layer one GPU sends 2 × (256/8) × 8 experts × 7168 hidden × 1 B × 7/8 = 401 408 B;
    58 MoE layers (61 − 3 dense): 23 281 664 B."""
    rs = resolve(Scenario(model="deepseek-v3", gpu="h200", gpus=8, precision="fp8"))
    assert rs.llm.params.moe_layers == 58 and rs.llm.hidden == 7168 and rs.llm.params.experts_per_token == 8
    per_layer = 2 * (256 / 8) * 8 * 7168 * rs.precision.activation_bytes * 7 / 8
    assert float(all_to_all_bytes(rs, 256, 8)) == pytest.approx(58 * per_layer)
    assert float(all_to_all_bytes(rs, 256, 1)) == 0.0


def test_dp_attention_gives_an_mla_model_n_times_the_kv_room():
    sc = Scenario(model="deepseek-v3", gpu="h200", gpus=8, precision="fp8")
    base = dict(load="burst", requests=50, input_len=1000, output_len=100)
    tp = _run(sc, **base)
    dp = _run(sc, **base, ep=8, dp_attention=True)
    assert dp.kv_tokens // 8 == pytest.approx(tp.kv_tokens, rel=0.01)      # MLA: TP replicates the latent KV
    with pytest.raises(model.ModelError, match="experts spread over 16 GPUs"):
        _run(sc, **base, ep=16)


@pytest.mark.parametrize("tool", ["vllm", "genai-perf", "llmperf", "mlperf"])
def test_metric_definitions_follow_the_tool(tool):
    run = _run(load="rate", rate_per_s=20.0, concurrency=8, requests=200, input_len=500, output_len=50, metrics=tool)
    pr, sm = per_request(run), summarize(run)
    out = run.requests.output_len
    if tool == "llmperf":                                       # the first token counted in
        assert np.allclose(pr["tpot_s"], (run.finish_s - run.sent_s) / out)
    else:
        assert np.allclose(pr["tpot_s"], (run.finish_s - run.first_token_s) / (out - 1))
    if tool == "mlperf":                                        # from the scheduled arrival, not the send
        assert np.allclose(pr["ttft_s"], run.first_token_s - run.requests.arrival_s)
        assert sm.ttft.p50_ms > summarize(serve(SC, run.setup.with_(metrics="vllm"))).ttft.p50_ms
    else:
        assert np.allclose(pr["ttft_s"], run.first_token_s - run.sent_s)
    itl = itl_spread(run, pr["tpot_s"])
    if tool in ("genai-perf", "llmperf"):                       # per request: the TPOT
        assert itl.p50_ms == pytest.approx(sm.tpot.p50_ms)


def test_closed_loop_clients_with_lengths_that_vary_do_not_all_arrive_in_one_step():
    """C clients that start together (and whose next requests follow finishes of the same step) reach
    the scheduler one after another: the server's front end tokenises each prompt in turn
    (tokenize_s_per_token × prompt tokens each). Before, all C were admitted in one step and the
    waves stayed in lock-step."""
    run = _run(load="concurrency", concurrency=32, requests=320, lengths="uniform", range_ratio=0.2,
               input_len=100, output_len=60, seed=1)
    per_token = run.limits.tokenize_s_per_token
    assert per_token > 0
    first = np.sort(run.admitted_s[:32])
    assert len(np.unique(first)) >= 2                               # the first wave spans more than one step
    # a request waits at least its own tokenising before the scheduler may take it
    assert np.all(run.admitted_s - run.sent_s >= run.requests.input_len * per_token - 1e-12)
    # pre-tokenised clients (MLPerf, trtllm-bench) skip the front end
    plain = _run(load="concurrency", concurrency=32, requests=64, input_len=100, output_len=60, metrics="trtllm-bench")
    assert plain.limits.tokenize_s_per_token == 0 and len(np.unique(plain.admitted_s[:32])) == 1


def test_sglang_runs_prompt_chunks_in_steps_of_their_own():
    """SGLang does not mix prefill and decode (server_args enable_mixed_chunk = False): a prefill
    batch, cut to chunked_prefill_size, runs whenever one can be formed and the decodes wait for it
    (a stall in their ITL and TPOT). It was simulated as vLLM's mixed chunked prefill."""
    from dataclasses import replace
    setup = ServingSetup(load="rate", rate_per_s=2.0, requests=120, input_len=12_000, output_len=200)
    run = serve(replace(SC, engine="sglang"), setup)
    prompt_steps = run.log_prompt_tokens > 0
    assert prompt_steps.any() and not (run.log_decode_steps[prompt_steps] > 0).any()
    assert run.log_prompt_tokens.max() <= 8192                   # a 12 000-token prompt takes two steps
    assert (run.log_stall_s > 0).any()
    sm = summarize(run)
    assert sm.tpot.mean_ms > sm.itl.p50_ms                       # the waits lengthen TPOT, not the usual gap
    vllm = serve(SC, setup)                                      # vLLM V1 mixes chunks into the decode steps
    assert ((vllm.log_prompt_tokens > 0) & (vllm.log_decode_steps > 0)).any()


def test_sglang_overlap_scheduler_admits_a_request_one_step_later_while_busy(monkeypatch):
    """SGLang's overlap scheduler (its default) forms the next batch while the GPU runs the current
    one: a request that arrives during a step joins the step after next. It was admitted at the next
    step, as in vLLM's order (TTFT too short under load); an idle server still takes it at once."""
    from dataclasses import replace
    import model.serving.run as run_module
    from model.serving.limits import engine_limits
    sg = replace(SC, engine="sglang")
    assert engine_limits("sglang", resolve(sg).hw).overlap_schedule
    assert not engine_limits("vllm", resolve(SC).hw).overlap_schedule
    busy = ServingSetup(load="rate", rate_per_s=6.0, requests=200, input_len=200, output_len=300, seed=3)
    alone = ServingSetup(load="concurrency", concurrency=1, requests=6, input_len=200, output_len=20)
    with_overlap = [summarize(serve(sg, s)) for s in (busy, alone)]
    real = run_module.limits_for
    monkeypatch.setattr(run_module, "limits_for",
                        lambda *a: replace(real(*a), overlap_schedule=False))
    without = [summarize(serve(sg, s)) for s in (busy, alone)]
    step_ms = with_overlap[0].itl.p50_ms                           # a decode step under this load
    assert with_overlap[0].ttft.p50_ms - without[0].ttft.p50_ms > 0.5 * step_ms
    assert with_overlap[0].ttft.p50_ms - without[0].ttft.p50_ms < 1.5 * step_ms
    assert with_overlap[1].ttft.p50_ms == pytest.approx(without[1].ttft.p50_ms)    # nothing running: at once


def test_trtllm_bench_sizes_the_executor_from_the_dataset():
    """trtllm-bench starts TensorRT-LLM with a batch and a token budget of its own, worked out from the
    dataset (tuning.py finetune_setting; chunked prefill off, so at least the longest prompt + the
    batch). The serving defaults (8 192 tokens a step) ran a burst of 20 000-token prompts one at a
    time: throughput 8–60× too low on every such published run."""
    from dataclasses import replace
    from model.serving.limits import engine_limits, trtllm_bench_limits
    base = engine_limits("tensorrt-llm", resolve(SC).hw)
    cases = ((1_000_000, 1000, 1000, 1000, 512, 2048),        # R 500: batch to 128s; tokens at their floor
             (10_000_000, 128, 128, 128, 4096, 8192),         # R capped at 4 096; tokens R·2
             (2_200_000, 20_000, 2000, 20_000, 128, 20_128))  # R 100; the longest prompt + the batch
    for kv, isl, osl, longest, batch, tokens in cases:
        lim = trtllm_bench_limits(base, kv, isl, osl, longest)
        assert (lim.max_running, lim.max_tokens_per_step) == (batch, tokens)
    mine = replace(base, max_running=7, sources=base.sources + (("max_running", "your setting"),))
    assert trtllm_bench_limits(mine, 1_000_000, 1000, 1000, 1000).max_running == 7      # yours stays
    sc = replace(SC, gpu="h200", precision="fp8", engine="tensorrt-llm")
    burst = ServingSetup(load="burst", requests=200, input_len=20_000, output_len=2000)
    bench = serve(sc, burst.with_(metrics="trtllm-bench"))
    plain = serve(sc, burst)
    assert plain.log_running.max() == 1                           # the 8 192-token budget: one at a time
    assert bench.log_running.max() > 20
    assert summarize(bench).output_tokens_per_s > 5 * summarize(plain).output_tokens_per_s


def test_enforce_eager_makes_every_step_pay_the_hosts_issue_time():
    """vLLM --enforce-eager (MLPerf's ROCm harnesses run so): no CUDA graphs, so a decode step too is
    issued kernel by kernel and takes ‖GPU, host‖₆; a graphed run's decode steps pay no host time.
    Before, a row's enforce_eager could not be expressed and those runs were simulated with graphs."""
    base = dict(load="rate", rate_per_s=2.0, requests=120, input_len=500, output_len=200, seed=1)
    graphs, eager = _run(**base), _run(**base, enforce_eager=True)
    rs = resolve(SC)
    host = layer_equivalents(rs) * default_efficiency().efficiency(rs.engine, rs.hw).host_layer_s
    assert (graphs.table.host_s, graphs.table.prefill_host_s) == (0.0, 0.0)
    assert eager.table.host_s == pytest.approx(host) and eager.table.prefill_host_s == pytest.approx(host)
    decode = float(graphs.table.finish_s(0.004))
    assert eager.table.finish_s(0.004) > max(decode, host)        # ‖GPU, host‖₆ exceeds both
    assert summarize(eager).tpot.p50_ms > summarize(graphs).tpot.p50_ms
    with pytest.raises(Exception, match="enforce_eager must be true or false"):
        ServingSetup.from_dict({"enforce_eager": "yes"})


def test_serve_says_who_issues_the_kernels_with_arithmetic_that_redoes():
    """The "Kernels issued" line: graphs, graphs for decode steps only (SGLang), or the host for
    every step (--enforce-eager), with host time = dense-layer equivalents × host time a layer."""
    ds = Scenario(model="deepseek-v3", gpu="h200", gpus=8, precision="fp8-block", engine="sglang")
    texts = {}
    for name, sc, eager in (("graphs", SC, False), ("sglang", ds, False), ("eager", ds, True)):
        run = _run(sc, load="rate", rate_per_s=1.0, requests=20, enforce_eager=eager)
        texts[name] = serving_readouts(run, summarize(run))["kernel_issue"]
    assert texts["graphs"].text == "CUDA graphs, replayed" and texts["graphs"].value == 0.0
    assert texts["sglang"].text.startswith("CUDA graphs for decode steps")
    assert "--enforce-eager" in texts["eager"].text
    for r in (texts["sglang"], texts["eager"]):
        found = re.search(r"= ([\d.]+) dense-layer equivalents × ([\d.]+) µs a layer .*= ([\d.]+) ms", r.help)
        leq, us, ms = map(float, found.groups())
        half = 0.5 * 10.0 ** -len(found.group(3).partition(".")[2])     # half a unit of the last digit shown
        assert abs(leq * us / 1e3 - ms) <= half + 1e-9 and abs(r.value * 1e3 - ms) <= half + 1e-9
