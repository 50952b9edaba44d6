"""What fits in HBM, per GPU.

    weights   = total params × bytes per weight / (tp · pp)          (every expert is resident)
    KV cache  = B × (input + output) × kv_values × kv_bytes / (tp_kv · pp)   (window-capped)
    workspace = workspace_fraction × HBM capacity                    (context, activations)
    fits      ⇔ weights + KV cache + workspace ≤ HBM capacity
    largest batch that fits = ⌊(capacity − workspace − weights) / KV per sequence⌋
"""
from __future__ import annotations

import math

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


def kv_bytes_per_sequence(rs: ResolvedScenario, context: float) -> float:
    """KV cache of one sequence at ``context`` tokens, per GPU."""
    shp = rs.llm.shape
    ctx = min(context, shp.sliding_window) if shp.sliding_window else context
    return ctx * shp.kv_values_per_token * rs.kv.bytes_per_value / (rs.tp_kv * rs.pp)


def footprint(rs: ResolvedScenario, workspace_fraction: float, batch: int | None = None,
              context: float | None = None) -> Footprint:
    s = rs.scenario
    cap = rs.hw.hbm_capacity_bytes
    ctx = float(context if context is not None else s.input_len + s.output_len)
    b = s.batch if batch is None else batch
    weights = rs.llm.params.total * rs.precision.bytes_per_weight / (rs.tp * rs.pp)
    per_seq = kv_bytes_per_sequence(rs, ctx)
    return Footprint(cap, weights, per_seq, b * per_seq, workspace_fraction * cap)
