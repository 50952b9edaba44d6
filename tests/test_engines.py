"""Inference engines: ids and aliases, auto rules, physical factors, the floor, and the fit."""
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from model import Scenario, estimate
from model.catalog.active import default_catalog
from model.catalog.engines import AUTO, IDEAL_ID
from model.catalog.active import default_efficiency
from model.readouts.catalog_text import engine_choices
from model.errors import ScenarioError
from model.physics.cost import queue_wait
from model.physics.scenario import resolve
from model.physics.step import decode_pass, layer_equivalents, prefill_pass
from model.serving.steptable import step_table

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("tensorrt-llm", "trtllm", "nim", "nemo", "vllm", "sglang", "llama.cpp", "exllamav2", "mlc-llm",
           "transformers", "hf", "deepspeed", "ollama", "lm-studio", "lmstudio", "mlx", "mlx-lm", "lmdeploy",
           "turbomind", "tgi", "gpt-fast", "tinychat", "qserve", "vllm@0.6", "sglang@0.3", "llama.cpp@2023",
           "transformers@4.35", "lmdeploy@0.1", "auto", "ideal")
SCENARIOS = (
    Scenario(gpu="h100", model="llama-3.1-70b", precision="bf16", gpus=4, batch=1),
    Scenario(gpu="h100", model="llama-3.1-8b", precision="fp8", batch=256, input_len=2048, output_len=512),
    Scenario(gpu="4090", model="llama-3.1-8b", precision="int4", batch=1, input_len=4096, phase="prefill"),
    Scenario(gpu="4090", model="llama-3.1-8b", precision="fp16", batch=4, input_len=8192),
    Scenario(gpu="mi300x", model="mixtral-8x7b", precision="fp8", batch=64, gpus=2),
    Scenario(gpu="m2-ultra", model="llama-3.1-70b", precision="int4", gpus=2),
    Scenario(gpu="a100", model="llama-2-70b", precision="w8a16", gpus=8, batch=32),
)


def test_every_engine_id_and_alias_resolves():
    table = default_efficiency()
    for name in ENGINES:
        assert table.canonical(name) in table.ids + table.version_ids
    assert table.canonical("TRTLLM") == "tensorrt-llm" and table.canonical("hf") == "transformers"
    assert table.canonical("VLLM@0.6") == "vllm@0.6" and table.canonical("turbomind@0.1") == "lmdeploy@0.1"
    assert {c[0] for c in engine_choices()} == set(table.ids) | set(table.version_ids)


def test_unknown_engine_is_one_line_naming_the_known_ones():
    with pytest.raises(ScenarioError) as err:
        resolve(Scenario(engine="tgi-turbo"))
    msg = str(err.value)
    assert "\n" not in msg and "tgi-turbo" in msg and "vllm" in msg and "llama.cpp" in msg


@pytest.mark.parametrize("gpu,engine", [("h100", "vllm"), ("mi300x", "vllm"), ("4090", "llama.cpp"),
                                        ("rtx-a6000-48gb", "llama.cpp"), ("m1-max", "llama.cpp"),
                                        ("m4-max", "llama.cpp")])
def test_auto_picks_the_engine_most_people_run_there(gpu, engine):
    rs = resolve(Scenario(gpu=gpu, model="llama-3.1-8b", precision="int4"))
    assert rs.scenario.engine == AUTO and rs.engine == engine
    assert default_efficiency().auto_engine(rs.hw)[1]          # every rule says why


def test_old_scenario_without_engine_loads_as_auto():
    doc = Scenario().to_dict()
    doc.pop("engine")
    assert Scenario.from_dict(doc).engine == AUTO
    assert resolve(Scenario.from_dict({**doc, "engine": "TRTLLM"})).scenario.engine == "tensorrt-llm"


def _all_factor_sets():
    for e in default_efficiency().engines:
        yield f"{e.id}/prior", e.prior
        for plat, f in e.fitted:
            yield f"{e.id}/{plat}", f


def test_every_engine_factor_is_physical():
    for name, f in _all_factor_sets():
        for frac in (f.hbm_fraction, f.compute_fraction_decode, f.compute_fraction_prefill, f.kv_read_fraction):
            assert 0 < frac <= 1, name
        assert f.step_overhead_s >= 0 and f.layer_overhead_s >= 0 and f.request_overhead_s >= 0, name
        assert f.allreduce_latency_scale > 0 and f.dequant_ops_per_weight >= 0 and f.host_layer_s >= 0, name
        assert f.step_overhead_s < 0.05 and f.layer_overhead_s < 1e-3 and f.host_layer_s < 5e-3, name   # fit bounds
    for e in default_efficiency().engines:
        assert {"hbm_fraction", "layer_overhead_us", "host_layer_us"} <= dict(e.why).keys(), e.id   # each says why
        assert e.batching in ("continuous", "static") and e.prefill_chunk_tokens >= 0, e.id
        for v in e.versions:
            assert v.why and v.label and (v.through or v.through_year), (e.id, v.id)


def test_only_engines_without_cuda_graphs_pay_the_hosts_issue_time():
    table = default_efficiency()
    h100, gaudi = default_catalog().gpu("h100"), default_catalog().gpu("gaudi2")
    for e in table.engines:
        eff = table.efficiency(e.id, h100)
        assert eff.eager == (0.0 if e.cuda_graphs else 1.0), e.id
        assert table.efficiency(e.id, gaudi).eager == 0.0, e.id       # a graph-compiling platform: no host issue
    assert table.efficiency("llama.cpp@2023", h100).eager == 1.0     # built before CUDA graphs


def test_where_graphs_hold_decode_steps_only_a_prefill_pays_the_hosts_issue_time():
    """SGLang and vLLM's V0 engine capture CUDA graphs for decode batches only: a pass with prompts
    is issued kernel by kernel from Python, so its host time can bound it (‖GPU, host‖₆), while a
    decode step replays its graph. A short prompt on a big MoE model is host-bound."""
    table = default_efficiency()
    h100 = default_catalog().gpu("h100")
    for engine in ("sglang", "vllm@0.6"):
        eff = table.efficiency(engine, h100)
        assert (eff.eager, eff.eager_prefill) == (0.0, 1.0), engine
    for engine in ("vllm", "tensorrt-llm", "transformers"):
        assert table.efficiency(engine, h100).eager_prefill == 0.0, engine
    rs = resolve(Scenario(gpu="h100", model="deepseek-v3", precision="fp8-block", gpus=8, engine="sglang"))
    eff = table.efficiency("sglang", rs.hw)
    graphs = dataclasses.replace(eff, eager_prefill=0.0)
    host = layer_equivalents(rs) * eff.host_layer_s
    for prompt in (10, 100, 8000):
        eager, captured = prefill_pass(rs, 1, prompt, eff), prefill_pass(rs, 1, prompt, graphs)
        gpu = float(captured.time_s) - eff.step_overhead_s - eff.request_overhead_s
        assert float(eager.time_s) == pytest.approx(float(captured.time_s) + float(queue_wait(gpu, host)), rel=1e-9)
    assert float(prefill_pass(rs, 1, 10, eff).time_s) > host > float(prefill_pass(rs, 1, 10, graphs).time_s)
    assert decode_pass(rs, 8, 1000, eff).time_s == decode_pass(rs, 8, 1000, graphs).time_s
    tb = step_table(rs, eff, 4096)
    assert (tb.host_s, tb.prefill_host_s) == (0.0, pytest.approx(host))
    assert tb.finish_s(0.01, True) > tb.finish_s(0.01) == 0.01


@pytest.mark.parametrize("s", SCENARIOS, ids=lambda s: f"{s.gpu}-{s.model}-{s.precision}-{s.batch}")
def test_ideal_is_the_floor_and_every_engine_is_at_or_above_it(s):
    ideal = estimate(s.with_(engine=IDEAL_ID))
    assert ideal.decode_ms_per_token == pytest.approx(ideal.decode_floor_ms_per_token, rel=1e-12)
    assert ideal.prefill_ms == pytest.approx(ideal.prefill_floor_ms, rel=1e-12)
    assert ideal.engine_name == "ideal"
    table = default_efficiency()
    for name in table.ids + table.version_ids:
        e = estimate(s.with_(engine=name))
        assert e.decode_ms_per_token >= ideal.decode_floor_ms_per_token * (1 - 1e-9), name
        assert e.prefill_ms >= ideal.prefill_floor_ms * (1 - 1e-9), name
        assert e.e2e_latency_s >= ideal.e2e_latency_s * (1 - 1e-9), name


def test_layer_split_engines_do_not_speed_up_one_user_with_more_gpus():
    one = estimate(Scenario(gpu="4090", model="llama-3.1-8b", precision="int4", engine="llama.cpp"))
    four = estimate(Scenario(gpu="4090", model="llama-3.1-8b", precision="int4", engine="llama.cpp", gpus=4))
    tp = estimate(Scenario(gpu="4090", model="llama-3.1-8b", precision="int4", engine="vllm", gpus=4))
    assert four.tp == 1 and four.pp == 4 and tp.tp == 4
    assert four.decode_ms_per_token >= one.decode_ms_per_token


def test_attention_scores_in_memory_slow_long_prompts_for_engines_without_flash_attention():
    def rate(engine, n):
        e = estimate(Scenario(gpu="a100", model="llama-2-7b", precision="fp16", engine=engine, input_len=n,
                              phase="prefill"))
        return n / e.prefill_ms
    assert rate("llama.cpp", 8192) / rate("llama.cpp", 512) < rate("tensorrt-llm", 8192) / rate("tensorrt-llm", 512)


def test_sustained_bandwidth_default_is_the_catalogue_median():
    ratios = [g.stream_bandwidth_bytes_per_s / g.hbm_bandwidth_bytes_per_s for g in default_catalog().gpus
              if g.stream_bandwidth_bytes_per_s]
    assert default_efficiency().sustained_fraction_default == pytest.approx(float(np.median(ratios)), abs=1e-3)


def test_apple_parts_are_unified_memory_without_stacks():
    apple = [g for g in default_catalog().gpus if g.vendor == "Apple"]
    assert {g.short_name for g in apple} >= {"M1 Max", "M2 Ultra", "M3 Max", "M4 Max"}
    for g in apple:
        assert "unified" in g.hbm_kind.lower() and g.hbm_stacks is None
        assert g.peak("fp16") and g.peak("fp32") and g.peak("int8") is None
        assert g.source("compute") and g.source("hbm")


def _run(*args):
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_cli_estimate_json_for_every_engine():
    table = default_efficiency()
    for name in ENGINES:
        out = _run("estimate", "--gpu", "h100", "--model", "llama-3.1-8b", "--engine", name, "--json")
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        assert data["scenario"]["engine"] == table.canonical(name)
        assert data["engine_id"] in table.ids + table.version_ids and data["engine_name"]


def test_cli_unknown_engine_exits_2_with_one_line():
    out = _run("estimate", "--engine", "warp-drive")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "known:" in out.stderr and "vllm" in out.stderr


def test_transformers_on_a_faster_gpu_gains_less_than_the_bandwidth_ratio():
    """Eager PyTorch issues every kernel from the host, which a faster GPU does not shorten: the
    same scenario on an H100 (3.3× the bandwidth of an RTX 4090) is far less than 3.3× faster,
    while a graph-captured engine gains most of the ratio."""
    def speedup(engine):
        s = Scenario(model="llama-3.1-8b", precision="bf16", batch=1, engine=engine)
        slow, fast = estimate(s.with_(gpu="rtx-4090-24gb")), estimate(s.with_(gpu="h100"))
        return slow.decode_ms_per_token / fast.decode_ms_per_token, fast
    cat = default_catalog()
    ratio = cat.gpu("h100").hbm_bandwidth_bytes_per_s / cat.gpu("rtx-4090-24gb").hbm_bandwidth_bytes_per_s
    eager, fast = speedup("transformers")
    graphs, _ = speedup("vllm")
    assert eager < 0.6 * ratio and eager < graphs
    assert fast.decode_overhead_ms > fast.decode_memory_ms          # on the H100 the step waits for the host


def test_versions_follow_the_published_version_text():
    table = default_efficiency()
    assert table.with_version("vllm", "0.5.4") == "vllm@0.6" and table.with_version("vllm", "0.6.3.post1") == "vllm@0.6"
    assert table.with_version("vllm", "0.9.1 (rocm6.4.1)") == "vllm" and table.with_version("vllm", "") == "vllm"
    assert table.with_version("llama.cpp", "Dec 2023 build") == "llama.cpp@2023"
    assert table.with_version("llama.cpp", "May 2024 build (CUDA 12.1.1)") == "llama.cpp"
    assert table.with_version("transformers", "4.46.3") == "transformers"
    for text, version in (("0.3.0", "sglang@0.3"), ("not stated (late 2024)", "sglang@0.3"),
                          ("0.4.3.post2", "sglang"), ("0.5.6.post1", "sglang"), ("not stated (2026-01-05)", "sglang")):
        assert table.with_version("sglang", text) == version
    assert table.engine("vllm@0.6").prefill_chunk_tokens == 0 < table.engine("vllm").prefill_chunk_tokens
    with pytest.raises(ScenarioError) as err:
        table.canonical("vllm@0.1")
    assert "\n" not in str(err.value) and "vllm@0.6" in str(err.value)


def test_sglangs_2025_releases_are_fitted_on_their_own_rows_and_pay_the_host_for_a_prompt():
    """SGLang's newest factors come from the 2025–2026 rows (DataCrunch's DeepSeek prefills on 8 H200),
    the 2024 runs fit sglang@0.3's; an extend pass of DeepSeek-R1 is host-bound (graphs hold decode only)."""
    table, h200 = default_efficiency(), default_catalog().gpu("h200-sxm-141gb")
    new, old = table.efficiency("sglang", h200).calibrated_on, table.efficiency("sglang@0.3", h200).calibrated_on
    assert {"m40014", "m40016"} <= set(new) and "m336" in old and not set(new) & set(old)
    rs = resolve(Scenario(gpu="h200-sxm-141gb", model="deepseek-r1", precision="fp8-block", gpus=8, engine="sglang",
                          batch=1, input_len=128, output_len=1))
    eff = table.efficiency("sglang", h200)
    prompt = prefill_pass(rs, 1, 128, eff)
    graphed = prefill_pass(rs, 1, 128, dataclasses.replace(eff, eager_prefill=0.0))
    assert prompt.time_s > 2 * graphed.time_s and prompt.time_s >= layer_equivalents(rs) * eff.host_layer_s


def test_an_engine_that_prefills_in_chunks_reads_the_weights_once_per_chunk():
    rs = resolve(Scenario(gpu="4090", model="llama-3.1-8b", precision="q4_k_m", engine="llama.cpp"))
    one = resolve(Scenario(gpu="4090", model="llama-3.1-8b", precision="q4_k_m", engine="ideal"))
    from model.physics.step import prefill_terms
    chunked, whole = prefill_terms(rs, 1, 4096), prefill_terms(one, 1, 4096)
    chunk = default_efficiency().prefill_chunk("llama.cpp")
    assert float(chunked.passes) == 4096 / chunk
    assert float(chunked.weight_bytes) == pytest.approx(float(whole.weight_bytes) * 4096 / chunk)
    assert float(chunked.kv_bytes) > float(whole.kv_bytes)             # each chunk reads the ones before


def test_fp16_accumulating_engines_reach_the_geforce_fp16_rate_and_ideal_stays_below_them():
    s = Scenario(gpu="4090", model="llama-3.1-8b", precision="fp16", batch=8, input_len=4096, phase="prefill")
    rs = resolve(s)
    table = default_efficiency()
    assert rs.peak_flops == 2 * rs.hw.peak("fp16")                     # the FP16-accumulate rate
    assert table.matmul_flops("ollama", rs.hw, "fp16", False) == rs.peak_flops
    assert table.matmul_flops("vllm", rs.hw, "fp16", False) == rs.hw.peak("fp16")
    floor = estimate(s.with_(engine="ideal")).prefill_ms
    for name in table.ids + table.version_ids:
        assert estimate(s.with_(engine=name)).prefill_ms >= floor * (1 - 1e-9), name


def test_static_batching_engines_prefill_nothing_between_decode_steps():
    from model.machine.measured import interleaved_prefill_share
    table = default_efficiency()
    assert not table.continuous_batching("transformers") and table.continuous_batching("vllm")
    assert interleaved_prefill_share(8, 64, False) == 0.0 < interleaved_prefill_share(8, 64, True)


def test_cli_engine_help_lists_every_engine_of_the_table():
    out = _run("estimate", "--help")
    text = " ".join(out.stdout.split())
    table = default_efficiency()
    for name in table.ids + table.version_ids:
        assert name in text.replace("- ", "-"), name
