"""How far to trust a number (model/readouts/evidence.py), and one vocabulary per part
(model/readouts/vocabulary.py): bands computed from the stored held-out residuals, floors without
a band, the words each part's units and memory go by, unknown prices, a measured CPU's engine."""
from __future__ import annotations

import math

import numpy as np
import pytest

from model import Scenario, estimate
from model.catalog.active import default_catalog, default_efficiency
from model.files.hardware_file import hardware_from_document
from model.machine.residuals import compute_residuals, platform_class, residuals_text, stored_residuals
from model.readouts.evidence import MIN_ALIKE, QUANTILE, band, band_of, nearest_runs
from model.readouts.numbers import readouts
from model.readouts.sentences import badge_text
from model.readouts.vocabulary import matrix_units, memory_word


def test_the_band_is_the_quantile_of_the_held_out_residuals_alike():
    e = estimate(Scenario(gpu="rtx-4090-24gb", model="llama-3.1-8b", precision="int4"))
    b = band(e, "decode_time")
    group = [r for r in stored_residuals() if r.engine == e.engine_id and r.regime == "decode" and r.batch1
             and r.platform_class == platform_class(e.resolved.hw)]
    assert len(group) >= MIN_ALIKE and b.runs == len(group) and not b.widened
    assert b.fraction == pytest.approx(math.exp(np.quantile(np.abs([r.log_error for r in group]), QUANTILE)) - 1)
    assert b.text in b.label and str(b.runs) in b.label


def test_with_few_runs_alike_the_band_widens_and_says_so():
    e = estimate(Scenario(gpu="gaudi2-96gb"))
    b = band(e, "decode_time")
    assert b.widened and "few runs alike" in b.label and b.runs >= MIN_ALIKE
    planted = [r for r in stored_residuals()][:3]            # three runs alike only: the whole set stands in
    assert band_of(planted) >= 0


def test_floors_and_the_ideal_engine_carry_no_band():
    e = estimate(Scenario())
    assert band(e, "decode_floor") is None and band(e, "prefill_floor") is None and band(e, "peak_flops") is None
    assert band(estimate(Scenario(engine="ideal")), "decode_time") is None
    assert band(e, "decode_time") is not None and band(e, "e2e_latency") is not None


def test_the_stored_residuals_are_what_validation_computes_now():
    """assets/residuals.csv is regenerated with the model: `python -m model.machine.residuals`."""
    assert residuals_text(stored_residuals()) == residuals_text(compute_residuals())


def test_the_nearest_published_runs_are_the_scenarios_own_first():
    runs = nearest_runs(estimate(Scenario(gpu="h100", model="llama-3.1-8b", precision="fp16")))
    assert runs and "h100-sxm5-80gb" in runs[0].label and "llama-3.1-8b" in runs[0].label
    assert all(a.distance <= b.distance for a, b in zip(runs, runs[1:]))


@pytest.mark.parametrize("gpu, units, memory", [
    ("h100-sxm5-80gb", "tensor cores", "HBM"), ("mi300x-192gb", "matrix cores", "HBM"),
    ("m2-ultra-192gb", "the GPU's matrix units", "unified memory"), ("rtx-4090-24gb", "tensor cores", "GDDR6X"),
    ("gaudi2-96gb", "matrix engines", "HBM")])
def test_each_part_is_named_in_its_own_vocabulary(gpu, units, memory):
    hw = default_catalog().gpu(gpu)
    assert matrix_units(hw) == units and memory_word(hw) == memory
    r = readouts(estimate(Scenario(gpu=gpu, model="llama-2-7b", precision="int8")))
    assert r["tensor_cores_busy"].label.lower().startswith(units.lower())
    assert memory in r["peak_bandwidth"].label and memory in r["hbm_capacity"].label
    if units != "tensor cores":
        assert not any("tensor" in x.label.lower() for x in r.values())


def _cpu_hardware():
    doc = {"memory_wall_hardware": 1, "id": "this-machine-test", "name": "this machine (measured)",
           "short_name": "this machine", "vendor": "This machine", "family": "Measured", "year": 2026,
           "compute": {"unit_name": "core", "units": 8, "tensor_cores": 0, "clock_hz": None,
                       "peak_flops_per_s": {"fp32": 5e11, "fp16": 2.5e11}, "source": "measured"},
           "memory": {"hbm": {"label": "System RAM", "kind": "RAM (unified)", "stacks": None, "capacity_bytes": 3.2e10,
                              "bandwidth_bytes_per_s": 4e10, "latency_s": None, "derived": [], "source": "measured",
                              "notes": ""}, "registers": None, "smem": None, "l2": None, "host": None},
           "links": {"scale_up": None, "pcie": None,
                     "network": {"kind": "network", "name": "10 GbE", "bandwidth_bytes_per_s": 1.25e9, "latency_s": 5e-5,
                                 "max_gpus": 65536, "source": "assumed"}},
           "power": {"tdp_w": 65.0, "source": "assumed"}, "price": {"usd_per_hour": 0.0, "source": "a machine you own"}}
    return hardware_from_document(doc)


def test_a_measured_cpu_has_cpu_cores_ram_no_price_and_a_local_engine():
    hw = _cpu_hardware()
    cat = default_catalog().with_hardware(hw)
    e = estimate(Scenario(gpu=hw.id, model="llama-3.1-8b", precision="fp32"), cat)
    r = readouts(e)
    assert matrix_units(hw) == "CPU cores" and memory_word(hw) == "RAM"
    assert r["tensor_cores_busy"].label.startswith("CPU cores") and "RAM" in r["peak_bandwidth"].label
    assert r["usd_per_million_tokens"].text == "n/a" and r["usd_per_million_tokens"].value is None
    assert default_efficiency().resolve_engine("auto", hw) != "vllm" and e.engine_id == "llama.cpp"


def test_the_badge_and_the_ridge_as_reached_agree():
    """Compute-bound exactly when the step's intensity is right of the ridge at the rates reached."""
    for b in (1, 16, 64, 256, 1024, 4096):
        e = estimate(Scenario(batch=b, model="llama-2-7b"))
        r = readouts(e)
        right = r["arithmetic_intensity"].value > r["ridge_reached"].value
        assert ("COMPUTE" in badge_text(e)) == right or e.bound == "communication", b


@pytest.mark.slow
def test_the_validation_page_is_today_s():
    """docs/validation.md is what `python -m model.machine.validate --markdown` writes today."""
    from model.files.assets import ASSETS_DIR
    from model.machine.validate import markdown, report
    page = ASSETS_DIR.parent / "docs" / "validation.md"
    assert page.read_text(encoding="utf-8") == markdown(report())
