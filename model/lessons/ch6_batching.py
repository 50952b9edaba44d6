"""Lesson 6 — batching climbs the roofline.

Compute-bound from the first batch where compute time > memory time, realistic (achieved
fractions of peak) and ideal (peaks: the critical batch); tokens/s against batch.
"""
from __future__ import annotations

import math

import numpy as np

from model.catalog.active import default_efficiency
from model.catalog.engines import IDEAL
from model.catalog.parts import Catalog
from model.lessons.facts import Facts, KeyNumber, pct, times
from model.lessons.measured import MeasuredPoint, measured_e2e
from model.physics.estimate import Estimate, estimate
from model.physics.scenario import Scenario, resolve
from model.physics.step import decode_pass
from model.physics.sweep import sweep_batch
from model.readouts.numbers import readouts
from model.values import frozen


def compute_bound_batch(s: Scenario, ideal: bool = False, catalog: Catalog | None = None,
                        max_batch: int = 65536) -> int | None:
    """The first batch at which a decode step's compute time exceeds its memory time (None: never
    up to max_batch). ideal=True uses the peaks (the critical batch); otherwise the achieved fractions.

    Both times only grow with the batch (FLOPs and activations ∝ B, KV ∝ B·context, weights
    read: the experts touched grow with B), so on [lo, hi] compute(B) ≤ compute(hi) and
    memory(B) ≥ memory(lo): where compute(hi) < memory(lo) no batch in between crosses. The
    batches are checked on a grid 1.25× apart, and every batch of an interval that may hold the
    crossing is tried: the same answer as trying all 65 536, ~60 points instead (a glide that
    changes the context length asks anew at every frame). It does not depend on the scenario's
    own batch: remembered for the last few scenarios, checked against the parts it was worked
    out for (an edited GPU or a new calibration works it out again)."""
    rs = resolve(s, catalog)
    eff = IDEAL if ideal else default_efficiency().efficiency(rs.scenario.engine, rs.hw)
    key = (s.with_(batch=1), bool(ideal), int(max_batch))
    parts = (rs.hw, rs.llm, rs.precision, rs.kv, rs.tp_link, eff)
    hit = _COMPUTE_BOUND.get(key)
    if hit is not None and hit[0] == parts:
        return hit[1]
    context = s.input_len + s.output_len / 2.0

    def times(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = decode_pass(rs, b, context, eff)
        return np.asarray(p.compute_s, dtype=float), np.asarray(p.memory_s, dtype=float)

    top = float(max(1, max_batch))
    steps = np.round(1.25 ** np.arange(0.0, math.log(top, 1.25) + 1.0))
    grid = np.unique(np.clip(np.append(steps, top), 1.0, top))
    comp, mem = times(grid)
    found = None
    for i, b in enumerate(grid):
        if comp[i] > mem[i]:                                   # it crosses at b or just before
            span = np.arange(grid[i - 1] + 1.0 if i else 1.0, b + 1.0)
        elif i + 1 < len(grid) and comp[i + 1] >= mem[i] * (1.0 - 1e-12):
            span = np.arange(b + 1.0, grid[i + 1] + 1.0)       # it may cross inside (b, next]
        else:
            continue                                           # compute(next) < memory(b): it cannot
        c, m = times(span)
        over = np.nonzero(c > m)[0]
        if over.size:
            found = int(span[over[0]])
            break
    if len(_COMPUTE_BOUND) >= 32:
        _COMPUTE_BOUND.pop(next(iter(_COMPUTE_BOUND)))
    _COMPUTE_BOUND[key] = (parts, found)
    return found


_COMPUTE_BOUND: dict = {}     # (scenario at batch 1, ideal, max batch) → (the parts, the batch)


def batching_facts(e: Estimate, catalog: Catalog | None = None, key: str = "") -> Facts:
    s = e.scenario
    real = compute_bound_batch(s, False, catalog)
    ideal = compute_bound_batch(s, True, catalog)
    base = estimate(s.with_(batch=1), catalog)
    rs = resolve(s, catalog)
    eff = default_efficiency().efficiency(rs.scenario.engine, rs.hw)
    r = readouts(e)
    vals = {"batch": f"{s.batch:,}", "tokens_per_s": r["output_tokens_per_s"].text,
            "gain": times(e.output_tokens_per_s / base.output_tokens_per_s),
            "step": r["decode_time"].text, "step1": readouts(base)["decode_time"].text,
            "real_cb": f"{real:,}" if real else "never", "ideal_cb": f"{ideal:,}" if ideal else "never",
            "kv_limit": r["max_batch_that_fits"].text, "bound": e.bound, "context": f"{s.input_len + s.output_len:,}",
            "hbm_eff": pct(eff.hbm_fraction), "tc_eff": pct(eff.compute_fraction_decode),
            "model": e.model_name, "precision": e.precision_name}
    meas = batching_measured(s, catalog)
    here = next((m for m in meas if m.row.batch == s.batch), None)
    if here is not None:
        vals.update(meas_tps=f"{here.measured:,.0f}", model_tps=f"{here.predicted:,.0f}")
    if key == "measured" and here is not None:
        kn = KeyNumber(f"{here.measured:,.0f} tok/s", f"measured end to end ({here.row.framework}); "
                                                      f"model {here.predicted:,.0f} ({here.error:+.0%})")
    elif key == "kv":
        kn = KeyNumber(vals["kv_limit"], f"sequences of {vals['context']} tokens fit in HBM")
    else:
        kn = KeyNumber(vals["tokens_per_s"], f"for the batch of {s.batch:,}: {vals['step']} per step, {e.bound}-bound")
    details = [f"Compute-bound from batch {vals['real_cb']} in the realistic model, {vals['ideal_cb']} at peak "
               f"numbers: serving software reaches {vals['tc_eff']} of the tensor cores' peak in decode but "
               f"{vals['hbm_eff']} of HBM's, so the maths catches up with the reads sooner.",
               f"The KV cache of {vals['context']}-token sequences fits up to batch {vals['kv_limit']}."]
    if real is None:
        details[0] = "Decode stays memory-bound at every batch here: each sequence's KV cache is read every step."
    if here is not None:
        details.append(f"Published ({here.row.source}): {here.measured:,.0f} tokens/s end to end; the model "
                       f"{here.predicted:,.0f} ({here.error:+.0%}).")
    return Facts(kn, vals, tuple(details))


@frozen
class BatchCurves:
    batch: np.ndarray
    tokens_per_s: np.ndarray         # realistic: batch ÷ step time
    ideal_tokens_per_s: np.ndarray   # at the floor: batch ÷ floor step time
    fits: np.ndarray


def batching_curves(s: Scenario, batches, catalog: Catalog | None = None) -> BatchCurves:
    """Tokens/s of the whole batch against batch size, realistic and at the floor (model.physics.sweep)."""
    sw = sweep_batch(s, batches, catalog)
    return BatchCurves(sw.batch, sw.output_tokens_per_s, sw.batch / (sw.decode_floor_ms_per_token / 1e3), sw.fits)


def batching_measured(s: Scenario, catalog: Catalog | None = None) -> tuple[MeasuredPoint, ...]:
    """Measured vs model as tokens/s of the whole run (batch × output tokens ÷ end-to-end s)."""
    return tuple(MeasuredPoint(m.row, m.row.batch * m.row.output_len / m.measured,
                               m.row.batch * m.row.output_len / m.predicted)
                 for m in measured_e2e(s, catalog, n_gpus=s.gpus))
