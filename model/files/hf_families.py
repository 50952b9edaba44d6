"""How each family's config.json says which layers are which (model/catalog/layers.py's kinds) and how
its experts are laid out. model/files/hf_config.py reads the fields every family shares, then the
family's reader here adds its own to the models.json-style entry:

    layer_types            one name per layer: full_attention, sliding_attention (window =
                           sliding_window), chunked_attention, linear_attention (gpt-oss, Gemma 3,
                           Qwen3-Next / Qwen3.5, newer configs of any family)
    Gemma 2                no list: the even layers slide (window sliding_window), the odd are global
    Gemma 3                sliding_window_pattern p: layer i is global when (i + 1) % p == 0
    Llama 4                no_rope_layers (1: RoPE with chunked attention over attention_chunk_size,
                           0: global NoPE); absent or empty: every 4th layer global (the config's default);
                           MoE every interleave_moe_layer_step-th layer, the others dense (intermediate_size_mlp)
    Qwen3-Next / Qwen3.5   linear_attention layers are Gated DeltaNet (linear_num_key_heads, _value_heads,
                           _key_head_dim, _value_head_dim, linear_conv_kernel_dim); full_attention_interval
                           when there is no list; attn_output_gate; a shared expert of
                           shared_expert_intermediate_size
    Qwen3-MoE              MoE where (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers
    DeepSeek-V3.2          every layer sparse: MLA over the index_topk keys its indexer (index_n_heads ×
                           index_head_dim) picks
    Nemotron-H             hybrid_override_pattern, one character per block: M Mamba-2 (mamba_num_heads ×
                           mamba_head_dim, ssm_state_size, n_groups, conv_kernel), * attention,
                           - a dense FFN (ReLU², not gated), E a MoE FFN
    MiniMax-M1             attn_type_list: 0 lightning attention (linear), 1 softmax attention
    GLM-4.5, MiniMax-M2    full attention, MoE (first_k_dense_replace dense layers first)

Anything a family's fields say that the model cannot count is refused in one line naming the field.
Multi-token-prediction layers (num_nextn_predict_layers, mtp_num_hidden_layers, num_mtp_modules) are
named in the notes and not counted, as the published totals do not count them.
"""
from __future__ import annotations

from typing import Any, Mapping

from model.files.hf_fields import ModelConfigError, dtype_bits, require, whole

GDN_FIELDS = ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim")
MAMBA_FIELDS = ("mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups")
# the config classes' own defaults for fields a config may leave out (transformers' Qwen3NextConfig,
# Llama4TextConfig, NemotronHConfig)
CLASS_DEFAULTS = {"linear_conv_kernel_dim": 4, "no_rope_layer_interval": 4, "conv_kernel": 4,
                  "full_attention_interval": 4}
LAYER_TYPE_NAMES = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked",
                    "linear_attention": "linear"}
# a family's own names in layer_types (Granite 4.0-H: "mamba" blocks are Mamba-2, "attention" blocks global)
FAMILY_LAYER_TYPES = {"granitemoehybrid": {"mamba": "linear", "attention": "full"}}
# transformers' GraniteMoeHybridConfig defaults for the Mamba-2 fields a config may leave out
GRANITE_MAMBA_DEFAULTS = {"mamba_n_heads": 128, "mamba_n_groups": 1, "mamba_d_state": 256, "mamba_d_conv": 4,
                          "mamba_expand": 2}


def layer_type_kinds(cfg: Mapping[str, Any], mt: str, layers: int, notes: list[str]) -> list[dict[str, Any]]:
    """The layer kinds a family's fields give, as runs {kind, layers, …} (empty: one kind, counted as always)."""
    names = _layer_names(cfg, mt, layers)
    if names is None:
        return []
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    out = []
    for name, n in counts.items():
        out.append(_spec(cfg, mt, name, n))
    if len(out) == 1 and out[0]["kind"] == "full":
        return []
    notes.append(" + ".join(f"{s['layers']} {_words(s)}" for s in out))
    return out


def _layer_names(cfg: Mapping[str, Any], mt: str, layers: int) -> list[str] | None:
    types = cfg.get("layer_types")
    if types is not None:
        if not isinstance(types, list) or len(types) != layers:
            raise ModelConfigError(f"layer_types must list one type per layer ({layers}), got "
                                   f"{len(types) if isinstance(types, list) else type(types).__name__}")
        names = {**LAYER_TYPE_NAMES, **FAMILY_LAYER_TYPES.get(mt, {})}
        bad = next((t for t in types if t not in names), None)
        if bad is not None:
            raise ModelConfigError(f"layer_types holds '{str(bad)[:40]}', not a layer type this version reads "
                                   f"({', '.join(names)})")
        return [names[t] for t in types]
    if mt == "gemma2" and cfg.get("sliding_window"):
        return ["sliding" if i % 2 == 0 else "full" for i in range(layers)]
    if mt in ("gemma3_text", "gemma3") and cfg.get("sliding_window"):
        p = whole(cfg, "sliding_window_pattern", default=6)
        return ["full" if (i + 1) % p == 0 else "sliding" for i in range(layers)]
    if mt in ("qwen3_next", "qwen3_5_moe_text", "qwen3_5_text"):
        p = whole(cfg, "full_attention_interval", default=CLASS_DEFAULTS["full_attention_interval"])
        return ["full" if (i + 1) % p == 0 else "linear" for i in range(layers)]
    if mt == "llama4_text" and cfg.get("attention_chunk_size"):
        nope = cfg.get("no_rope_layers") or [int((i + 1) % CLASS_DEFAULTS["no_rope_layer_interval"] != 0)
                                             for i in range(layers)]
        if not isinstance(nope, list) or len(nope) != layers:
            raise ModelConfigError(f"no_rope_layers must list one flag per layer ({layers})")
        return ["chunked" if flag else "full" for flag in nope]
    if mt == "minimax_m1":
        kinds = cfg.get("attn_type_list")
        if not isinstance(kinds, list) or len(kinds) != layers or any(k not in (0, 1) for k in kinds):
            raise ModelConfigError(f"attn_type_list must list 0 (lightning) or 1 (softmax) for each of the {layers} layers")
        return ["full" if k == 1 else "linear" for k in kinds]
    return None


def _spec(cfg: Mapping[str, Any], mt: str, name: str, n: int) -> dict[str, Any]:
    spec: dict[str, Any] = {"kind": name, "layers": n}
    if name == "sliding":
        spec["window"] = whole(cfg, "sliding_window")
    elif name == "chunked":
        spec["window"] = whole(cfg, "attention_chunk_size")
    elif name == "linear":
        spec.update(_linear_spec(cfg, mt))
    if mt == "gpt_oss" and name != "linear":
        spec["sinks"] = True
    return spec


def _linear_spec(cfg: Mapping[str, Any], mt: str) -> dict[str, Any]:
    if mt in ("qwen3_next", "qwen3_5_moe_text", "qwen3_5_text"):
        require(cfg, GDN_FIELDS, "Gated DeltaNet")
        return {"mixer": "gated-deltanet", "key_heads": whole(cfg, "linear_num_key_heads"),
                "value_heads": whole(cfg, "linear_num_value_heads"), "key_dim": whole(cfg, "linear_key_head_dim"),
                "value_dim": whole(cfg, "linear_value_head_dim"),
                "conv_kernel": whole(cfg, "linear_conv_kernel_dim", default=CLASS_DEFAULTS["linear_conv_kernel_dim"])}
    if mt == "minimax_m1":
        heads = whole(cfg, "num_attention_heads")
        return {"mixer": "lightning", "heads": heads, "head_dim": whole(cfg, "head_dim")}
    if mt == "granitemoehybrid":
        return _granite_mamba(cfg)
    raise ModelConfigError(f"layer_types names linear_attention layers, whose kind {mt} does not say "
                           "(this version reads Gated DeltaNet, Mamba-2 and lightning attention)")


def _words(spec: Mapping[str, Any]) -> str:
    kind = spec["kind"]
    if kind == "sliding":
        return f"sliding-window ({spec['window']:,} tokens)"
    if kind == "chunked":
        return f"chunked local ({spec['window']:,}-token chunks)"
    if kind == "linear":
        return {"gated-deltanet": "Gated DeltaNet", "mamba2": "Mamba-2", "lightning": "lightning attention"}[spec["mixer"]]
    return "full attention"


def _granite_mamba(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Granite 4.0-H's Mamba-2 blocks: mamba_n_heads heads of mamba_d_head ("auto": mamba_expand ×
    hidden ÷ heads), mamba_d_state, mamba_n_groups, mamba_d_conv (the config class's defaults where absent)."""
    d = GRANITE_MAMBA_DEFAULTS
    heads = whole(cfg, "mamba_n_heads", default=d["mamba_n_heads"])
    if cfg.get("mamba_d_head", "auto") == "auto":
        inner = whole(cfg, "mamba_expand", default=d["mamba_expand"]) * whole(cfg, "hidden_size")
        if inner % heads:
            raise ModelConfigError(f"mamba_expand × hidden_size ({inner}) is not a multiple of mamba_n_heads {heads}")
        head_dim = inner // heads
    else:
        head_dim = whole(cfg, "mamba_d_head")
    return {"mixer": "mamba2", "heads": heads, "head_dim": head_dim,
            "state": whole(cfg, "mamba_d_state", default=d["mamba_d_state"]),
            "groups": whole(cfg, "mamba_n_groups", default=d["mamba_n_groups"]),
            "conv_kernel": whole(cfg, "mamba_d_conv", default=d["mamba_d_conv"])}


def granite_hybrid(cfg: Mapping[str, Any], entry: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    """Granite 4.0-H: every block has a shared MLP of shared_intermediate_size and, with num_local_experts
    above 0, routed experts of intermediate_size beside it; without experts the shared MLP is the FFN."""
    if cfg.get("num_local_experts"):
        return experts_named(cfg, entry, notes)
    return {"ffn": whole(cfg, "shared_intermediate_size", default=entry["ffn"])}


def nemotron_h(cfg: Mapping[str, Any], entry: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """Nemotron-H: one character of hybrid_override_pattern per block."""
    pattern = cfg.get("hybrid_override_pattern")
    if not isinstance(pattern, str) or len(pattern) != entry["layers"]:
        raise ModelConfigError(f"hybrid_override_pattern must hold one character per layer ({entry['layers']})")
    bad = next((c for c in pattern if c not in "M*-E"), None)
    if bad is not None:
        raise ModelConfigError(f"hybrid_override_pattern holds '{bad}': this version reads M (Mamba-2), "
                               "* (attention), - (MLP) and E (MoE)")
    require(cfg, MAMBA_FIELDS, "nemotron_h")
    kinds = [{"kind": "linear", "layers": pattern.count("M"), "mixer": "mamba2",
              "heads": whole(cfg, "mamba_num_heads"), "head_dim": whole(cfg, "mamba_head_dim"),
              "state": whole(cfg, "ssm_state_size"), "groups": whole(cfg, "n_groups"),
              "conv_kernel": whole(cfg, "conv_kernel", default=CLASS_DEFAULTS["conv_kernel"])}]
    if pattern.count("*"):
        kinds.append({"kind": "full", "layers": pattern.count("*"),
                      "head_dim": whole(cfg, "attention_head_dim", default=entry["head_dim"])})
    out: dict[str, Any] = {"layer_kinds": [k for k in kinds if k["layers"]], "ffn_gated": False,
                           "ffn_layers": pattern.count("-") + pattern.count("E"),
                           "state_bits": dtype_bits(cfg, "mamba_ssm_cache_dtype", "torch_dtype", "dtype")}
    if pattern.count("E"):
        require(cfg, ("n_routed_experts", "num_experts_per_tok", "moe_intermediate_size"), "nemotron_h MoE")
        shared = whole(cfg, "n_shared_experts", default=0, minimum=0)
        out.update(experts=whole(cfg, "n_routed_experts"), experts_per_token=whole(cfg, "num_experts_per_tok"),
                   expert_ffn=whole(cfg, "moe_intermediate_size"), shared_experts=shared,
                   moe_layers=pattern.count("E"))
        if shared:
            out["shared_expert_ffn"] = whole(cfg, "moe_shared_expert_intermediate_size",
                                             default=out["expert_ffn"])
    notes.append(f"{len(pattern)} blocks: {pattern.count('M')} Mamba-2, {pattern.count('*')} attention, "
                 f"{pattern.count('-')} MLP (ReLU²), {pattern.count('E')} MoE")
    return out


def qwen_moe(cfg: Mapping[str, Any], entry: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    """Qwen3-MoE, Qwen3-Next, Qwen3.5: num_experts routed, decoder_sparse_step, mlp_only_layers, a shared
    expert of shared_expert_intermediate_size (Next, 3.5)."""
    if not cfg.get("num_experts"):
        return {}
    require(cfg, ("num_experts", "num_experts_per_tok", "moe_intermediate_size"), "Qwen MoE")
    step = whole(cfg, "decoder_sparse_step", default=1)
    dense = cfg.get("mlp_only_layers") or []
    if not isinstance(dense, list):
        raise ModelConfigError("mlp_only_layers must be a list of layer numbers")
    moe = sum(1 for i in range(entry["layers"]) if i not in dense and (i + 1) % step == 0)
    shared_ffn = whole(cfg, "shared_expert_intermediate_size", default=0, minimum=0)
    out = {"experts": whole(cfg, "num_experts"), "experts_per_token": whole(cfg, "num_experts_per_tok"),
           "expert_ffn": whole(cfg, "moe_intermediate_size"), "shared_experts": 1 if shared_ffn else 0,
           "moe_layers": moe}
    if shared_ffn:
        out["shared_expert_ffn"] = shared_ffn
    if moe != entry["layers"]:
        notes.append(f"{moe} of {entry['layers']} layers MoE, the rest dense (FFN {entry['ffn']:,})")
    return out


def llama4(cfg: Mapping[str, Any], entry: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    """Llama 4: MoE every interleave_moe_layer_step-th layer (a shared expert beside the routed),
    the other layers dense of intermediate_size_mlp."""
    require(cfg, ("num_local_experts", "num_experts_per_tok"), "llama4_text")
    step = whole(cfg, "interleave_moe_layer_step", default=1)
    moe = cfg.get("moe_layers") or list(range(step - 1, entry["layers"], step))
    expert_ffn = entry["ffn"]
    out = {"experts": whole(cfg, "num_local_experts"), "experts_per_token": whole(cfg, "num_experts_per_tok"),
           "expert_ffn": expert_ffn, "shared_experts": 1, "moe_layers": len(moe),
           "ffn": whole(cfg, "intermediate_size_mlp", default=expert_ffn)}
    if len(moe) != entry["layers"]:
        notes.append(f"MoE in {len(moe)} of {entry['layers']} layers, the others dense (FFN {out['ffn']:,})")
    return out


def experts_named(cfg: Mapping[str, Any], entry: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    """gpt-oss, Mixtral, MiniMax: num_local_experts routed, each of intermediate_size; MiniMax's shared
    expert of shared_intermediate_size when that is above 0."""
    require(cfg, ("num_local_experts", "num_experts_per_tok"), "MoE")
    shared = whole(cfg, "shared_intermediate_size", default=0, minimum=0)
    out = {"experts": whole(cfg, "num_local_experts"), "experts_per_token": whole(cfg, "num_experts_per_tok"),
           "shared_experts": 1 if shared else 0, "expert_ffn": entry["ffn"]}
    if shared:
        out["shared_expert_ffn"] = shared
    return out


def experts_counted(cfg: Mapping[str, Any], entry: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    """OLMoE: num_experts routed in every layer, each of intermediate_size, no shared expert."""
    require(cfg, ("num_experts", "num_experts_per_tok"), "olmoe")
    return {"experts": whole(cfg, "num_experts"), "experts_per_token": whole(cfg, "num_experts_per_tok"),
            "shared_experts": 0, "expert_ffn": entry["ffn"]}


def mtp_note(cfg: Mapping[str, Any], notes: list[str]) -> None:
    """Multi-token-prediction layers: named, not counted (optional for decoding; the published totals
    leave them out)."""
    n = cfg.get("num_nextn_predict_layers") or cfg.get("mtp_num_hidden_layers") or \
        (cfg.get("num_mtp_modules") if cfg.get("use_mtp") else 0)
    if isinstance(n, int) and not isinstance(n, bool) and n > 0:
        notes.append(f"{n} multi-token-prediction layer{'s' if n > 1 else ''} not counted (optional: only "
                     "speculative decoding uses them; the published totals leave them out)")
