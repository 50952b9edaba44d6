"""model.readouts.flow: per-link bytes/s for the animated hierarchy (headless, no Qt)."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from model import Scenario, estimate
from model.readouts.flow import CHIP_LINKS, KINDS, flow, nice_125

SMALL = Scenario(gpu="h100", model="llama-3.1-8b", precision="bf16", input_len=128, output_len=128)
PCIE8 = Scenario(gpu="h100-pcie-80gb", model="llama-3.1-70b", precision="fp8", gpus=8, batch=256,
                 interconnect="pcie")


def test_bytes_per_step_conserved_from_hbm_to_tensor_cores():
    for batch in (1, 8, 64, 512):
        e = estimate(SMALL.with_(batch=batch))
        f = flow(e)
        want = e.weight_bytes_per_step + e.kv_bytes_per_step + e.activation_bytes_per_step
        for key in CHIP_LINKS[1:]:
            lf = f.link(key)
            assert lf.total_bytes_per_step == pytest.approx(want, rel=1e-12)
            assert lf.total_bytes_per_s * f.step_s == pytest.approx(want, rel=1e-9)
            for i, kind in enumerate(KINDS):
                assert lf.bytes_per_step[i] == f.link("hbm_l2").bytes_per_step[i], (key, kind)
        assert f.link("host_hbm").total_bytes_per_s == 0.0


def test_hbm_use_is_the_estimates_mbu():
    e = estimate(SMALL)
    assert flow(e).level("hbm") == pytest.approx(e.mbu, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(gpu=st.sampled_from(["h100", "a100-sxm4-80gb", "mi300x", "l4-24gb", "gaudi3-128gb", "tpu-v5e-16gb", "b200"]),
       precision=st.sampled_from(["bf16", "fp8", "int4", "fp32"]),
       batch=st.integers(1, 4096), gpus=st.sampled_from([1, 2, 4, 8]),
       link=st.sampled_from(["nvlink", "pcie", "network"]))
def test_utilisation_in_unit_interval(gpu, precision, batch, gpus, link):
    try:
        e = estimate(Scenario(gpu=gpu, model="llama-3.1-8b", precision=precision, batch=batch,
                              gpus=gpus, interconnect=link))
    except Exception:  # an illegal combination the model rejects: nothing to animate
        return
    f = flow(e)
    for key, u in f.utilisation:
        assert 0.0 <= u <= 1.0, key
    for lf in f.links + tuple(x for x in (f.interconnect, f.pipeline) if x):
        assert 0.0 <= lf.utilisation <= 1.0
        assert all(math.isfinite(r) and r >= 0 for r in lf.bytes_per_s)
    assert 0.0 <= f.tensor_busy <= 1.0 and 0.0 <= f.link_busy <= 1.0
    assert f.time_scale > 0


def test_bottleneck_switches_from_hbm_to_compute_across_the_critical_batch():
    lo, hi = flow(estimate(SMALL.with_(batch=1))), flow(estimate(SMALL.with_(batch=512)))
    assert lo.bottleneck == "memory" and lo.bottleneck_label == "HBM"
    assert "waiting on HBM" in lo.caption and lo.tensor_busy < 0.05
    assert hi.bottleneck == "compute" and hi.bottleneck_label == "tensor cores"
    assert hi.tensor_busy > 0.5
    # past the critical batch, HBM carries no more bytes/s than at batch 1
    assert hi.hbm_bytes_per_s <= lo.hbm_bytes_per_s


def test_pcie_is_the_bottleneck_for_eight_gpus_on_pcie():
    e = estimate(PCIE8)
    assert e.bound == "communication"
    f = flow(e)
    assert f.bottleneck == "communication" and "PCIe" in f.bottleneck_label
    assert f.interconnect is not None and f.interconnect.total_bytes_per_s > 0
    assert f.link_busy > max(f.tensor_busy, 0.3)   # more of each step on the wire than in the cores


def test_all_reduce_bytes_follow_the_ring_formula():
    e = estimate(PCIE8)
    f = flow(e)
    from model.catalog.active import default_catalog
    llm = default_catalog().model("llama-3.1-70b")
    ring = 2 * 7 / 8 * 256 * llm.hidden * 2 * llm.layers * llm.shape.allreduces_per_layer
    assert f.interconnect.total_bytes_per_step == pytest.approx(ring)
    assert flow(estimate(SMALL)).interconnect is None


def test_precision_changes_bytes_not_time_scale():
    a = flow(estimate(Scenario(precision="bf16")))
    b = flow(estimate(Scenario(precision="int4")))
    assert a.weight_bits == 16 and 4 <= b.weight_bits < 5      # INT4 carries its group scales
    ratio = a.link("hbm_l2").bytes_per_step[0] / b.link("hbm_l2").bytes_per_step[0]
    assert ratio == pytest.approx(a.weight_bits / b.weight_bits, rel=1e-6)
    assert a.time_scale == b.time_scale


def test_nice_125():
    assert nice_125(0.037) == pytest.approx(0.05)
    assert nice_125(0.0045) == pytest.approx(0.005)
    assert nice_125(1.4e-5) == pytest.approx(1e-5)


def test_prefill_phase_animates_the_prefill_pass_not_a_decode_step():
    from model import Scenario, estimate
    from model.readouts.flow import flow
    s = Scenario(model="llama-3.1-8b", batch=8, input_len=1024, phase="prefill")
    e = estimate(s)
    f = flow(e)
    assert f.phase == "prefill" and f.tokens_per_step == 8 * 1024
    assert f.step_s * 1e3 == e.prefill_ms
    assert e.bound == "compute" and f.bottleneck == "compute" and f.tensor_busy > 0.9
    per_step = [lf.bytes_per_step for lf in f.links[1:]]
    assert all(p == per_step[0] for p in per_step)          # conserved HBM → tensor cores
    d = flow(estimate(s.with_(phase="decode")))
    assert d.tokens_per_step == 8 and d.tensor_busy < 0.2


def test_flow_takes_the_all_reduce_bytes_model_step_defines():
    from model.physics.scenario import resolve
    from model.physics.step import allreduce_bytes, microbatch
    e = estimate(PCIE8)
    rs = resolve(PCIE8)
    m, b = microbatch(rs, PCIE8.batch)
    assert flow(e).interconnect.total_bytes_per_step == pytest.approx(float(allreduce_bytes(rs, b) * m / rs.pp))


def test_prefill_flow_is_the_estimates_prefill_pass_with_its_own_efficiency():
    """A different efficiency table changes the Estimate's prefill; the flow follows it, not a copy."""
    from dataclasses import replace
    from model.catalog.active import default_efficiency
    table = default_efficiency()
    slow = table.with_fits({(e.id, plat): replace(f, compute_fraction_prefill=f.compute_fraction_prefill / 2)
                            for e in table.engines for plat, f in e.fitted})
    s = Scenario(model="llama-3.1-8b", batch=8, input_len=1024, phase="prefill")
    fast_e, slow_e = estimate(s), estimate(s, efficiency=slow)
    assert slow_e.prefill_ms > fast_e.prefill_ms * 1.5
    for e in (fast_e, slow_e):
        f = flow(e)
        assert f.step_s * 1e3 == pytest.approx(e.prefill_ms, rel=1e-12)
        assert f.tensor_busy == pytest.approx(e.prefill_compute_ms / e.prefill_ms, rel=1e-9)
        assert f.link("hbm_l2").bytes_per_step[0] == pytest.approx(e.prefill_weight_bytes)


def test_chip_readouts_label_what_they_count():
    from model.catalog.active import default_catalog
    from model.readouts.flow import chip_readouts
    from model.readouts.numbers import readouts
    e = estimate(PCIE8)
    f = flow(e)
    hw = default_catalog().gpu(PCIE8.gpu)
    sh = chip_readouts(e, f, hw)
    r = readouts(e)
    assert sh["use_tensor_cores"] == r["tensor_cores_busy"] and "step time" in sh["use_tensor_cores"].label
    assert sh["use_tensor_cores"].text != r["mfu"].text                 # two quantities, two labels
    assert sh["step_weights"] == r["weights_read_per_step"]
    assert sh["step_weights"].value == e.weight_bytes_per_step
    assert sh["link_busy"].value == pytest.approx(f.link_busy) and sh["link_busy"].text.endswith("%")
    assert sh["memory_block"].text == "16.0 GB"                        # 80 GB over 5 stacks
    assert sh["level_hbm"].label == f"{hw.hbm_kind} × 5 stacks" and hw.hbm_stacks == 5


def test_packet_scale_is_the_one_bytes_to_packets_mapping():
    from model.readouts.chip import R_CHIP, R_LINK, chip_route_speeds, packet_scale
    e = estimate(PCIE8)
    f = flow(e)
    one, four = packet_scale(f, 1.0), packet_scale(f, 4.0)
    assert four.packet_bytes == pytest.approx(4 * one.packet_bytes)       # faster play, bigger packets
    assert four.rates == pytest.approx(one.rates)                          # ... at the same packets/s
    assert sum(one.rates[:3]) == pytest.approx(R_CHIP * f.level("hbm"))    # HBM flux ∝ HBM use
    assert one.rates[3] == pytest.approx(R_LINK * f.interconnect.utilisation * 8)
    assert one.weights_per_packet == pytest.approx(one.packet_bytes * 8 / f.weight_bits)
    assert one.step_screen_s == pytest.approx(f.step_s / one.chip_s_per_screen_s)
    v = chip_route_speeds(f, 600.0, stacks=5, sms=12, across_px=0.0)
    assert len(v) == 8 and v[0] == pytest.approx(0.17 * 600)
    assert v[6] > v[5]            # registers are wider than shared memory: packets thin out there
