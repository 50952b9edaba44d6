"""The fields of a Hugging Face ``config.json`` as checked numbers: whole, positive, plausible; and
the one-line error that names the field when one is not. model/files/hf_config.py and
model/files/hf_families.py read configs through these."""
from __future__ import annotations

import math
from typing import Any, Mapping

from model.files.hardware_file import HardwareFileError

# Plausibility ceilings (far above any published model): a typo, not a model, beyond these.
CEILINGS = {"hidden_size": 1 << 18, "num_hidden_layers": 4096, "num_attention_heads": 8192,
            "num_key_value_heads": 8192, "head_dim": 8192, "intermediate_size": 1 << 20, "vocab_size": 1 << 24,
            "num_local_experts": 1 << 16, "n_routed_experts": 1 << 16, "num_experts": 1 << 16,
            "num_experts_per_tok": 1 << 16, "n_shared_experts": 1 << 10, "moe_intermediate_size": 1 << 20,
            "first_k_dense_replace": 4096, "kv_lora_rank": 1 << 16, "q_lora_rank": 1 << 16,
            "qk_nope_head_dim": 8192, "qk_rope_head_dim": 8192, "v_head_dim": 8192, "sliding_window": 1 << 24,
            "attention_chunk_size": 1 << 24, "index_topk": 1 << 24, "index_n_heads": 8192, "index_head_dim": 8192}
DEFAULT_CEILING = 1 << 24
# a dtype's name in a config (torch_dtype, dtype, mamba_ssm_dtype …) → its bits
DTYPE_BITS = {"float32": 32, "fp32": 32, "bfloat16": 16, "bf16": 16, "float16": 16, "fp16": 16, "half": 16,
              "float": 32}


class ModelConfigError(HardwareFileError):
    """A config.json that cannot be read as a model: one line."""


def whole(cfg: Mapping[str, Any], key: str, *, default: Any = None, minimum: int = 1) -> int:
    """``cfg[key]`` as a whole number ≥ ``minimum`` (``default`` when absent); else ModelConfigError
    naming the field."""
    value = cfg.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value != int(value):
        raise ModelConfigError(f"{key} must be a whole number, got {value!r}"[:120])
    if value < minimum:
        raise ModelConfigError(f"{key} must be at least {minimum}, got {value:g}")
    if value > CEILINGS.get(key, DEFAULT_CEILING):
        raise ModelConfigError(f"{key} = {value:g} is implausibly large (a typo?)")
    return int(value)


def missing(cfg: Mapping[str, Any], keys: tuple[str, ...]) -> list[str]:
    return [k for k in keys if k not in cfg]


def require(cfg: Mapping[str, Any], keys: tuple[str, ...], what: str) -> None:
    gone = missing(cfg, keys)
    if gone:
        raise ModelConfigError(f"{what} config is missing {', '.join(gone)}")


def dtype_bits(cfg: Mapping[str, Any], *keys: str) -> int:
    """The bits of the first of ``keys`` that names a dtype (16 when none does: the model's own
    16-bit weights, as every config here stores them)."""
    for key in keys:
        name = cfg.get(key)
        if isinstance(name, str) and name.lower().replace("torch.", "") in DTYPE_BITS:
            return DTYPE_BITS[name.lower().replace("torch.", "")]
    return DTYPE_BITS["bfloat16"]


def finite_only(value: Any) -> Any:
    """The document with every non-finite number (a bare ``Infinity`` in Nemotron-H's
    ``time_step_limit``, which Python's json reads) written as its name, so the text kept is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value).replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, Mapping):
        return {k: finite_only(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite_only(v) for v in value]
    return value
