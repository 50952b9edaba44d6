"""Lesson 6 — batching climbs the roofline, and ends on the frontier: the same setup served at
every batch cap, throughput per GPU against speed per user (model/planning), batching moving it along.

Compute-bound from the first batch where compute time > memory time, realistic (achieved
fractions of peak) and ideal (peaks: the critical batch); tokens/s against batch.
"""
from __future__ import annotations

import math

import numpy as np

from model.catalog.active import default_efficiency
from model.catalog.engines import IDEAL
from model.catalog.parts import Catalog
from model.lessons.chart import Mark
from model.lessons.facts import Facts, KeyNumber, pct, times
from model.lessons.measured import MeasuredPoint, error_text, measured_e2e, measured_tip, short_source
from model.physics.cost import GEMM_KERNELS
from model.physics.estimate import Estimate, estimate
from model.physics.scenario import Scenario, resolve
from model.physics.step import decode_pass
from model.physics.sweep import sweep_batch
from model.planning.explore import current_path
from model.planning.space import PlanRequest
from model.readouts.format import duration, si
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


def bend_batch(s: Scenario, catalog: Catalog | None = None, max_batch: int = 65536) -> int | None:
    """Where the realistic curve bends: the first batch at which the weight matmuls waiting on their
    maths take most of the matmuls' time (None: never up to max_batch).

    A realistic step is Σ over kernels of max(memory, maths), so it starts to grow with the batch
    when its big kernels (the FFN's, the projections') turn compute-bound, before the step's
    summed maths passes its summed reads (compute_bound_batch), and even where the KV cache's
    reads keep the step memory-bound overall: the line on the chart sits at this batch, where
    the curve turns. At peak numbers the floor is max(Σ bytes ÷ B/s, Σ FLOPs ÷ FLOP/s),
    which turns exactly at compute_bound_batch(ideal=True)."""
    rs = resolve(s, catalog)
    eff = default_efficiency().efficiency(rs.scenario.engine, rs.hw)
    key = (s.with_(batch=1), "bend", int(max_batch))
    parts = (rs.hw, rs.llm, rs.precision, rs.kv, rs.tp_link, eff)
    hit = _COMPUTE_BOUND.get(key)
    if hit is not None and hit[0] == parts:
        return hit[1]
    context = s.input_len + s.output_len / 2.0

    def first_over(batches: np.ndarray) -> int | None:
        p = decode_pass(rs, batches, context, eff)
        gemm = len(GEMM_KERNELS)                 # the weight matmuls: attention reads each sequence's own cache
        mem = np.asarray(p.kernel_memory_s, dtype=float).reshape(-1, batches.size)[:gemm]
        comp = np.asarray(p.kernel_compute_s, dtype=float).reshape(-1, batches.size)[:gemm]
        time = np.maximum(mem, comp)
        share = np.where(comp > mem, time, 0.0).sum(axis=0) / np.maximum(time.sum(axis=0), 1e-300)
        over = np.nonzero(share > 0.5)[0]
        return int(over[0]) if over.size else None

    top = float(max(1, max_batch))              # a grid 1.25× apart, then every batch of the step that crosses
    grid = np.unique(np.clip(np.append(np.round(1.25 ** np.arange(0.0, math.log(top, 1.25) + 1.0)), top), 1.0, top))
    i = first_over(grid)
    found = None
    if i is not None:
        span = np.arange(grid[i - 1] + 1.0 if i else 1.0, grid[i] + 1.0)
        j = first_over(span)
        found = int(span[j]) if j is not None else int(grid[i])
    if len(_COMPUTE_BOUND) >= 32:
        _COMPUTE_BOUND.pop(next(iter(_COMPUTE_BOUND)))
    _COMPUTE_BOUND[key] = (parts, found)
    return found


def batching_facts(e: Estimate, catalog: Catalog | None = None, key: str = "") -> Facts:
    s = e.scenario
    real = bend_batch(s, catalog)
    ideal = compute_bound_batch(s, True, catalog)
    summed_cb = compute_bound_batch(s, False, catalog)
    base = estimate(s.with_(batch=1), catalog)
    rs = resolve(s, catalog)
    eff = default_efficiency().efficiency(rs.scenario.engine, rs.hw)
    r = readouts(e)
    vals = {"batch": f"{s.batch:,}", "tokens_per_s": r["output_tokens_per_s"].text,
            "gain": times(e.output_tokens_per_s / base.output_tokens_per_s),
            "step": r["decode_time"].text, "step1": readouts(base)["decode_time"].text,
            "real_cb": f"{real:,}" if real else "never", "summed_cb": f"{summed_cb:,}" if summed_cb else "never",
            "ideal_cb": f"{ideal:,}" if ideal else "never",
            "kv_limit": r["max_batch_that_fits"].text, "bound": e.bound, "context": f"{s.input_len + s.output_len:,}",
            "hbm_eff": pct(eff.hbm_fraction), "tc_eff": pct(eff.compute_fraction_decode),
            "model": e.model_name, "precision": e.precision_name}
    meas = batching_measured(s, catalog)
    here = next((m for m in meas if m.row.batch == s.batch), None)
    if here is not None:
        vals.update(meas_tps=f"{here.measured:,.0f}", model_tps=f"{here.predicted:,.0f}", source=short_source(here.row))
    if key == "frontier":
        fr = batching_frontier(e, catalog)
        if fr is not None:
            vals.update(user_speed=si(fr.now.x, "tok/s"), gpu_tps=si(fr.now.y, "tok/s"),
                        fastest=si(float(fr.x.max()), "tok/s"), busiest=si(float(fr.y.max()), "tok/s"),
                        tpot=duration(1.0 / fr.now.x), gpus=f"{s.gpus:,}", batch=f"{s.batch:,}", prompt=f"{s.input_len:,}")
    if key == "frontier" and "user_speed" in vals:
        kn = KeyNumber(vals["gpu_tps"], f"per GPU at {vals['user_speed']} per user (batch {s.batch:,})")
    elif key == "measured" and here is not None:
        kn = KeyNumber(f"{here.measured:,.0f} tok/s", f"measured end to end ({here.row.framework}); "
                                                      f"model {here.predicted:,.0f} ({here.error:+.0%})")
    elif key == "kv":
        kn = KeyNumber(vals["kv_limit"], f"sequences of {vals['context']} tokens fit in HBM")
    else:
        kn = KeyNumber(vals["tokens_per_s"], f"for the batch of {s.batch:,}: {vals['step']} per step, {e.bound}-bound")
    details = [f"The step turns compute-bound (all its maths passes all its reads) at batch {vals['summed_cb']} in "
               f"the realistic model, {vals['ideal_cb']} at peak numbers: serving software reaches {vals['tc_eff']} "
               f"of the tensor cores' peak in decode but {vals['hbm_eff']} of HBM's, so the maths catches up with "
               f"the reads sooner." if summed_cb else
               "The step stays memory-bound at every batch here: each sequence's KV cache is read every step.",
               f"Its weight matmuls wait on their maths from batch {vals['real_cb']}: there the realistic curve "
               f"bends" + (" (the line on the chart)." if real is not None and real <= e.max_batch_that_fits else
                           ", past the batch whose KV cache fits: no line is drawn."),
               f"The KV cache of {vals['context']}-token sequences fits up to batch {vals['kv_limit']}."]
    if real is None:
        del details[1]
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


LESSON_BATCHES = np.unique(np.round(np.geomspace(1, 4096, 49))).astype(float)   # the chart's batch axis


@frozen(eq=False)
class BatchingChart:
    """Lesson 6's chart: tokens/s of the whole batch against the batch, realistic and at the
    floor; where each turns compute-bound, where the KV cache runs out, published runs of this
    scenario beside the model's prediction of them, with their words."""

    title: str
    tooltip: str
    curves: BatchCurves
    real_end: Mark                        # where each curve's name goes: its right end
    ideal_end: Mark
    now: Mark                             # the scenario's batch
    points: tuple[Mark, ...]              # one hover text per batch of the curve
    compute_bound: dict                   # "real" / "ideal" → Mark, x: the batch where decode turns compute-bound
    kv_full: Mark | None                  # x: the largest batch whose KV cache fits (None: all fit)
    measured: tuple[MeasuredPoint, ...]
    measured_marks: tuple[Mark, ...]      # ★ the published runs
    predicted_marks: tuple[Mark, ...]     # ○ the model's prediction of each
    measured_label: Mark | None           # the words beside the first published run
    marks: dict                           # {"real": batch or None, "ideal": …, "kv": the largest batch that fits}
    legend: tuple[tuple[str, str], ...] = ()   # (kind, its words) for each colour drawn
    frontier: "FrontierPath | None" = None   # the last state: the same setup on the planner's axes


@frozen(eq=False)
class FrontierPath:
    """The lesson's setup on the planner's axes (model/planning/steady.py): tokens/s per user
    against tokens/s per GPU at each batch cap, serving a stream of requests of the lesson's
    lengths; batching moves the point along it (faster per GPU, slower per user)."""

    title: str
    x: np.ndarray                          # tokens/s per user = 1 / TPOT
    y: np.ndarray                          # output tokens/s per GPU
    points: tuple[Mark, ...]               # one hover text per batch cap, a label on a few
    now: Mark
    labelled: tuple[Mark, ...] = ()        # FRONTIER_LABEL_SLOTS marks with words: a few batch caps, then now ("" : none)
    legend: tuple[tuple[str, str], ...] = ()   # (kind, its words) for each colour drawn: "path", "now"
    x_label: str = "Speed per user (tokens/s per user, log)"
    y_label: str = "Tokens/s per GPU (log)"


FRONTIER_LABELS = (1, 16, 256)
FRONTIER_LABEL_SLOTS = len(FRONTIER_LABELS) + 1


def batching_frontier(e: Estimate, catalog: Catalog | None = None) -> FrontierPath | None:
    """The lesson's scenario served at every batch cap (None when it cannot be served as one replica)."""
    s = e.scenario
    path = current_path(PlanRequest(s.model, s.input_len, s.output_len, ((s.gpu, s.gpus),)), s, catalog)
    if path is None:
        return None
    gp = path.points
    ok = gp.feasible
    x, y, b = gp.tokens_per_s_per_user[ok], gp.tokens_per_s_per_gpu[ok], gp.batch[ok]
    points = tuple(Mark(float(u), float(v), f"batch {int(n):,}" if int(n) in FRONTIER_LABELS else "",
                        f"Batch cap {int(n):,}: {si(u, 'tok/s')} per user, {si(v, 'tok/s')} per GPU")
                   for u, v, n in zip(x, y, b))
    at = path.index
    now = Mark(float(gp.tokens_per_s_per_user[at]), float(gp.tokens_per_s_per_gpu[at]), f"batch {s.batch:,}",
               f"Now, batch {s.batch:,}: {si(gp.tokens_per_s_per_user[at], 'tok/s')} per user, "
               f"{si(gp.tokens_per_s_per_gpu[at], 'tok/s')} per GPU")
    named = [m for m in points if m.label][:len(FRONTIER_LABELS)]
    blank = Mark(math.nan, math.nan, "")
    labelled = tuple(named + [blank] * (len(FRONTIER_LABELS) - len(named)) + [now])
    return FrontierPath(f"{e.model_name.upper()} · {e.precision_name} · {e.gpu_name.upper()} × "
                        f"{s.gpus} · {s.input_len:,} IN / {s.output_len:,} OUT", x, y, points, now, labelled,
                        legend=(("path", "the same GPU served at each batch cap"), ("now", f"this scenario: batch {s.batch:,}")))


def batching_chart(e: Estimate, catalog: Catalog | None = None, batches=LESSON_BATCHES,
                   frontier: bool = False) -> BatchingChart:
    s = e.scenario
    c = batching_curves(s, batches, catalog)
    r = readouts(e)
    real, ideal = bend_batch(s, catalog), compute_bound_batch(s, True, catalog)
    top, kv = float(batches[-1]), e.max_batch_that_fits
    if real is not None and real > kv:          # past the KV cache's limit: no batch there runs at all
        real = None
    bounds = {kind: Mark(float(b), math.nan, f"{text} batch {b:,}")
              for kind, b, text in (("real", real, "maths takes over at"),
                                    ("ideal", ideal, "at peak numbers from")) if b is not None and b <= top}
    meas = batching_measured(s, catalog)
    stars = tuple(Mark(float(m.row.batch), m.measured, tip=measured_tip(m.row, [
        f"Measured {m.measured:,.0f} tokens/s = batch × output tokens ÷ end-to-end time (incl. prefill)",
        f"Model {m.predicted:,.0f} tokens/s for the same run ({error_text(m.error)})"])) for m in meas)
    rings = tuple(Mark(float(m.row.batch), m.predicted, tip=f"○ Model's prediction of the published run: "
                                                            f"{m.predicted:,.0f} tokens/s\nSource: {m.row.source}")
                  for m in meas)
    first = meas[0] if meas else None
    points = tuple(Mark(float(b), float(v), tip=f"Model, batch {int(b):,}: {si(v, 'tok/s')} (at peak numbers "
                                                 f"{si(i, 'tok/s')})" + ("" if f else "\nKV cache does not fit at this batch"))
                   for b, v, i, f in zip(c.batch, c.tokens_per_s, c.ideal_tokens_per_s, c.fits))
    return BatchingChart(
        f"{e.model_name.upper()} · {e.precision_name} · {e.gpu_name.upper()} × {s.gpus} · "
        f"{s.input_len:,} IN / {s.output_len:,} OUT",
        "Tokens/s of the whole batch; click to set the batch there (1, 2, 4 … 4,096)", c,
        Mark(float(c.batch[-1]), float(c.tokens_per_s[-1]), "realistic"),
        Mark(float(c.batch[-1]), float(c.ideal_tokens_per_s[-1]), "at peak numbers (floor)"),
        Mark(float(s.batch), e.output_tokens_per_s, tip=f"Now, batch {s.batch:,}: {r['output_tokens_per_s'].text} · "
                                                        f"{r['usd_per_million_tokens'].text} per 1M tokens · "
                                                        f"{e.bound}-bound"),
        points, bounds, Mark(float(max(kv, 1)), math.nan, f"KV cache full past batch {kv:,}") if kv < top else None,
        meas, stars, rings,
        Mark(float(first.row.batch), first.measured, f"★ measured {first.measured:,.0f} tok/s\n"
                                                     f"○ model {first.predicted:,.0f} tok/s") if first else None,
        {"real": real, "ideal": ideal, "kv": kv},
        # a published run at this very batch: its ○ is this scenario's point (the ● is not drawn), named beside it
        ((() if first is not None and first.row.batch == s.batch else (("now", f"this scenario: batch {s.batch:,}"),))
         + (("real", "realistic"), ("ideal", "at peak numbers (floor)"))
         + ((("kv", "KV cache does not fit"),) if kv < top else ())),
        batching_frontier(e, catalog) if frontier else None)
