"""The kinds of token mixer one model may mix, layer by layer, as values: what each kind caches per
token, keeps per sequence, and computes per token (numbers of values and FLOPs, not bytes).

A model entry (assets/models.json or a config.json read by model/files/hf_config.py) may list its
``layer_kinds``: each a kind and how many layers use it. Without the list every layer is one kind
(full attention, or a uniform sliding window, or MLA) and model/catalog/architecture.py counts it as
it always has. With d hidden, h query heads, g KV heads, k head dim, per layer of each kind:

    full attention (MHA/GQA/MQA)   cache 2·g·k per token;    FLOPs 4·h·k per key; keys = c
    sliding window w               cache 2·g·k per token;    keys = min(c, w)     (held: min(c, w))
    chunked local attention C      cache 2·g·k per token;    keys = c mod C       (held: min(c, C))
    attention sinks (gpt-oss)      a learned logit per head: h weights, nothing cached
    MLA (DeepSeek)                 cache r + r_rope (latent); FLOPs 2·h·(2r + r_rope) per key (absorbed)
    sparse MLA (DeepSeek-V3.2)     the MLA latent + the indexer's key (k_I) per token;
                                   indexer FLOPs 2·h_I·k_I per cached key, MLA over min(c, top-k) keys
    Gated DeltaNet (Qwen3-Next)    state n_v·d_k·d_v + (K−1)·conv per sequence; 2·4 FLOPs per state value
                                   per token (decay, S·k, the rank-1 correction, S·q) + 2·K·conv
    Mamba-2 (Nemotron-H)           state H·P·N + (K−1)·conv; 2·3 FLOPs per state value (decay, B·x, C·h)
    lightning attention (MiniMax)  state H·D·D; 2·3 FLOPs per state value (decay, kᵀv, q·S)

c is the context (cached tokens). A linear kind's state is the same size at any context: it never
grows. Its bytes per value are the model's state type (``state_bits``; engines keep the
recurrent state in the model's dtype or FP32, not in the KV cache's format). Multi-token-prediction
layers (``mtp_layers``) are listed but not counted, as the published totals do not count them.
"""
from __future__ import annotations

from typing import Any, Mapping

from model.values import frozen

ATTENTION = ("full", "sliding", "chunked", "mla", "sparse")
KINDS = ATTENTION + ("linear",)
MIXERS = ("gated-deltanet", "mamba2", "lightning")
MIXER_NAMES = {"gated-deltanet": "Gated DeltaNet", "mamba2": "Mamba-2", "lightning": "lightning attention"}
KIND_NAMES = {"full": "full attention", "sliding": "sliding-window attention", "chunked": "chunked local attention",
              "mla": "multi-head latent attention", "sparse": "sparse attention (indexer + top-k MLA)"}
# multiply-adds per state value per token, for the state's FLOPs (2 per multiply-add)
STATE_MACS = {"gated-deltanet": 4, "mamba2": 3, "lightning": 3}


@frozen
class LayerKind:
    """One kind of token mixer over the layers that use it: values and FLOPs summed over those layers."""

    kind: str                              # full | sliding | chunked | mla | sparse | linear
    label: str                             # words: "sliding-window attention", "Gated DeltaNet" …
    layers: int
    window: int = 0                        # sliding: its window; chunked: its chunk; sparse: top-k keys
    kv_values_per_token: float = 0.0       # K and V (or the latent) cached per token
    index_values_per_token: float = 0.0    # sparse: the indexer's keys cached per token
    attention_flops_per_context: float = 0.0   # per new token, per key it attends to
    index_flops_per_context: float = 0.0   # sparse: per new token, per cached key (the indexer)
    state_values: float = 0.0              # linear: the fixed state per sequence
    state_flops_per_token: float = 0.0     # linear: FLOPs per token on that state
    shards: int = 1                        # ways its cache splits over tensor-parallel GPUs (heads; 1: a latent)
    heads: int = 0                         # query heads (scores of an attention without flash attention)
    sinks: bool = False                    # attention sinks: a learned logit per head, nothing cached

    @property
    def grows(self) -> bool:
        """Whether what it holds per sequence grows with the context without bound."""
        return self.kind in ("full", "mla", "sparse")


@frozen
class MixerParams:
    """Parameters of every layer's token mixer: the input projections (Q, K, V or their linear
    counterparts), the output projections, and the small rest (norms, biases, sinks, convolutions)."""

    projections: float
    out: float
    small: float


def _i(spec: Mapping[str, Any], key: str, default: Any = None) -> int:
    value = spec.get(key, default)
    return int(value if value is not None else default)


def kinds_of(cfg: Mapping[str, Any]) -> tuple[LayerKind, ...]:
    """The entry's layer kinds with their per-token values (() for an entry without ``layer_kinds``)."""
    return tuple(_kind(cfg, spec) for spec in cfg.get("layer_kinds") or ())


def _attention_dims(cfg: Mapping[str, Any], spec: Mapping[str, Any]) -> tuple[int, int, int]:
    return (_i(spec, "heads", cfg["heads"]), _i(spec, "kv_heads", cfg["kv_heads"]),
            _i(spec, "head_dim", cfg["head_dim"]))


def _kind(cfg: Mapping[str, Any], spec: Mapping[str, Any]) -> LayerKind:
    kind, n = str(spec["kind"]), int(spec["layers"])
    if kind not in KINDS:
        raise ValueError(f"unknown layer kind '{kind}' (known: {', '.join(KINDS)})")
    if kind == "linear":
        return _linear(spec, n)
    if kind in ("mla", "sparse"):
        mla = cfg["mla"]
        kvr, rope, h = mla["kv_lora_rank"], mla["qk_rope_head_dim"], int(cfg["heads"])
        latent = kvr + rope
        base = dict(kind=kind, label=KIND_NAMES[kind], layers=n, kv_values_per_token=float(n * latent),
                    attention_flops_per_context=float(n * h * 2 * (latent + kvr)), shards=1, heads=h)
        if kind == "mla":
            return LayerKind(**base)
        ih, ik = _i(spec, "index_heads"), _i(spec, "index_head_dim")
        return LayerKind(**base, window=_i(spec, "topk"), index_values_per_token=float(n * ik),
                         index_flops_per_context=float(n * 2 * ih * ik))
    h, g, k = _attention_dims(cfg, spec)
    window = _i(spec, "window", 0) if kind != "full" else 0
    if kind != "full" and window < 1:
        raise ValueError(f"a {kind} layer kind needs a window of at least 1 token")
    return LayerKind(kind=kind, label=KIND_NAMES[kind], layers=n, window=window,
                     kv_values_per_token=float(n * 2 * g * k), attention_flops_per_context=float(n * 4 * h * k),
                     shards=g, heads=h, sinks=bool(spec.get("sinks", False)))


def _linear(spec: Mapping[str, Any], n: int) -> LayerKind:
    mixer = str(spec.get("mixer", ""))
    if mixer not in MIXERS:
        raise ValueError(f"unknown linear mixer '{mixer}' (known: {', '.join(MIXERS)})")
    state, conv, shards = _state(spec, mixer)
    kernel = _i(spec, "conv_kernel", 0)
    flops = 2 * STATE_MACS[mixer] * state + 2 * kernel * conv
    return LayerKind(kind="linear", label=MIXER_NAMES[mixer], layers=n,
                     state_values=float(n * (state + max(kernel - 1, 0) * conv)),
                     state_flops_per_token=float(n * flops), shards=shards)


def _state(spec: Mapping[str, Any], mixer: str) -> tuple[int, int, int]:
    """(recurrent state values, convolution channels, shards) of one layer of a linear mixer."""
    if mixer == "gated-deltanet":
        nk, nv, dk, dv = (_i(spec, x) for x in ("key_heads", "value_heads", "key_dim", "value_dim"))
        return nv * dk * dv, 2 * nk * dk + nv * dv, nk
    if mixer == "mamba2":
        heads, p, state, groups = (_i(spec, x) for x in ("heads", "head_dim", "state", "groups"))
        return heads * p * state, heads * p + 2 * groups * state, groups
    heads, dim = _i(spec, "heads"), _i(spec, "head_dim")
    return heads * dim * dim, 0, heads


def mixer_params(cfg: Mapping[str, Any], d: int) -> MixerParams:
    """Weights of the token mixers of the entry's ``layer_kinds``, all layers."""
    proj = out = small = 0
    gate = 2 if cfg.get("attn_output_gate") else 1
    qk_norm = bool(cfg.get("qk_norm"))
    bias = bool(cfg.get("qkv_bias"))
    for spec in cfg.get("layer_kinds") or ():
        n, kind = int(spec["layers"]), str(spec["kind"])
        if kind == "linear":
            p, o, s = _linear_params(spec, d)
        elif kind in ("mla", "sparse"):
            p, o, s = _mla_params(cfg, spec, d)
        else:
            h, g, k = _attention_dims(cfg, spec)
            p, o = gate * d * h * k + 2 * d * g * k, h * k * d
            s = (h * k + 2 * g * k if bias else 0) + (2 * k if qk_norm else 0) + (h if spec.get("sinks") else 0)
        proj, out, small = proj + n * p, out + n * o, small + n * s
    return MixerParams(float(proj), float(out), float(small))


def _mla_params(cfg: Mapping[str, Any], spec: Mapping[str, Any], d: int) -> tuple[int, int, int]:
    mla, h = cfg["mla"], int(cfg["heads"])
    qr, kvr = mla.get("q_lora_rank") or 0, mla["kv_lora_rank"]
    nope, rope, vd = mla["qk_nope_head_dim"], mla["qk_rope_head_dim"], mla["v_head_dim"]
    q = d * qr + qr * h * (nope + rope) if qr else d * h * (nope + rope)
    proj = q + d * (kvr + rope) + kvr * h * (nope + vd)
    small = qr + kvr
    if spec["kind"] == "sparse":               # the indexer: its queries (from the Q latent), keys, head weights
        ih, ik = _i(spec, "index_heads"), _i(spec, "index_head_dim")
        proj += (qr or d) * ih * ik + d * ik + d * ih
        small += 2 * ik
    return proj, h * vd * d, small


def _linear_params(spec: Mapping[str, Any], d: int) -> tuple[int, int, int]:
    mixer = str(spec.get("mixer", ""))
    kernel = _i(spec, "conv_kernel", 0)
    if mixer == "gated-deltanet":
        nk, nv, dk, dv = (_i(spec, x) for x in ("key_heads", "value_heads", "key_dim", "value_dim"))
        conv = 2 * nk * dk + nv * dv
        return d * (2 * nk * dk + 2 * nv * dv + 2 * nv), nv * dv * d, conv * kernel + 2 * nv + dv
    if mixer == "mamba2":
        heads, p, state, groups = (_i(spec, x) for x in ("heads", "head_dim", "state", "groups"))
        inner, conv = heads * p, heads * p + 2 * groups * state
        return d * (2 * inner + 2 * groups * state + heads), inner * d, conv * (kernel + 1) + 3 * heads + inner
    heads, dim = _i(spec, "heads"), _i(spec, "head_dim")
    return d * 4 * heads * dim, heads * dim * d, heads * dim       # Q, K, V and the output gate; O; its norm
