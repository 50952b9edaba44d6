"""The side panel's "why": how each lesson's key number is made, with this state's values, and
what it rests on (model/readouts derivations for the scenario's readouts; the chapter's own
equations for the parts' datasheet numbers).

    key_why(number, e, facts, params) -> (lines: the arithmetic, then the assumptions)
    depends_on(e)                     -> one line: what the key number depends on
"""
from __future__ import annotations

from model.errors import ModelError
from model.lessons.facts import Facts
from model.readouts.explain_text import derivation_view
from model.readouts.numbers import readouts

# the readouts whose derivations make each chapter's key number (lessons 5–8: the scenario's)
KEY_READOUTS = {5: ("weights_read_per_step",), 7: ("weights_read_per_step",), 8: ("decode_comm_time",)}
BATCHING_READOUTS = {"kv": ("max_batch_that_fits",), "": ("output_tokens_per_s", "decode_time"),
                     "measured": ("output_tokens_per_s", "decode_time")}
MAX_ASSUMPTIONS = 1


def key_why(number: int, e, facts: Facts, params: dict) -> tuple[str, ...]:
    """The key number's derivation lines: each readout's arithmetic with this scenario's numbers,
    then what it assumes; lessons 1–4 (datasheet numbers) their own equations."""
    if number == 6 and params.get("key") == "frontier" and "tpot" in facts.values:
        return _frontier_why(facts.values)
    keys = BATCHING_READOUTS.get(params.get("key", ""), ()) if number == 6 else KEY_READOUTS.get(number, ())
    if facts.why:                    # lessons 1–4: datasheet numbers, derived in their own Facts
        return facts.why
    if not keys:
        return facts.details[:2]
    out: list[str] = []
    if number == 6 and params.get("key") == "measured" and "meas_tps" in facts.values:
        v = facts.values               # the key number is the measurement: say how it was made, then the model's
        out.append(f"Measured {v['meas_tps']} tok/s: batch × output tokens ÷ end-to-end time, published by "
                   f"{v.get('source', 'its source')}; the model's {v['model_tps']} tok/s:")
    assumptions: list[str] = []
    for k in keys:
        try:
            v = derivation_view(e, k)
        except ModelError:
            continue
        out.append(v.arithmetic or v.title)
        assumptions += [a for a in v.assumptions if a not in assumptions]
    return (*out, *(f"Assumes: {a}" for a in assumptions[:MAX_ASSUMPTIONS]))


def _frontier_why(v: dict) -> tuple[str, ...]:
    """Lesson 6's frontier point: the planner's steady state (model/planning/steady.py), whose
    every batch slot is busy and whose steps carry the prompts admitted as sequences finish."""
    return (f"Per GPU: batch × speed per user ÷ GPUs = {v['batch']} × {v['user_speed']} ÷ {v['gpus']} = {v['gpu_tps']}",
            f"Per user: 1 ÷ {v['tpot']} per output token = {v['user_speed']}",
            "Assumes: a steady stream of requests, every batch slot busy")


def depends_on(number: int, e) -> str:
    """What the key number depends on, named with this scenario's values ("" for lessons 1–4:
    datasheet numbers, their part named above the chart)."""
    if number <= 4:
        return ""
    s = e.scenario
    r = readouts(e)
    return (f"Depends on: {e.model_name} in {e.precision_name}, {s.gpus} × {e.gpu_name}, batch {s.batch:,}, "
            f"engine {r['engine'].text}, mean context {r['mean_context'].text}")
