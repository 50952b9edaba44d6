"""Physical invariants of the cost model, over random scenarios (hypothesis)."""
import math
from dataclasses import replace

from hypothesis import assume, given, settings, strategies as st

from model import Scenario, estimate
from model.catalog.active import default_catalog
from model.errors import ScenarioError
from model.physics.scenario import resolve
from model.physics.step import moe_tile
from model.physics.sweep import sweep_batch

CAT = default_catalog()
GPUS = [g.id for g in CAT.gpus]
MODELS = [m.id for m in CAT.models]
PRECISIONS = [p.id for p in CAT.precisions]

scenarios = st.builds(
    Scenario,
    gpu=st.sampled_from(GPUS), model=st.sampled_from(MODELS), precision=st.sampled_from(PRECISIONS),
    batch=st.integers(1, 4096), gpus=st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
    interconnect=st.sampled_from(["nvlink", "pcie", "network"]),
    input_len=st.integers(1, 32768), output_len=st.integers(1, 8192),
    phase=st.sampled_from(["decode", "prefill"]),
)


def _estimate(s, catalog=None):
    try:
        return estimate(s, catalog)
    except ScenarioError:
        assume(False)


def _catalog_with(gpu_id, **changes):
    gpus = tuple(replace(g, **changes) if g.id == gpu_id else g for g in CAT.gpus)
    return replace(CAT, gpus=gpus)


@settings(max_examples=150, deadline=None)
@given(scenarios)
def test_every_output_is_finite_and_positive(s):
    e = _estimate(s)
    for name in ("decode_ms_per_token", "decode_floor_ms_per_token", "prefill_ms", "e2e_latency_s",
                 "output_tokens_per_s", "tokens_per_s_per_user", "arithmetic_intensity_flops_per_byte",
                 "usd_per_million_tokens", "joules_per_token", "mbu", "mfu", "weight_bytes_per_gpu"):
        v = getattr(e, name)
        assert math.isfinite(v) and v > 0, (name, v)
    assert 0 < e.mbu <= 1 and 0 < e.mfu <= 1
    assert e.decode_ms_per_token >= e.decode_floor_ms_per_token
    assert e.bound in ("memory", "compute", "communication")


@settings(max_examples=80, deadline=None)
@given(scenarios, st.floats(1.01, 4.0))
def test_more_bandwidth_never_slows_a_step(s, factor):
    e = _estimate(s)
    hw = CAT.gpu(s.gpu)
    faster = _catalog_with(hw.id, hbm_bandwidth_bytes_per_s=hw.hbm_bandwidth_bytes_per_s * factor)
    assert estimate(s, faster).decode_ms_per_token <= e.decode_ms_per_token * (1 + 1e-12)
    assert estimate(s, faster).prefill_ms <= e.prefill_ms * (1 + 1e-12)


@settings(max_examples=80, deadline=None)
@given(scenarios)
def test_fewer_bytes_per_weight_never_slows_decode(s):
    # FP16, INT8 weight-only and INT4 weight-only all compute in FP16: at the floor only the bytes
    # differ. (A real engine also pays to unpack each weight, so at large batches W4A16 can be
    # slower than FP16: model/physics/step.py, dequantisation.)
    times = [_estimate(s.with_(precision=p, kv_precision="fp16", engine="ideal")).decode_ms_per_token
             for p in ("fp16", "w8a16", "int4")]
    assert times[0] >= times[1] >= times[2]


@settings(max_examples=60, deadline=None)
@given(scenarios.filter(lambda s: s.phase == "decode"))
def test_throughput_never_falls_as_batch_grows_while_it_fits(s):
    """More sequences in a step never give fewer tokens per second while the batch fits — except where an
    MoE model's experts pad their tokens to a grouped GEMM's tile (block FP8 and FP4 where the part
    multiplies them natively: model/physics/step._moe_tile). There an expert's rows jump by a whole tile
    once its tokens pass one, so tokens per second form a sawtooth
    (test_padded_experts_make_throughput_a_sawtooth_but_never_a_faster_step), and what must hold is that
    a bigger batch never makes the step itself faster."""
    e = _estimate(s.with_(batch=1))
    top = min(e.max_batch_that_fits, 4096)
    assume(top >= 2)
    sw = sweep_batch(s, list(range(1, top + 1, max(1, top // 64))))
    series = sw.decode_ms_per_token if moe_tile(resolve(s)) > 1 else sw.output_tokens_per_s
    assert all(b >= a * (1 - 1e-9) for a, b in zip(series, series[1:]))


def test_padded_experts_make_throughput_a_sawtooth_but_never_a_faster_step():
    """gpt-oss-20b in block FP8 on an H100 (32 experts, 4 a token, tiles of 128 rows): past batch ~900
    an expert's ~B/8 tokens spill into a second tile (Poisson: at B = 897, 6% of experts; at 1 153, 91%),
    the experts' rows grow ~80% for 28% more tokens, and tokens per second fall while the step grows."""
    s = Scenario(gpu="h100-sxm5-80gb", model="gpt-oss-20b", precision="fp8-block", input_len=1, output_len=1)
    assert moe_tile(resolve(s)) == 128
    sw = sweep_batch(s, [897, 1153])
    assert sw.output_tokens_per_s[1] < sw.output_tokens_per_s[0]
    assert sw.decode_ms_per_token[1] > sw.decode_ms_per_token[0]


@settings(max_examples=80, deadline=None)
@given(scenarios, st.sampled_from([2, 4, 8, 16, 32, 64]))
def test_speedup_from_n_gpus_stays_below_n(s, n):
    one = _estimate(s.with_(gpus=1))
    many = _estimate(s.with_(gpus=n))
    assert one.decode_ms_per_token / many.decode_ms_per_token < n
    assert many.output_tokens_per_s / one.output_tokens_per_s < n


def test_a_sweep_compares_by_identity():
    """A BatchSweep holds arrays: it compares and hashes by identity (array equality has no
    single truth value), so sweeps can sit in sets and dicts."""
    s = Scenario()
    a, b = sweep_batch(s, [1, 2, 4]), sweep_batch(s, [1, 2, 4])
    assert a == a and a != b
    assert len({a, b}) == 2
