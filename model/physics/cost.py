"""What one forward pass costs, per GPU, from its terms (model/physics/step.py makes the terms):

    kernel k (GEMM)   max(bytes_k / (BW·η_bw), FLOPs_k / (F·η_c) + dequantised_k × ops / FP32 FLOP/s)
    attention         max(KV bytes / (BW·η_bw·η_kv), attention FLOPs / (F·η_c))
    scores            score bytes / (BW·η_bw)            (no flash attention: kernels of their own)
    GPU time          Σ kernels + communication + passes·L·layer overhead
    host issue time   passes·L·host time per layer       (eager engines only; where graphs hold decode
                                                          steps only, every pass with prompts)
    time              (‖GPU, host‖₆ + passes·step overhead) × stretch + request overhead
    floor             max(bytes / BW, FLOPs / F) × stretch    (datasheet peaks: no overhead, no links)

BW and F are the datasheet's peak bytes/s and the matmul FLOP/s (F·η_c never past the part's peak);
η are an engine's fractions (model/catalog/engines.Efficiency). Times in seconds, per GPU; every
field a float or a numpy array (broadcast): one point, a sweep, or every measured row at once.
"""
from __future__ import annotations

import math
from dataclasses import field

import numpy as np

from model.catalog.engines import Efficiency
from model.values import frozen, kept

GEMM_KERNELS = ("qkv", "out_proj", "mlp_up", "mlp_down", "experts", "lm_head", "small")
KERNELS = GEMM_KERNELS + ("attention", "scores")      # PassCost.kernel_*_s order


@frozen
class PassTerms:
    """What one pass moves and computes per GPU, before any engine factor (floats or arrays)."""

    weight_bytes: object
    kv_bytes: object
    activation_bytes: object
    flops: object
    attention_flops: object       # the part of ``flops`` in the attention kernel (QKᵀ, PV)
    dequant_weights: object       # weights a weight-only kernel unpacks (0 when stored in the maths type)
    bandwidth_bytes_per_s: float  # datasheet peak
    peak_flops: float             # datasheet tensor peak of the maths type (the floor uses it)
    matmul_flops: float           # the peak the engine's matmul kernels run against
    vector_flops: float           # FP32 CUDA-core rate, where dequantisation runs
    latency_s: object             # Σ link latencies of the pass's all-reduces and pipeline hops
    transfer_s: object            # Σ bytes / link bytes/s of the same
    layers: float                 # layers counted in a dense layer's kernels (step.layer_equivalents)
    stretch: object = 1.0         # pipeline fill of a prefill: (m + pp − 1)/pp
    requests: object = 0.0        # request overheads this pass carries (1 for a prefill)
    score_bytes: object = 0.0     # attention scores written to and read from memory (no flash attention)
    passes: object = 1.0          # passes a chunked prefill runs (each pays the step and layer overheads)
    # the weight kernels (GEMM_KERNELS order along the first axis): bytes (weights + activations),
    # FLOPs, weights a weight-only kernel unpacks (a plain 0.0 where none does); they add up to the
    # totals above. latency_s and transfer_s are plain 0.0 without links.
    gemm_bytes: object = 0.0
    gemm_flops: object = 0.0
    gemm_dequant: object = 0.0

    @property
    def bytes(self):
        return self.weight_bytes + self.kv_bytes + self.activation_bytes


@frozen
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
    kernel_memory_s: object = 0.0    # per kernel (KERNELS order along the first axis), × stretch
    kernel_compute_s: object = 0.0
    terms: PassTerms | None = field(default=None, compare=False, repr=False)    # what the cost is of

    @property
    def floor_s(self):
        """max(bytes / peak bandwidth, FLOPs / peak FLOP/s) × stretch: no overhead, no comm (on first
        use: the estimate works out only its own points, with ``floor_s``)."""
        t = self.terms
        return kept(self, "floor_s", lambda _c: floor_s(t.bytes, t.flops, t.bandwidth_bytes_per_s, t.peak_flops,
                                                         t.stretch))

    @property
    def kernel_s(self):
        """Each kernel's time: the longer of its memory and its compute time (KERNELS order)."""
        return np.maximum(self.kernel_memory_s, self.kernel_compute_s)

    @property
    def bytes(self):
        return self.weight_bytes + self.kv_bytes + self.activation_bytes


def pass_cost(t: PassTerms, eff: Efficiency, compute_fraction=None, rate=None) -> PassCost:
    """Apply an engine's factors to a pass (factors may be arrays, one per pass: the fit does).

        kernel k (GEMM):   max(bytes_k / (BW·η_bw), FLOPs_k / (F·η_c) + dequant_k)
        attention:         max(KV bytes / (BW·η_bw·η_kv), attention FLOPs / (F·η_c))
        scores:            score bytes / (BW·η_bw)      (their own kernels: no flash attention)
        GPU  = Σ kernels + comm + passes·L·layer overhead
        host = passes·L·host time per layer             (eager engines; decode-only graphs: passes with prompts)
        time = (‖GPU, host‖₆ + passes·step overhead) × stretch + request overhead
    The kernels run one after another, so each is bound by its own resource and their times add
    (≥ the floor max(Σ bytes/BW, Σ FLOPs/F)); the host queues them ahead of the GPU, so its issue
    time only shows where it exceeds the GPU's (the wait is counted as overhead). ``rate``, instead of
    ``compute_fraction``: the matmul rate ``matmul_rate`` gives, already worked out (a joined pass's, per pass)."""
    bw = t.bandwidth_bytes_per_s * eff.hbm_fraction
    if rate is None:
        rate = matmul_rate(t.matmul_flops, compute_fraction, t.peak_flops)
    k = t.stretch
    n = len(GEMM_KERNELS)
    both = np.empty((2, n + 2) + t.gemm_bytes.shape[1:])                # memory, compute: KERNELS order
    kmem, kcomp = both
    np.divide(t.gemm_bytes, bw, out=kmem[:n])
    kmem[n] = t.kv_bytes / (bw * eff.kv_read_fraction)                  # attention
    kmem[n + 1] = t.score_bytes / bw                                    # scores
    np.divide(t.gemm_flops, rate, out=kcomp[:n])
    dq = t.gemm_dequant
    if dq.__class__ is not float or dq:                                 # a plain 0.0: nothing unpacked
        kcomp[:n] += dq * eff.dequant_ops_per_weight / t.vector_flops
    kcomp[n] = t.attention_flops / rate
    kcomp[n + 1] = 0.0
    one = k.__class__ is float and k == 1.0              # no pipeline fill (a plain 1.0: nothing to stretch)
    if not one:
        both *= k
    comm_k, gpu_fixed, step_k, request_s, overhead, host_s = fixed_costs(
        eff, t.layers, k, t.requests, t.passes, t.latency_s, t.transfer_s)
    gpu = kernel_sum(np.maximum(kmem, kcomp)) + gpu_fixed
    if host_s.__class__ is float and not host_s:          # no host term (graphs: the common case, kept cheap)
        time = gpu + step_k + request_s
    else:
        host_wait = queue_wait(gpu, host_s)
        overhead = overhead + host_wait
        time = gpu + host_wait + step_k + request_s
    memory_s, compute_s = kernel_sum(both, axis=1)
    return PassCost(t.weight_bytes, t.kv_bytes, t.activation_bytes, t.flops, memory_s, compute_s,
                    comm_k, overhead, time, kmem, kcomp, t)


def floor_s(bytes_, flops, bandwidth_bytes_per_s: float, peak_flops: float, stretch=1.0):
    """The roofline floor of a pass: max(bytes / peak bytes/s, FLOPs / peak FLOP/s) × stretch (the
    datasheet's peaks, no overhead, no communication); plain numbers or arrays."""
    memory, compute = bytes_ / bandwidth_bytes_per_s, flops / peak_flops
    if memory.__class__ is float and compute.__class__ is float:
        floor = memory if memory >= compute else compute
    else:
        floor = np.maximum(memory, compute)
    return floor if stretch.__class__ is float and stretch == 1.0 else floor * stretch


def fixed_costs(eff: Efficiency, layers: float, stretch, requests, passes, latency_s, transfer_s) -> tuple:
    """What a pass costs besides its kernels (plain numbers or arrays, broadcast):
        communication  (Σ link latencies × latency scale + Σ transfers) × communicates
        layer / step   passes·L·layer overhead, passes·step overhead
        request        requests × request overhead;   host issue  passes·L·host time per layer·eager
    (eager: 1 where the engine issues every kernel; where its graphs hold decode steps only, 1 for a
    pass that starts prompts: requests > 0)
    Returns (communication, communication + layer overhead, step overhead, request overhead,
    overhead before any wait for the host, host issue time), each × stretch but the request's."""
    k = stretch
    comm = (latency_s * eff.allreduce_latency_scale + transfer_s) * eff.communicates
    layers = passes * layers
    layer_s, step_s = layers * eff.layer_overhead_s, passes * eff.step_overhead_s
    request_s = requests * eff.request_overhead_s
    eager = _eager(eff, requests)
    if (eager.__class__ in (bool, int, float) or np.ndim(eager) == 0) and not eager:
        host_s = 0.0                                      # graphs: no host term
    else:
        host_s = layers * eff.host_layer_s * eager * k
    if k.__class__ is float and k == 1.0:                 # no pipeline fill (× a plain 1.0 skipped: the same numbers)
        gpu_fixed = layer_s if comm.__class__ is float and not comm else comm + layer_s   # (0.0 + x: x)
        return comm, gpu_fixed, step_s, request_s, step_s + layer_s + request_s, host_s
    return comm * k, (comm + layer_s) * k, step_s * k, request_s, (step_s + layer_s) * k + request_s, host_s


def _eager(eff: Efficiency, requests):
    """Efficiency.host_issues for a pass that starts prompts where requests > 0 (plain numbers stay
    plain: the common case, kept cheap)."""
    ep = eff.eager_prefill
    if ep.__class__ is float and not ep:
        return eff.eager
    if np.ndim(requests) == 0:
        return eff.host_issues(requests > 0)
    return np.where(np.asarray(requests) > 0, eff.host_issues(True), eff.eager)


def matmul_rate(matmul_flops: float, compute_fraction, peak_flops: float):
    """FLOP/s the matmul kernels reach: min(matmul peak × compute fraction, the part's peak)."""
    if compute_fraction.__class__ is float:
        rate = matmul_flops * compute_fraction
        return rate if rate <= peak_flops else peak_flops
    return np.minimum(matmul_flops * compute_fraction, peak_flops)


def kernel_sum(x, axis: int = 0):
    """Σ over the kernels (axis ``axis``: 0, or 1 for a stack of per-kernel arrays), added in
    KERNELS order whatever the shape, so a pass gives exactly the same numbers for a point alone or
    among others (numpy adds the rows of a (k, n ≥ 2) array one after another — also along axis 1
    of a (s, k, n ≥ 2) one — but a (k,) or (k, 1) one pairwise)."""
    if x.ndim > axis + 1 and x.size > x.shape[axis] * (x.shape[0] if axis else 1):
        return np.add.reduce(x, axis=axis)             # (x.sum(axis) without its Python wrapper)
    if axis:
        sums = [kernel_sum(row) for row in x]            # one point: plain floats, as kernel_sum(row)
        return np.stack(sums) if x.ndim > 2 else sums
    total = 0.0
    for v in x.ravel().tolist():
        total += v
    return total if x.ndim == 1 else np.array(total).reshape(x.shape[1:])


QUEUE_NORM = 6.0      # the p of ‖GPU, host‖_p: how sharply the slower of the two takes over


def queue_wait(gpu_s, host_s):
    """Time the GPU waits for a host that issues its kernels (‖GPU, host‖₆ − GPU, ≥ 0): nothing
    while the host is well ahead, the host's lead deficit once it falls behind. 0 without a host term."""
    g, h = np.asarray(gpu_s, dtype=float), np.asarray(host_s, dtype=float)
    big = np.maximum(g, h)
    safe = np.where(big > 0, big, 1.0)
    norm = big * ((g / safe) ** QUEUE_NORM + (h / safe) ** QUEUE_NORM) ** (1.0 / QUEUE_NORM)
    return np.where(h > 0, norm - g, 0.0)


def queue_wait_s(gpu_s: float, host_s: float) -> float:
    """``queue_wait`` for plain numbers (the serving scheduler calls it once per step)."""
    if host_s <= 0.0:
        return 0.0
    big = gpu_s if gpu_s > host_s else host_s
    return big * math.pow((gpu_s / big) ** QUEUE_NORM + (host_s / big) ** QUEUE_NORM, 1.0 / QUEUE_NORM) - gpu_s
