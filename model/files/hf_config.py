"""A Hugging Face ``config.json`` (read offline) → a catalogue model.

The config's fields map onto the same architecture entry assets/models.json uses, and the
parameter count comes from model/catalog/architecture.py, so a user can check it against the
model card:

    layers = num_hidden_layers      hidden = hidden_size        heads = num_attention_heads
    kv_heads = num_key_value_heads (default: heads)            head_dim = head_dim (default hidden/heads)
    ffn = intermediate_size         vocab = vocab_size          tied = tie_word_embeddings
    Mixtral, gpt-oss, MiniMax, Phi-3.5-MoE, Granite MoE:  experts = num_local_experts,
                  experts_per_token = num_experts_per_tok (each expert intermediate_size wide)
    Qwen MoE (Qwen1.5/2-MoE, Qwen3):  experts = num_experts, expert_ffn = moe_intermediate_size (+ a shared expert)
    OLMoE:        experts = num_experts, each intermediate_size wide, no shared expert
    dense besides Llama's kind: OLMo 2, SmolLM3, StarCoder2 (two FFN matrices, no gate; use_bias: biases)
    Granite 4.0-H: layer_types mamba / attention, a shared MLP beside num_local_experts routed experts
    DeepSeek MoE: experts = n_routed_experts, shared_experts = n_shared_experts,
                  expert_ffn = moe_intermediate_size, first_dense_layers = first_k_dense_replace,
                  MLA = q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim
                  (V3.2: + the indexer, index_n_heads, index_head_dim, index_topk); GLM-4.5 alike, without MLA
    layer kinds (sliding, chunked, linear, Mamba-2 …): model/files/hf_families.py

A multimodal wrapper's language model is read from its ``text_config``. A ``model_type`` this version
does not know but whose ``architectures`` class it does (Kimi K2: kimi_k2, DeepseekV3ForCausalLM) reads
as that architecture, and says so. Architectures it does not know are refused, naming what is missing;
a field it cannot count is refused in one line naming the field. A config holding a bare ``Infinity``
or ``NaN`` reads as Python's json module reads it (``read_model_config``).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping

from model.catalog.parts import LLM
from model.files.assets import llm_from_entry
from model.catalog.active import shipped_catalog
from model.files.hardware_file import MAX_FILE_BYTES
from model.files.hf_families import (experts_counted, experts_named, granite_hybrid, layer_type_kinds, llama4,
                                     mtp_note, nemotron_h, qwen_moe)
from model.files.hf_fields import ModelConfigError, dtype_bits, finite_only, missing, require, whole
from model.files.limits import check_text
from model.files.safe_io import SafeIOError, read_json

__all__ = ["ModelConfigError", "model_entry", "llm_from_config", "load_model_config", "read_model_config",
           "default_name", "SUPPORTED"]

DENSE = ("llama", "mistral", "qwen2", "qwen3", "phi3", "gemma", "gemma2", "gemma3_text", "qwen3_5_text",
         "olmo2", "smollm3", "starcoder2")
NAMED_EXPERTS = ("mixtral", "gpt_oss", "minimax_m1", "minimax_m2", "granitemoe", "granitemoeshared", "phimoe")
QWEN_MOE = ("qwen3_moe", "qwen3_next", "qwen3_5_moe_text", "qwen2_moe")
DEEPSEEK_LIKE = ("deepseek_v2", "deepseek_v3", "deepseek_v32", "glm4_moe")
SUPPORTED = DENSE + NAMED_EXPERTS + QWEN_MOE + DEEPSEEK_LIKE + ("llama4_text", "nemotron_h", "olmoe",
                                                               "granitemoehybrid")
# their config classes default tie_word_embeddings to true
TIED_BY_DEFAULT = ("gemma", "gemma2", "gemma3_text", "smollm3", "starcoder2")
QKV_BIAS = ("qwen2", "qwen2_moe")                       # Qwen2 / 2.5 and Qwen1.5 / 2 MoE have Q, K, V biases
QK_NORM = ("qwen3", "qwen3_moe", "qwen3_next", "qwen3_5_moe_text", "qwen3_5_text", "gemma3_text", "olmo2", "olmoe")
NOT_GATED = ("starcoder2",)                             # c_fc → GELU → c_proj: two matrices, no gate
OUTPUT_GATE = ("qwen3_next",)                           # Qwen3NextConfig: attn_output_gate true by default
BASE_FIELDS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size")
MLA_FIELDS = ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
FAMILY_FIELDS = {
    "mixtral": ("num_local_experts", "num_experts_per_tok"),
    "deepseek": ("n_routed_experts", "num_experts_per_tok", "moe_intermediate_size") + MLA_FIELDS,
    "deepseek_v32": ("index_n_heads", "index_head_dim", "index_topk"),
    "glm4_moe": ("n_routed_experts", "num_experts_per_tok", "moe_intermediate_size"),
}


def _stem(name: str) -> str:
    return name.lower().replace("forcausallm", "").replace("forconditionalgeneration", "").replace("_", "")


def _model_type(cfg: Mapping[str, Any]) -> str:
    mt = cfg.get("model_type")
    if isinstance(mt, str) and mt:
        return mt.lower()
    stem = _architecture_stem(cfg)
    return next((known for known in SUPPORTED if known.replace("_", "") == stem.replace("_", "")), stem)


def _architecture_stem(cfg: Mapping[str, Any]) -> str:
    archs = cfg.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0].lower().replace("forcausallm", "")
    return ""


def _architecture_type(cfg: Mapping[str, Any]) -> str:
    """The supported model type whose code a config under another name runs ('' when none): its
    ``auto_map`` config class and its ``architectures`` class both name it (Kimi K2: kimi_k2 with
    configuration_deepseek.DeepseekV3Config and DeepseekV3ForCausalLM)."""
    archs, auto = cfg.get("architectures"), cfg.get("auto_map")
    if not (isinstance(archs, list) and archs and isinstance(archs[0], str) and isinstance(auto, Mapping)
            and isinstance(auto.get("AutoConfig"), str)):
        return ""
    stem = _stem(archs[0])
    config_stem = auto["AutoConfig"].rpartition(".")[2].lower().removesuffix("config").replace("_", "")
    if config_stem != stem:
        return ""
    return next((known for known in SUPPORTED if known.replace("_", "") == stem), "")


def _text_config(cfg: Mapping[str, Any]) -> tuple[Mapping[str, Any], list[str]]:
    """Multimodal wrappers keep the language model under text_config (the wrapper's
    tie_word_embeddings applies to it when it has none of its own)."""
    inner = cfg.get("text_config")
    if _model_type(cfg) not in SUPPORTED and isinstance(inner, Mapping) and _model_type(inner) in SUPPORTED:
        merged = dict(inner)
        if "tie_word_embeddings" not in merged and "tie_word_embeddings" in cfg:
            merged["tie_word_embeddings"] = cfg["tie_word_embeddings"]
        return merged, [f"read the language model in text_config ({_model_type(inner)}); the vision tower is not counted"]
    return cfg, []


def _family_fields(mt: str) -> tuple[str, ...]:
    if mt in ("deepseek_v2", "deepseek_v3"):
        return FAMILY_FIELDS["deepseek"]
    if mt == "deepseek_v32":
        return FAMILY_FIELDS["deepseek"] + FAMILY_FIELDS["deepseek_v32"]
    return FAMILY_FIELDS.get(mt, ())


def model_entry(cfg: Any) -> dict[str, Any]:
    """A models.json-style entry from a config.json document (raises ModelConfigError)."""
    if not isinstance(cfg, Mapping):
        raise ModelConfigError("is not a Hugging Face config.json (expected a JSON object)")
    cfg, notes = _text_config(cfg)
    mt = _model_type(cfg)
    if mt not in SUPPORTED and _architecture_type(cfg):
        notes.append(f"model_type '{mt}' read as {_architecture_type(cfg)}, the architecture its "
                     f"architectures field names ({cfg['architectures'][0]})")
        mt = _architecture_type(cfg)
    if "intermediate_size" not in cfg and "moe_intermediate_size" in cfg and not cfg.get("mlp_only_layers") \
            and not cfg.get("first_k_dense_replace"):
        cfg = {**cfg, "intermediate_size": cfg["moe_intermediate_size"]}     # every layer MoE: no dense FFN width
    gone = missing(cfg, BASE_FIELDS + _family_fields(mt))
    if mt not in SUPPORTED:
        what = f"architecture '{mt}'" if mt else "a config without model_type"
        lack = f"; missing: {', '.join(gone)}" if gone else ""
        raise ModelConfigError(f"{what} is not one this version reads ({', '.join(SUPPORTED)}){lack}")
    if gone:
        raise ModelConfigError(f"{mt} config is missing {', '.join(gone)}")
    entry = _base(cfg, mt)
    entry.update(_window(cfg, mt, entry, notes))
    entry.update(_experts(cfg, mt, entry, notes))
    if entry.get("experts") and entry["experts_per_token"] > entry["experts"]:
        raise ModelConfigError(f"num_experts_per_tok {entry['experts_per_token']} exceeds the {entry['experts']} experts")
    mtp_note(cfg, notes)
    if entry.get("layer_kinds") and any(k["kind"] == "linear" for k in entry["layer_kinds"]) and "state_bits" not in entry:
        entry["state_bits"] = dtype_bits(cfg, "mamba_ssm_dtype", "mamba_ssm_cache_dtype", "torch_dtype", "dtype")
    entry["model_type"] = mt
    entry["notes"] = "; ".join(notes)
    return entry


def _base(cfg: Mapping[str, Any], mt: str) -> dict[str, Any]:
    heads = whole(cfg, "num_attention_heads")
    hidden = whole(cfg, "hidden_size")
    kv = whole(cfg, "num_key_value_heads", default=heads) if cfg.get("num_key_value_heads") is not None else heads
    if cfg.get("head_dim") is not None:
        head_dim = whole(cfg, "head_dim")
    elif cfg.get("attention_head_dim") is not None:
        head_dim = whole(cfg, "attention_head_dim")
    elif hidden % heads:          # the head size is hidden / heads: it must come out whole (and ≥ 1)
        raise ModelConfigError(f"hidden_size {hidden} is not a multiple of num_attention_heads {heads} "
                               "(and no head_dim is given)")
    else:
        head_dim = hidden // heads
    if heads % kv:
        raise ModelConfigError(f"num_attention_heads {heads} is not a multiple of num_key_value_heads {kv}")
    entry: dict[str, Any] = {
        "layers": whole(cfg, "num_hidden_layers"), "hidden": hidden, "heads": heads, "kv_heads": kv,
        "head_dim": head_dim, "ffn": whole(cfg, "intermediate_size"), "ffn_gated": True,
        "vocab": whole(cfg, "vocab_size"),
        "tied_embeddings": bool(cfg.get("tie_word_embeddings", mt in TIED_BY_DEFAULT)),
        "qkv_bias": mt in QKV_BIAS or bool(cfg.get("attention_bias", cfg.get("use_bias", False))),
    }
    if mt in NOT_GATED:
        entry["ffn_gated"] = False
        if cfg.get("use_bias"):
            entry["mlp_bias"] = True              # biases on c_fc and c_proj, LayerNorms with a bias
    if mt in QK_NORM or (cfg.get("use_qk_norm") and mt != "llama4_text"):    # Llama 4's QK norm has no weights
        entry["qk_norm"] = True
    if cfg.get("attn_output_gate", mt in OUTPUT_GATE):
        entry["attn_output_gate"] = True
    return entry


def _window(cfg: Mapping[str, Any], mt: str, entry: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    """The layer kinds: one sliding window for every layer (Mistral v0.1), or a mix (hf_families)."""
    if mt == "nemotron_h":
        return nemotron_h(cfg, entry, notes)
    kinds = layer_type_kinds(cfg, mt, entry["layers"], notes)
    if mt == "deepseek_v32":
        kinds = [{"kind": "sparse", "layers": entry["layers"], "index_heads": whole(cfg, "index_n_heads"),
                  "index_head_dim": whole(cfg, "index_head_dim"), "topk": whole(cfg, "index_topk")}]
        notes.append(f"sparse attention: an indexer ({cfg['index_n_heads']} heads × {cfg['index_head_dim']}) "
                     f"reads every cached key, MLA attends to the top {cfg['index_topk']:,}")
    if len(kinds) == 1 and kinds[0]["kind"] == "sliding" and not kinds[0].get("sinks"):
        return {"sliding_window": kinds[0]["window"]}          # every layer one window: counted as always
    if kinds:
        return {"layer_kinds": kinds}
    window = cfg.get("sliding_window")
    if mt in ("qwen2", "qwen3", "qwen3_moe") and not cfg.get("use_sliding_window", False):
        window = None
    if window is None or mt in ("gemma2", "gemma3_text", "gpt_oss", "llama4_text"):
        return {}
    return {"sliding_window": whole(cfg, "sliding_window")}


def _experts(cfg: Mapping[str, Any], mt: str, entry: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    if mt in NAMED_EXPERTS:
        return experts_named(cfg, entry, notes)
    if mt in QWEN_MOE or (mt == "qwen3_5_text" and cfg.get("num_experts")):
        return qwen_moe(cfg, entry, notes)
    if mt == "llama4_text":
        return llama4(cfg, entry, notes)
    if mt == "olmoe":
        return experts_counted(cfg, entry, notes)
    if mt == "granitemoehybrid":
        return granite_hybrid(cfg, entry, notes)
    if mt in DEEPSEEK_LIKE:
        return _deepseek(cfg, entry, notes, mla=mt != "glm4_moe")
    return {}


def _deepseek(cfg: Mapping[str, Any], entry: Mapping[str, Any], notes: list[str], mla: bool = True) -> dict[str, Any]:
    first_dense = whole(cfg, "first_k_dense_replace", default=0, minimum=0)
    if first_dense >= entry["layers"]:
        raise ModelConfigError(f"first_k_dense_replace {first_dense} leaves no MoE layer of {entry['layers']}")
    if cfg.get("moe_layer_freq", 1) != 1:
        notes.append(f"moe_layer_freq {cfg.get('moe_layer_freq')!r} read as 1 (every layer after the dense ones)")
    out = {"experts": whole(cfg, "n_routed_experts"), "experts_per_token": whole(cfg, "num_experts_per_tok"),
           "shared_experts": whole(cfg, "n_shared_experts", default=0, minimum=0),
           "expert_ffn": whole(cfg, "moe_intermediate_size"), "first_dense_layers": first_dense}
    if not mla:
        return out
    require(cfg, MLA_FIELDS, "MLA")
    mla_dims = {k: whole(cfg, k) for k in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")}
    mla_dims["q_lora_rank"] = whole(cfg, "q_lora_rank") if cfg.get("q_lora_rank") is not None else 0   # 0: full-rank Q
    return {**out, "head_dim": mla_dims["v_head_dim"], "mla": mla_dims}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")[:56] or "model"


def default_name(cfg: Any, path: str | os.PathLike | None = None) -> str:
    """A display name: the config's _name_or_path, else the file's (or its folder's) name."""
    if isinstance(cfg, Mapping) and isinstance(cfg.get("_name_or_path"), str) and cfg["_name_or_path"].strip():
        return cfg["_name_or_path"].strip().rstrip("/").split("/")[-1][:80]
    if path is not None:
        p = Path(path)
        stem = p.parent.name if p.stem.lower() == "config" and p.parent.name else p.stem
        if stem:
            return stem[:80]
    return (_model_type(cfg) if isinstance(cfg, Mapping) else "") or "custom model"


def llm_from_config(cfg: Any, name: str, source: str = "config.json") -> LLM:
    """The catalogue model for a config.json document, named ``name`` (id: its slug, kept clear
    of shipped ids)."""
    problem = check_text(name, required=True)
    if problem:
        raise ModelConfigError(f"the model's name {problem}")
    entry = model_entry(cfg)
    ident = _slug(name)
    taken = {i for m in shipped_catalog().models for i in (m.id, *m.aliases)}
    if ident in taken:
        ident = f"{ident}-config"
    entry.update(id=ident, name=name.strip() or ident, aliases=[], source=source)
    llm = llm_from_entry({**entry, "published_params_B": 0.0})
    # no published count in a config: the derived total stands in for it
    return llm_from_entry({**entry, "published_params_B": llm.params.total / 1e9})


def read_model_config(path: str | os.PathLike) -> Any:
    """A config.json file through model/files/safe_io.py's guards, reading a bare ``Infinity`` or ``NaN``
    as Python's json module does (Nemotron-H's time_step_limit holds one) and keeping it as its name,
    so the document kept and saved is strict JSON (raises ModelConfigError, one line)."""
    try:
        return finite_only(read_json(path, max_bytes=MAX_FILE_BYTES, unique_keys=True, allow_constants=True))
    except SafeIOError as exc:
        raise ModelConfigError(str(exc)) from None


def load_model_config(path: str | os.PathLike, name: str | None = None) -> tuple[LLM, str]:
    """(LLM, the config's JSON text) from a config.json file (raises ModelConfigError, one line)."""
    p = Path(path)
    cfg = read_model_config(p)
    try:
        llm = llm_from_config(cfg, name or default_name(cfg, p), source=f"Hugging Face config.json ({p.name})")
    except ModelConfigError as exc:
        raise ModelConfigError(f"{p.name}: {exc}") from None
    return llm, json.dumps(cfg, indent=2, ensure_ascii=False) + "\n"
