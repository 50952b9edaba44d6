"""The physics of one forward pass: bytes moved, FLOPs done, time taken.

For a decode step of batch B at context c on a tensor-parallel group of tp GPUs
(per GPU; P = weights streamed, A = weights used per token, b = bytes per weight):

    weight bytes      = P(B)·b / tp                  (MoE: P grows with experts touched)
    KV-cache bytes    = B·min(c, window)·kv_values·kv_bytes / tp_kv   (+ the new token's KV written)
    activation bytes  = B·act_values·act_bytes / tp
    FLOPs             = (2·A·B + B·c·attention_flops) / tp
    memory time       = bytes / (HBM bytes/s × hbm_fraction)
    compute time      = FLOPs / (peak FLOP/s × compute_fraction)
    communication     = allreduces × (α + 2(tp−1)/tp · B·d·2 bytes / link bytes/s)   (16-bit sums)
                        + (pp−1) network hops
    step time         = max(memory, compute) + communication + overheads

Pipeline stages (pp > 1) split the batch into m = min(pp, B) micro-batches: a token
still crosses every stage, so its latency is that of the whole model at batch B/m, while
the group carries B tokens per step. Everything broadcasts over numpy arrays of batch
and context, so the sweep and the estimate share this one implementation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.efficiency import IDEAL, Efficiency
from model.scenario import ResolvedScenario


@dataclass(frozen=True)
class PassCost:
    """Cost of one forward pass, per GPU. Fields are floats or numpy arrays (broadcast)."""

    weight_bytes: object
    kv_bytes: object
    activation_bytes: object
    flops: object
    memory_s: object
    compute_s: object
    comm_s: object
    overhead_s: object
    time_s: object
    floor_s: object           # max(bytes / peak bandwidth, FLOPs / peak FLOP/s): no overhead, no comm

    @property
    def bytes(self):
        return self.weight_bytes + self.kv_bytes + self.activation_bytes


def allreduce_bytes(rs: ResolvedScenario, tokens):
    """Bytes one GPU sends in a step's tensor-parallel all-reduces (ring, 16-bit partial sums):
    allreduces × 2(tp−1)/tp × tokens·d·c."""
    if rs.tp == 1 or rs.tp_link is None:
        return 0.0 * tokens
    llm = rs.llm
    n = llm.layers * llm.shape.allreduces_per_layer
    return n * 2.0 * (rs.tp - 1) / rs.tp * tokens * llm.hidden * rs.precision.comm_bytes


def pipeline_hop_bytes(rs: ResolvedScenario, tokens):
    """Bytes the pipeline hops carry in a step: (pp−1) × tokens·d·c."""
    if rs.pp == 1:
        return 0.0 * tokens
    return (rs.pp - 1) * tokens * rs.llm.hidden * rs.precision.comm_bytes


def _allreduce_s(rs: ResolvedScenario, tokens, eff: Efficiency):
    """Time of the tensor-parallel all-reduces (ring: 2(tp−1)/tp of the message per GPU)."""
    if rs.tp == 1 or rs.tp_link is None:
        return 0.0 * tokens
    llm, link = rs.llm, rs.tp_link
    n = llm.layers * llm.shape.allreduces_per_layer
    return n * link.latency_s * eff.allreduce_latency_scale + allreduce_bytes(rs, tokens) / link.bandwidth_bytes_per_s


def _pipeline_hops_s(rs: ResolvedScenario, tokens, eff: Efficiency):
    if rs.pp == 1:
        return 0.0 * tokens
    net = rs.hw.network
    return ((rs.pp - 1) * net.latency_s * eff.allreduce_latency_scale
            + pipeline_hop_bytes(rs, tokens) / net.bandwidth_bytes_per_s)


def _combine(rs: ResolvedScenario, eff: Efficiency, compute_fraction: float,
             wb, kvb, ab, flops, comm, overhead) -> PassCost:
    bw = rs.hw.hbm_bandwidth_bytes_per_s
    peak = rs.peak_flops
    total = wb + kvb + ab
    mem = total / (bw * eff.hbm_fraction)
    comp = flops / (peak * compute_fraction)
    time = np.maximum(mem, comp) + comm + overhead
    floor = np.maximum(total / bw, flops / peak)
    return PassCost(wb, kvb, ab, flops, mem, comp, comm, overhead, time, floor)


def microbatch(rs: ResolvedScenario, batch):
    """Micro-batches in flight m = min(pp, B) and the size of each, B/m."""
    if rs.pp == 1:
        return 1, batch
    m = np.minimum(rs.pp, batch)
    return m, batch / m


def decode_pass(rs: ResolvedScenario, batch, context, eff: Efficiency = IDEAL) -> PassCost:
    """One decode step for ``batch`` sequences at ``context`` cached tokens (per-token latency)."""
    llm, shp = rs.llm, rs.llm.shape
    _, b = microbatch(rs, np.asarray(batch, dtype=float))
    ctx = np.asarray(context, dtype=float)
    if shp.sliding_window:
        ctx = np.minimum(ctx, shp.sliding_window)
    kv_token_bytes = shp.kv_values_per_token * rs.kv.bytes_per_value
    wb = llm.params.streamed(b) * rs.precision.bytes_per_weight / rs.tp
    kvb = b * (ctx + 1.0) * kv_token_bytes / rs.tp_kv
    ab = b * shp.activation_values_per_token * rs.precision.activation_bytes / rs.tp
    flops = (2.0 * llm.params.active_per_token * b + b * ctx * shp.attention_flops_per_context) / rs.tp
    comm = _allreduce_s(rs, b, eff) + _pipeline_hops_s(rs, b, eff)
    overhead = eff.step_overhead_s + llm.layers * eff.layer_overhead_s
    return _combine(rs, eff, eff.compute_fraction_decode, wb, kvb, ab, flops, comm, overhead)


def prefill_pass(rs: ResolvedScenario, batch, prompt_len, eff: Efficiency = IDEAL) -> PassCost:
    """Prefill of ``batch`` prompts of ``prompt_len`` tokens (time to the first token).

    Causal attention: Σ context over a prompt of S tokens = S²/2 (window-capped).
    Pipeline: m micro-batches through pp stages take (m + pp − 1)/pp of one full pass."""
    llm, shp = rs.llm, rs.llm.shape
    batch = np.asarray(batch, dtype=float)
    m, b = microbatch(rs, batch)
    s = np.asarray(prompt_len, dtype=float)
    tokens = b * s
    w = shp.sliding_window
    ctx_sum = s * s / 2.0 if not w else np.where(s <= w, s * s / 2.0, w * w / 2.0 + (s - w) * w)
    kv_token_bytes = shp.kv_values_per_token * rs.kv.bytes_per_value
    wb = llm.params.streamed(tokens) * rs.precision.bytes_per_weight / rs.tp
    kvb = tokens * kv_token_bytes / rs.tp_kv
    ab = tokens * shp.activation_values_per_token * rs.precision.activation_bytes / rs.tp
    flops = (2.0 * llm.params.active_per_token * tokens + b * ctx_sum * shp.attention_flops_per_context) / rs.tp
    comm = _allreduce_s(rs, tokens, eff) + _pipeline_hops_s(rs, tokens, eff)
    overhead = eff.step_overhead_s + llm.layers * eff.layer_overhead_s
    one = _combine(rs, eff, eff.compute_fraction_prefill, wb, kvb, ab, flops, comm, overhead)
    stretch = (m + rs.pp - 1) / rs.pp
    return PassCost(one.weight_bytes, one.kv_bytes, one.activation_bytes, one.flops, one.memory_s * stretch,
                    one.compute_s * stretch, one.comm_s * stretch, one.overhead_s * stretch,
                    one.time_s * stretch, one.floor_s * stretch)
