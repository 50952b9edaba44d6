"""The roofline: attainable FLOP/s = min(peak FLOP/s, intensity × bandwidth).

    arithmetic intensity I = FLOPs / bytes moved                         [FLOP/byte]
    ridge point          I* = peak FLOP/s / peak bytes/s                 (H100 BF16: 989 T / 3.35 T ≈ 295)
    decode at batch B:   I(B) = (2·A + c·a)·B / (P(B)·b + B·k(c))
    critical batch:      the B where I(B) = I*; weights only (k = 0, dense): B* = I*·b·P / (2·A) ≈ I*·b/2.
With the KV cache, I(B) tends to (2A + c·a)/k(c) as B grows: if that is below the ridge,
decode stays memory-bound at any batch, and the critical batch is None.
"""
from __future__ import annotations

import functools

import numpy as np

from model.catalog.active import default_efficiency
from model.physics.memory import streamed_weight_bytes
from model.physics.mixers import decode_mix
from model.physics.scenario import ResolvedScenario
from model.values import kept


def attainable_flops(intensity, peak_flops: float, bandwidth_bytes_per_s: float):
    """Roofline ceiling at ``intensity`` FLOP/byte (broadcasts over arrays)."""
    return np.minimum(peak_flops, np.asarray(intensity, dtype=float) * bandwidth_bytes_per_s)


def ridge_flops_per_byte(peak_flops: float, bandwidth_bytes_per_s: float) -> float:
    return peak_flops / bandwidth_bytes_per_s


def critical_batch(rs: ResolvedScenario, context: float | None, weights_only: bool = False) -> float | None:
    """Batch at which a decode step turns compute-bound at peak numbers (None: never). Weights only,
    it depends on the parts alone: worked out once per part combination (``_weights_only``)."""
    if weights_only:            # (kept with the parts: every scenario on them shares it)
        return kept(rs, "critical_batch_weights_only", lambda r: _weights_only(
            default_efficiency(), r.hw, r.llm, r.precision, r.compute_dtype, r.tp))
    return _critical_batch(rs, context, False)


@functools.lru_cache(maxsize=256)
def _weights_only(table, hw, llm, precision, compute_dtype: str, tp: int) -> float | None:
    """``critical_batch(rs, None, weights_only=True)`` for every resolved scenario with these parts
    (what it reads of one: peak FLOP/s from ``table``, bandwidth, bytes per weight, the model, tp)."""
    rs = ResolvedScenario(None, hw, llm, precision, None, compute_dtype, False, tp, 1, None, ())
    return _critical_batch(rs, None, True)


def sequence_terms(rs: ResolvedScenario, context: float) -> tuple[float, float]:
    """(FLOPs, bytes) one more sequence adds to a decode step at ``context``, per GPU: its tokens'
    weight FLOPs and attention; its KV cache (or state) and activations."""
    llm, shp = rs.llm, rs.llm.shape
    act = shp.activation_values_per_token * rs.precision.activation_bytes / rs.tp
    if shp.kinds:
        kvb, attn, _ = decode_mix(shp.kinds, 1.0, context, rs.kv.bytes_per_value, shp.state_bytes_per_value, rs.tp, 0.0)
        return (2.0 * llm.params.active_per_token + attn) / rs.tp, kvb + act
    ctx = context
    if shp.sliding_window:
        ctx = min(ctx, shp.sliding_window)
    flops_per_seq = (2.0 * llm.params.active_per_token + ctx * shp.attention_flops_per_context) / rs.tp
    bytes_per_seq = ((ctx + 1.0) * shp.kv_values_per_token * rs.kv.bytes_per_value / rs.tp_kv + act)
    return flops_per_seq, bytes_per_seq


def _critical_batch(rs: ResolvedScenario, context: float | None, weights_only: bool) -> float | None:
    llm, shp = rs.llm, rs.llm.shape
    ridge = ridge_flops_per_byte(rs.peak_flops, rs.hw.hbm_bandwidth_bytes_per_s)
    bpw = rs.precision.bytes_per_weight
    mixed = rs.precision.mixed and llm.is_moe
    if weights_only:
        flops_per_seq = 2.0 * llm.params.active_per_token / rs.tp
        bytes_per_seq = 0.0
    else:
        flops_per_seq, bytes_per_seq = sequence_terms(rs, float(context))
    slope = flops_per_seq - ridge * bytes_per_seq
    if slope <= 0:
        return None
    b = 1.0
    dense = not llm.params.experts                  # streamed(b) is the dense weights whatever b
    for _ in range(60):  # fixed point; one pass for dense models, MoE converges monotonically
        if mixed:                                   # the experts at their own bytes per weight
            nxt = ridge * float(streamed_weight_bytes(llm, rs.precision, b)) / rs.tp / slope
        else:
            streamed = llm.params.streamed_dense + 0.0 if dense else float(llm.params.streamed(b))
            nxt = ridge * streamed * bpw / rs.tp / slope
        if abs(nxt - b) <= 1e-9 * nxt:
            b = nxt
            break
        b = nxt
    return max(b, 1.0)
