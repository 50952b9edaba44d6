"""Issue 39: layer kinds one model may mix, checked against hand calculations from real public
config.json files (tests/data/hf_configs): the weights, the weights one token reads, and the KV cache
(or state) one sequence holds and a decode step reads at 1k, 32k and 128k tokens, within 1%."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from model import Scenario, estimate
from model.catalog.active import default_catalog, set_default_catalog
from model.files.hf_config import load_model_config
from model.physics.memory import kv_bytes_per_sequence, resident_weight_bytes
from model.physics.scenario import resolve
from model.physics.step import decode_terms

CONFIGS = pathlib.Path(__file__).resolve().parent / "data" / "hf_configs"
CONTEXTS = (1024, 32768, 131072)
KV_BYTES = 2.0          # BF16 KV cache (the bf16 precision's default)


@pytest.fixture(autouse=True)
def _shipped_catalogue():
    set_default_catalog(None)
    yield
    set_default_catalog(None)


def _cfg(name: str) -> dict:
    cfg = json.loads((CONFIGS / f"{name}.json").read_text())
    return cfg.get("text_config", cfg) if "hidden_size" not in cfg else cfg


def _scenario(llm, precision="bf16"):
    set_default_catalog(default_catalog().with_model(llm))
    return resolve(Scenario(gpu="b200", model=llm.id, precision=precision))


def _read_per_step(rs, context: int) -> float:
    """KV (and state) bytes one decode step of one sequence reads at ``context``."""
    return float(decode_terms(rs, 1.0, float(context)).kv_bytes)


# ---------------------------------------------------------------- hand calculations, one per architecture
def _gqa(c, layers, kv_heads=None, head_dim=None):
    """K and V values per token of ``layers`` attention layers."""
    return layers * 2 * (kv_heads or c["num_key_value_heads"]) * (head_dim or c["head_dim"])


def _gpt_oss(c, ctx):
    d, h, g, k, E, f, V = (c[x] for x in ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
                                          "num_local_experts", "intermediate_size", "vocab_size"))
    L, topk, w = c["num_hidden_layers"], c["num_experts_per_tok"], c["sliding_window"]
    attn = L * (2 * d * h * k + 2 * d * g * k)
    expert = 3 * d * f
    weights = attn + L * E * expert + 2 * V * d
    active = attn + L * topk * expert + V * d
    full = sum(t == "full_attention" for t in c["layer_types"])
    held = (_gqa(c, full) * ctx + _gqa(c, L - full) * min(ctx, w)) * KV_BYTES
    read = (_gqa(c, full) * (ctx + 1) + _gqa(c, L - full) * (min(ctx, w) + 1)) * KV_BYTES
    return weights, active, held, read


def _qwen3_next(c, ctx):
    d, h, g, k, V = (c[x] for x in ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim", "vocab_size"))
    L, E, topk, f, fs = (c[x] for x in ("num_hidden_layers", "num_experts", "num_experts_per_tok",
                                        "moe_intermediate_size", "shared_expert_intermediate_size"))
    nk, nv, dk, dv = (c[x] for x in ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                                     "linear_value_head_dim"))
    full = sum(t == "full_attention" for t in c["layer_types"])
    lin = L - full
    attn = full * (2 * d * h * k + 2 * d * g * k + h * k * d)          # gated Q (query and gate), K, V, O
    gdn = lin * (d * (2 * nk * dk + 2 * nv * dv + 2 * nv) + nv * dv * d)
    weights = attn + gdn + L * (E * 3 * d * f + 3 * d * fs + E * d) + 2 * V * d
    active = attn + gdn + L * (topk * 3 * d * f + 3 * d * fs + E * d) + V * d
    conv = 2 * nk * dk + nv * dv
    state = lin * (nv * dk * dv + 3 * conv) * 2.0                        # bf16 state, 4-wide convolution
    return weights, active, _gqa(c, full) * ctx * KV_BYTES + state, _gqa(c, full) * (ctx + 1) * KV_BYTES + 2 * state


def _llama4(c, ctx):
    d, h, g, k, V, L = (c[x] for x in ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
                                       "vocab_size", "num_hidden_layers"))
    E, f = c["num_local_experts"], c["intermediate_size"]
    attn = L * (2 * d * h * k + 2 * d * g * k)
    weights = attn + L * (E + 1) * 3 * d * f + 2 * V * d                # every layer MoE (Scout) + a shared expert
    active = attn + L * 2 * 3 * d * f + V * d
    glob = L // 4                                                        # every 4th layer global (NoPE)
    chunk = c["attention_chunk_size"]
    held = (_gqa(c, glob) * ctx + _gqa(c, L - glob) * min(ctx, chunk)) * KV_BYTES
    read = (_gqa(c, glob) * (ctx + 1) + _gqa(c, L - glob) * (ctx % chunk + 1)) * KV_BYTES
    return weights, active, held, read


def _deepseek_v32(c, ctx):
    L, latent, ik, topk = c["num_hidden_layers"], c["kv_lora_rank"] + c["qk_rope_head_dim"], c["index_head_dim"], c["index_topk"]
    held = L * (latent + ik) * ctx * KV_BYTES
    read = L * (latent * (min(ctx, topk) + 1) + ik * (ctx + 1)) * KV_BYTES
    return None, None, held, read


def _nemotron_h(c, ctx):
    pattern = c["hybrid_override_pattern"]
    heads, p, n, groups = c["mamba_num_heads"], c["mamba_head_dim"], c["ssm_state_size"], c["n_groups"]
    state = pattern.count("M") * (heads * p * n + 3 * (heads * p + 2 * groups * n)) * 2.0
    kv = _gqa(c, pattern.count("*"), head_dim=c["attention_head_dim"])
    return None, None, kv * ctx * KV_BYTES + state, kv * (ctx + 1) * KV_BYTES + 2 * state


def _gemma3(c, ctx):
    full = sum(t == "full_attention" for t in c["layer_types"])
    local = c["num_hidden_layers"] - full
    w = c["sliding_window"]
    held = (_gqa(c, full) * ctx + _gqa(c, local) * min(ctx, w)) * KV_BYTES
    read = (_gqa(c, full) * (ctx + 1) + _gqa(c, local) * (min(ctx, w) + 1)) * KV_BYTES
    return None, None, held, read


def _minimax_m1(c, ctx):
    softmax = sum(c["attn_type_list"])
    lightning = len(c["attn_type_list"]) - softmax
    state = lightning * c["num_attention_heads"] * c["head_dim"] ** 2 * 2.0
    return None, None, _gqa(c, softmax) * ctx * KV_BYTES + state, _gqa(c, softmax) * (ctx + 1) * KV_BYTES + 2 * state


HAND = {"gpt-oss-120b": _gpt_oss, "gpt-oss-20b": _gpt_oss, "qwen3-next-80b-a3b": _qwen3_next,
        "llama-4-scout": _llama4, "deepseek-v3.2": _deepseek_v32, "nemotron-h-56b": _nemotron_h,
        "gemma-3-27b": _gemma3, "gemma-3-4b": _gemma3, "minimax-m1": _minimax_m1}


@pytest.mark.parametrize("name", sorted(HAND))
@pytest.mark.parametrize("context", CONTEXTS)
def test_bytes_equal_a_hand_calculation_from_the_public_config(name, context):
    llm, _ = load_model_config(CONFIGS / f"{name}.json")
    rs = _scenario(llm)
    weights, active, held, read = HAND[name](_cfg(name), context)
    if weights is not None:
        assert resident_weight_bytes(llm, rs.precision) == pytest.approx(weights * 2.0, rel=0.01)
        assert float(decode_terms(rs, 1.0, float(context)).weight_bytes) == pytest.approx(active * 2.0, rel=0.01)
    assert kv_bytes_per_sequence(rs, float(context)) == pytest.approx(held, rel=0.01)
    assert _read_per_step(rs, context) == pytest.approx(read, rel=0.01)


@pytest.mark.parametrize("name", ["qwen3-next-80b-a3b", "nemotron-h-56b", "minimax-m1", "qwen3.5-397b-a17b",
                                  "nemotron-3-nano-30b-a3b"])
def test_a_hybrids_state_does_not_grow_with_context(name):
    llm, _ = load_model_config(CONFIGS / f"{name}.json")
    rs = _scenario(llm)
    linear = [x for x in llm.shape.kinds if x.kind == "linear"]
    growing = sum(x.kv_values_per_token for x in llm.shape.kinds if x.kind != "linear") * KV_BYTES
    assert linear and all(x.state_values > 0 for x in linear)
    a, b = kv_bytes_per_sequence(rs, 1024.0), kv_bytes_per_sequence(rs, 131072.0)
    assert b - a == pytest.approx(growing * (131072 - 1024), rel=1e-9)       # only the attention layers grow
    # a model of the same attention layers alone would hold exactly the difference the state makes
    assert a - growing * 1024 == pytest.approx(sum(x.state_values for x in linear) * llm.shape.state_bytes_per_value)


@pytest.mark.parametrize("name,window", [("gemma-3-27b", 1024), ("gpt-oss-120b", 128), ("gemma-2-27b", 4096)])
def test_a_sliding_window_layers_kv_stops_growing_at_its_window(name, window):
    llm, _ = load_model_config(CONFIGS / f"{name}.json")
    rs = _scenario(llm)
    local = next(x for x in llm.shape.kinds if x.kind == "sliding")
    full = sum(x.kv_values_per_token for x in llm.shape.kinds if x.kind == "full")
    assert local.window == window
    below = kv_bytes_per_sequence(rs, window / 2) - kv_bytes_per_sequence(rs, window / 2 - 1)
    above = kv_bytes_per_sequence(rs, 8 * window) - kv_bytes_per_sequence(rs, 8 * window - 1)
    assert below == pytest.approx((full + local.kv_values_per_token) * KV_BYTES)
    assert above == pytest.approx(full * KV_BYTES)                            # the window's layers stopped


def test_gemma_2_is_no_longer_counted_as_all_global():
    llm, _ = load_model_config(CONFIGS / "gemma-2-9b.json")
    rs = _scenario(llm)
    all_global = 42 * 2 * 8 * 256 * 131072 * KV_BYTES
    assert kv_bytes_per_sequence(rs, 131072.0) == pytest.approx(all_global / 2 + all_global / 2 * 4096 / 131072)


def test_chunked_local_attention_reads_its_own_chunk_and_holds_one():
    llm, _ = load_model_config(CONFIGS / "llama-4-scout.json")
    rs = _scenario(llm)
    chunked = next(x for x in llm.shape.kinds if x.kind == "chunked")
    per = chunked.kv_values_per_token * KV_BYTES
    full = (llm.shape.kv_values_per_token - chunked.kv_values_per_token) * KV_BYTES
    # at 8192 + 100 a token attends to the 100 before it in its chunk (+ its own entry)
    assert _read_per_step(rs, 8292) == pytest.approx(full * 8293 + per * 101)
    assert kv_bytes_per_sequence(rs, 100000.0) == pytest.approx(full * 100000 + per * 8192)


def test_moe_touches_the_expected_number_of_distinct_experts():
    rng = np.random.default_rng(39)
    p = default_catalog().model("qwen3-30b-a3b").params          # 128 experts, 8 per token
    for tokens in (1, 4, 16, 64, 256):
        picks = [len(set(np.concatenate([rng.choice(p.experts, p.experts_per_token, replace=False)
                                         for _ in range(tokens)]))) for _ in range(400)]
        formula = p.experts * (1 - (1 - p.experts_per_token / p.experts) ** tokens)
        assert float(p.experts_touched(tokens)) == pytest.approx(formula)
        assert np.mean(picks) == pytest.approx(formula, rel=0.02)
    # and the decode step reads exactly those experts' weights
    rs = resolve(Scenario(gpu="h200", model="qwen3-30b-a3b", precision="bf16"))
    t1, t64 = (decode_terms(rs, float(b), 1024.0) for b in (1.0, 64.0))
    grew = float(t64.weight_bytes) - float(t1.weight_bytes)
    want = p.moe_layers * p.expert * 2.0 * float(p.experts_touched(64) - p.experts_touched(1))
    assert grew == pytest.approx(want, rel=1e-9)


def test_layer_kinds_of_every_new_architecture_read_from_its_config():
    want = {"gpt-oss-120b.json": {("sliding", 18, 128), ("full", 18, 0)},
            "qwen3-next-80b-a3b.json": {("linear", 36, 0), ("full", 12, 0)},
            "qwen3.5-397b-a17b.json": {("linear", 45, 0), ("full", 15, 0)},
            "llama-4-maverick.json": {("chunked", 36, 8192), ("full", 12, 0)},
            "gemma-3-12b.json": {("sliding", 40, 1024), ("full", 8, 0)},
            "gemma-2-27b.json": {("sliding", 23, 4096), ("full", 23, 0)},
            "deepseek-v3.2.json": {("sparse", 61, 2048)},
            "nemotron-h-56b.json": {("linear", 54, 0), ("full", 10, 0)},
            "nemotron-3-nano-30b-a3b.json": {("linear", 23, 0), ("full", 6, 0)},
            "minimax-m1.json": {("linear", 70, 0), ("full", 10, 0)}}
    for name, kinds in want.items():
        llm, _ = load_model_config(CONFIGS / name)
        assert {(x.kind, x.layers, x.window) for x in llm.shape.kinds} == kinds, name
    gpt = load_model_config(CONFIGS / "gpt-oss-120b.json")[0]
    assert all(x.sinks for x in gpt.shape.kinds)
    maverick = load_model_config(CONFIGS / "llama-4-maverick.json")[0].params
    assert maverick.moe_layers == 24 and maverick.experts == 128        # MoE every second layer


def test_a_renamed_architecture_reads_as_its_own_and_says_so():
    kimi, _ = load_model_config(CONFIGS / "kimi-k2-instruct.json")
    assert "read as deepseek_v3" in kimi.notes and kimi.params.experts == 384 and kimi.heads == 64
    assert kimi.shape.kv_values_per_token == 61 * (512 + 64)


def test_a_config_holding_infinity_reads_as_pythons_json_reads_it():
    text = (CONFIGS / "nemotron-h-56b.json").read_text()
    assert "Infinity" in text and json.loads(text)["time_step_limit"][1] == float("inf")
    llm, kept = load_model_config(CONFIGS / "nemotron-h-56b.json")
    assert llm.params.total == pytest.approx(56e9, rel=0.02)
    json.loads(kept, parse_constant=lambda name: pytest.fail(f"kept text holds {name}"))   # strict JSON kept


def test_multi_token_prediction_layers_are_named_and_not_counted():
    r1, _ = load_model_config(CONFIGS / "deepseek-r1.json")
    assert "multi-token-prediction layer not counted" in r1.notes
    assert r1.params.total == pytest.approx(671e9, rel=0.01)


def test_mixed_formats_count_the_experts_at_their_own_bits():
    cat = default_catalog()
    gpt = cat.model("gpt-oss-120b")
    native = cat.precision("mxfp4-moe")
    p = gpt.params
    assert native.expert_weight_bits == 4.25 and native.weight_bits == 16
    want = (p.total - p.routed_total) * 2.0 + p.routed_total * 4.25 / 8
    assert resident_weight_bytes(gpt, native) == pytest.approx(want)
    assert want == pytest.approx(65e9, rel=0.03)             # the released checkpoint: about 65 GB
    e = estimate(Scenario(gpu="h100", model="gpt-oss-120b", precision="mxfp4-moe"))
    assert e.fits and e.weight_bytes_per_gpu == pytest.approx(want)


def test_four_bit_formats_at_their_true_bits_and_native_only_where_the_datasheet_has_fp4():
    cat = default_catalog()
    assert cat.precision("mxfp4").weight_bits == 4 + 8 / 32
    assert cat.precision("nvfp4").weight_bits == 4 + 8 / 16 and cat.precision("nvfp4").id == "fp4"
    assert cat.precision("fp8-block").weight_bits == pytest.approx(8 + 32 / 16384, abs=5e-4)
    for gpu in ("b200", "b300", "gb300", "mi355x", "rtx-pro-6000"):
        assert not estimate(Scenario(gpu=gpu, model="llama-3.1-8b", precision="mxfp4")).emulated, gpu
    h100 = estimate(Scenario(gpu="h100", model="llama-3.1-8b", precision="mxfp4"))
    assert h100.emulated and h100.compute_dtype == "fp8"


def test_a_layer_kinds_list_of_one_full_kind_gives_the_single_kind_numbers():
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    one, _ = load_model_config(CONFIGS / "llama-3.1-8b.json")
    cfg["layer_types"] = ["full_attention"] * (cfg["num_hidden_layers"] - 1) + ["sliding_attention"]
    cfg["sliding_window"] = 10 ** 7                                  # a window no context reaches: global in effect
    from model.files.hf_config import llm_from_config
    mixed = llm_from_config(cfg, "llama kinds")
    assert mixed.shape.kinds and not one.shape.kinds
    for llm in (one, mixed):
        set_default_catalog(default_catalog().with_model(llm))
    a = decode_terms(resolve(Scenario(model=one.id)), 8.0, 4096.0)
    b = decode_terms(resolve(Scenario(model=mixed.id)), 8.0, 4096.0)
    for field in ("weight_bytes", "kv_bytes", "flops", "attention_flops"):
        assert float(getattr(b, field)) == pytest.approx(float(getattr(a, field)), rel=1e-12), field
