"""What fits in HBM, per GPU.

    weights   = total params × bytes per weight / (tp · pp)          (every expert is resident;
                a mixed format: the routed experts at their own bytes per weight)
    KV cache  = B × (input + output) × kv_values × kv_bytes / (tp_kv · pp)   (window-capped; a model that
                mixes layer kinds: each kind holds its own, a linear kind its fixed state: mixers.held_bytes)
    workspace = workspace_fraction × HBM capacity                    (context, activations)
    fits      ⇔ weights + KV cache + workspace ≤ HBM capacity
    largest batch that fits = ⌊(capacity − workspace − weights) / KV per sequence⌋
"""
from __future__ import annotations

import math

from model.catalog.parts import LLM, Precision
from model.physics.mixers import growing_bytes_per_token, held_bytes
from model.physics.scenario import ResolvedScenario
from model.values import frozen


@frozen
class Footprint:
    """HBM per GPU: capacity, and what weights, KV cache and workspace take (bytes)."""

    capacity_bytes: float
    weight_bytes: float
    kv_bytes_per_sequence: float
    kv_bytes: float
    workspace_bytes: float

    @property
    def needed_bytes(self) -> float:
        return self.weight_bytes + self.kv_bytes + self.workspace_bytes

    @property
    def fits(self) -> bool:
        return self.needed_bytes <= self.capacity_bytes

    @property
    def max_batch(self) -> int:
        room = self.capacity_bytes - self.workspace_bytes - self.weight_bytes
        if room <= 0:
            return 0
        return int(min(math.floor(room / self.kv_bytes_per_sequence), 10**9))


def resident_weight_bytes(llm: LLM, precision: Precision) -> float:
    """Every weight's bytes: total params × bytes per weight, or, in a mixed format, the routed
    experts at their own bytes per weight and the rest at the format's."""
    p = llm.params
    if precision.mixed and llm.is_moe:
        return (p.total - p.routed_total) * precision.bytes_per_weight + p.routed_total * precision.expert_bytes_per_weight
    return p.total * precision.bytes_per_weight


def streamed_weight_bytes(llm: LLM, precision: Precision, batch_tokens):
    """Bytes of the weights a pass over ``batch_tokens`` tokens reads (MoE: the experts they touch)."""
    p = llm.params
    if precision.mixed and llm.is_moe:
        return p.streamed_dense * precision.bytes_per_weight + (p.streamed(batch_tokens) - p.streamed_dense) \
            * precision.expert_bytes_per_weight
    return p.streamed(batch_tokens) * precision.bytes_per_weight


def kv_bytes_per_sequence(rs: ResolvedScenario, context: float) -> float:
    """KV cache of one sequence at ``context`` tokens, per GPU."""
    shp = rs.llm.shape
    if shp.kinds:
        return held_bytes(shp.kinds, context, rs.kv.bytes_per_value, shp.state_bytes_per_value, rs.tp) / rs.pp
    ctx = min(context, shp.sliding_window) if shp.sliding_window else context
    return ctx * shp.kv_values_per_token * rs.kv.bytes_per_value / (rs.tp_kv * rs.pp)


def kv_bytes_per_token(rs: ResolvedScenario) -> float:
    """KV cache per cached token, per GPU: what a block of cache tokens costs (a linear kind's fixed
    state is per sequence, not per token; a window caps how many tokens, not their size)."""
    shp = rs.llm.shape
    if shp.kinds:
        return growing_bytes_per_token(shp.kinds, rs.kv.bytes_per_value, rs.tp) / rs.pp
    return kv_bytes_per_sequence(rs, 1.0)


def footprint(rs: ResolvedScenario, workspace_fraction: float, batch: int | None = None,
              context: float | None = None) -> Footprint:
    s = rs.scenario
    cap = rs.hw.hbm_capacity_bytes
    ctx = float(context if context is not None else s.input_len + s.output_len)
    b = s.batch if batch is None else batch
    weights = resident_weight_bytes(rs.llm, rs.precision) / (rs.tp * rs.pp)
    per_seq = kv_bytes_per_sequence(rs, ctx)
    return Footprint(cap, weights, per_seq, b * per_seq, workspace_fraction * cap)
