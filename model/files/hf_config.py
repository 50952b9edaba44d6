"""A Hugging Face ``config.json`` (read offline) → a catalogue model.

The config's fields map onto the same architecture entry assets/models.json uses, and the
parameter count comes from model/catalog/architecture.py, so a user can check it against the
model card:

    layers = num_hidden_layers      hidden = hidden_size        heads = num_attention_heads
    kv_heads = num_key_value_heads (default: heads)            head_dim = head_dim (default hidden/heads)
    ffn = intermediate_size         vocab = vocab_size          tied = tie_word_embeddings
    Mixtral MoE:  experts = num_local_experts, experts_per_token = num_experts_per_tok
    DeepSeek MoE: experts = n_routed_experts, shared_experts = n_shared_experts,
                  expert_ffn = moe_intermediate_size, first_dense_layers = first_k_dense_replace,
                  MLA = q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim

Architectures it does not know (``model_type``) are refused, naming what is missing.
"""
from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any, Mapping

from model.catalog.parts import LLM
from model.files.assets import llm_from_entry
from model.catalog.active import shipped_catalog
from model.files.hardware_file import HardwareFileError, read_json_file
from model.files.limits import check_text

LLAMA_LIKE = ("llama", "mistral", "qwen2", "qwen3", "phi3", "gemma", "gemma2")
MIXTRAL_LIKE = ("mixtral",)
DEEPSEEK_LIKE = ("deepseek_v2", "deepseek_v3")
SUPPORTED = LLAMA_LIKE + MIXTRAL_LIKE + DEEPSEEK_LIKE
TIED_BY_DEFAULT = ("gemma", "gemma2")          # their config classes default tie_word_embeddings to true
QKV_BIAS = ("qwen2",)                           # Qwen2 / 2.5 have Q, K, V biases
BASE_FIELDS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size")
MIXTRAL_FIELDS = ("num_local_experts", "num_experts_per_tok")
DEEPSEEK_FIELDS = ("n_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "kv_lora_rank",
                   "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
# Plausibility ceilings (far above any published model): a typo, not a model, beyond these.
CEILINGS = {"hidden_size": 1 << 18, "num_hidden_layers": 4096, "num_attention_heads": 8192,
            "num_key_value_heads": 8192, "head_dim": 8192, "intermediate_size": 1 << 20, "vocab_size": 1 << 24,
            "num_local_experts": 1 << 16, "n_routed_experts": 1 << 16, "num_experts_per_tok": 1 << 16,
            "n_shared_experts": 1 << 10, "moe_intermediate_size": 1 << 20, "first_k_dense_replace": 4096,
            "kv_lora_rank": 1 << 16, "q_lora_rank": 1 << 16, "qk_nope_head_dim": 8192, "qk_rope_head_dim": 8192,
            "v_head_dim": 8192, "sliding_window": 1 << 24}


class ModelConfigError(HardwareFileError):
    """A config.json that cannot be read as a model: one line."""


def _model_type(cfg: Mapping[str, Any]) -> str:
    mt = cfg.get("model_type")
    if isinstance(mt, str) and mt:
        return mt.lower()
    archs = cfg.get("architectures")
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        stem = archs[0].lower().replace("forcausallm", "")
        for known in SUPPORTED:
            if known.replace("_", "") == stem:
                return known
        return stem
    return ""


def _int(cfg: Mapping[str, Any], key: str, *, default: Any = None, minimum: int = 1) -> int:
    value = cfg.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value != int(value):
        raise ModelConfigError(f"{key} must be a whole number, got {value!r}"[:120])
    if value < minimum:
        raise ModelConfigError(f"{key} must be at least {minimum}, got {value:g}")
    if value > CEILINGS.get(key, float("inf")):
        raise ModelConfigError(f"{key} = {value:g} is implausibly large (a typo?)")
    return int(value)


def _missing(cfg: Mapping[str, Any], keys: tuple[str, ...]) -> list[str]:
    return [k for k in keys if k not in cfg]


def _text_config(cfg: Mapping[str, Any]) -> tuple[Mapping[str, Any], list[str]]:
    """Multimodal wrappers keep the language model under text_config."""
    inner = cfg.get("text_config")
    if _model_type(cfg) not in SUPPORTED and isinstance(inner, Mapping) and _model_type(inner) in SUPPORTED:
        return inner, [f"read the language model in text_config ({_model_type(inner)}); the vision tower is not counted"]
    return cfg, []


def model_entry(cfg: Any) -> dict[str, Any]:
    """A models.json-style entry from a config.json document (raises ModelConfigError)."""
    if not isinstance(cfg, Mapping):
        raise ModelConfigError("is not a Hugging Face config.json (expected a JSON object)")
    cfg, notes = _text_config(cfg)
    mt = _model_type(cfg)
    need = BASE_FIELDS + (MIXTRAL_FIELDS if mt in MIXTRAL_LIKE else DEEPSEEK_FIELDS if mt in DEEPSEEK_LIKE else ())
    missing = _missing(cfg, need)
    if mt not in SUPPORTED:
        what = f"architecture '{mt}'" if mt else "a config without model_type"
        lack = f"; missing: {', '.join(missing)}" if missing else ""
        raise ModelConfigError(f"{what} is not one this version reads ({', '.join(SUPPORTED)}){lack}")
    if missing:
        raise ModelConfigError(f"{mt} config is missing {', '.join(missing)}")
    heads = _int(cfg, "num_attention_heads")
    hidden = _int(cfg, "hidden_size")
    kv = _int(cfg, "num_key_value_heads", default=heads) if cfg.get("num_key_value_heads") is not None else heads
    if cfg.get("head_dim") is not None:
        head_dim = _int(cfg, "head_dim")
    elif hidden % heads:          # the head size is hidden / heads: it must come out whole (and ≥ 1)
        raise ModelConfigError(f"hidden_size {hidden} is not a multiple of num_attention_heads {heads} "
                               "(and no head_dim is given)")
    else:
        head_dim = hidden // heads
    if heads % kv:
        raise ModelConfigError(f"num_attention_heads {heads} is not a multiple of num_key_value_heads {kv}")
    entry: dict[str, Any] = {
        "layers": _int(cfg, "num_hidden_layers"), "hidden": hidden, "heads": heads, "kv_heads": kv,
        "head_dim": head_dim, "ffn": _int(cfg, "intermediate_size"), "ffn_gated": True,
        "vocab": _int(cfg, "vocab_size"),
        "tied_embeddings": bool(cfg.get("tie_word_embeddings", mt in TIED_BY_DEFAULT)),
        "qkv_bias": mt in QKV_BIAS or bool(cfg.get("attention_bias", False)),
    }
    entry.update(_attention_window(cfg, mt, notes))
    if mt in MIXTRAL_LIKE:
        entry.update(experts=_int(cfg, "num_local_experts"), experts_per_token=_int(cfg, "num_experts_per_tok"),
                     shared_experts=0, expert_ffn=entry["ffn"])
    elif mt in DEEPSEEK_LIKE:
        entry.update(_deepseek(cfg, entry, notes))
    if entry.get("experts") and entry["experts_per_token"] > entry["experts"]:
        raise ModelConfigError(f"num_experts_per_tok {entry['experts_per_token']} exceeds the {entry['experts']} experts")
    entry["model_type"] = mt
    entry["notes"] = "; ".join(notes)
    return entry


def _attention_window(cfg: Mapping[str, Any], mt: str, notes: list[str]) -> dict[str, Any]:
    window = cfg.get("sliding_window")
    if mt == "qwen2" and not cfg.get("use_sliding_window", False):
        window = None
    if mt == "gemma2" and window:
        notes.append(f"Gemma 2 alternates {window}-token sliding-window and global layers: counted as global")
        window = None
    if window is None:
        return {}
    return {"sliding_window": _int(cfg, "sliding_window")}


def _deepseek(cfg: Mapping[str, Any], entry: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    first_dense = _int(cfg, "first_k_dense_replace", default=0, minimum=0)
    if first_dense >= entry["layers"]:
        raise ModelConfigError(f"first_k_dense_replace {first_dense} leaves no MoE layer of {entry['layers']}")
    if cfg.get("moe_layer_freq", 1) != 1:
        notes.append(f"moe_layer_freq {cfg.get('moe_layer_freq')!r} read as 1 (every layer after the dense ones)")
    if cfg.get("num_nextn_predict_layers"):
        notes.append("the multi-token-prediction module is not counted (as in the published total)")
    mla = {k: _int(cfg, k) for k in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")}
    mla["q_lora_rank"] = _int(cfg, "q_lora_rank") if cfg.get("q_lora_rank") is not None else 0   # 0: full-rank Q
    return {"experts": _int(cfg, "n_routed_experts"), "experts_per_token": _int(cfg, "num_experts_per_tok"),
            "shared_experts": _int(cfg, "n_shared_experts", default=0, minimum=0),
            "expert_ffn": _int(cfg, "moe_intermediate_size"), "first_dense_layers": first_dense,
            "head_dim": mla["v_head_dim"], "mla": mla}


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


def load_model_config(path: str | os.PathLike, name: str | None = None) -> tuple[LLM, str]:
    """(LLM, the config's JSON text) from a config.json file (raises ModelConfigError, one line)."""
    p = Path(path)
    cfg = read_json_file(p)
    try:
        llm = llm_from_config(cfg, name or default_name(cfg, p), source=f"Hugging Face config.json ({p.name})")
    except ModelConfigError as exc:
        raise ModelConfigError(f"{p.name}: {exc}") from None
    return llm, json.dumps(cfg, indent=2, ensure_ascii=False) + "\n"
