"""Issue 27, item 3: one validation for every hardware and model file the app accepts (command
line, window, scenario files). Generated files (hypothesis), valid and broken: each is refused
with one line, or estimated without an exception for every engine, phase and precision."""
from __future__ import annotations

import copy
import json
import math
import pathlib

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import main
from model import Scenario, estimate
from model.catalog.active import default_efficiency, shipped_catalog
from model.errors import ModelError
from model.files.hardware_file import export_document, hardware_from_document
from model.files.hf_config import llm_from_config
from model.physics.scenario import PHASES
from model.physics.sweep import default_batches, sweep_batch
from model.readouts.export import estimate_json

CONFIGS = pathlib.Path(__file__).resolve().parent / "data" / "hf_configs"
CAT = shipped_catalog()
ENGINES = tuple(e.id for e in default_efficiency().engines) + ("auto",)
PRECISIONS = tuple(p.id for p in CAT.precisions)
HW_NUMBERS = (("compute", "units"), ("compute", "tensor_cores"), ("compute", "clock_hz"),
              ("compute", "peak_flops_per_s", "bf16"), ("compute", "peak_flops_per_s", "fp8"),
              ("compute", "peak_flops_per_s", "fp32"), ("power", "tdp_w"), ("price", "usd_per_hour"),
              *((("memory", lvl, f) for lvl in ("registers", "smem", "l2", "hbm", "host")
                 for f in ("capacity_bytes", "bandwidth_bytes_per_s", "latency_s"))),
              ("memory", "hbm", "stream_bandwidth_bytes_per_s"), ("memory", "hbm", "stacks"),
              *((("links", k, f) for k in ("scale_up", "pcie", "network")
                 for f in ("bandwidth_bytes_per_s", "latency_s", "max_gpus"))))
MODEL_FIELDS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
                "intermediate_size", "vocab_size", "num_local_experts", "num_experts_per_tok", "n_routed_experts",
                "n_shared_experts", "moe_intermediate_size", "first_k_dense_replace", "kv_lora_rank", "q_lora_rank",
                "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "sliding_window")
BASE_CONFIGS = {p.stem: json.loads(p.read_text()) for p in sorted(CONFIGS.glob("*.json"))}

# numbers of every scale and sign, and the things that are not numbers at all
any_value = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.builds(lambda m, e: m * 10.0 ** e, st.floats(0.1, 10), st.integers(-320, 308)),
    st.integers(-10, 10), st.integers(-(1 << 70), 1 << 70), st.none(), st.booleans(),
    st.text(max_size=5), st.lists(st.integers(), max_size=2))
good_names = st.sampled_from(["Mine", "My GPU 2", "<b>bold</b> & co", "Ünïcødé 名前", "x" * 80])
names = st.one_of(good_names, good_names, good_names, st.text(max_size=100), st.text(min_size=79, max_size=90), st.just("x" * 200_000),
                  st.sampled_from(["my-gpu\n", "<b>bold</b>", "   ", "a\u2028b", "ok name"]))


# a change: the number scaled by 10^k (both sides of every bound: k from -15 to 15), or replaced by anything
scale = st.builds(lambda k: ("scale", 10.0 ** k), st.integers(-15, 15))
hw_change = st.one_of(scale, scale, scale, st.builds(lambda v: ("set", v), any_value))


def _put(doc: dict, path: tuple, value) -> None:
    sec = doc
    for key in path[:-1]:
        if not isinstance(sec.get(key), dict):
            return
        sec = sec[key]
    if isinstance(value, tuple) and value and value[0] == "scale":
        old = sec.get(path[-1])
        if isinstance(old, (int, float)) and not isinstance(old, bool):
            sec[path[-1]] = old * value[1]
        return
    sec[path[-1]] = value[1] if isinstance(value, tuple) and value and value[0] == "set" else value


def _one_line(exc: BaseException) -> None:
    text = str(exc)
    assert text and "\n" not in text and "\r" not in text, repr(text)


def _estimates_everywhere(s: Scenario, cat) -> None:
    """Every engine × phase × precision: an estimate, or a ModelError with one line; then the batch
    sweep and the JSON the command line prints, for the default choice."""
    for engine in ENGINES:
        for phase in PHASES:
            for precision in PRECISIONS:
                try:
                    estimate(s.with_(engine=engine, phase=phase, precision=precision), cat)
                except ModelError as exc:
                    _one_line(exc)
    try:
        e = estimate(s, cat)
    except ModelError as exc:
        _one_line(exc)
        return
    sweep_batch(e.scenario, default_batches(4096), resolved=e.resolved)
    json.dumps(estimate_json(e))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from([g.id for g in CAT.gpus]),
       changes=st.lists(st.tuples(st.sampled_from(HW_NUMBERS), hw_change), max_size=4),
       ident=st.one_of(st.just("my-gpu"), st.just("my-gpu"), st.text(max_size=70)), name=names)
def test_a_hardware_file_is_refused_in_one_line_or_estimated_everywhere(base, changes, ident, name):
    doc = export_document(CAT.gpu(base))
    doc.update(id=ident, name=name)
    for path, value in changes:
        _put(doc, path, value)
    try:
        hw = hardware_from_document(doc, "generated.json")
    except ModelError as exc:
        _one_line(exc)
        event("refused")
        return
    event("accepted")
    assert len(hw.name) <= 80 and "\n" not in hw.id
    _estimates_everywhere(Scenario(gpu=hw.id, model="llama-3.1-8b"), CAT.with_hardware(hw))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(sorted(BASE_CONFIGS)),
       changes=st.lists(st.tuples(st.sampled_from(MODEL_FIELDS),
                                  st.one_of(st.integers(-3, 300), st.integers(1, 1 << 21), st.integers(1, 64),
                                            st.sampled_from([1, 2, 8, 64, 128, 4096]), any_value)), max_size=2),
       name=names)
def test_a_model_config_is_refused_in_one_line_or_estimated_everywhere(base, changes, name):
    cfg = copy.deepcopy(BASE_CONFIGS[base])
    for key, value in changes:
        cfg[key] = value
    try:
        llm = llm_from_config(cfg, name)
    except ModelError as exc:
        _one_line(exc)
        event("refused")
        return
    event("accepted")
    assert len(llm.name) <= 80
    cat = CAT.with_model(llm)
    _estimates_everywhere(Scenario(gpu="h100", model=llm.id), cat)


# ---------------------------------------------------------------- the issue's cases, through the command line

def _hardware(tmp_path, **changes) -> pathlib.Path:
    doc = export_document(CAT.gpu("h100"))
    doc.update(id="my-gpu", name="Mine")
    for path, value in changes.items():
        _put(doc, tuple(path.split("__")), value)
    p = tmp_path / "hw.json"
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize("changes,needle", [
    ({"compute__peak_flops_per_s__bf16": 1e-300}, "below"),
    ({"memory__hbm__bandwidth_bytes_per_s": 1e-300}, "below"),
    ({"memory__l2__capacity_bytes": 1.0}, "below"),
    ({"links__network__latency_s": 1e-300}, "below"),
    ({"id": "my-gpu\n"}, "lower-case"),
    ({"name": "x" * 200_000}, "200,000 characters"),
    ({"name": "two\nlines"}, "one line"),
    ({"memory__hbm__source": "s" * 5000}, "5,000 characters"),
])
def test_hardware_check_refuses_the_issues_cases_in_one_line(tmp_path, capsys, changes, needle):
    path = _hardware(tmp_path, **changes)
    assert main.main(["hardware", "check", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err


def test_a_slow_but_physical_accelerator_is_accepted_and_estimated(tmp_path, capsys):
    path = _hardware(tmp_path, compute__peak_flops_per_s__bf16=1e9, memory__hbm__bandwidth_bytes_per_s=1e9)
    assert main.main(["hardware", "check", str(path)]) == 0
    capsys.readouterr()
    assert main.main(["estimate", "--hardware-file", str(path), "--gpu", "my-gpu", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decode_floor_ms_per_token"] > 0 and math.isfinite(out["decode_floor_ms_per_token"])


@pytest.mark.parametrize("changes,needle", [
    ({"hidden_size": 16, "num_attention_heads": 32}, "not a multiple"),     # head_dim would be 0
    ({"hidden_size": 4100}, "not a multiple"),                               # 4100 / 32 heads
    ({"num_key_value_heads": 5}, "not a multiple"),
    ({"num_key_value_heads": 64}, "not a multiple"),
    ({"num_hidden_layers": 0}, "at least 1"),
    ({"head_dim": 0}, "at least 1"),
])
def test_model_configs_with_broken_structure_are_refused_in_one_line(tmp_path, capsys, changes, needle):
    cfg = {**BASE_CONFIGS["llama-3.1-8b"], **changes}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    assert main.main(["--model-config", str(path), "estimate"]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err


def test_mixtral_experts_must_cover_top_k(tmp_path, capsys):
    cfg = {**BASE_CONFIGS["mixtral-8x7b-v0.1"], "num_local_experts": 1, "num_experts_per_tok": 2}
    with pytest.raises(ModelError, match="exceeds"):
        llm_from_config(cfg, "m")
    with pytest.raises(ModelError, match="at least 1"):
        llm_from_config({**cfg, "num_experts_per_tok": 0}, "m")
    with pytest.raises(ModelError, match="200,000 characters"):
        llm_from_config(BASE_CONFIGS["llama-3.1-8b"], "x" * 200_000)
    assert math.isfinite(estimate(Scenario(model="mixtral-8x7b")).decode_floor_ms_per_token)
