"""The step as its kernels (model/physics/kernels.py): they add up to the step, each lies under
the roofline, and in decode the GEMMs climb with the batch while attention does not."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from model import Scenario, estimate
from model.catalog.active import default_catalog, default_efficiency
from model.errors import ModelError
from model.physics.kernels import kernel_costs
from model.physics.scenario import resolve
from model.physics.cost import pass_cost
from model.physics.step import decode_terms, prefill_terms


def scenarios(n: int, seed: int = 7):
    """``n`` scenarios the model accepts, drawn over every GPU, model, precision, engine and size."""
    rng = random.Random(seed)
    cat, engines = default_catalog(), default_efficiency().ids
    out = []
    while len(out) < n:
        s = Scenario(gpu=rng.choice(cat.gpus).id, model=rng.choice(cat.models).id,
                     precision=rng.choice(cat.precisions).id, batch=rng.choice((1, 3, 16, 64, 256, 2048)),
                     gpus=rng.choice((1, 2, 8, 16)), interconnect=rng.choice(("nvlink", "pcie", "network")),
                     input_len=rng.choice((128, 1024, 8192)), output_len=rng.choice((64, 1024)),
                     phase=rng.choice(("decode", "prefill")), engine=rng.choice(engines))
        try:
            out.append(estimate(s))
        except ModelError:
            continue
    return out


ESTIMATES = scenarios(200)


@pytest.mark.parametrize("e", ESTIMATES[:200:5], ids=lambda e: f"{e.scenario.model}-{e.scenario.gpu}-b{e.scenario.batch}")
def test_kernel_times_add_to_the_step_time(e):
    dec = sum(k.time_s for k in e.decode_kernels) * 1e3 + e.decode_comm_ms + e.decode_overhead_ms
    pre = sum(k.time_s for k in e.prefill_kernels) * 1e3 + e.prefill_comm_ms + e.prefill_overhead_ms
    assert dec == pytest.approx(e.decode_ms_per_token, rel=1e-9)
    assert pre == pytest.approx(e.prefill_ms, rel=1e-9)


def test_kernel_bytes_and_flops_add_to_the_pass_and_lie_under_the_roofline():
    checked = 0
    for e in ESTIMATES:
        rs = e.resolved
        s = rs.scenario
        eff = default_efficiency().efficiency(rs.engine, rs.hw)
        for terms in (decode_terms(rs, s.batch, s.input_len + s.output_len / 2.0), prefill_terms(rs, s.batch, s.input_len)):
            cost = pass_cost(terms, eff, eff.compute_fraction_decode)
            ks = kernel_costs(terms, cost)
            moved = sum(k.bytes for k in ks if k.name != "scores")
            assert moved == pytest.approx(float(terms.bytes), rel=1e-9)
            assert sum(k.flops for k in ks) == pytest.approx(float(terms.flops), rel=1e-9)
            for k in ks:
                if k.flops > 0:
                    roof = min(rs.peak_flops, k.intensity_flops_per_byte * rs.hw.hbm_bandwidth_bytes_per_s)
                    assert k.attained_flops <= roof * (1 + 1e-9), (s, k)
            checked += 1
    assert checked == 2 * len(ESTIMATES)


def test_dense_models_have_no_experts_kernel_and_flash_attention_no_scores():
    dense = estimate(Scenario(model="llama-3.1-8b"))
    moe = estimate(Scenario(model="mixtral-8x7b", gpu="h200"))
    assert "experts" not in {k.name for k in dense.decode_kernels}
    assert "experts" in {k.name for k in moe.decode_kernels}
    assert "scores" not in {k.name for k in dense.decode_kernels}      # vLLM: flash attention
    eager = [e for e in default_efficiency().engines if e.score_bytes > 0]
    assert eager, "an engine without flash attention exists in the table"
    with_scores = estimate(Scenario(engine=eager[0].id))
    assert "scores" in {k.name for k in with_scores.decode_kernels}


def test_in_decode_the_gemms_climb_with_the_batch_and_attention_does_not():
    def by_name(batch):
        return {k.name: k for k in estimate(Scenario(batch=batch)).decode_kernels}
    small, large = by_name(4), by_name(256)
    for name in ("qkv", "out_proj", "mlp_up", "mlp_down", "lm_head"):
        assert large[name].intensity_flops_per_byte > 30 * small[name].intensity_flops_per_byte, name
    assert large["attention"].intensity_flops_per_byte == pytest.approx(small["attention"].intensity_flops_per_byte)
    assert large["attention"].bound == "memory" and large["mlp_up"].bound == "compute"


def test_a_moe_step_is_slower_than_one_kernel_group_would_say():
    """The experts see only their own tokens, so at a mid batch they stay memory-bound while the
    attention projections (every token) are compute-bound: Σ max > max Σ."""
    e = estimate(Scenario(model="deepseek-v3", gpu="h200", gpus=8, batch=1024, precision="fp8"))
    ks = {k.name: k for k in e.decode_kernels}
    assert ks["experts"].bound == "memory" and ks["qkv"].bound == "compute"
    lumped = max(sum(k.memory_s for k in ks.values() if k.name not in ("attention", "scores")),
                 sum(k.compute_s for k in ks.values() if k.name not in ("attention", "scores")))
    assert sum(k.time_s for k in ks.values() if k.name not in ("attention", "scores")) > lumped * 1.01


def test_kernels_broadcast_over_a_batch_sweep_as_the_estimate_does():
    rs = resolve(Scenario(model="mixtral-8x7b", gpu="h100", gpus=2))
    eff = default_efficiency().efficiency(rs.engine, rs.hw)
    batches = np.array([1.0, 8.0, 64.0, 512.0])
    swept = pass_cost(decode_terms(rs, batches, 1536.0), eff, eff.compute_fraction_decode)
    for i, b in enumerate(batches):
        one = pass_cost(decode_terms(rs, b, 1536.0), eff, eff.compute_fraction_decode)
        assert math.isclose(float(swept.time_s[i]), float(one.time_s), rel_tol=1e-12)


def test_per_layer_overheads_are_paid_per_dense_layer_of_kernels():
    """A layer's overheads (launches, gaps, host issue) come with its kernels: a dense layer's 9, an
    MLA layer's 14, and block FP8's one quantising kernel per linear layer on top. DeepSeek-V3's
    61 layers in block FP8 count 61 × (14 + 6.90) / 9 ≈ 142 dense layers; Llama in BF16 its own 32."""
    from model.catalog.architecture import DENSE_LAYER_KERNELS, MLA_EXTRA_KERNELS
    from model.physics.step import layer_equivalents
    llama = resolve(Scenario(gpu="h100-sxm5-80gb", model="llama-3.1-8b", precision="bf16"))
    assert layer_equivalents(llama) == llama.llm.layers
    ds_bf16 = resolve(Scenario(gpu="b200-180gb", model="deepseek-v3", precision="bf16", gpus=8))
    ds_fp8 = resolve(Scenario(gpu="b200-180gb", model="deepseek-v3", precision="fp8-block", gpus=8))
    linears = ds_fp8.llm.shape.linears_per_layer
    moe_share = 58 / 61                                   # three dense layers first, shared experts in the rest
    assert linears == pytest.approx(4 + 1 + 2 * moe_share)
    assert layer_equivalents(ds_bf16) == pytest.approx(61 * (DENSE_LAYER_KERNELS + MLA_EXTRA_KERNELS) / DENSE_LAYER_KERNELS)
    assert layer_equivalents(ds_fp8) == pytest.approx(61 * (14 + linears) / 9)
    eff = default_efficiency().efficiency("sglang", ds_fp8.hw)
    for rs in (ds_bf16, ds_fp8):                          # the pass pays them: its time less its kernels and links
        cost = pass_cost(decode_terms(rs, 1.0, 1024.0), eff, eff.compute_fraction_decode)
        fixed = cost.time_s - float(np.sum(np.maximum(cost.kernel_memory_s, cost.kernel_compute_s))) - cost.comm_s
        assert fixed == pytest.approx(eff.step_overhead_s + layer_equivalents(rs) * eff.layer_overhead_s, rel=1e-9)
