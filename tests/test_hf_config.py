"""Issue 12: Hugging Face config.json files → catalogue models; calibrate on the CPU."""
import json
import pathlib
import subprocess
import sys

import pytest

import main
from model import Scenario, estimate
from model.catalog.active import default_catalog, set_default_catalog
from model.files.hf_config import ModelConfigError, llm_from_config, load_model_config, model_entry
from model.readouts.catalog_text import model_import_rows

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "tests" / "data" / "hf_configs"
# (file, parameters published on the model card, active per token where the card says)
PUBLISHED = [
    ("llama-3.1-8b.json", 8.03e9, None),
    ("mistral-7b-v0.1.json", 7.24e9, None),
    ("qwen2.5-7b.json", 7.61e9, None),
    ("phi-3-mini-4k-instruct.json", 3.82e9, None),
    ("gemma-2-9b.json", 9.24e9, None),
    ("mixtral-8x7b-v0.1.json", 46.7e9, 12.9e9),
    ("deepseek-v3.json", 671e9, 37e9),
    ("deepseek-v2-lite.json", 15.7e9, 2.4e9),       # MLA with a full-rank query (q_lora_rank null)
]


@pytest.fixture(autouse=True)
def _shipped_catalogue():
    set_default_catalog(None)
    yield
    set_default_catalog(None)


@pytest.mark.parametrize("name,total,active", PUBLISHED)
def test_real_configs_give_the_published_parameter_count(name, total, active):
    llm, _ = load_model_config(CONFIGS / name)
    assert llm.params.total == pytest.approx(total, rel=0.01)
    if active:
        assert llm.params.active_per_token == pytest.approx(active, rel=0.03)
    rows = dict(model_import_rows(llm))
    assert "Parameters (derived)" in rows and rows["Layers · hidden · FFN"].startswith(str(llm.layers))


# Families added in session 10 (OLMo 2, OLMoE, Qwen1.5/2-MoE, Phi-3.5-MoE, Granite MoE, SmolLM3, StarCoder2):
# (file, published total, how closely the source states it, published active or None). Published active
# counts include the input embedding table, a lookup no token multiplies with: the model's active count
# leaves it out, so it is added back here (untied models only).
MORE_FAMILIES = [
    ("olmo-2-13b.json", 13.716e9, 0.001, None),          # safetensors index: 54 864 793 600 B of FP32
    ("olmoe-1b-7b.json", 6.92e9, 0.005, 1.3e9),          # DeepSpeed log num_elems 6.92B; paper: 1.3B active
    ("qwen1.5-moe-a2.7b.json", 14.3e9, 0.005, 2.7e9),    # card: 14.3B in total, 2.7B activated
    ("phi-3.5-moe.json", 41.9e9, 0.005, 6.6e9),          # card: 16x3.8B (41.9B), 6.6B active
    ("granite-3.1-1b-a400m.json", 1.3e9, 0.04, None),     # card: 1.3B (two figures)
    ("smollm3-3b.json", 3.08e9, 0.005, None),            # blog: 3.08B
    ("starcoder2-7b.json", 7e9, 0.04, None),             # card: 7B (one figure)
    ("granite-4.0-h-small.json", 32e9, 0.01, None),      # card: 32B total, 9B active (tied: checked below)
]


@pytest.mark.parametrize("name,total,rel,active", MORE_FAMILIES)
def test_more_families_give_the_published_parameter_count(name, total, rel, active):
    llm, _ = load_model_config(CONFIGS / name)
    assert llm.params.total == pytest.approx(total, rel=rel)
    if active:
        assert llm.params.active_per_token + llm.vocab * llm.hidden == pytest.approx(active, rel=0.03)


def test_more_families_read_their_layout():
    star, _ = load_model_config(CONFIGS / "starcoder2-7b.json")
    assert star.params.ffn_down_share == 0.5 and star.params.tied_embeddings     # c_fc → GELU → c_proj; tied by default
    olmoe, _ = load_model_config(CONFIGS / "olmoe-1b-7b.json")
    assert olmoe.params.experts == 64 and olmoe.params.experts_per_token == 8 and olmoe.params.moe_layers == 16
    qwen, _ = load_model_config(CONFIGS / "qwen1.5-moe-a2.7b.json")
    assert qwen.params.experts == 60 and qwen.params.expert == 3 * 2048 * 1408
    assert qwen.params.dense_ffn == 24 * 3 * 2048 * 5632           # the shared expert of every layer
    granite, _ = load_model_config(CONFIGS / "granite-3.1-1b-a400m.json")
    assert granite.params.experts == 32 and granite.params.tied_embeddings
    hybrid, _ = load_model_config(CONFIGS / "granite-4.0-h-small.json")     # 36 Mamba-2 blocks, 4 attention
    assert [(k.kind, k.layers) for k in hybrid.shape.kinds] == [("linear", 36), ("full", 4)]
    assert hybrid.shape.kv_values_per_token == 4 * 2 * 8 * 128            # only the attention blocks keep a KV cache
    assert hybrid.params.experts == 72 and hybrid.params.moe_layers == 40
    assert hybrid.params.active_per_token == pytest.approx(9e9, rel=0.03)


def test_families_read_their_special_fields():
    gemma, _ = load_model_config(CONFIGS / "gemma-2-9b.json")
    assert gemma.head_dim == 256 and gemma.head_dim * gemma.heads != gemma.hidden and gemma.params.tied_embeddings
    assert gemma.params.lm_head == 0 and "sliding-window" in gemma.notes
    qwen, _ = load_model_config(CONFIGS / "qwen2.5-7b.json")
    assert qwen.shape.sliding_window is None          # use_sliding_window: false
    mistral, _ = load_model_config(CONFIGS / "mistral-7b-v0.1.json")
    assert mistral.shape.sliding_window == 4096
    ds, _ = load_model_config(CONFIGS / "deepseek-v3.json")
    assert ds.params.moe_layers == 58 and ds.params.experts == 256 and ds.params.experts_per_token == 8
    assert ds.shape.kv_values_per_token == 61 * (512 + 64)     # MLA latent, not 2·heads·head_dim


@pytest.mark.parametrize("name", ["mixtral-8x7b-v0.1.json", "deepseek-v3.json"])
def test_moe_reads_only_the_active_experts_at_batch_1(name):
    llm, _ = load_model_config(CONFIGS / name)
    p = llm.params
    assert p.streamed(1) == pytest.approx(p.streamed_dense + p.moe_layers * p.experts_per_token * p.expert)
    assert p.streamed(1) == pytest.approx(p.active_per_token) and p.streamed(1) < 0.3 * p.total
    set_default_catalog(default_catalog().with_model(llm))
    e1 = estimate(Scenario(gpu="b200", model=llm.id, precision="fp8", batch=1, gpus=8))
    e64 = estimate(Scenario(gpu="b200", model=llm.id, precision="fp8", batch=64, gpus=8))
    assert e1.decode_floor_ms_per_token < e64.decode_floor_ms_per_token   # more experts touched at batch 64


def test_the_model_config_flag_becomes_the_model(capsys):
    assert main.main(["estimate", "--model-config", str(CONFIGS / "mixtral-8x7b-v0.1.json"), "--gpu", "h100",
                      "--precision", "fp8", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model_name"] == "mixtral-8x7b-v0.1"
    assert main.main(["estimate", "--model-config", str(CONFIGS / "gemma-2-9b.json"), "--model", "llama-3.1-8b",
                      "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model_name"] == "Llama 3.1 8B"


def _cfg(name="llama-3.1-8b.json", **changes):
    cfg = json.loads((CONFIGS / name).read_text())
    for k, v in changes.items():
        if v is None:
            cfg.pop(k, None)
        else:
            cfg[k] = v
    return cfg


@pytest.mark.parametrize("cfg,needle", [
    (_cfg(num_hidden_layers=0), "num_hidden_layers must be at least 1"),
    (_cfg(hidden_size=-4096), "hidden_size must be at least 1"),
    (_cfg(vocab_size=1e30), "implausibly large"),
    (_cfg(num_attention_heads="32"), "whole number"),
    (_cfg(intermediate_size=None), "missing intermediate_size"),
    (_cfg(num_key_value_heads=5), "not a multiple"),
    (_cfg(model_type="gpt2", hidden_size=None, num_hidden_layers=None), "architecture 'gpt2'"),
    ({"model_type": "gpt2", "n_embd": 768, "n_layer": 12}, "missing: hidden_size, num_hidden_layers"),
    ({"hello": "world"}, "without model_type"),
    (_cfg("mixtral-8x7b-v0.1.json", num_local_experts=None), "missing num_local_experts"),
    (_cfg("mixtral-8x7b-v0.1.json", num_experts_per_tok=9), "exceeds the 8 experts"),
    (_cfg("deepseek-v3.json", kv_lora_rank=None), "missing kv_lora_rank"),
    ([1, 2], "expected a JSON object"),
])
def test_broken_configs_are_refused_with_the_reason(cfg, needle):
    with pytest.raises(ModelConfigError, match=needle):
        llm_from_config(cfg, "x")


def test_broken_config_on_the_command_line_exits_2_with_one_line(tmp_path, capsys):
    cases = {"zero.json": json.dumps(_cfg(num_hidden_layers=0)), "text.json": "layers: 32",
             "gpt2.json": json.dumps({"model_type": "gpt2", "n_layer": 12})}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert main.main(["estimate", "--model-config", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err.strip()
        assert name in err and len(err.splitlines()) == 1, err


def test_unknown_model_type_found_from_architectures():
    cfg = _cfg(model_type=None)
    assert model_entry(cfg)["model_type"] == "llama"


def test_calibrate_quick_runs_on_the_cpu_and_its_file_works(tmp_path):
    out_file = tmp_path / "me.json"
    run = subprocess.run([sys.executable, "main.py", "calibrate", "--quick", "--json", "--backend", "numpy",
                          "-o", str(out_file)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["backend"] == "numpy" and report["memory_bandwidth_bytes_per_s"] > 1e8
    assert report["matmul_flops_per_s"]["fp32"] > 1e8 and report["decode"]["step_s_by_batch"]["1"] > 0
    doc = json.loads(out_file.read_text())
    assert doc["name"].startswith("this machine (measured ") and "calibrate" in doc["compute"]["source"]
    est = subprocess.run([sys.executable, "main.py", "estimate", "--hardware-file", str(out_file), "--gpu",
                          report["hardware_id"], "--model", "llama-3.1-8b", "--precision", "fp32", "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert est.returncode == 0, est.stderr
    e = json.loads(est.stdout)
    # the floor of a memory-bound decode on the measured machine: 32 GB of FP32 weights / measured bandwidth
    assert e["decode_floor_ms_per_token"] >= 0.9 * 8.03e9 * 4 / report["memory_bandwidth_bytes_per_s"] * 1e3


# issue 39: what cannot be counted is refused in one line naming the field
@pytest.mark.parametrize("name,changes,needle", [
    ("gpt-oss-20b.json", {"layer_types": ["sliding_attention"] * 23 + ["mystery_attention"]}, "layer_types holds 'mystery_attention'"),
    ("gpt-oss-20b.json", {"layer_types": ["full_attention"] * 3}, "layer_types must list one type per layer"),
    ("nemotron-h-56b.json", {"hybrid_override_pattern": "M" * 117 + "X"}, "hybrid_override_pattern holds 'X'"),
    ("nemotron-h-56b.json", {"ssm_state_size": None}, "missing ssm_state_size"),
    ("qwen3-next-80b-a3b.json", {"linear_num_value_heads": None}, "missing linear_num_value_heads"),
    ("minimax-m1.json", {"attn_type_list": [0, 2] * 40}, "attn_type_list"),
    ("deepseek-v3.2.json", {"index_topk": None}, "missing index_topk"),
    ("llama-4-scout.json", {"attention_chunk_size": -8192}, "attention_chunk_size must be at least 1"),
])
def test_what_cannot_be_counted_is_refused_naming_the_field(name, changes, needle):
    cfg = json.loads((CONFIGS / name).read_text())
    inner = cfg.get("text_config", cfg)
    for k, v in changes.items():
        if v is None:
            inner.pop(k, None)
        else:
            inner[k] = v
    with pytest.raises(ModelConfigError, match=needle) as exc:
        llm_from_config(cfg, "x")
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("name", sorted(p.name for p in CONFIGS.glob("*.json")))
def test_every_kept_config_reads(name):
    llm, _ = load_model_config(CONFIGS / name)
    assert llm.params.total > 1e9 and llm.shape.kv_values_per_token > 0
