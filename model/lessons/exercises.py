"""Predict, then see: exercises whose answers the model computes, and a checker for a typed guess.

    EXERCISES                      two or more per lesson: a question, its scenario, what is asked
    exercises_for(n)               lesson n's
    solve(ex, catalog)             the model's answer (in the question's unit) and its derivation
    check(ex, typed, catalog)      how close a typed number is: right (within 10%), near (within a
                                   factor of 2), far; in words, with the derivation

What an exercise asks (``quantity``):
    "<readout>"                    a readout of the scenario (model/readouts/derivations.all_readouts)
    "<a>/<b>"                      readout a ÷ readout b of the scenario (a share: scale 100 for %)
    "ratio:<readout>"              the readout of the scenario ÷ the same readout of ``base``
    "warps_needed", "hbm_narrower" lesson 2's and lesson 3's numbers of the scenario's GPU
"""
from __future__ import annotations

import math
import re

from model.catalog.active import default_catalog
from model.catalog.parts import Catalog
from model.errors import ModelError
from model.lessons.ch2_gpu_shape import WARP_COMPUTE_CYCLES, hbm_latency_cycles, latency_hiding
from model.lessons.ch3_hierarchy import ladder_points
from model.lessons.ch5_decode import floor_why
from model.physics.estimate import estimate
from model.physics.scenario import Scenario
from model.readouts.derivations import all_readouts, arithmetic, derivations, equation
from model.readouts.format import sig3, si
from model.values import frozen

RIGHT_WITHIN = 0.10          # |guess ÷ answer − 1| ≤ 10%: right
NEAR_FACTOR = 2.0            # within a factor of 2: near; else far


@frozen
class Exercise:
    key: str
    chapter: int
    question: str
    scenario: Scenario
    quantity: str
    unit: str                     # the unit the question asks in ("ms", "GB", "×", "%", "" for a count)
    scale: float = 1.0            # the model's value (SI) × scale = the answer in ``unit``
    base: Scenario | None = None  # for "ratio:…": the scenario divided by


@frozen
class Answer:
    value: float                  # in the exercise's unit
    text: str                     # "42.3 ms"
    derivation: tuple[str, ...]   # how the model gets it, with this scenario's numbers


@frozen
class Check:
    grade: str                    # "right" | "near" | "far" | "unreadable"
    words: str                    # one or two sentences for the person who guessed
    answer: Answer
    relative_error: float         # (guess − answer) ÷ answer; NaN when unreadable


def _s(**kw) -> Scenario:
    return Scenario().with_(**kw)


H100, H100_PCIE, V100 = "h100-sxm5-80gb", "h100-pcie-80gb", "v100-sxm2-32gb"
L8, L70 = "llama-3.1-8b", "llama-3.1-70b"
MULTI = dict(gpu=H100_PCIE, model=L70, precision="fp8", batch=256, input_len=256, output_len=256,
             interconnect="pcie")

EXERCISES: tuple[Exercise, ...] = (
    Exercise("ch1-compute", 1, "V100 → H100: by how many times did dense 16-bit compute grow?",
             _s(gpu=H100, precision="bf16"), "ratio:peak_flops", "×", base=_s(gpu=V100, precision="fp16")),
    Exercise("ch1-bandwidth", 1, "V100 → H100: by how many times did HBM bandwidth grow?",
             _s(gpu=H100, precision="bf16"), "ratio:peak_bandwidth", "×", base=_s(gpu=V100, precision="fp16")),
    Exercise("ch2-warps", 2, "H100: how many warps must one scheduler keep in flight to hide the HBM wait?",
             _s(gpu=H100), "warps_needed", "warps"),
    Exercise("ch2-busy", 2, "H100, four warps in flight: what share of cycles does the scheduler issue (%)?",
             _s(gpu=H100), "warp_busy_4", "%", 100.0),
    Exercise("ch3-narrower", 3, "H100: how many times narrower is HBM than the registers?",
             _s(gpu=H100), "hbm_narrower", "×"),
    Exercise("ch3-hbm", 3, "H100 SXM: its HBM bandwidth in TB/s?", _s(gpu=H100), "peak_bandwidth", "TB/s", 1e-12),
    Exercise("ch4-ridge", 4, "H100 in BF16: the ridge point, in FLOP per byte?",
             _s(gpu=H100, precision="bf16"), "ridge", "FLOP/B"),
    Exercise("ch4-share", 4, "Llama 3.1 8B decode at batch 1 in BF16 on an H100: its arithmetic intensity ÷ the "
             "ridge point, the share of the peak FLOP/s the roofline allows it (%)?",
             _s(gpu=H100, model=L8, precision="bf16", batch=1), "arithmetic_intensity/ridge", "%", 100.0),
    Exercise("ch5-floor-70b", 5, "The decode floor of Llama 3.1 70B in BF16 on one H100, in ms per token?",
             _s(gpu=H100, model=L70, precision="bf16", batch=1, gpus=1), "decode_floor", "ms", 1e3),
    Exercise("ch5-real-8b", 5, "Llama 3.1 8B in BF16 on one H100, batch 1: the realistic time per token, in ms?",
             _s(gpu=H100, model=L8, precision="bf16", batch=1, gpus=1), "decode_time", "ms", 1e3),
    Exercise("ch6-critical", 6, "Llama 3.1 8B in BF16 on an H100, 128 tokens in and 128 out: at which batch does "
             "decode turn compute-bound at peak numbers (the critical batch, KV cache included)?",
             _s(gpu=H100, model=L8, precision="bf16", input_len=128, output_len=128), "critical_batch", "sequences"),
    Exercise("ch6-kv", 6, "Llama 3.1 8B in BF16 on an H100, 8,192 tokens in and 2,048 out: the largest batch "
             "whose KV cache fits?", _s(gpu=H100, model=L8, precision="bf16", input_len=8192, output_len=2048),
             "max_batch_that_fits", "sequences"),
    Exercise("ch7-fp8-share", 7, "Llama 3.1 70B in FP8 on one H100: what share of its HBM do the weights take (%)?",
             _s(gpu=H100, model=L70, precision="fp8", batch=1), "weights_share_of_hbm", "%", 100.0),
    Exercise("ch7-fp8-floor", 7, "Llama 3.1 70B in FP8 on one H100: the decode floor, in ms per token?",
             _s(gpu=H100, model=L70, precision="fp8", batch=1), "decode_floor", "ms", 1e3),
    Exercise("ch8-pcie", 8, "What do 8 GPUs over PCIe buy? Llama 3.1 70B in FP8, batch 256, 8 × H100 PCIe: "
             "how many times faster per token than one?", _s(**MULTI, gpus=8),
             "ratio:tokens_per_s_per_user", "×", base=_s(**MULTI, gpus=1)),
    Exercise("ch8-comm", 8, "The same 8 × H100 PCIe: what share of each decode step do the all-reduces take (%)?",
             _s(**MULTI, gpus=8), "decode_comm_time/decode_time", "%", 100.0),
)
BY_KEY = {x.key: x for x in EXERCISES}


def exercises_for(chapter: int) -> tuple[Exercise, ...]:
    return tuple(x for x in EXERCISES if x.chapter == chapter)


def _text(value: float, unit: str) -> str:
    if unit in ("", "warps", "sequences"):
        return f"{value:,.0f}" + (f" {unit}" if unit else "")
    return f"{sig3(value)}{unit}" if unit in ("×", "%") else f"{sig3(value)} {unit}"


def solve(ex: Exercise, catalog: Catalog | None = None) -> Answer:
    """The model's answer to ``ex`` (in its unit) and the derivation that gives it."""
    cat = catalog or default_catalog()
    q = ex.quantity
    if q in ("warps_needed", "warp_busy_4", "hbm_narrower"):
        value, lines = _part_answer(q, cat.gpu(ex.scenario.gpu))
        value *= ex.scale
        return Answer(value, _text(value, ex.unit), lines)
    e = estimate(ex.scenario, cat)
    r = all_readouts(e)
    if q.startswith("ratio:"):
        key = q.split(":", 1)[1]
        b = all_readouts(estimate(ex.base, cat))[key]
        value = float(r[key].value) / float(b.value) * ex.scale
        lines = (f"{_text(value, ex.unit)} = {r[key].text} ÷ {b.text}",
                 f"{r[key].label}: {r[key].text} ({_names(e)}) ÷ {b.text} ({_names(estimate(ex.base, cat))})")
        return Answer(value, _text(value, ex.unit), lines)
    if "/" in q:
        a, b = q.split("/")
        value = float(r[a].value) / float(r[b].value) * ex.scale
        return Answer(value, _text(value, ex.unit),
                      (f"{_text(value, ex.unit)} = {r[a].labelled} ÷ {r[b].labelled}", f"on {_names(e)}"))
    raw = r[q].value
    if not isinstance(raw, (int, float)) or not math.isfinite(float(raw)):
        raise ModelError(f"exercise {ex.key}: the model gives no number ({r[q].text})")
    value = float(raw) * ex.scale
    return Answer(value, _text(value, ex.unit), (*derivation_lines(e, q), f"on {_names(e)}"))


LONG_LINE = 420          # a derivation line longer than this is summarised (the longest today, a prefill pass: ~380)


def derivation_lines(e, key: str) -> tuple[str, ...]:
    """A readout's derivation short enough to read: the equation in words and this scenario's
    arithmetic; the decode floor as bytes ÷ bandwidth (lesson 5's); an equation too long for a line
    (a term per kernel) replaced by the command that writes it whole."""
    if key == "decode_floor":
        return floor_why(e)
    d, r = derivations(e).get(key), all_readouts(e).get(key)
    if d is None or r is None:
        return ()
    if d.expr is None:
        return (f"{r.labelled}: {d.source or r.help}",)
    words, arith = equation(e, d), arithmetic(e, d)
    if len(words) > LONG_LINE:
        words = f"{r.label}: one term per kernel or link, too many for a line (main.py estimate --explain {key} writes each)"
    return (words, *((arith,) if arith and len(arith) <= LONG_LINE else ()))


def _names(e) -> str:
    s = e.scenario
    return f"{e.model_name} in {e.precision_name}, {s.gpus} × {e.gpu_name}, batch {s.batch:,}"


def _part_answer(q: str, hw) -> tuple[float, tuple[str, ...]]:
    """Lesson 2's and 3's numbers of one part, with their arithmetic."""
    if q == "hbm_narrower":
        pts = ladder_points(hw)
        hbm = next(p for p in pts if p.key == "hbm")
        return hbm.bandwidth_x, (f"{sig3(hbm.bandwidth_x)}× = registers {si(pts[0].bandwidth_bytes_per_s, 'B/s')} ÷ "
                                 f"{hbm.label} {si(hbm.bandwidth_bytes_per_s, 'B/s')}",)
    lat, c = hbm_latency_cycles(hw), WARP_COMPUTE_CYCLES
    if q == "warps_needed":
        lh = latency_hiding(1, 0.0, c, lat)
        return float(lh.warps_needed), (f"{lh.warps_needed} = ⌈(compute {c} + HBM wait {lat} cycles) ÷ compute {c}⌉",
                                        f"the HBM wait: {hw.name}'s load latency × its clock")
    lh = latency_hiding(4, 0.0, c, lat)
    return lh.issue_busy, (f"{sig3(100 * lh.issue_busy)}% = min(1, 4 warps × {c} ÷ ({c} + {lat}) cycles)",)


NUMBER = re.compile(r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def read_guess(typed: str) -> float | None:
    """The number in what a person typed ("42", "42 ms", "1,024", "3.2e1"); None if there is none."""
    m = NUMBER.search(typed or "")
    if not m:
        return None
    try:
        return float(m.group(0).replace(",", ""))
    except ValueError:
        return None


def grade(guess: float, answer: float) -> tuple[str, float]:
    """(right | near | far, relative error) of a guess against the model's answer."""
    if answer == 0:
        return ("right" if guess == 0 else "far"), (0.0 if guess == 0 else math.inf)
    rel = (guess - answer) / abs(answer)
    ratio = guess / answer
    if abs(rel) <= RIGHT_WITHIN:
        return "right", rel
    if 1 / NEAR_FACTOR <= ratio <= NEAR_FACTOR:
        return "near", rel
    return "far", rel


def check(ex: Exercise, typed: str, catalog: Catalog | None = None) -> Check:
    """How close ``typed`` is to the model's answer, in words, with the derivation."""
    ans = solve(ex, catalog)
    guess = read_guess(typed)
    if guess is None:
        return Check("unreadable", f"Type a number in {ex.unit or 'units'}: the model's answer then shows.",
                     ans, math.nan)
    g, rel = grade(guess, ans.value)
    said = _text(guess, ex.unit)
    if g == "right":
        words = f"Right: {said} is within {sig3(abs(100 * rel))}% of the model's {ans.text}."
    elif g == "near":
        words = f"Near: {said} is {sig3(abs(100 * rel))}% {'high' if rel > 0 else 'low'}; the model says {ans.text}."
    else:
        ratio = guess / ans.value if ans.value else math.inf
        how = f"{sig3(ratio)}× too high" if ratio > 1 else (f"{sig3(1 / ratio)}× too low" if ratio > 0 else "the wrong sign")
        words = f"Far: {said} is {how}; the model says {ans.text}."
    return Check(g, words, ans, rel)
