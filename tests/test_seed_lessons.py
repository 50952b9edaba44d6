"""The seed's figures (../shared/seed): the lessons the app must make tangible."""
import pytest

from model import Scenario, estimate
from model.catalog.active import default_catalog


@pytest.mark.parametrize("model", ["llama-2-70b", "llama-3.1-70b"])
def test_70b_fp16_on_one_h100_floors_at_42_ms_and_does_not_fit(model):
    e = estimate(Scenario(gpu="h100-sxm5-80gb", model=model, precision="fp16", batch=1, gpus=1))
    assert 41.0 <= e.decode_floor_ms_per_token <= 43.0
    assert not e.fits and e.max_batch_that_fits == 0
    assert e.bound == "memory"
    assert e.decode_ms_per_token > e.decode_floor_ms_per_token


def test_h100_bf16_ridge_point():
    e = estimate(Scenario(gpu="h100"))
    assert 290 <= e.ridge_flops_per_byte <= 300


def test_compute_outgrew_bandwidth_v100_to_h100():
    cat = default_catalog()
    v100, h100 = cat.gpu("v100"), cat.gpu("h100")
    assert 7.5 <= h100.peak("fp16") / v100.peak("fp16") <= 8.5
    assert 3.6 <= h100.hbm_bandwidth_bytes_per_s / v100.hbm_bandwidth_bytes_per_s <= 3.8


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_decode_at_batch_1_has_intensity_about_1(precision):
    e = estimate(Scenario(gpu="h100", model="llama-3.1-8b", precision=precision, batch=1))
    assert 0.9 <= e.arithmetic_intensity_flops_per_byte <= 1.1


def test_each_precision_step_halves_weight_bytes_and_the_floor():
    chain = ["fp32", "bf16", "int8", "int4"]
    es = [estimate(Scenario(gpu="h200", model="llama-3.1-8b", precision=p, batch=1)) for p in chain]
    for a, b in zip(es, es[1:]):
        assert 1.85 <= a.weight_bytes_per_gpu / b.weight_bytes_per_gpu <= 2.0
        assert 1.8 <= a.decode_floor_ms_per_token / b.decode_floor_ms_per_token <= 2.05


def test_weights_only_critical_batch_is_ridge_times_bytes_per_weight_over_two():
    e = estimate(Scenario(gpu="h100", model="llama-3.1-70b", precision="bf16"))
    assert e.critical_batch_weights_only == pytest.approx(e.ridge_flops_per_byte * 2 / 2, rel=0.02)


def test_batching_climbs_the_roofline_until_compute_bound():
    s = Scenario(gpu="h100", model="llama-3.1-8b", precision="bf16", input_len=128, output_len=128)
    e1, e512 = estimate(s.with_(batch=1)), estimate(s.with_(batch=512))
    assert e1.bound == "memory" and e512.bound == "compute"
    assert e512.arithmetic_intensity_flops_per_byte > 100 * e1.arithmetic_intensity_flops_per_byte
    assert e512.output_tokens_per_s > 50 * e1.output_tokens_per_s
    assert e512.usd_per_million_tokens < e1.usd_per_million_tokens / 50


def test_full_attention_at_long_context_never_turns_compute_bound():
    e = estimate(Scenario(gpu="h100", model="llama-2-7b", precision="fp16", input_len=8192, output_len=1024))
    assert e.critical_batch is None
    assert e.critical_batch_weights_only is not None


def test_pcie_moves_far_less_than_nvlink():
    h100 = default_catalog().gpu("h100")
    assert h100.pcie.bandwidth_bytes_per_s * 5 < h100.scale_up.bandwidth_bytes_per_s
    s = Scenario(gpu="h100", model="llama-3.1-70b", precision="bf16", gpus=8, batch=1024)
    nv, pcie = estimate(s.with_(interconnect="nvlink")), estimate(s.with_(interconnect="pcie"))
    assert pcie.decode_comm_ms > 3 * nv.decode_comm_ms
    assert pcie.decode_ms_per_token > nv.decode_ms_per_token


def test_eight_pcie_gpus_are_communication_bound_at_large_batch():
    e = estimate(Scenario(gpu="h100-pcie", model="llama-3.1-70b", precision="fp8", gpus=8, batch=256,
                          interconnect="pcie"))
    assert e.bound == "communication"


def test_emulated_precision_is_said():
    e = estimate(Scenario(gpu="v100", model="llama-2-7b", precision="fp8"))
    assert e.emulated and any("emulated" in n for n in e.notes)
