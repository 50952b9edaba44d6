"""What the token mixers of a model that mixes layer kinds read, hold and compute (model/catalog/layers.py
says what each kind caches). Per kind, for a sequence at context c (cached tokens), its KV or state
split over min(tp, its shards) GPUs:

    keys attended     full, MLA: c;   sliding window w: min(c, w);   chunked local C: c mod C
                      (the tokens before it in its own chunk);   sparse: min(c, top-k) (+ the indexer over all c)
    held              full, MLA, sparse: c tokens;   sliding: min(c, w);   chunked: min(c, C) (a sequence
                      needs room for a whole chunk);   linear: its fixed state, whatever c
    decode KV bytes   Σ_attention kinds (keys + 1)·kv_values·kv_bytes     (+ the new token's entry written)
                      + sparse: (c + 1)·index_values·kv_bytes          (the indexer reads every key)
                      + Σ_linear kinds 2·state_values·state_bytes      (the state read and written back)
    decode FLOPs      Σ keys·attention_flops + c·index_flops + state_flops      per sequence
    prefill of S      KV written S·kv_values (+ the chunk re-reads, capped by the window); a linear kind
                      writes its state once (and reads and writes it again at each further chunk);
                      Σ over the prompt of keys: S²/2, w²/2 + (S − w)·w past the window,
                      n·C²/2 + r²/2 in chunks (S = n·C + r); a linear kind S·state_flops
    scores            (no flash attention) keys·layers·heads·score bytes per sequence, per kind

A model without kinds never comes here: model/physics/step.py keeps its own single-kind path, so
every existing model's bytes and FLOPs are exactly what they were. Plain numbers or numpy arrays
(broadcast over batch and context).
"""
from __future__ import annotations

import numpy as np

from model.catalog.layers import LayerKind


def keys_attended(kind: LayerKind, context):
    """Keys a new token attends to at ``context`` cached tokens (linear kinds: none)."""
    if kind.kind in ("full", "mla"):
        return context
    if kind.kind in ("sliding", "sparse"):
        return np.minimum(context, kind.window)
    if kind.kind == "chunked":
        return np.mod(context, kind.window)
    return 0.0 * context


def tokens_held(kind: LayerKind, context):
    """Tokens of cache one sequence holds at ``context`` (what must fit)."""
    if kind.kind in ("sliding", "chunked"):
        return np.minimum(context, kind.window)
    return 0.0 * context if kind.kind == "linear" else context


def _plain(x):
    """A 0-d numpy result as a plain float (what the pass code keeps plain)."""
    return float(x) if isinstance(x, (np.floating, np.ndarray)) and np.ndim(x) == 0 else x


def decode_mix(kinds: tuple[LayerKind, ...], batch, context, kv_bytes: float, state_bytes: float, tp: int,
               score_bytes: float):
    """(KV and state bytes per GPU, attention FLOPs for the whole group, score bytes per GPU) of one decode
    step of ``batch`` sequences at ``context``; ``score_bytes`` per score where attention writes them (0: flash)."""
    kvb = attn = scores = 0.0
    for x in kinds:
        split = min(tp, x.shards)
        if x.kind == "linear":
            kvb = kvb + batch * (2.0 * x.state_values * state_bytes / split)
            attn = attn + batch * x.state_flops_per_token + 0.0 * context
            continue
        n = keys_attended(x, context)
        kvb = kvb + batch * (n + 1.0) * (x.kv_values_per_token * kv_bytes / split)
        attn = attn + batch * n * x.attention_flops_per_context
        if x.index_values_per_token:
            kvb = kvb + batch * (context + 1.0) * (x.index_values_per_token * kv_bytes / split)
            attn = attn + batch * context * x.index_flops_per_context
        if score_bytes:
            scores = scores + batch * n * (x.layers * x.heads * score_bytes / tp)
    return _plain(kvb), _plain(attn), _plain(scores)


def _causal_sum(kind: LayerKind, s):
    """Σ over a prompt of S tokens of the keys each attends to."""
    w = kind.window
    if kind.kind in ("full", "mla"):
        return s * s / 2.0
    if kind.kind == "chunked":
        n = np.floor(s / w)
        r = s - n * w
        return n * w * w / 2.0 + r * r / 2.0
    return np.where(s <= w, s * s / 2.0, w * w / 2.0 + (s - w) * w)


def prefill_mix(kinds: tuple[LayerKind, ...], batch, prompt_len, chunk: float, kv_bytes: float,
                state_bytes: float, tp: int, score_bytes: float):
    """(KV and state bytes per GPU, attention FLOPs for the whole group, score bytes per GPU) of a prefill
    of ``batch`` prompts of ``prompt_len`` tokens, in passes of ``chunk`` tokens (0: one pass)."""
    s, b = prompt_len, batch
    tokens = b * s
    later = np.maximum(0.0, np.ceil(s / chunk) - 1.0) if chunk else 0.0     # a prompt's chunks after its first
    reread = b * s * later / 2.0
    kvb = attn = scores = 0.0
    for x in kinds:
        split = min(tp, x.shards)
        if x.kind == "linear":
            kvb = kvb + b * (1.0 + 2.0 * later) * (x.state_values * state_bytes / split)
            attn = attn + tokens * x.state_flops_per_token
            continue
        capped = x.kind != "full" and x.kind != "mla"
        again = np.minimum(reread, b * s * x.window / chunk) if capped and chunk else reread
        kvb = kvb + (tokens + again) * (x.kv_values_per_token * kv_bytes / split)
        attn = attn + b * _causal_sum(x, s) * x.attention_flops_per_context
        if x.index_values_per_token:
            kvb = kvb + (tokens + reread) * (x.index_values_per_token * kv_bytes / split)
            attn = attn + b * (s * s / 2.0) * x.index_flops_per_context
        if score_bytes:
            keys = np.minimum(s, x.window) if capped else s
            pairs = s * (keys + np.minimum(chunk, keys)) / 2.0 if chunk else s * keys
            scores = scores + b * pairs * (x.layers * x.heads * score_bytes / tp)
    return _plain(kvb), _plain(attn), _plain(scores)


def held_bytes(kinds: tuple[LayerKind, ...], context: float, kv_bytes: float, state_bytes: float, tp: int) -> float:
    """The cache and state one sequence holds at ``context`` tokens, per GPU."""
    total = 0.0
    for x in kinds:
        split = min(tp, x.shards)
        if x.kind == "linear":
            total += x.state_values * state_bytes / split
            continue
        total += float(tokens_held(x, context)) * x.kv_values_per_token * kv_bytes / split
        total += context * x.index_values_per_token * kv_bytes / split
    return total


def growing_bytes_per_token(kinds: tuple[LayerKind, ...], kv_bytes: float, tp: int) -> float:
    """KV bytes per cached token per GPU of the kinds that hold one entry per token (a window caps how
    many, not their size): what a block of cache tokens costs."""
    return sum((x.kv_values_per_token + x.index_values_per_token) * kv_bytes / min(tp, x.shards)
               for x in kinds if x.kind != "linear")
