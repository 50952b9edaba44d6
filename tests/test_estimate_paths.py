"""The estimate's fast paths give the numbers of the plain ones, over many generated scenarios:

* one joined pass (step.joined_pass: decode step, end-to-end midpoints and prefill as points of one
  numpy pass; the prefill of one point in plain floats) equals each pass computed on its own
  (decode_pass, prefill_pass, e2e_with_waves, kernel_costs) to 1e-12 relative;
* the weights-only critical batch kept per part combination equals the one worked out afresh;
* a resolve answered from what the catalogue kept for the same parts equals a resolve on a fresh
  catalogue (nothing kept), result or error message alike, for odd values too.
"""
from __future__ import annotations

import math
from dataclasses import fields, replace

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import model.physics.estimate as est
from model import Scenario, estimate, resolve
from model.catalog.active import default_catalog, default_efficiency
from model.errors import ModelError
from model.physics.kernels import kernel_costs
from model.physics.roofline import _critical_batch
from model.physics.cost import pass_cost
from model.physics.step import decode_pass, decode_terms, prefill_pass, prefill_terms

CAT = default_catalog()
GPUS = [g.id for g in CAT.gpus]
MODELS = [m.id for m in CAT.models]
PRECISIONS = [p.id for p in CAT.precisions]
ENGINES = [e for e in default_efficiency().ids] + list(default_efficiency().version_ids)

scenarios = st.builds(
    Scenario, gpu=st.sampled_from(GPUS), model=st.sampled_from(MODELS), precision=st.sampled_from(PRECISIONS),
    kv_precision=st.sampled_from([None, "fp8", "int4", "bf16"]),
    batch=st.one_of(st.integers(1, 64), st.integers(1, 65_536)), gpus=st.sampled_from([1, 2, 4, 8, 16, 64]),
    interconnect=st.sampled_from(["nvlink", "pcie", "network"]),
    input_len=st.integers(1, 1_048_576), output_len=st.integers(1, 1_048_576),
    phase=st.sampled_from(["decode", "prefill"]), engine=st.sampled_from(ENGINES))


def _estimate_or_none(s: Scenario):
    try:
        return estimate(s)
    except ModelError:
        return None


def _at0(x) -> float:
    """Point 0 of a pass over one point (a field a pass leaves scalar, e.g. no host wait, as it is)."""
    return float(np.asarray(x, dtype=float).reshape(-1)[0])


def _none_nan(x):
    return math.nan if x is None else x


def _same(a, b) -> bool:
    """Equal to 1e-12 relative, NaN equal to NaN. (Point by point the passes run the same operations;
    numpy's power on arrays and on 0-d ones may round a last bit differently, the only slack here.)"""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    close = np.isclose(a, b, rtol=1e-12, atol=0.0) | (np.isnan(a) & np.isnan(b))
    return a.shape == b.shape and bool(np.all(close))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(scenarios)
def test_one_joined_pass_gives_each_pass_its_own_numbers(s):
    e = _estimate_or_none(s)
    if e is None:
        return
    rs, b, c = e.resolved, e.scenario.batch, e.scenario.input_len + e.scenario.output_len / 2.0
    eff = est._efficiency(default_efficiency(), rs.engine, rs.hw)
    dec = decode_pass(rs, np.array([float(b)]), np.array([c]), eff)
    pre = prefill_pass(rs, np.array([float(b)]), np.array([float(e.scenario.input_len)]), eff)
    for got, want in ((e.decode_ms_per_token, _at0(dec.time_s) * 1e3), (e.decode_floor_ms_per_token, _at0(dec.floor_s) * 1e3),
                      (e.decode_memory_ms, _at0(dec.memory_s) * 1e3), (e.decode_compute_ms, _at0(dec.compute_s) * 1e3),
                      (e.decode_comm_ms, _at0(dec.comm_s) * 1e3), (e.decode_overhead_ms, _at0(dec.overhead_s) * 1e3),
                      (e.prefill_ms, _at0(pre.time_s) * 1e3), (e.prefill_floor_ms, _at0(pre.floor_s) * 1e3),
                      (e.prefill_memory_ms, _at0(pre.memory_s) * 1e3), (e.prefill_overhead_ms, _at0(pre.overhead_s) * 1e3),
                      (e.prefill_flops, _at0(pre.flops) / rs.pp), (e.prefill_kv_bytes, _at0(pre.kv_bytes) / rs.pp)):
        assert _same(got, want), (s, got, want)
    assert _same(_none_nan(e.critical_batch_weights_only), _none_nan(_critical_batch(rs, None, True))), s  # kept per parts
    e2e, waves = est.e2e_with_waves(rs, b, e.max_batch_that_fits, eff)      # its own prefill pass too
    assert _same(e.e2e_latency_s, e2e) and e.waves == waves, s
    for phase, terms, fraction in (("decode", decode_terms(rs, np.array([float(b)]), np.array([c])), eff.compute_fraction_decode),
                                   ("prefill", prefill_terms(rs, np.array([float(b)]), np.array([float(e.scenario.input_len)])),
                                    eff.compute_fraction_prefill)):
        alone = kernel_costs(terms, pass_cost(terms, eff, fraction), 0)
        joined = e.decode_kernels if phase == "decode" else e.prefill_kernels
        assert [k.name for k in joined] == [k.name for k in alone], s
        for k, w in zip(joined, alone):
            assert all(_same(getattr(k, f.name), getattr(w, f.name)) for f in fields(k) if f.name != "name"), (s, k, w)


odd = st.one_of(st.integers(-2, 70), st.booleans(), st.floats(allow_nan=True), st.sampled_from(["8", "2", "x", None]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GPUS[:6] + ["h100", "nope"]), st.sampled_from(MODELS[:5] + ["nope"]),
       st.sampled_from(["bf16", "fp8", "int4", "bogus"]), st.lists(st.tuples(odd, odd, odd), min_size=1, max_size=4),
       st.one_of(st.sampled_from([1, 2, 8]), odd), st.sampled_from(["nvlink", "PCIe", "network", "x"]),
       st.sampled_from(["auto", "vllm", "llama.cpp", "?"]), st.sampled_from(["decode", "Prefill", "x"]))
def test_a_kept_resolve_is_a_fresh_one(gpu, model, precision, changes, gpus, interconnect, engine, phase):
    cat = replace(default_catalog())          # a catalogue of its own: what it keeps starts empty
    for batch, input_len, output_len in [(4, 512, 256)] + changes:    # parts kept, then other batches and lengths
        s = Scenario(gpu=gpu, model=model, precision=precision, batch=batch, gpus=gpus, interconnect=interconnect,
                     input_len=input_len, output_len=output_len, phase=phase, engine=engine)
        outcomes = []
        for catalog in (cat, replace(default_catalog())):      # kept (after the first), then fresh
            try:
                outcomes.append(resolve(s, catalog))
            except ModelError as exc:
                outcomes.append(f"{type(exc).__name__}: {exc}")
        assert outcomes[0] == outcomes[1], s
