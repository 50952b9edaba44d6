"""Expert parallelism and data-parallel attention in a serving replica (serve --ep N --dp-attention).

Expert parallelism (EP = n GPUs, each holding E/n whole experts): each GPU routes its T/n of the
step's T tokens to the experts they picked (dispatch) and gets the results back (combine):

    bytes one GPU sends per MoE layer = 2 × (T/n) × K × d × b × (n − 1)/n     dispatch + combine
    (K experts per token, d hidden, b bytes per activation value; (n − 1)/n of the picks live
    on another GPU). Within a node they cross the scale-up fabric (NVLink); on two nodes the
    share (n − n_node)/n of them crosses the network, the rest NVLink, both at once:
    time per MoE layer = 2·latency + max(intra bytes / NVLink B/s, inter bytes / network B/s)
                         (latency: the network's when any byte leaves the node)
    The MoE layers' tensor-parallel all-reduce is gone (the step table's all-reduces: 2(n − 1)/n ×
    T × d × c bytes each + latency; with data-parallel attention every all-reduce goes, without it
    the attention's stay).

Data-parallel attention (SGLang --enable-dp-attention, the DeepSeek-V3 report §3.4): each GPU runs
the attention of its own sequences with all the attention weights:
    + attention params × b × (1 − 1/n) bytes per step and GPU (read at the engine's share of HBM
      bandwidth), and each GPU reads only its own sequences' KV cache: KV bytes per token ÷ n
      instead of ÷ tp_kv; the group's KV cache holds n × (room per GPU) ÷ (a token's whole KV)
      tokens — for an MLA model, whose latent KV tensor parallelism replicates, n times more.
The dense layers, shared experts and LM head stay split n ways.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from model.catalog.active import default_efficiency
from model.physics.scenario import ResolvedScenario
from model.physics.step import allreduce_bytes
from model.serving.steptable import StepTable

PER_NODE = 8


def all_to_all_bytes(rs: ResolvedScenario, tokens, ep: int):
    """Bytes one GPU sends in one step's all-to-alls (dispatch + combine, every MoE layer)."""
    p = rs.llm.params
    if ep <= 1 or not p.moe_layers:
        return 0.0 * np.asarray(tokens, dtype=float)
    t = np.asarray(tokens, dtype=float)
    per_layer = 2.0 * (t / ep) * p.experts_per_token * rs.llm.hidden * rs.precision.activation_bytes * (ep - 1) / ep
    return p.moe_layers * per_layer


def all_to_all_s(rs: ResolvedScenario, tokens, ep: int, per_node: int = PER_NODE):
    """Seconds a step's all-to-alls take (see the module docstring); 0 without experts."""
    total = all_to_all_bytes(rs, tokens, ep)
    p = rs.llm.params
    if ep <= 1 or not p.moe_layers:
        return total
    hw = rs.hw
    local = min(ep, per_node)
    intra_share = (local - 1) / (ep - 1)
    fabric = hw.scale_up or hw.pcie or hw.network
    intra = total * intra_share / fabric.bandwidth_bytes_per_s
    if ep <= per_node:
        return intra + 2 * p.moe_layers * fabric.latency_s
    inter = total * (1.0 - intra_share) / hw.network.bandwidth_bytes_per_s
    return np.maximum(intra, inter) + 2 * p.moe_layers * hw.network.latency_s


def allreduce_s(rs: ResolvedScenario, tokens, latency_scale: float = 1.0):
    """Every tensor-parallel all-reduce of a step over ``tokens`` tokens, as the step model counts
    them (their latency × the engine's all-reduce latency scale + bytes / link bytes/s)."""
    t = np.asarray(tokens, dtype=float)
    if rs.tp == 1 or rs.tp_link is None:
        return 0.0 * t
    link = rs.tp_link
    calls = rs.llm.layers * rs.llm.shape.allreduces_per_layer
    return calls * link.latency_s * latency_scale + allreduce_bytes(rs, t) / link.bandwidth_bytes_per_s


def replicated_attention_s(rs: ResolvedScenario, ep: int, hbm_fraction: float) -> float:
    """What data-parallel attention costs in weight reads: each GPU reads all the attention
    weights, not 1/ep of them: attention params × bytes per weight × (1 − 1/ep) / (BW × η)."""
    extra = rs.llm.params.attention * rs.precision.bytes_per_weight * (1.0 - 1.0 / ep)
    return extra / (rs.hw.hbm_bandwidth_bytes_per_s * hbm_fraction)


def expert_parallel_table(tb: StepTable, rs: ResolvedScenario, ep: int) -> StepTable:
    """``tb`` (the replica as one tensor-parallel group of ``ep`` GPUs) as expert parallelism with
    data-parallel attention: no tensor-parallel all-reduce, the all-to-alls instead, every GPU
    reading all the attention weights, and each GPU's KV cache its own sequences' (the KV bytes
    per token ÷ ep instead of ÷ tp_kv)."""
    return parallel_table(tb, rs, ep, True)


def parallel_table(tb: StepTable, rs: ResolvedScenario, ep: int, dp_attention: bool) -> StepTable:
    """``tb`` (one tensor-parallel group of n = rs.tp GPUs) with experts over ``ep`` GPUs and/or
    attention data-parallel (the module's docstring has the terms)."""
    eff = default_efficiency().efficiency(rs.engine, rs.hw)
    t = tb.tokens
    n = rs.tp
    delta = 0.0 * t
    p = rs.llm.params
    if ep > 1 and p.moe_layers:
        share = 1.0 if dp_attention else p.moe_layers / (rs.llm.layers * rs.llm.shape.allreduces_per_layer)
        delta = delta + all_to_all_s(rs, t, ep) - share * allreduce_s(rs, t, eff.allreduce_latency_scale)
    kv = tb.kv_bytes_per_token
    if dp_attention and n > 1:
        delta = delta + replicated_attention_s(rs, n, eff.hbm_fraction)
        kv = kv * rs.tp_kv / n
    return dataclasses.replace(tb, gemm_decode_s=tb.gemm_decode_s + delta, gemm_prefill_s=tb.gemm_prefill_s + delta,
                               kv_bytes_per_token=kv)
