"""Every equation the app prints can be redone from its printed numbers (tests/equation_check.py):
Explore's "Why this number?" for every readout of several GPUs, models, precisions and batches,
every lesson state's key number, details, derivation and chart words, and the Serve and Plan
readouts. The checker reads text only, as a reader with a calculator would; before issue 40's
fix 132 of 529 equations it could redo gave another result than the one printed."""
from __future__ import annotations

import dataclasses

import pytest

from equation_check import bad_equations, checked_equations
from model import Scenario, estimate
from model.lessons.chapters import default_chapters
from model.lessons.deck import chapter_chart, chapter_facts
from model.lessons.explain import key_why
from model.readouts.derivations import derivations
from model.readouts.explain_text import derivation_view

SCENARIOS = (
    Scenario(model="llama-3.1-70b", precision="fp16"),
    Scenario(),
    Scenario(gpu="mi300x", model="llama-3.1-70b", precision="fp8", batch=64, gpus=8),
    Scenario(model="llama-3.1-8b", batch=256, phase="prefill"),
    Scenario(gpu="h200", model="llama-3.1-70b", precision="int4", batch=16, gpus=2),
    Scenario(gpu="b200", model="llama-3.1-70b", precision="fp8", batch=512, input_len=8192, gpus=4, interconnect="pcie"),
    Scenario(gpu="b200", model="deepseek-r1", precision="fp8-block", gpus=8, engine="sglang"),   # prompts issued by the host
)


def strings(x, depth: int = 0):
    """Every text inside a facts or chart value (dataclasses, tuples, dicts)."""
    if depth > 6:
        return
    if isinstance(x, str):
        yield x
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        for f in dataclasses.fields(x):
            yield from strings(getattr(x, f.name), depth + 1)
    elif isinstance(x, (tuple, list)):
        for y in x:
            yield from strings(y, depth + 1)
    elif isinstance(x, dict):
        for y in x.values():
            yield from strings(y, depth + 1)


def _check(texts) -> tuple[int, list]:
    seen, bad = 0, []
    for t in texts:
        seen += checked_equations(t)
        bad += bad_equations(t)
    return seen, bad


def test_the_checker_catches_what_the_newcomer_caught():
    assert bad_equations("Floor 41.7 ms = 140 GB read per token ÷ 3.35 TB/s")       # that is 41.8
    assert bad_equations("4.54 ms = 15.0 GB ÷ 3.35 TB/s")                           # that is 4.48
    assert bad_equations("56.4 ms = 4.58 ms + 3.66 ms + 25.6 ms + 12.8 ms + 717 µs + 0.900 µs + 228 µs + 8.74 ms")
    assert not bad_equations("4.58 ms = 13.43 GB ÷ 2.931 TB/s")
    assert not bad_equations("56.4 ms = QKV 4.581 ms + out 3.665 ms + MLP up/gate 25.65 ms + MLP down 12.82 ms + "
                             "LM head 716.9 µs + norms 0.8999 µs + attention 227.9 µs + overhead 8.736 ms")
    assert not bad_equations("73.9% = 139.6 GB ÷ 56.4 ms ÷ 3.35 TB/s")
    assert bad_equations("3,909 = ⌊164 GB ÷ 41.9 MB⌋") and not bad_equations("322 = ⌊108.3 GB ÷ 336 MB⌋")


@pytest.mark.parametrize("s", SCENARIOS, ids=lambda s: f"{s.gpu}-{s.model}-{s.precision}-{s.batch}")
def test_every_why_this_number_redoes(s):
    e = estimate(s)
    seen, bad = _check(derivation_view(e, k).arithmetic for k in derivations(e))
    assert seen > 40
    assert not bad, bad[:5]


def test_every_sum_names_its_terms_and_leaves_out_a_zero_one():
    e = estimate(Scenario(model="llama-3.1-70b", precision="fp16"))
    text = derivation_view(e, "decode_time").arithmetic
    for name in ("QKV", "out", "MLP up/gate", "MLP down", "LM head", "attention", "overhead"):
        assert f"+ {name} " in text or f"= {name} " in text, (name, text)
    assert " 0 µs" not in text and "(links 0: one GPU" in text


def test_every_lesson_state_redoes():
    seen_all, bad_all = 0, []
    for ch in default_chapters():
        for i, st in enumerate(ch.states):
            e = estimate(st.scenario)
            f = chapter_facts(ch.number, e, dict(st.params))
            texts = [f"{f.key.text} {f.key.label}", *f.details, *f.why, f.claim(st.caption), *strings(f.values),
                     f.fill(st.takeaway), f.fill(st.notes), *key_why(ch.number, e, f, dict(st.params)),
                     *strings(chapter_chart(ch.number, e, dict(st.params)))]
            seen, bad = _check(texts)
            seen_all += seen
            bad_all += [(ch.number, i, *b) for b in bad]
    assert seen_all > 30
    assert not bad_all, bad_all[:5]


def test_serve_and_plan_readouts_redo():
    from model.planning.plan import make_plan
    from model.planning.space import PlanRequest
    from model.readouts.planning import cheapest_lines, frontier_rows, measured_lines, summary_line
    from model.readouts.serving import explain, serving_readouts, serving_table
    from model.serving.results import summarize
    from model.serving.run import serve
    from model.serving.setup import ServingSetup
    run = serve(Scenario(input_len=512, output_len=64), ServingSetup(rate_per_s=4, requests=200, input_len=512,
                                                                     output_len=64, ttft_p90_ms=500, tpot_p90_ms=50))
    sm = summarize(run)
    texts = [explain(run, sm), *(f"{r.text} {r.help}" for r in serving_readouts(run, sm).values()),
             *(" ".join(row) for row in serving_table(run, sm))]
    p = make_plan(PlanRequest("llama-3.1-8b", 1000, 200, (("h100", 4),), 400, 30, precisions=("bf16",),
                              engines=("vllm",), speculative=False), simulate_frontier=False, disaggregated=False)
    texts += [*cheapest_lines(p), *measured_lines(p), summary_line(p), *(" ".join(row) for row in frontier_rows(p))]
    _seen, bad = _check(texts)
    assert not bad, bad[:5]
