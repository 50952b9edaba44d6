"""One pass as the kernels an engine runs: each with its bytes, FLOPs, time and what bounds it.

    kernel k          bytes_k (per GPU), FLOPs_k, memory_k = bytes_k ÷ achieved bytes/s,
                      compute_k = FLOPs_k ÷ achieved FLOP/s (+ dequantisation for weight-only kernels)
    time_k            = max(memory_k, compute_k)                    (the kernel's own roofline)
    intensity_k       = FLOPs_k ÷ bytes_k                           [FLOP/byte]
    step time         = Σ_k time_k + communication + overhead      (model/physics/cost.pass_cost)
    attained FLOP/s   = FLOPs_k ÷ time_k ≤ min(peak, intensity_k × peak bytes/s)   (under the roofline)

The names are model/physics/cost.KERNELS; "scores" is the score matrix written and read back by an
attention without flash attention (memory only), absent otherwise; "experts" only for MoE models.
"""
from __future__ import annotations

import numpy as np

from model.physics.cost import GEMM_KERNELS, KERNELS, PassCost, PassTerms
from model.values import frozen


@frozen
class KernelCost:
    """One kernel of a pass, per GPU (times include a pipeline prefill's fill, as the pass's do)."""

    name: str
    bytes: float
    flops: float
    memory_s: float
    compute_s: float

    @property
    def time_s(self) -> float:
        return max(self.memory_s, self.compute_s)

    @property
    def intensity_flops_per_byte(self) -> float:
        return self.flops / self.bytes if self.bytes > 0 else float("inf")

    @property
    def bound(self) -> str:
        return "compute" if self.compute_s > self.memory_s else "memory"

    @property
    def attained_flops(self) -> float:
        return self.flops / self.time_s if self.time_s > 0 else 0.0


def kernel_costs(terms: PassTerms, cost: PassCost, point: int | None = None) -> tuple[KernelCost, ...]:
    """The kernels of one pass (a scalar pass: one batch, one context; or ``point`` of a pass
    computed over several, the last axis), in KERNELS order, without the ones that move nothing
    (no experts in a dense model, no scores with flash attention)."""
    def at(x, rows: int | None = None) -> list[float]:
        x = np.asarray(x, dtype=float)
        if point is not None and x.ndim:
            x = x[..., point]
        return x.reshape(rows).tolist() if rows else [float(x)]

    n = len(GEMM_KERNELS)
    byts = at(terms.gemm_bytes, n) + at(terms.kv_bytes) + at(terms.score_bytes)
    flops = at(terms.gemm_flops, n) + at(terms.attention_flops) + [0.0]
    mem, comp = at(cost.kernel_memory_s, len(KERNELS)), at(cost.kernel_compute_s, len(KERNELS))
    return tuple(KernelCost(name, b, f, m, c)
                 for name, b, f, m, c in zip(KERNELS, byts, flops, mem, comp) if b > 0 or f > 0)
