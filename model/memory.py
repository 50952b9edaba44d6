"""What fits in HBM, per GPU.

    weights   = total params × bytes per weight / (tp · pp)          (every expert is resident)
    KV cache  = B × (input + output) × kv_values × kv_bytes / (tp_kv · pp)   (window-capped)
    workspace = workspace_fraction × HBM capacity                    (context, activations)
    fits      ⇔ weights + KV cache + workspace ≤ HBM capacity
    largest batch that fits = ⌊(capacity − workspace − weights) / KV per sequence⌋
"""
from __future__ import annotations

import math

from model.format import si
from model.scenario import ResolvedScenario
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
    def free_bytes(self) -> float:
        return self.capacity_bytes - self.needed_bytes

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


def fit_note(fp: Footprint, batch: int, context_tokens: int, waves: int) -> str:
    """Why a scenario does not fit, in the terms the HBM bar shows (formatted with model.format):
    weights alone over capacity; weights + workspace over capacity (no room for any KV cache);
    or the batch's KV cache over what is left."""
    cap, w, ws = si(fp.capacity_bytes, "B"), si(fp.weight_bytes, "B"), si(fp.workspace_bytes, "B")
    if fp.weight_bytes > fp.capacity_bytes:
        return f"does not fit: the weights alone need {w} per GPU of {cap}"
    if fp.max_batch < 1:
        room = si(max(0.0, fp.capacity_bytes - fp.weight_bytes - fp.workspace_bytes), "B")
        return (f"does not fit: weights {w} + workspace {ws} leave {room} per GPU of {cap}, less than the "
                f"KV cache of one sequence of {context_tokens:,} tokens ({si(fp.kv_bytes_per_sequence, 'B')})")
    return (f"does not fit at batch {batch}: at most {fp.max_batch:,} sequences of {context_tokens:,} tokens "
            f"fit; end-to-end runs in {waves} waves")
