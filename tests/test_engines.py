"""Inference engines: ids and aliases, auto rules, physical factors, the floor, and the fit."""
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
from model.physics.scenario import resolve

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("tensorrt-llm", "trtllm", "nim", "nemo", "vllm", "sglang", "llama.cpp", "exllamav2", "mlc-llm",
           "transformers", "hf", "deepspeed", "auto", "ideal")
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
        assert table.canonical(name) in table.ids
    assert table.canonical("TRTLLM") == "tensorrt-llm" and table.canonical("hf") == "transformers"
    assert {c[0] for c in engine_choices()} == set(table.ids)


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
        for frac in (f.hbm_fraction, f.compute_fraction_decode, f.compute_fraction_prefill):
            assert 0 < frac <= 1, name
        assert f.step_overhead_s >= 0 and f.layer_overhead_s >= 0 and f.request_overhead_s >= 0, name
        assert f.allreduce_latency_scale > 0 and f.dequant_ops_per_weight >= 0, name
    for e in default_efficiency().engines:
        assert {"hbm_fraction", "layer_overhead_us"} <= dict(e.why).keys(), e.id   # each says why


def test_engines_with_cuda_graphs_pay_little_per_layer():
    table = default_efficiency()
    graphs = [e.for_platform("cuda").layer_overhead_s for e in table.engines if e.cuda_graphs]
    eager = table.engine("transformers").for_platform("cuda").layer_overhead_s
    assert max(graphs) < eager


@pytest.mark.parametrize("s", SCENARIOS, ids=lambda s: f"{s.gpu}-{s.model}-{s.precision}-{s.batch}")
def test_ideal_is_the_floor_and_every_engine_is_at_or_above_it(s):
    ideal = estimate(s.with_(engine=IDEAL_ID))
    assert ideal.decode_ms_per_token == pytest.approx(ideal.decode_floor_ms_per_token, rel=1e-12)
    assert ideal.prefill_ms == pytest.approx(ideal.prefill_floor_ms, rel=1e-12)
    assert ideal.engine_name == "ideal"
    for name in default_efficiency().ids:
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
        assert data["engine_id"] in table.ids and data["engine_name"]


def test_cli_unknown_engine_exits_2_with_one_line():
    out = _run("estimate", "--engine", "warp-drive")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "known:" in out.stderr and "vllm" in out.stderr
