"""The physics of one forward pass: bytes moved, FLOPs done, time taken.

For a decode step of batch B at context c on a tensor-parallel group of tp GPUs
(per GPU; P = weights streamed, A = weights used per token, b = bytes per weight):

    weight bytes      = P(B)·b / tp                  (MoE: P grows with experts touched)
    KV-cache bytes    = B·min(c, window)·kv_values·kv_bytes / tp_kv   (+ the new token's KV written)
    activation bytes  = B·act_values·act_bytes / tp
    score bytes       = B·c·L·h·score bytes / tp where attention writes its scores to memory (no
                        flash attention; a prefill of S tokens writes S×S per head), in their own
                        memory-bound kernels: added to the time, not overlapped
    FLOPs             = (2·A·B + B·c·attention_flops) / tp
    memory time       = bytes / (HBM bytes/s × hbm_fraction)      (engine × sustained/datasheet)
    compute time      = FLOPs / (peak FLOP/s × compute_fraction)   (peak: tensor cores; for engines
                        whose quantised matmuls run on CUDA cores min(tensor peak, 4 × FP32: dp4a);
                        for FP16-accumulating engines on GeForce the full FP16-accumulate rate)
                        + dequantised weights × ops per weight / FP32 FLOP/s   (weight-only formats)
    communication     = allreduces × (α + 2(tp−1)/tp · B·d·2 bytes / link bytes/s)   (16-bit sums)
                        + (pp−1) network hops
    GPU time          = Σ_kernels max(memory_k, compute_k) + communication + L_eq·layer overhead
                        (L_eq: the layers counted in a dense layer's kernels, layer_equivalents)
    host issue time   = L_eq·host time per layer, for engines whose host launches every kernel (eager
                        PyTorch, MLX; 0 with CUDA graphs or on a graph-compiling platform), and for a
                        prefill pass where the graphs hold decode steps only (SGLang, vLLM's V0 engine)
    step time         = ‖GPU time, host issue time‖₆ + step overhead  (+ one request overhead per
                        prefill): the GPU runs behind the host's launch queue, so once the host is
                        the slower a faster GPU no longer shortens the step; ‖a, b‖₆ = (a⁶ + b⁶)^⅙
                        is the larger of the two where they differ (within 1% once one is 1.4× the
                        other) and 12% above it where they are equal, when kernel-to-kernel
                        variation makes the GPU wait part of the time
    chunked prefill   an engine that prefills in passes of C tokens runs n = ⌈B·S / C⌉ passes: the
                        weights are read n times, each pass pays the step and layer overheads, and
                        each chunk of a prompt reads the KV cache of the chunks before it

The kernels of a pass, in the order an engine runs them (each a roofline of its own):
    qkv        Q, K, V projections      weights d·(h + 2g)·k per layer, FLOPs 2·weights·tokens
    attention  QKᵀ and PV over the cache KV bytes, attention FLOPs (≈ 1 FLOP per byte in decode)
    scores     the score matrix written and read back, only without flash attention (memory only)
    out_proj   the O projection         h·k·d per layer
    mlp_up     the FFN's up (and gate)  2·d·f per layer when gated
    mlp_down   the FFN's down           f·d per layer
    experts    the routed experts (MoE) the experts the tokens touch, FLOPs 2·expert·Σ_e ⌈n_e/t⌉·t per
                                        MoE layer: each expert's n_e tokens padded to its grouped
                                        GEMM's tile of t rows (t = 1: 2·K·expert·tokens)
    lm_head    the vocabulary           V·d
    small      norms, biases, router    (elementwise and tiny matmuls)
Each GEMM kernel reads its weights once per pass (decode: intensity ≈ 2·tokens ÷ bytes per
weight, so it climbs with the batch) while attention reads each sequence's own cache (intensity
≈ 1 whatever the batch): the GEMMs turn compute-bound first and attention never does.

A model that mixes layer kinds (model/catalog/layers.py) reads and computes its attention kernel
kind by kind (model/physics/mixers.py: a window or a chunk caps the keys, a sparse kind's indexer
reads every key and its MLA the top-k, a linear kind reads and writes its fixed state); a model of
one kind takes the single-kind path above, so its numbers are exactly what they always were. A mixed
format reads its routed experts at their own bytes per weight and unpacks only them.

Pipeline stages (pp > 1) split the batch into m = min(pp, B) micro-batches: a token
still crosses every stage, so its latency is that of the whole model at batch B/m, while
the group carries B tokens per step. Everything broadcasts over numpy arrays of batch
and context, so the sweep and the estimate share this one implementation. ``*_terms`` give
the factor-free bytes, FLOPs and link traffic; ``pass_cost`` (model/physics/cost.py) applies an
engine's factors (the calibration applies arrays of factors to every measured row's terms at once).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from model.catalog.architecture import DENSE_LAYER_KERNELS
from model.catalog.engines import IDEAL, Efficiency
from model.catalog.active import default_efficiency
from model.physics.mixers import decode_mix, prefill_mix
from model.physics.cost import GEMM_KERNELS, PassCost, PassTerms, kernel_sum, matmul_rate, pass_cost
from model.physics.scenario import ResolvedScenario
from model.values import frozen, kept


def _comm_terms(rs: ResolvedScenario, tokens):
    """(latency, transfer) seconds of the tensor-parallel all-reduces (ring: 2(tp−1)/tp of the
    message per GPU) and the (pp − 1) pipeline hops, for ``tokens`` tokens in flight."""
    latency, transfer = 0.0, 0.0                          # plain 0.0 without links (one GPU): no array work
    if rs.tp > 1 and rs.tp_link is not None:
        latency = rs.llm.layers * rs.llm.shape.allreduces_per_layer * rs.tp_link.latency_s
        transfer = allreduce_bytes(rs, tokens) / rs.tp_link.bandwidth_bytes_per_s
    if rs.pp > 1:
        net = rs.hw.network
        latency = latency + (rs.pp - 1) * net.latency_s
        transfer = transfer + pipeline_hop_bytes(rs, tokens) / net.bandwidth_bytes_per_s
    return latency, transfer


def allreduce_bytes(rs: ResolvedScenario, tokens):
    """Bytes one GPU sends in a step's tensor-parallel all-reduces (ring, 16-bit partial sums):
    allreduces × 2(tp−1)/tp × tokens·d·c."""
    if rs.tp == 1 or rs.tp_link is None:
        return 0.0 * tokens
    llm = rs.llm
    n = llm.layers * llm.shape.allreduces_per_layer
    return tokens * (n * 2.0 * (rs.tp - 1) / rs.tp * llm.hidden * rs.precision.comm_bytes)   # (bytes per token first)


def pipeline_hop_bytes(rs: ResolvedScenario, tokens):
    """Bytes the pipeline hops carry in a step: (pp−1) × tokens·d·c."""
    if rs.pp == 1:
        return 0.0 * tokens
    return tokens * ((rs.pp - 1) * rs.llm.hidden * rs.precision.comm_bytes)     # (bytes per token first)


DTYPE_BITS = {"fp32": 32, "tf32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "fp4": 4, "int4": 4}


def weight_only(rs: ResolvedScenario) -> bool:
    """Whether the weights are stored narrower than the maths type and unpacked before each multiply
    (a mixed format: whether its experts are)."""
    stored = int(rs.precision.expert_weight_bits if experts_apart(rs) else rs.precision.weight_bits)
    return stored < DTYPE_BITS.get(rs.compute_dtype, stored)


def experts_apart(rs: ResolvedScenario) -> bool:
    """Whether a MoE model's routed experts are stored in a format of their own (gpt-oss: MXFP4 experts)."""
    return rs.precision.mixed and rs.llm.is_moe


def rest_unpacked(rs: ResolvedScenario) -> bool:
    """Whether the weights other than the routed experts are unpacked too (not so in a mixed format
    whose rest is stored in the maths type)."""
    stored = int(rs.precision.weight_bits)
    return stored < DTYPE_BITS.get(rs.compute_dtype, stored)




def gemm_split(rs: ResolvedScenario, tokens):
    """The weight kernels of a pass over ``tokens`` tokens (GEMM_KERNELS order), whole model:
    (weights streamed, weights each token multiplies with, activation values per token)."""
    p, shp = rs.llm.params, rs.llm.shape
    qkv, out = p.attention - p.attention_out, p.attention_out
    up, down = p.dense_ffn * (1.0 - p.ffn_down_share), p.dense_ffn * p.ffn_down_share
    routed = p.moe_layers * p.experts_per_token * p.expert
    touched = p.moe_layers * p.experts_touched(tokens) * p.expert
    ffn_active = p.dense_ffn + routed
    ffn_act = shp.ffn_activations / ffn_active if ffn_active else 0.0
    active = (qkv, out, up, down, routed, p.lm_weights, p.other)
    streamed = (qkv, out, up, down, touched, p.lm_weights, p.other)
    acts = (shp.qkv_activations, shp.attention_activations + shp.out_activations, up * ffn_act,
            down * ffn_act, routed * ffn_act, 0.0, 0.0)
    return streamed, active, acts


def _terms(rs: ResolvedScenario, tokens, kvb, attn, stretch=1.0, requests=0.0,
           scores=0.0, passes=1.0, latency_s=None, transfer_s=None) -> PassTerms:
    """A pass's terms per GPU from its token count (per micro-batch): each weight kernel's bytes
    (weights × bytes per weight, read once per pass of a chunked prefill, + activations × their
    bytes) and FLOPs (2 per weight per token). The arguments are ``decode_inputs``/``prefill_inputs``'s,
    then ``_comm_terms``' (worked out from ``tokens`` when not given)."""
    lat, tr = _comm_terms(rs, tokens) if latency_s is None else (latency_s, transfer_s)
    c = kept(rs, "pass", _pass_constants)
    if tokens.__class__ is np.ndarray and kvb.__class__ is np.ndarray and tokens.shape == kvb.shape:
        tz = tokens                                     # (a joined pass: every input already the whole shape)
    else:
        tz = tokens + 0.0 * kvb                         # the pass's whole shape (batch × context)
    shape = tz.shape if tz.__class__ is np.ndarray else np.shape(tz)
    if len(shape) == 1:                                 # the per-kernel constants against the pass's shape
        streamed_bytes, activation_bytes, active_flops, streamed = c.columns
    else:
        along = (-1,) + (1,) * len(shape)
        streamed_bytes, activation_bytes, active_flops, streamed = (x.reshape(along) for x in c.rows)
    g = np.empty((4 if c.weight_only else 3, len(GEMM_KERNELS)) + shape)   # weight bytes, activation bytes,
    wb, act, a = g if not c.weight_only else g[:3]      # FLOPs, and the weights unpacked (weight-only formats)
    wb[...] = streamed_bytes
    if c.moe:
        p = rs.llm.params
        touched = p.moe_layers * p.experts_touched(tz) * p.expert
        wb[EXPERTS] = touched * c.bytes_per_weight
    if passes.__class__ is not float or passes != 1.0:     # (a plain 1.0: one pass)
        wb *= passes
    np.multiply(activation_bytes, tz, out=act)
    np.multiply(active_flops, tz, out=a)
    if c.moe_tile > 1:                                  # each expert's tokens padded to the kernel's tile
        p = rs.llm.params
        a[EXPERTS] = active_flops[EXPERTS] * (p.expert_rows(tz, c.moe_tile) / p.experts_per_token)
    if c.weight_only:                                   # the weights each kernel unpacks, / tp
        dq = g[3]
        dq[...] = streamed
        if c.moe:
            dq[EXPERTS] = touched
        dq /= rs.tp
        if passes.__class__ is not float or passes != 1.0:
            dq *= passes
    sums = kernel_sum(g, axis=1)
    return PassTerms(sums[0], kvb, sums[1], sums[2] + attn, attn, sums[3] if c.weight_only else 0.0,
                     rs.hw.hbm_bandwidth_bytes_per_s, rs.peak_flops, c.matmul_flops, c.vector_flops, lat, tr,
                     layer_equivalents(rs), stretch, requests, scores, passes, wb + act, a,
                     dq if c.weight_only else 0.0)


EXPERTS = GEMM_KERNELS.index("experts")


def layer_equivalents(rs: ResolvedScenario) -> float:
    """The layers the per-layer overheads are paid for, counted in dense layers' kernels:

        L × (k + q·n) / k_dense

    k kernels a layer launches (k_dense = 9 for a dense layer, 14 with multi-head latent attention),
    q kernels that quantise a linear layer's input (block FP8: 1), n linear layers per layer. A layer
    of DeepSeek-V3 in block FP8 counts (14 + 6.9) / 9 = 2.3 dense layers; Llama in BF16, 1."""
    sh = rs.llm.shape
    kernels = sh.layer_kernels + rs.precision.activation_quant_kernels * sh.linears_per_layer
    return rs.llm.layers * kernels / DENSE_LAYER_KERNELS


@frozen(eq=False)
class _PassConstants:
    """What every pass of one resolved scenario shares (no batch or context changes it), worked out
    once per ResolvedScenario (model.values.kept)."""

    active_flops: np.ndarray       # per kernel: 2 FLOPs per weight a token multiplies with, / tp
    activation_bytes: np.ndarray   # per kernel: activation values per token × their bytes, / tp
    streamed: np.ndarray           # per kernel: weights streamed that a weight-only kernel unpacks (the
    #                                experts' row: 0, worked out per pass; a mixed format's rest: 0)
    streamed_bytes: np.ndarray     # per kernel: weights streamed × bytes per weight / tp (experts: 0)
    moe: bool
    bytes_per_weight: float        # the routed experts' bytes per weight / tp
    weight_only: bool
    matmul_flops: float
    vector_flops: float
    score_bytes_per_pair: float
    prefill_chunk: float
    moe_tile: int = 1              # the experts' grouped GEMMs pad each expert's tokens to this many rows

    @property
    def rows(self) -> tuple[np.ndarray, ...]:
        """The per-kernel constants ``_terms`` broadcasts: streamed bytes, activation bytes, FLOPs, streamed."""
        return self.streamed_bytes, self.activation_bytes, self.active_flops, self.streamed

    @property
    def columns(self) -> tuple[np.ndarray, ...]:
        """``rows`` as (kernel, 1) columns, against a 1-D pass (a joined one), made once."""
        return kept(self, "columns", lambda c: tuple(x[:, None] for x in c.rows))


def _pass_constants(rs: ResolvedScenario) -> _PassConstants:
    return _constants_of(default_efficiency(), rs.hw, rs.llm, rs.precision, rs.compute_dtype, rs.engine, rs.tp)


@functools.lru_cache(maxsize=512)
def _constants_of(table, hw, llm, precision, compute_dtype: str, engine: str, tp: int) -> _PassConstants:
    """The constants of every scenario with these parts (one resolve's ResolvedScenario is new)."""
    rs = ResolvedScenario(None, hw, llm, precision, None, compute_dtype, False, tp, 1, None, (), engine)
    quantised = weight_only(rs)
    streamed, active, acts = gemm_split(rs, 0.0)
    moe = bool(rs.llm.params.moe_layers and rs.llm.params.experts)
    const = np.array([0.0 if i == EXPERTS else float(x) for i, x in enumerate(streamed)])
    unpacked = const if rest_unpacked(rs) else 0.0 * const      # a mixed format unpacks its experts only
    return _PassConstants(
        np.array(active) * (2.0 / rs.tp), np.array(acts) * (rs.precision.activation_bytes / rs.tp), unpacked,
        const * (rs.precision.bytes_per_weight / rs.tp), moe, rs.precision.expert_bytes_per_weight / rs.tp, quantised,
        table.matmul_flops(rs.engine, rs.hw, rs.compute_dtype, quantised) or rs.peak_flops,
        rs.hw.peak("fp32") or rs.peak_flops, _score_bytes_per_pair(rs), float(table.prefill_chunk(rs.engine)),
        _moe_tile(rs, moe, quantised))


def _moe_tile(rs: ResolvedScenario, moe: bool, quantised: bool) -> int:
    """Rows an expert's grouped GEMM pads its tokens to: the format's tile where the part multiplies
    in that format natively (DeepGEMM's block FP8 on Hopper and later, FP4 on Blackwell); 1 where the
    weights are unpacked into a wider type first (weight-only kernels take any count of rows)."""
    if not moe or quantised or rs.compute_dtype != rs.precision.compute:
        return 1
    return int(rs.precision.moe_tile_rows)


def moe_tile(rs: ResolvedScenario) -> int:
    """The experts' grouped-GEMM tile of this scenario (1: no padding); see _moe_tile."""
    return _pass_constants(rs).moe_tile


def microbatch(rs: ResolvedScenario, batch):
    """Micro-batches in flight m = min(pp, B) and the size of each, B/m."""
    if rs.pp == 1:
        return 1, batch
    m = np.minimum(rs.pp, batch) if batch.__class__ is np.ndarray else min(rs.pp, batch)
    return m, batch / m


def _score_bytes_per_pair(rs: ResolvedScenario) -> float:
    """Bytes per (query, key) pair when the engine's attention writes the score matrix to memory
    (no flash attention): layers × query heads × bytes per score / tp. 0 for flash attention."""
    per_score = default_efficiency().score_bytes(rs.engine)
    return rs.llm.layers * rs.llm.heads * per_score / rs.tp if per_score else 0.0


def decode_terms(rs: ResolvedScenario, batch, context) -> PassTerms:
    """Bytes, FLOPs and link traffic of one decode step for ``batch`` sequences at ``context``."""
    return _terms(rs, *decode_inputs(rs, batch, context))


def decode_inputs(rs: ResolvedScenario, batch, context) -> tuple:
    """What ``_terms`` makes a decode step's terms from: (tokens per micro-batch, KV bytes, attention
    FLOPs, stretch, requests, score bytes, passes)."""
    shp = rs.llm.shape
    _, b = microbatch(rs, batch if batch.__class__ is float else np.asarray(batch, dtype=float))
    ctx = np.asarray(context, dtype=float)
    if shp.kinds:                                       # layer kinds mixed: model/physics/mixers.py
        kvb, attn, scores = decode_mix(shp.kinds, b, ctx, rs.kv.bytes_per_value, shp.state_bytes_per_value, rs.tp,
                                       default_efficiency().score_bytes(rs.engine))
        return b, kvb, attn / rs.tp, 1.0, 0.0, scores, 1.0
    if shp.sliding_window:
        ctx = np.minimum(ctx, shp.sliding_window)
    kv_token_bytes = shp.kv_values_per_token * rs.kv.bytes_per_value
    per_pair = kept(rs, "pass", _pass_constants).score_bytes_per_pair
    if b.__class__ is float:                            # one batch for every context: its products first
        kvb = (ctx + 1.0) * (b * kv_token_bytes)        # (one array operation fewer each)
        seq_ctx = b * ctx if per_pair else None
        attn = ctx * (b * shp.attention_flops_per_context)
    else:
        kvb = b * (ctx + 1.0) * kv_token_bytes
        seq_ctx = b * ctx                               # (B·c, shared by the two below)
        attn = seq_ctx * shp.attention_flops_per_context
    if rs.tp_kv != 1:                                   # (÷ 1 is exact: skipped)
        kvb /= rs.tp_kv
    scores = seq_ctx * per_pair if per_pair else 0.0    # flash attention: a plain 0.0
    if rs.tp != 1:
        attn /= rs.tp
    return b, kvb, attn, 1.0, 0.0, scores, 1.0


def decode_pass(rs: ResolvedScenario, batch, context, eff: Efficiency = IDEAL) -> PassCost:
    """One decode step for ``batch`` sequences at ``context`` cached tokens (per-token latency)."""
    return pass_cost(decode_terms(rs, batch, context), eff, eff.compute_fraction_decode)


def prefill_terms(rs: ResolvedScenario, batch, prompt_len) -> PassTerms:
    """Prefill of ``batch`` prompts of ``prompt_len`` tokens (time to the first token).

    Causal attention: Σ context over a prompt of S tokens = S²/2 (window-capped).
    Pipeline: m micro-batches through pp stages take (m + pp − 1)/pp of one full pass.
    Chunked (engines that prefill C tokens per pass): n = ⌈B·S/C⌉ passes each read the weights;
    a prompt's ⌈S/C⌉ chunks each read the KV of the chunks before: B·S·(⌈S/C⌉ − 1)/2 tokens' KV
    more; without flash attention a chunk scores its C queries against every key so far, so a
    prompt writes S·(S + min(C, S))/2 scores (S² in one pass: the masked S×S matrix)."""
    return _terms(rs, *prefill_inputs(rs, np.asarray(batch, dtype=float), np.asarray(prompt_len, dtype=float)))


def prefill_inputs(rs: ResolvedScenario, batch, prompt_len) -> tuple:
    """What ``_terms`` makes a prefill's terms from (``decode_inputs``'s order; prefill_terms's equations).
    ``batch`` and ``prompt_len``: float arrays, or plain floats for one point (the same numbers:
    IEEE doubles either way, without numpy's cost per operation on a 0-d array)."""
    shp = rs.llm.shape
    m, b = microbatch(rs, batch)
    s = prompt_len
    tokens = b * s
    if shp.kinds:                                       # layer kinds mixed: model/physics/mixers.py
        chunk = kept(rs, "pass", _pass_constants).prefill_chunk
        kvb, attn, scores = prefill_mix(shp.kinds, b, s, chunk, rs.kv.bytes_per_value, shp.state_bytes_per_value,
                                        rs.tp, default_efficiency().score_bytes(rs.engine))
        passes = _maximum(1.0, _ceil(tokens / chunk)) if chunk else 1.0
        return tokens, kvb, attn / rs.tp, (m + rs.pp - 1) / rs.pp, 1.0, scores, passes
    w = shp.sliding_window
    if not w:
        ctx_sum = s * s / 2.0
    elif s.__class__ is float:
        ctx_sum = s * s / 2.0 if s <= w else w * w / 2.0 + (s - w) * w
    else:
        ctx_sum = np.where(s <= w, s * s / 2.0, w * w / 2.0 + (s - w) * w)
    kv_token_bytes = shp.kv_values_per_token * rs.kv.bytes_per_value
    c = kept(rs, "pass", _pass_constants)
    chunk = c.prefill_chunk
    passes = _maximum(1.0, _ceil(tokens / chunk)) if chunk else 1.0
    reread = b * (s * _maximum(0.0, _ceil(s / chunk) - 1.0) / 2.0) if chunk else 0.0   # (whole numbers: exact)
    if w and chunk:
        reread = _minimum(reread, b * s * w / chunk)          # a chunk reads at most the window
    kvb = (tokens + reread) * kv_token_bytes
    if rs.tp_kv != 1:
        kvb = kvb / rs.tp_kv
    keys = _minimum(s, w) if w else s
    pairs = s * (keys + _minimum(chunk, keys)) / 2.0 if chunk else s * keys   # masked S×S in one pass
    scores = b * pairs * c.score_bytes_per_pair if c.score_bytes_per_pair else 0.0   # flash attention: plain 0.0
    attn = b * ctx_sum * shp.attention_flops_per_context
    if rs.tp != 1:                                      # (÷ 1 is exact: skipped)
        attn = attn / rs.tp
    return tokens, kvb, attn, (m + rs.pp - 1) / rs.pp, 1.0, scores, passes


_PLAIN = (float, int)


def _ceil(x):
    """⌈x⌉, for a plain float (math: a plain float back) or an array (numpy)."""
    return float(math.ceil(x)) if x.__class__ is float else np.ceil(x)


def _maximum(a, b):
    """np.maximum, without numpy's cost on two plain numbers (finite: no NaN to propagate)."""
    if a.__class__ in _PLAIN and b.__class__ in _PLAIN:
        return a if a >= b else b
    return np.maximum(a, b)


def _minimum(a, b):
    """np.minimum, without numpy's cost on two plain numbers (finite: no NaN to propagate)."""
    if a.__class__ in _PLAIN and b.__class__ in _PLAIN:
        return a if a <= b else b
    return np.minimum(a, b)


def prefill_pass(rs: ResolvedScenario, batch, prompt_len, eff: Efficiency = IDEAL) -> PassCost:
    """Prefill of ``batch`` prompts of ``prompt_len`` tokens (time to the first token)."""
    return pass_cost(prefill_terms(rs, batch, prompt_len), eff, eff.compute_fraction_prefill)


def joined_pass(rs: ResolvedScenario, eff: Efficiency, *passes: tuple) -> tuple[PassTerms, PassCost, tuple[int, ...]]:
    """Several passes as one over all their points, in order: each pass is (``decode_inputs`` or
    ``prefill_inputs`` over a scalar or 1-D batch, its compute fraction). The same numbers as each
    pass on its own (the same operations point by point; kernel_sum adds in KERNELS order whatever
    the shape) for one numpy pass's cost. Each pass's link terms are worked out from its own token
    count (a plain number where its batch is one), and an input that is the same plain number in
    every pass (often stretch 1, score bytes 0, passes 1, link terms 0) stays plain: no array work.
    Returns (terms, cost, the index of each pass's first point)."""
    sizes = [inputs[1].size if inputs[1].__class__ is np.ndarray else 1 for inputs, _ in passes]   # KV bytes:
    #                                                                                 a pass's whole shape
    starts, total = [], 0
    for n in sizes:
        starts.append(total)
        total += n
    c = kept(rs, "pass", _pass_constants)
    columns = tuple(zip(*((*inputs, *_comm_terms(rs, inputs[0]), matmul_rate(c.matmul_flops, fraction, rs.peak_flops))
                          for inputs, fraction in passes)))
    rows = np.empty((len(columns), total))              # each input, the link terms, then the matmul rate
    fields = []
    for j, values in enumerate(columns):
        first = values[0]
        if first.__class__ is float:
            for value in values:                            # the same plain number in every pass: kept plain
                if value.__class__ is not float or value != first:
                    break
            else:
                fields.append(first)
                continue
        for value, start, n in zip(values, starts, sizes):
            if n == 1:
                rows[j, start] = value
            else:
                rows[j, start:start + n] = value
        fields.append(rows[j])
    *fields, rates = fields
    terms = _terms(rs, *fields)
    return terms, pass_cost(terms, eff, rate=rates), tuple(starts)
