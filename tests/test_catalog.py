import json

import pytest

from model.files.assets import ASSETS_DIR, load_catalog
from model.catalog.active import default_catalog
from model.errors import AssetError, UnknownIdError

GPU_IDS = ("v100-sxm2-32gb a100-sxm4-40gb a100-sxm4-80gb a100-pcie-80gb h100-sxm5-80gb h100-pcie-80gb "
           "h100-nvl-94gb gh200-96gb h200-sxm-141gb b200-180gb gb200-186gb l40s-48gb l4-24gb rtx-a6000-48gb "
           "rtx-6000-ada-48gb rtx-3090-24gb rtx-4080-16gb rtx-4090-24gb rtx-5090-32gb m1-max-64gb m2-ultra-192gb m3-max-128gb m4-max-128gb "
           "mi250x-128gb mi300x-192gb mi325x-256gb gaudi2-96gb gaudi3-128gb "
           "tpu-v5e-16gb tpu-v5p-95gb "
           # issue 39: 2025–26 parts
           "b300-288gb gb300-288gb h20-96gb rtx-pro-6000-96gb dgx-spark-gb10-128gb rtx-5080-16gb rtx-5070-ti-16gb "
           "rtx-5060-ti-16gb m3-ultra-512gb m4-pro-64gb m5-32gb m5-pro-64gb m5-max-128gb mi350x-288gb mi355x-288gb "
           "ryzen-ai-max-395-128gb radeon-ai-pro-r9700-32gb rx-9070-xt-16gb arc-pro-b60-24gb tpu-v6e-32gb tpu-v7-192gb "
           # issue 38: parts that published serving runs ran on
           "a10-24gb h800-sxm-80gb gh200-144gb mi100-32gb").split()
MODEL_IDS = ("llama-2-7b llama-2-13b llama-2-70b llama-3.1-8b llama-3.1-70b llama-3.2-3b llama-3.1-405b gpt-j-6b "
             "mistral-7b mixtral-8x7b qwen2.5-72b deepseek-v3 "
             # issue 39: hybrid, sliding-window, sparse and MoE models people run now
             "gpt-oss-20b gpt-oss-120b qwen3-8b qwen3-32b qwen3-30b-a3b qwen3-235b-a22b qwen3-next-80b-a3b "
             "qwen3.5-397b-a17b qwen3.5-35b-a3b llama-4-scout llama-4-maverick gemma-3-4b gemma-3-12b gemma-3-27b "
             "gemma-2-27b deepseek-r1 deepseek-v3.1 deepseek-v3.2 kimi-k2 glm-4.5 glm-4.5-air mistral-small-3.1-24b "
             "phi-4 minimax-m1 minimax-m2.5 nemotron-h-56b nemotron-3-nano-30b-a3b mixtral-8x22b qwen2.5-32b qwen2.5-7b "
             "gemma-2-9b").split()
PRECISION_IDS = ("fp32 bf16 fp16 fp8 int8 w8a16 int4 q8_0 q6_k q5_k_m q4_k_m q4_0 q4f16_1 exl2-4bpw exl2-8bpw fp4 "
                 "awq-g128 gptq-g128 int4-g32 mlx-4bit mlx-8bit w4a8 w4a8-g128 fp8-block mxfp4 mxfp4-moe mxfp4-gguf").split()
KV_IDS = "bf16 fp16 fp8 int8 int4 int4-kv4".split()


def test_ids_are_exactly_the_catalogue():
    cat = default_catalog()
    assert sorted(g.id for g in cat.gpus) == sorted(GPU_IDS)
    assert sorted(m.id for m in cat.models) == sorted(MODEL_IDS)
    assert [p.id for p in cat.precisions] == PRECISION_IDS
    assert [k.id for k in cat.kv_precisions if not k.hidden] == KV_IDS


@pytest.mark.parametrize("alias,gpu", [("v100", "v100-sxm2-32gb"), ("a100", "a100-sxm4-80gb"), ("h100", "h100-sxm5-80gb"),
                                       ("h200", "h200-sxm-141gb"), ("b200", "b200-180gb"), ("mi300x", "mi300x-192gb"),
                                       ("4090", "rtx-4090-24gb"), ("H100", "h100-sxm5-80gb")])
def test_gpu_aliases(alias, gpu):
    assert default_catalog().gpu(alias).id == gpu


@pytest.mark.parametrize("alias,model", [("llama-3-8b", "llama-3.1-8b"), ("llama-3-70b", "llama-3.1-70b"),
                                         ("llama-3.3-70b", "llama-3.1-70b"), ("codellama-7b", "llama-2-7b")])
def test_model_aliases(alias, model):
    assert default_catalog().model(alias).id == model


def test_aliases_are_unique():
    cat = default_catalog()
    for items in (cat.gpus, cat.models):
        names = [n for it in items for n in (it.id, *it.aliases)]
        assert len(names) == len(set(names))


def test_unknown_id_suggests_the_closest():
    with pytest.raises(UnknownIdError, match="did you mean 'h100'"):
        default_catalog().gpu("h10")
    with pytest.raises(UnknownIdError, match="llama-?2-70b"):
        default_catalog().model("llama2-70")


@pytest.mark.parametrize("model_id", MODEL_IDS)
def test_parameter_count_matches_published_within_2_percent(model_id):
    m = default_catalog().model(model_id)
    assert m.params.total == pytest.approx(m.published_params, rel=0.02)


def test_moe_active_parameters():
    cat = default_catalog()
    assert cat.model("mixtral-8x7b").params.active_per_token == pytest.approx(12.9e9, rel=0.03)
    assert cat.model("deepseek-v3").params.active_per_token == pytest.approx(37e9, rel=0.03)


def test_every_gpu_section_has_a_source_and_positive_numbers():
    raw = json.loads((ASSETS_DIR / "hardware.json").read_text())
    for g in raw["gpus"]:
        for sec in ("compute", "power", "price"):
            assert g[sec]["source"].strip(), (g["id"], sec)
        for name, sec in g["memory"].items():
            if sec:
                assert sec["source"].strip(), (g["id"], name)
        for name, sec in g["interconnect"].items():
            if sec:
                assert sec["source"].strip(), (g["id"], name)
    for g in default_catalog().gpus:
        assert g.hbm_bandwidth_bytes_per_s > 0 and g.hbm_capacity_bytes > 0 and g.tdp_w > 0 and g.usd_per_hour > 0
        assert all(v > 0 for _, v in g.peak_flops)
        assert g.peak("bf16") or g.peak("fp16")


def test_flops_are_dense_not_sparse():
    cat = default_catalog()
    assert cat.gpu("h100").peak("bf16") == pytest.approx(989.4e12)     # datasheet 1979 is 2:4 sparse
    assert cat.gpu("a100").peak("fp16") == pytest.approx(312e12)       # not 624
    assert cat.gpu("mi300x").peak("fp16") == pytest.approx(1307.4e12)  # not 2614.9
    assert cat.gpu("v100").peak("bf16") is None and cat.gpu("h100").peak("int4") is None
    assert cat.gpu("b200").peak("fp4") is not None


def test_memory_levels_ladder_down_in_bandwidth():
    h100 = default_catalog().gpu("h100")
    bws = [h100.level(k).bandwidth_bytes_per_s for k in ("registers", "smem", "l2", "hbm", "host")]
    assert all(a > b for a, b in zip(bws, bws[1:])), bws
    assert "bandwidth_GBps" in h100.level("registers").derived


def test_broken_asset_file_gives_one_line_error(tmp_path):
    for name in ("models.json", "precisions.json", "engines.json"):
        (tmp_path / name).write_text((ASSETS_DIR / name).read_text())
    (tmp_path / "hardware.json").write_text("{ not json")
    with pytest.raises(AssetError, match="broken data file hardware.json") as exc:
        load_catalog(tmp_path)
    assert "\n" not in str(exc.value)


def test_every_catalogue_row_has_a_source():
    raw = json.loads((ASSETS_DIR / "models.json").read_text())
    for m in raw["models"]:
        assert m["source"].strip() and m["published_params_B"] > 0, m["id"]
        if "params_source" in m:
            assert m["params_source"].strip(), m["id"]
    for p in json.loads((ASSETS_DIR / "precisions.json").read_text())["precisions"]:
        assert p["source"].strip(), p["id"]
    for g in default_catalog().gpus:
        assert all(src.strip() for name, src in g.sources if name in ("compute", "hbm", "power", "price")), g.id


def test_list_shows_the_new_models_gpus_and_formats(capsys):
    import main
    assert main.main(["list"]) == 0
    out = capsys.readouterr().out
    for ident in ("gpt-oss-120b", "qwen3-next-80b-a3b", "llama-4-maverick", "deepseek-v3.2", "kimi-k2", "b300-288gb",
                  "mi355x-288gb", "dgx-spark-gb10-128gb", "tpu-v7-192gb", "m5-32gb", "mxfp4-moe"):
        assert ident in out, ident
