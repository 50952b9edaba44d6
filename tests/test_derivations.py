"""Every number explains itself (model/readouts/derivations.py): for every readout of 240 seeded
scenarios a derivation exists, its tree evaluated from its inputs' values gives the number on
screen (to its printed precision), and every input it names is itself a readout."""
from __future__ import annotations

import math
import random

import pytest

from model import Scenario, estimate
from model.catalog.active import default_catalog, default_efficiency
from model.errors import ModelError
from model.readouts.derivations import all_readouts, arithmetic, derivations, equation
from model.readouts.expr import emax, esum, num, ref
from model.readouts.numbers import readouts


def seeded_estimates(n: int, seed: int):
    rng = random.Random(seed)
    cat, engines = default_catalog(), default_efficiency().ids
    out = []
    while len(out) < n:
        s = Scenario(gpu=rng.choice(cat.gpus).id, model=rng.choice(cat.models).id,
                     precision=rng.choice(cat.precisions).id, batch=rng.choice((1, 3, 16, 64, 256, 2048, 30000)),
                     gpus=rng.choice((1, 2, 8, 16, 64)), interconnect=rng.choice(("nvlink", "pcie", "network")),
                     input_len=rng.choice((128, 1024, 8192, 100000)), output_len=rng.choice((64, 1024)),
                     phase=rng.choice(("decode", "prefill")), engine=rng.choice(engines))
        try:
            out.append(estimate(s))
        except ModelError:
            continue
    return out


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_every_readout_has_a_derivation_that_reproduces_it(seed):
    evaluated = 0
    for e in seeded_estimates(60, seed):
        r, d = all_readouts(e), derivations(e)
        assert set(readouts(e)) <= set(d), set(readouts(e)) - set(d)
        assert set(r) == set(d)
        values = {k: x.value for k, x in r.items()}
        for key, der in d.items():
            missing = [i for i in der.inputs if i not in r]
            assert not missing, (e.scenario, key, missing)
            want = r[key].value
            if der.expr is None or not isinstance(want, (int, float)) or isinstance(want, bool):
                continue
            got = der.expr.evaluate(values)
            assert math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-15), (e.scenario, key, got, want)
            evaluated += 1
    assert evaluated > 60 * 80          # most readouts are arithmetic, not leaves


def test_the_three_questions_a_newcomer_asked_are_answered_by_their_derivations():
    e = estimate(Scenario(model="llama-3.1-70b", precision="fp16"))
    d = derivations(e)
    over = equation(e, d["decode_overhead_time"]) + arithmetic(e, d["decode_overhead_time"])
    assert "Overhead per step" in over and "Layers" in over and "Overhead per layer" in over
    assert any("launching kernels" in a for a in d["decode_overhead_time"].assumptions)
    # the maths time: FLOPs at the FLOP/s the engine reaches, not at the peak
    comp = d["decode.mlp_up.compute"]
    assert comp.inputs == ("decode.mlp_up.flops", "achieved_flops_decode")
    rate = d["achieved_flops_decode"]
    assert set(rate.inputs) == {"matmul_peak", "eta_c_decode", "peak_flops"}
    # the floor names every byte it counts (weights, KV cache, activations), so its arithmetic adds up
    floor = arithmetic(e, d["decode_floor"])
    assert floor.startswith(all_readouts(e)["decode_floor"].text) and "÷ 3.35 TB/s" in floor


def test_a_leaf_says_where_it_comes_from():
    e = estimate(Scenario())
    d = derivations(e)
    for key in ("peak_flops", "peak_bandwidth", "layers", "eta_bw", "bytes_per_weight"):
        assert d[key].expr is None and equation(e, d[key]).strip(), key
    assert "fitted on" in all_readouts(e)["eta_bw"].help


def test_expressions_print_as_people_write_them():
    names = {"a": "A", "b": "B", "c": "C"}.get
    assert ((ref("a") + ref("b")) * ref("c")).render(names) == "(A + B) × C"
    assert (ref("a") - (ref("b") - ref("c"))).render(names) == "A − (B − C)"
    assert (ref("a") / (ref("b") * ref("c"))).render(names) == "A ÷ (B × C)"
    assert (esum(ref("a"), ref("b")) / ref("c")).render(names) == "(A + B) ÷ C"
    assert (ref("a") * num(0.5) * num(1e6)).render(names) == "A × ½ × 10⁶"
    assert emax(ref("a"), ref("b")).evaluate({"a": 1.0, "b": 2.0}) == 2.0
