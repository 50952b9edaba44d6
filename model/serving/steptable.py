"""A serving step's time, as one vectorised table per scenario (never an Estimate per step).

A scheduler step runs T tokens through the model: the decodes (q tokens each: 1, or k + 1 when
speculation verifies k drafts) and the prompt chunks it carries. The step is the kernels of
model/physics/step.py, each its own roofline, split where the serving mix changes them:

    step time  = G(T)                              weight kernels, all-reduces, step and layer
                                                   overhead at T tokens (decode_terms(T, 0) less
                                                   its attention), tabled over T
               + max(kv_bytes / BW_kv, pairs · f / F)   the attention kernel over every sequence:
                                                   KV read and written, FLOPs per (query, key) pair
               + score_pairs · s / BW               scores written to memory (no flash attention)
               + request overhead                  once per step that starts prompts (as a prefill pass)
               + host wait                         eager engines only: ‖GPU, host‖₆ − GPU, with the
                                                   host issue time L·host time per layer per step
                                                   (queue_wait in model/physics/cost.py), added to
                                                   each step's whole GPU time, never to its parts;
                                                   where graphs hold decode steps only (SGLang, vLLM
                                                   V0), on every step that carries prompt tokens

    decode of a sequence at context c:  kv tokens c + q,  pairs q·c + q(q−1)/2
    a prompt chunk of n tokens after p: kv tokens p + n,  pairs n·(p + n/2)    (causal)

G, BW_kv, F and the per-token sizes are read off model.physics.step (decode_terms, prefill_terms,
pass_cost), so a decode-only step at batch B and mean context c̄ is decode_pass(B, c̄) and a
lone prompt of L tokens is prefill_pass(1, L) (tests/test_serving.py holds both). A
step with prompt tokens runs its GEMMs at the engine's prefill compute fraction, a decode-only
step at its decode fraction. G is exact at every T up to EXACT_TOKENS and interpolated in
between grid points 2% apart beyond (the weight kernels are piecewise linear in T).
Sliding-window attention caps the summed context at B × window (the aggregate, not per sequence).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from model.catalog.engines import Efficiency
from model.errors import ScenarioError
from model.physics.scenario import ResolvedScenario
from model.physics.cost import GEMM_KERNELS, KERNELS, pass_cost, queue_wait, queue_wait_s
from model.physics.step import decode_terms, layer_equivalents
from model.values import frozen

EXACT_TOKENS = 4096
GRID_STEP = 1.02
ATTN = KERNELS.index("attention")
SCORES = KERNELS.index("scores")
LM_HEAD = GEMM_KERNELS.index("lm_head")


@frozen(eq=False)
class StepTable:
    """Step times for one resolved scenario and engine. Arrays indexed by the token grid."""

    tokens: np.ndarray           # the grid of tokens per step (1 … max_tokens)
    gemm_decode_s: np.ndarray    # G(T) at the decode compute fraction
    gemm_prefill_s: np.ndarray   # G(T) at the prefill compute fraction
    lm_head_s: np.ndarray        # the LM head kernel inside G (decode fraction): an MTP draft reuses it
    kv_bytes_per_token: float    # per GPU
    s_per_kv_byte: float         # the attention kernel's memory time per KV byte
    flops_per_pair: float        # attention FLOPs per (query, key) pair, per GPU
    s_per_flop_decode: float     # attention compute time per FLOP (decode fraction)
    s_per_flop_prefill: float
    score_s_per_pair: float      # scores written and read back, per pair (0 with flash attention)
    request_overhead_s: float
    window: int | None
    layers: int
    max_tokens: int
    step_overhead_s: float = 0.0  # inside G: the step's fixed cost, not GPU work the host races
    host_s: float = 0.0          # the host's issue time per step (eager engines; 0 with CUDA graphs)
    prefill_host_s: float = 0.0  # … per step with prompt tokens (also where graphs hold decode steps only)

    def finish(self, body, prefill: bool = False):
        """A step's time from its body (G + attention, arrays broadcast): the body plus the time
        the GPU waits for an eager host (queue_wait), with GPU = body − step overhead. ``prefill``:
        the step carries prompt tokens."""
        host = self.prefill_host_s if prefill else self.host_s
        if not host:
            return body
        return body + queue_wait(np.maximum(np.asarray(body, dtype=float) - self.step_overhead_s, 0.0), host)

    def finish_s(self, body: float, prefill: bool = False) -> float:
        """``finish`` for one step's plain number (the scheduler calls it per step)."""
        host = self.prefill_host_s if prefill else self.host_s
        if not host:
            return body
        return body + queue_wait_s(max(body - self.step_overhead_s, 0.0), host)

    def gemm(self, tokens: float, prefill: bool) -> float:
        """G(T): the step's weight kernels, communication and fixed overhead at ``tokens`` tokens."""
        g = self.gemm_prefill_s if prefill else self.gemm_decode_s
        t = float(tokens)
        if t <= EXACT_TOKENS:
            i = int(t)
            if i == t and 1 <= i <= g.size:
                return float(g[i - 1])
        return float(np.interp(t, self.tokens, g))

    def attention(self, kv_tokens, pairs, score_pairs, prefill: bool):
        """The attention kernel (and scores) for a step's summed KV tokens and pairs (arrays broadcast)."""
        flop_s = self.s_per_flop_prefill if prefill else self.s_per_flop_decode
        mem = kv_tokens * (self.kv_bytes_per_token * self.s_per_kv_byte)
        comp = pairs * (self.flops_per_pair * flop_s)
        return np.maximum(mem, comp) + score_pairs * self.score_s_per_pair

    def attention_s(self, kv_tokens: float, pairs: float, score_pairs: float, prefill: bool) -> float:
        """``attention`` for one step's plain numbers (no numpy: the scheduler calls it per step)."""
        flop_s = self.s_per_flop_prefill if prefill else self.s_per_flop_decode
        mem = kv_tokens * self.kv_bytes_per_token * self.s_per_kv_byte
        comp = pairs * self.flops_per_pair * flop_s
        return (mem if mem > comp else comp) + score_pairs * self.score_s_per_pair

    def decode_step_s(self, batch, mean_context, q: int = 1):
        """A decode-only step: ``batch`` sequences at ``mean_context`` (q tokens each). Broadcasts."""
        b = np.asarray(batch, dtype=float)
        ctx = self.cap(b * np.asarray(mean_context, dtype=float), b)
        g = np.interp(b * q, self.tokens, self.gemm_decode_s)
        return self.finish(g + self.attention(ctx + b * q, q * ctx + b * q * (q - 1) / 2.0, q * ctx, False))

    def chunk_pairs(self, n: float, p: float) -> tuple[float, float]:
        """(attention pairs, score pairs) of a prompt chunk of ``n`` tokens after ``p`` computed ones:
        causal F(p + n) − F(p), F(x) = x²/2 (window w: w²/2 + (x − w)·w past it); scores n·min(p + n, w)."""
        w = self.window
        if not w or p + n <= w:
            return n * (p + n / 2.0), n * (p + n)
        f = (lambda x: x * x / 2.0 if x <= w else w * w / 2.0 + (x - w) * w)
        return f(p + n) - f(p), n * float(w)

    def prefill_s(self, prompt_len: float, cached: float = 0.0) -> float:
        """One prompt alone in a step: ``prompt_len − cached`` new tokens after ``cached`` cached ones."""
        n, p = float(prompt_len - cached), float(cached)
        pairs, spairs = self.chunk_pairs(n, p)
        return self.finish_s(self.gemm(n, True) + float(self.attention(p + n, pairs, spairs, True)), True) + self.request_overhead_s

    def cap(self, context_sum, batch):
        """Summed context, capped at batch × window for sliding-window attention."""
        if not self.window:
            return context_sum
        return np.minimum(context_sum, batch * float(self.window))


def _grid(max_tokens: int) -> np.ndarray:
    exact = np.arange(1, min(max_tokens, EXACT_TOKENS) + 1, dtype=float)
    if max_tokens <= EXACT_TOKENS:
        return exact
    n = int(np.ceil(np.log(max_tokens / EXACT_TOKENS) / np.log(GRID_STEP)))
    tail = np.unique(np.round(EXACT_TOKENS * GRID_STEP ** np.arange(1, n + 1)))
    return np.concatenate((exact, np.minimum(tail, float(max_tokens))))


def _gemm_part(rs: ResolvedScenario, tokens: np.ndarray, eff: Efficiency, fraction: float):
    """G(T) and the LM head kernel: a decode pass of T tokens at no context, less its attention
    (without the host's wait: ``StepTable.finish`` adds it to the whole step)."""
    cost = pass_cost(decode_terms(rs, tokens, 0.0), dataclasses.replace(eff, eager=0.0, eager_prefill=0.0), fraction)
    ks = cost.kernel_s
    return cost.time_s - ks[ATTN] - ks[SCORES], ks[LM_HEAD].copy()    # a copy: a view would keep every kernel's row


def step_table(rs: ResolvedScenario, eff: Efficiency, max_tokens: int) -> StepTable:
    """The table for ``rs`` under ``eff`` (its engine's factors), for steps of up to ``max_tokens``."""
    if rs.pp > 1:
        raise ScenarioError(f"the serving simulator runs one tensor-parallel group per replica; {rs.scenario.gpus} GPUs "
                            f"here make {rs.pp} pipeline stages (use --replicas for more GPUs)")
    grid = _grid(max(1, int(max_tokens)))
    g_dec, lm = _gemm_part(rs, grid, eff, eff.compute_fraction_decode)
    g_pre, _ = _gemm_part(rs, grid, eff, eff.compute_fraction_prefill)
    c = 1024.0                                        # any context: these are per-byte / per-pair ratios
    t = decode_terms(rs, 1.0, c)
    dec = pass_cost(t, eff, eff.compute_fraction_decode)
    pre = pass_cost(t, eff, eff.compute_fraction_prefill)
    kv = float(t.kv_bytes)
    flops, scores = float(t.attention_flops), float(t.score_bytes)
    leq = layer_equivalents(rs)
    return StepTable(
        tokens=grid, gemm_decode_s=g_dec, gemm_prefill_s=g_pre, lm_head_s=lm,
        kv_bytes_per_token=kv / (c + 1.0), s_per_kv_byte=float(dec.kernel_memory_s[ATTN]) / kv,
        flops_per_pair=flops / c,
        s_per_flop_decode=float(dec.kernel_compute_s[ATTN]) / flops if flops else 0.0,
        s_per_flop_prefill=float(pre.kernel_compute_s[ATTN]) / flops if flops else 0.0,
        score_s_per_pair=float(dec.kernel_memory_s[SCORES]) / c if scores else 0.0,
        request_overhead_s=eff.request_overhead_s, window=rs.llm.shape.sliding_window,
        layers=rs.llm.layers, max_tokens=int(grid[-1]),
        step_overhead_s=float(eff.step_overhead_s), host_s=float(leq * eff.host_layer_s * eff.host_issues(False)),
        prefill_host_s=float(leq * eff.host_layer_s * eff.host_issues(True)),
    )
