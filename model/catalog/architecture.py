"""Transformer shapes → parameter counts, bytes and FLOPs per token.

Equations (per model; L layers, d hidden, h query heads, g KV heads, k head dim,
f FFN width, V vocab):

    attention params / layer   = d·h·k (Q) + 2·d·g·k (K, V) + h·k·d (O)        [+ QKV biases]
    FFN params / layer         = 3·d·f if gated (SwiGLU) else 2·d·f             [+ biases]
    embeddings                 = V·d, and another V·d for the LM head unless tied
    KV cache values / token    = 2·L·g·k            (MLA: L·(kv_lora_rank + rope dim))
    attention FLOPs / token    = 4·L·h·k · context  (QKᵀ and PV, 2 FLOPs per multiply-add)

Mixture of experts: with E routed experts and K chosen per token, a batch of B tokens
touches on average E·(1 − (1 − K/E)^B) distinct experts per layer (each expert is missed by
one token with probability 1 − K/E, uniform routing). Those weights are what a decode step
must read; FLOPs scale with K experts per token. Shared experts and dense layers are read
whatever the batch; MoE layers may alternate with dense ones (``moe_layers``).

Kernels per layer (what the engines' per-layer overhead is paid per, model/physics/step.py):
a dense decoder layer launches DENSE_LAYER_KERNELS kernels in a decode step; a multi-head latent
attention layer MLA_EXTRA_KERNELS more; a precision that quantises activations in a kernel of
its own (block FP8) one more per linear layer, ``linears_per_layer`` of them.

A model that mixes layer kinds (sliding-window, chunked, sparse, linear-attention / state-space
layers: model/catalog/layers.py) counts each kind's own weights, cache values per token and
FLOPs per key; the Shape then carries the kinds, and model/physics/mixers.py reads them.
"""
from __future__ import annotations

import functools
import math

from typing import Any, Mapping

import numpy as np

from model.catalog.layers import LayerKind, kinds_of, mixer_params
from model.values import frozen, kept

# Counted in vLLM's and SGLang's decoder layers (LlamaDecoderLayer.forward; SGLang's
# DeepseekV2AttentionMLA.forward_absorb): the fused residual-add + RMSNorm before attention, the QKV
# projection, RoPE, attention, the O projection, the fused add + RMSNorm before the FFN, gate/up,
# SiLU × up, down: 9. MLA replaces QKV with the fused q_a / kv_a projection, q_a's RMSNorm, q_b, the
# latent's RMSNorm and the two absorbed batched matmuls (q_nope·W_UK before attention, ·W_UV after): 5 more.
DENSE_LAYER_KERNELS = 9
MLA_EXTRA_KERNELS = 5


@frozen
class ParamBreakdown:
    """Parameter counts (numbers of weights, not bytes) by role, summed over layers."""

    embedding: float          # input token table V·d (gathered, never streamed)
    lm_head: float            # output projection V·d (0 when tied: the table is read instead)
    attention: float          # all layers
    dense_ffn: float          # non-routed FFN weights, all layers (dense layers + shared experts)
    expert: float             # one routed expert in one layer
    moe_layers: int
    experts: int              # routed experts per MoE layer (0 for dense models)
    experts_per_token: int
    other: float              # norms, biases, router
    tied_embeddings: bool
    attention_out: float = 0.0   # the output projections (O) of ``attention``, all layers
    ffn_down_share: float = 1.0 / 3.0   # the down projection's share of an FFN (1/3 gated, 1/2 plain)

    @property
    def routed_total(self) -> float:
        return self.expert * self.experts * self.moe_layers

    @property
    def total(self) -> float:
        return kept(self, "total", lambda p: (p.embedding + p.lm_head + p.attention + p.dense_ffn
                                              + p.routed_total + p.other))

    @property
    def lm_weights(self) -> float:
        """What the LM head multiplies with: its own matrix, or the tied embedding table."""
        return self.embedding if self.tied_embeddings else self.lm_head

    @property
    def streamed_dense(self) -> float:
        """Weights every decode step reads whatever the batch: all but the routed experts and
        the input embedding table (only B rows of it are gathered)."""
        return kept(self, "streamed_dense", lambda p: p.lm_weights + p.attention + p.dense_ffn + p.other)

    @property
    def active_per_token(self) -> float:
        """Weights one token multiplies with (the FLOPs count): 2 FLOPs per weight. (These sums are
        worked out once per breakdown: every estimate asks.)"""
        return kept(self, "active_per_token",
                    lambda p: p.streamed_dense + p.moe_layers * p.experts_per_token * p.expert)

    def experts_touched(self, batch_tokens):
        """Expected distinct routed experts per MoE layer for ``batch_tokens`` tokens:
        E·(1 − (1 − K/E)^B), uniform routing assumed."""
        if self.experts == 0:
            return 0.0 * np.asarray(batch_tokens, dtype=float)
        e, k = float(self.experts), float(self.experts_per_token)
        return e * (1.0 - np.power(1.0 - k / e, batch_tokens))

    def expert_rows(self, batch_tokens, tile: int = 1):
        """Expected rows the routed experts' grouped GEMMs compute per MoE layer for ``batch_tokens``
        tokens: Σ_e ⌈n_e / t⌉·t, each expert's n_e tokens padded up to the kernel's tile of t rows,
        n_e ~ Poisson(λ = B·K/E) (uniform routing). t = 1 gives B·K exactly (no padding); with t
        rows a lone token costs t: E·t·Σ_j P(n_e > j·t) (model/catalog/architecture._padded)."""
        b = np.asarray(batch_tokens, dtype=float)
        if self.experts == 0:
            return 0.0 * b
        k = float(self.experts_per_token)
        if tile <= 1:
            return b * k
        lam = b * k / float(self.experts)
        return float(self.experts) * _padded(lam, int(tile))

    def streamed(self, batch_tokens):
        """Weights read from HBM by one forward pass over ``batch_tokens`` tokens."""
        return self.streamed_dense + self.moe_layers * self.experts_touched(batch_tokens) * self.expert


_LAMBDAS = np.geomspace(1e-4, 1e5, 1401)


@functools.lru_cache(maxsize=8)
def _padded_table(tile: int) -> np.ndarray:
    """E[⌈n/t⌉·t] for n ~ Poisson(λ) on _LAMBDAS: t·Σ_j P(n > j·t), summed over j until the tail
    is nothing (normal tail past λ + 12√λ). ln n! from one running sum (made once, not per λ)."""
    tops = (_LAMBDAS + 12.0 * np.sqrt(_LAMBDAS) + 2 * tile + 20).astype(int)
    log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, int(tops.max()) + 1)))))
    out = np.empty(_LAMBDAS.size)
    for i, (lam, top) in enumerate(zip(_LAMBDAS, tops)):
        n = np.arange(top + 1)
        cdf = np.cumsum(np.exp(n * math.log(lam) - lam - log_fact[: top + 1]))
        out[i] = tile * float(np.sum(1.0 - cdf[::tile]))
    return out


def _padded(lam, tile: int):
    """E[⌈n/t⌉·t], n ~ Poisson(λ) (λ an array): interpolated in ln λ on a fine grid; → λ + t/2
    for λ ≫ t, → t·(1 − e^−λ) for λ ≪ 1."""
    lam = np.asarray(lam, dtype=float)
    table = _padded_table(tile)
    safe = np.clip(lam, _LAMBDAS[0], _LAMBDAS[-1])
    out = np.exp(np.interp(np.log(safe), np.log(_LAMBDAS), np.log(np.maximum(table, 1e-300))))
    small = lam < _LAMBDAS[0]
    return np.where(small, tile * -np.expm1(-lam), np.where(lam > _LAMBDAS[-1], lam + tile / 2.0, out))


@frozen
class Shape:
    """Per-token sizes derived from the architecture (numbers of values, not bytes)."""

    kv_values_per_token: float          # K and V (or MLA latent) values cached per token, all layers
    attention_flops_per_context: float  # FLOPs per new token per cached token, all layers
    activation_values_per_token: float  # values written and read back between kernels, all layers
    allreduce_values_per_token: float   # values all-reduced per token under tensor parallelism
    allreduces_per_layer: int
    kv_heads: int
    sliding_window: int | None
    # activation_values_per_token split by the kernel that writes them (written once, read once):
    qkv_activations: float = 0.0        # the layer's normed input and its Q, K, V
    attention_activations: float = 0.0  # the attention output
    out_activations: float = 0.0        # the O projection's output
    ffn_activations: float = 0.0        # the FFN's input, its up/gate outputs and its down output
    # the layer kinds of a model that mixes them (model/catalog/layers.py); () when every layer is one
    # kind: then kv_values_per_token and attention_flops_per_context above say it all (with sliding_window).
    # With kinds, those two are the sums over the kinds (for display) and the physics reads the kinds.
    kinds: tuple[LayerKind, ...] = ()
    state_bytes_per_value: float = 2.0  # a linear kind's recurrent state: the model's state type (state_bits)
    layer_kernels: float = DENSE_LAYER_KERNELS    # kernels a layer launches in a decode step (before any quantisation)
    linears_per_layer: float = 4.0      # linear layers a layer's activations enter (QKV, O, gate/up, down), on average


def _get(cfg: Mapping[str, Any], key: str, default: Any = None) -> Any:
    value = cfg.get(key, default)
    return default if value is None else value


def param_breakdown(cfg: Mapping[str, Any]) -> ParamBreakdown:
    """Count parameters from a models.json entry."""
    L, d, h, g, k = (int(cfg[x]) for x in ("layers", "hidden", "heads", "kv_heads", "head_dim"))
    f, V = int(cfg["ffn"]), int(cfg["vocab"])
    gated = bool(cfg["ffn_gated"])
    tied = bool(_get(cfg, "tied_embeddings", False))
    experts = int(_get(cfg, "experts", 0))
    top_k = int(_get(cfg, "experts_per_token", 0))
    shared = int(_get(cfg, "shared_experts", 0))
    expert_ffn = int(_get(cfg, "expert_ffn", f))
    shared_ffn = int(_get(cfg, "shared_expert_ffn", expert_ffn))
    ffn_layers, moe_layers = ffn_layer_counts(cfg)
    mla = cfg.get("mla")

    qkv_bias = (h * k + 2 * g * k) if cfg.get("qkv_bias") else 0
    if cfg.get("layer_kinds"):
        mixers = mixer_params(cfg, d)
        attention, attention_out, mixer_small = mixers.projections + mixers.out, mixers.out, mixers.small
        per_layer_extra = 0
    else:
        if mla:
            qr, kvr = mla.get("q_lora_rank") or 0, mla["kv_lora_rank"]     # qr 0: full-rank Q (V2-Lite)
            nope, rope, vd = mla["qk_nope_head_dim"], mla["qk_rope_head_dim"], mla["v_head_dim"]
            q_params = d * qr + qr * h * (nope + rope) if qr else d * h * (nope + rope)
            attn_layer = (q_params                                  # Q (down and up, or one projection)
                          + d * (kvr + rope) + kvr * h * (nope + vd)  # KV down (with rope key) and up
                          + h * vd * d)                             # O
            norm_extra = qr + kvr
        else:
            attn_layer = d * h * k + 2 * d * g * k + h * k * d
            norm_extra = 0
        attention, attention_out = float(L * attn_layer), float(L * h * (mla["v_head_dim"] if mla else k) * d)
        mixer_small, per_layer_extra = 0.0, norm_extra + qkv_bias

    mats = 3 if gated else 2
    mlp_bias = (f + d) if cfg.get("mlp_bias") else 0
    parallel = bool(cfg.get("parallel_block"))
    norms_per_layer = (2 if parallel else 4) * d if cfg.get("mlp_bias") else 2 * d

    dense_layers = ffn_layers - moe_layers
    dense_ffn = dense_layers * (mats * d * f + mlp_bias) + moe_layers * shared * mats * d * shared_ffn
    expert = mats * d * expert_ffn if experts else 0.0
    router = moe_layers * experts * d
    other = L * (norms_per_layer + per_layer_extra) + mixer_small + d + router
    if cfg.get("lm_head_bias"):
        other += V
    return ParamBreakdown(
        embedding=float(V * d), lm_head=0.0 if tied else float(V * d),
        attention=float(attention), dense_ffn=float(dense_ffn), expert=float(expert),
        moe_layers=moe_layers, experts=experts, experts_per_token=top_k,
        other=float(other), tied_embeddings=tied, attention_out=float(attention_out),
        ffn_down_share=1.0 / mats,
    )


def ffn_layer_counts(cfg: Mapping[str, Any]) -> tuple[int, int]:
    """(layers with an FFN, of them the MoE ones). Every layer has one unless ``ffn_layers`` says
    fewer (Nemotron-H's blocks are a mixer or an FFN); MoE layers are those after the
    ``first_dense_layers``, or ``moe_layers`` of them (Llama 4 Maverick: every second)."""
    L = int(cfg["layers"])
    ffn_layers = int(_get(cfg, "ffn_layers", L))
    if not int(_get(cfg, "experts", 0)):
        return ffn_layers, 0
    return ffn_layers, int(_get(cfg, "moe_layers", ffn_layers - int(_get(cfg, "first_dense_layers", 0))))


def shape(cfg: Mapping[str, Any]) -> Shape:
    """Per-token cache, attention, activation and communication sizes."""
    L, d, h, g, k = (int(cfg[x]) for x in ("layers", "hidden", "heads", "kv_heads", "head_dim"))
    f = int(cfg["ffn"])
    mla = cfg.get("mla")
    kinds = kinds_of(cfg)
    if mla:
        latent = mla["kv_lora_rank"] + mla["qk_rope_head_dim"]
        kv = L * latent
        # Absorbed MLA decode: scores over the 576-wide latent, values over the 512-wide one.
        attn = L * h * 2 * (latent + mla["kv_lora_rank"])
        q_dim = h * (mla["qk_nope_head_dim"] + mla["qk_rope_head_dim"])
        kv_dim = latent
        attn_out = h * mla["v_head_dim"]
    else:
        kv = 2 * L * g * k
        attn = 4 * L * h * k
        q_dim, kv_dim, attn_out = h * k, 2 * g * k, h * k
    experts = int(_get(cfg, "experts", 0))
    shared_ffn = int(_get(cfg, "shared_expert_ffn", _get(cfg, "expert_ffn", f)))
    ffn_active = (int(_get(cfg, "experts_per_token", 0)) * int(_get(cfg, "expert_ffn", f))
                  + int(_get(cfg, "shared_experts", 0)) * shared_ffn) if experts else f
    ffn_values = (3 if cfg["ffn_gated"] else 2) * ffn_active
    # Each kernel writes its output once and the next reads it once (×2).
    qkv_act, attn_act, out_act, ffn_act = (L * 2.0 * v for v in (d + q_dim + kv_dim, attn_out, d, ffn_values))
    per_layer = 1 if cfg.get("parallel_block") else 2
    allreduces = float(L * per_layer * d)
    if kinds:
        mixers = mixer_params(cfg, d)
        ffn_layers = int(_get(cfg, "ffn_layers", L))
        mixer_layers = sum(x.layers for x in kinds)
        qkv_act = 2.0 * (mixer_layers * d + mixers.projections / d)
        attn_act, out_act = 2.0 * mixers.out / d, 2.0 * mixer_layers * d
        ffn_act = ffn_layers * 2.0 * ffn_values
        kv = sum(x.kv_values_per_token + x.index_values_per_token for x in kinds)
        attn = sum(x.attention_flops_per_context + x.index_flops_per_context for x in kinds)
        allreduces = float((mixer_layers + ffn_layers) * d)
        per_layer = max(1, round((mixer_layers + ffn_layers) / L))
    # linear layers per layer: QKV and O (MLA: q_a/kv_a, q_b, O), gate/up and down; an MoE layer's
    # routed experts take two (their grouped GEMMs), its shared experts two more
    moe_share = ffn_layer_counts(cfg)[1] / L if experts else 0.0
    shared_linears = 2.0 * moe_share if experts and int(_get(cfg, "shared_experts", 0)) else 0.0
    return Shape(
        layer_kernels=float(DENSE_LAYER_KERNELS + (MLA_EXTRA_KERNELS if mla else 0)),
        linears_per_layer=4.0 + (1.0 if mla else 0.0) + shared_linears,
        kv_values_per_token=float(kv), attention_flops_per_context=float(attn),
        activation_values_per_token=qkv_act + attn_act + out_act + ffn_act,
        allreduce_values_per_token=allreduces,
        allreduces_per_layer=per_layer, kv_heads=g,
        sliding_window=None if kinds else cfg.get("sliding_window"),
        qkv_activations=qkv_act, attention_activations=attn_act, out_activations=out_act, ffn_activations=ffn_act,
        kinds=kinds, state_bytes_per_value=float(_get(cfg, "state_bits", 16)) / 8.0,
    )
