"""An estimate runs one pass: the decode step at the mean context, the end-to-end midpoints and the
prefill as points of one (step.joined_pass); its numbers are exactly those of the same points
computed on their own (the sweep at the estimate's batch, the end-to-end sum, the prefill pass)."""
from __future__ import annotations

import pytest

import model.physics.estimate as est
import model.physics.step as step
from model import Scenario, estimate
from model.physics.sweep import sweep_batch

SCENARIOS = [
    Scenario(),
    Scenario(gpu="h200", model="llama-3.1-8b", precision="fp8", batch=256),
    Scenario(gpu="mi300x", model="mixtral-8x7b", precision="bf16", batch=64, gpus=8),
    Scenario(gpu="b200", model="deepseek-v3", precision="fp4", batch=512, gpus=16),
    Scenario(gpu="4090", model="llama-2-7b", precision="int4", batch=4, gpus=2, interconnect="pcie"),
    Scenario(gpu="4090", model="llama-3.1-70b", precision="int4", batch=2048, engine="llama.cpp"),   # waves
    Scenario(gpu="a100", model="llama-3.1-70b", precision="fp8", batch=3, gpus=4, phase="prefill", engine="transformers"),
]


def test_an_estimate_runs_one_pass(monkeypatch):
    calls = []
    real = step.pass_cost

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(step, "pass_cost", counted)
    for s in SCENARIOS:
        calls.clear()
        estimate(s)
        assert len(calls) == 1, s                    # decode and prefill as one pass (waves included)


@pytest.mark.parametrize("s", SCENARIOS, ids=lambda s: f"{s.gpu}-{s.model}-{s.batch}")
def test_an_estimates_numbers_are_those_of_each_point_on_its_own(s):
    e = estimate(s)
    sw = sweep_batch(s, [s.batch], resolved=e.resolved)
    assert e.decode_ms_per_token == sw.decode_ms_per_token[0]            # exactly: the same sums, in order
    assert e.decode_floor_ms_per_token == sw.decode_floor_ms_per_token[0]
    eff = est._efficiency(est.default_efficiency(), e.resolved.engine, e.resolved.hw)
    e2e, waves = est.e2e_with_waves(e.resolved, s.batch, e.max_batch_that_fits, eff, e.prefill_ms / 1e3)
    assert (e.e2e_latency_s, e.waves) == (e2e, waves)
    pre = step.prefill_pass(e.resolved, s.batch, s.input_len, eff)
    assert e.prefill_ms == float(pre.time_s) * 1e3


@pytest.mark.parametrize("s", SCENARIOS, ids=lambda s: f"{s.gpu}-{s.model}-{s.batch}")
def test_an_estimate_has_every_field_once_as_if_constructed(s):
    """``estimate`` builds its Estimate with values.filled (no check of the names at every call):
    it names every field, and nothing else, so the value is the one Estimate(**fields) makes."""
    from dataclasses import fields
    e = estimate(s)
    names = [f.name for f in fields(est.Estimate)]
    assert sorted(k for k in vars(e) if not k.startswith("_value_")) == sorted(names)
    made = est.Estimate(**{n: getattr(e, n) for n in names})
    assert made == e and hash(made) == hash(e) and repr(made) == repr(e)
