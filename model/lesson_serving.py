"""The numbers of lessons 5 to 8 (decode, batching, precision, multi-GPU), as text, from the model,
and the published measurements each lesson puts beside the model.

    5 decode     realistic step = max(memory, compute) + communication + overhead;
                 memory = (weight + KV + activation bytes) ÷ (HBM B/s × hbm_fraction), split by bytes;
                 floor = bytes ÷ peak HBM B/s (or FLOPs ÷ peak, whichever is longer)
    6 batching   compute-bound from the first batch where compute time > memory time,
                 realistic (achieved fractions of peak) and ideal (peaks: the critical batch)
    7 precision  weights = parameters × bytes per weight; floor ms per token per precision
    8 multi-GPU  speed-up(N) = step time on 1 GPU ÷ step time on N (same batch)
Measured markers: only rows whose model, precision and GPU match the scenario shown.
"""
from __future__ import annotations

import math

import numpy as np

from model.catalog import Catalog, default_catalog
from model.efficiency import IDEAL, default_efficiency
from model.errors import ModelError
from model.estimate import Estimate, estimate
from model.format import duration, si, sig3
from model.lesson_numbers import Facts, KeyNumber, pct, times
from model.lessons import matching_measurements, precision_table
from model.readouts import readouts
from model.scenario import Scenario, resolve
from model.step import decode_pass
from model.values import frozen

SCALING_COUNTS = (1, 2, 4, 8)


def ms(x_ms: float) -> str:
    return duration(x_ms / 1e3)


# ---------------------------------------------------------------- 5 decode

@frozen
class DecodeBreakdown:
    """One decode step, in ms: the floor's parts and the realistic time's parts (they add up)."""

    floor_weights_ms: float
    floor_kv_ms: float              # KV cache and activations at peak bandwidth
    floor_ms: float
    weights_ms: float               # weight read at the achieved bandwidth
    kv_ms: float                    # KV cache (and activations) at the achieved bandwidth
    extra_compute_ms: float         # maths beyond the reads (0 while memory-bound)
    comm_ms: float
    overhead_ms: float
    compute_ms: float               # the tensor-core maths (runs under the reads while memory-bound)
    total_ms: float


def decode_breakdown(e: Estimate) -> DecodeBreakdown:
    total_bytes = e.weight_bytes_per_step + e.kv_bytes_per_step + e.activation_bytes_per_step
    w_share = e.weight_bytes_per_step / total_bytes if total_bytes > 0 else 1.0
    floor = e.decode_floor_ms_per_token
    mem = e.decode_memory_ms
    return DecodeBreakdown(floor * w_share, floor * (1.0 - w_share), floor, mem * w_share, mem * (1.0 - w_share),
                           max(0.0, e.decode_compute_ms - mem), e.decode_comm_ms, e.decode_overhead_ms,
                           e.decode_compute_ms, e.decode_ms_per_token)


def short_gpu(e: Estimate, catalog: Catalog | None = None) -> str:
    """The accelerator's short name (e.g. "H100 SXM") for claims that name the part on screen."""
    return (catalog or default_catalog()).gpu(e.scenario.gpu).short_name


def gpus_text(n: int) -> str:
    return f"{n} GPU" if n == 1 else f"{n} GPUs"


def decode_facts(e: Estimate, catalog: Catalog | None = None) -> Facts:
    """Lesson 5's numbers; every quantity Explore also shows is its readout (model.readouts)."""
    b = decode_breakdown(e)
    r = readouts(e)
    achieved = b.weights_ms and e.weight_bytes_per_step / (b.weights_ms / 1e3)
    vals = {"gpu": e.gpu_name, "gpu_short": short_gpu(e, catalog), "model": e.model_name,
            "precision": e.precision_name, "weights_read": r["weights_read_per_step"].text, "weights_held": r["weights_resident_per_gpu"].text,
            "needed": r["memory_needed_per_gpu"].text, "capacity": r["hbm_capacity"].text,
            "floor": r["decode_floor"].text, "realistic": r["decode_time"].text, "bw": r["peak_bandwidth"].text,
            "fits": "fits" if e.fits else "does not fit", "compute": r["decode_compute_time"].text,
            "overhead": r["decode_overhead_time"].text, "achieved_bw": si(achieved, "B/s"),
            "tokens_per_s": r["tokens_per_s_per_user"].text}
    key = KeyNumber(vals["floor"], f"per token at best: {vals['weights_read']} of weights ÷ {vals['bw']} "
                                   f"(realistic {vals['realistic']})")
    details = (f"Floor {ms(b.floor_ms)}: weights {ms(b.floor_weights_ms)} + KV cache {ms(b.floor_kv_ms)} "
               f"at the datasheet {vals['bw']}.",
               f"Realistic {ms(b.total_ms)}: weight read {ms(b.weights_ms)} + KV read {ms(b.kv_ms)} at the "
               f"achieved {vals['achieved_bw']}, + maths beyond the reads {ms(b.extra_compute_ms)} "
               f"+ all-reduces {ms(b.comm_ms)} + software overhead {ms(b.overhead_ms)}.",
               f"{r['decode_compute_time'].labelled}: it runs while the bytes stream in.",
               f"{r['weights_read_per_step'].labelled}; {r['weights_resident_per_gpu'].labelled} (a step does not "
               f"read the input embedding table); {r['memory_needed_per_gpu'].labelled} of "
               f"{r['hbm_capacity'].text}.")
    return Facts(key, vals, details)


# ---------------------------------------------------------------- 6 batching

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
    """Tokens/s of the whole batch against batch size, realistic and at the floor (model.sweep)."""
    from model.sweep import sweep_batch
    sw = sweep_batch(s, batches, catalog)
    return BatchCurves(sw.batch, sw.output_tokens_per_s, sw.batch / (sw.decode_floor_ms_per_token / 1e3), sw.fits)


@frozen
class MeasuredPoint:
    """A published run beside the model's prediction of the same run (same conditions)."""

    row: object
    measured: float
    predicted: float

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1.0


def measured_e2e(s: Scenario, catalog: Catalog | None = None, n_gpus: int | None = None) -> tuple[MeasuredPoint, ...]:
    """Published end-to-end latencies of this scenario's model, precision and GPU (and lengths)."""
    cat = catalog or default_catalog()
    out = []
    for c in matching_measurements(s.model, s.gpu, s.precision, "end_to_end_latency_s", cat):
        r = c.row
        if (r.input_len, r.output_len) == (s.input_len, s.output_len) and r.batch and \
                (n_gpus is None or r.n_gpus == n_gpus):
            out.append(MeasuredPoint(r, r.value, c.predicted))
    return tuple(sorted(out, key=lambda m: (m.row.n_gpus, m.row.batch)))


def batching_measured(s: Scenario, catalog: Catalog | None = None) -> tuple[MeasuredPoint, ...]:
    """Measured vs model as tokens/s of the whole run (batch × output tokens ÷ end-to-end s)."""
    return tuple(MeasuredPoint(m.row, m.row.batch * m.row.output_len / m.measured,
                               m.row.batch * m.row.output_len / m.predicted)
                 for m in measured_e2e(s, catalog, n_gpus=s.gpus))


# ---------------------------------------------------------------- 7 precision

def precision_facts(e: Estimate, catalog: Catalog | None = None, key: str = "") -> Facts:
    s = e.scenario
    rows = {r.precision_id: r for r in precision_table(s, catalog=catalog)}
    vals = {"gpu": e.gpu_name, "gpu_short": short_gpu(e, catalog), "model": e.model_name}
    for pid, r in rows.items():
        vals[f"{pid}_gb"] = si(r.weight_bytes_total, "B")
        vals[f"{pid}_floor"] = ms(r.floor_ms_per_token)
        vals[f"{pid}_gpus"] = str(r.gpus_to_fit) if r.gpus_to_fit else "—"
        vals[f"{pid}_maths"] = "emulated" if r.emulated else "native"
    cur = rows.get(s.precision)
    meas = measured_e2e(s.with_(precision="fp16"), catalog, 1), measured_e2e(s.with_(precision="fp8"), catalog, 1)
    pair = [(a, b) for a in meas[0] for b in meas[1] if a.row.batch == b.row.batch == s.batch]
    if pair:
        a, b = pair[0]
        vals.update(meas_x=times(a.measured / b.measured), model_x=times(a.predicted / b.predicted),
                    meas16=duration(a.measured), meas8=duration(b.measured))
        kn = KeyNumber(times(a.measured / b.measured), f"faster end to end, FP16 → FP8, measured "
                                                       f"(model {times(a.predicted / b.predicted)})")
    elif cur is not None and key == "weights":
        kn = KeyNumber(si(cur.weight_bytes_total, "B"), f"of {cur.name} weights: fits on {cur.gpus_to_fit or '—'} "
                                                        f"GPU; floor {ms(cur.floor_ms_per_token)} per token")
    elif cur is not None:
        kn = KeyNumber(ms(cur.floor_ms_per_token), f"floor per token in {cur.name} "
                                                   f"({si(cur.weight_bytes_total, 'B')} of weights)")
    else:
        kn = KeyNumber("—", "no row for this precision")
    details = tuple(f"{r.name}: {si(r.weight_bytes_total, 'B')}, floor {ms(r.floor_ms_per_token)}, realistic "
                    f"{ms(r.ms_per_token)}, fits on {r.gpus_to_fit or '—'} GPU(s), maths "
                    f"{'emulated' if r.emulated else 'native'}; accuracy: {r.accuracy_note}" for r in rows.values())
    if pair:
        details += ("End to end includes the prefill and a fixed per-step overhead that fewer bytes do not shrink, "
                    "so halving the bytes buys less than 2×.",)
    return Facts(kn, vals, details)


# ---------------------------------------------------------------- 8 multi-GPU

@frozen
class GpuBar:
    gpus: int
    work_ms: float                  # max(memory, compute): the part that shrinks with N
    comm_ms: float
    overhead_ms: float
    total_ms: float
    speedup: float                  # step time on 1 GPU ÷ on N
    bound: str
    fits: bool = True


def gpu_bars(s: Scenario, counts=SCALING_COUNTS, catalog: Catalog | None = None) -> tuple[GpuBar, ...]:
    out = []
    base = None
    for n in counts:
        try:
            e = estimate(s.with_(gpus=int(n)), catalog)
        except ModelError:
            continue
        base = base or e.decode_ms_per_token
        out.append(GpuBar(int(n), max(e.decode_memory_ms, e.decode_compute_ms), e.decode_comm_ms,
                          e.decode_overhead_ms, e.decode_ms_per_token, base / e.decode_ms_per_token, e.bound,
                          e.fits))
    return tuple(out)


def multi_gpu_measured(s: Scenario, catalog: Catalog | None = None) -> dict[int, tuple[float, float]]:
    """{N: (measured speed-up, model speed-up)} from published latencies on 1 and N GPUs (same batch)."""
    rows = [m for m in measured_e2e(s, catalog) if m.row.batch == s.batch]
    base = next((m for m in rows if m.row.n_gpus == 1), None)
    if base is None:
        return {}
    return {m.row.n_gpus: (base.measured / m.measured, base.predicted / m.predicted) for m in rows}


def multi_gpu_facts(e: Estimate, catalog: Catalog | None = None) -> Facts:
    s = e.scenario
    bars = {b.gpus: b for b in gpu_bars(s, catalog=catalog)}
    now = bars.get(s.gpus)
    one = bars.get(1)
    r = readouts(e)
    vals = {"gpus": str(s.gpus), "gpu": e.gpu_name, "gpu_short": short_gpu(e, catalog), "link": e.link_name or "—", "step": r["decode_time"].text,
            "comm": r["decode_comm_time"].text, "overhead": r["decode_overhead_time"].text, "bound": e.bound,
            "comm_share": pct(e.decode_comm_ms / e.decode_ms_per_token)}
    meas = multi_gpu_measured(s, catalog)
    if now is not None:
        vals["speedup"] = times(now.speedup)
        vals["work"] = ms(now.work_ms)
    if one is not None:
        vals["work1"] = ms(one.work_ms)
        vals["step1"] = ms(one.total_ms)
    if s.gpus in meas:
        mx, px = meas[s.gpus]
        vals.update(meas_x=times(mx), model_x=times(px))
        key = KeyNumber(times(mx), f"faster on {gpus_text(s.gpus)} than on 1, measured (model {times(px)}; ideal {s.gpus}×)")
    elif now is not None:
        key = KeyNumber(times(now.speedup), f"faster on {gpus_text(s.gpus)} than on 1 (ideal {s.gpus}×)")
    else:
        key = KeyNumber(ms(e.decode_ms_per_token), "per decode step")
    details = tuple(f"{b.gpus} GPU{'s' if b.gpus > 1 else ''}: {ms(b.total_ms)} = GPU work {ms(b.work_ms)} + "
                    f"all-reduces {ms(b.comm_ms)} + overhead {ms(b.overhead_ms)}; {times(b.speedup)}, {b.bound}-bound"
                    for b in bars.values())
    details += ("GPU work (reading the weights, or the maths when that is longer) splits across the GPUs; "
                "the all-reduces and the per-step software overhead do not.",)
    if one is not None and not one.fits:
        details += ("One GPU cannot hold this job: its bar is the time it would take if it did.",)
    return Facts(key, vals, details)


def chapter_facts(number: int, e: Estimate, params: dict, catalog: Catalog | None = None) -> Facts:
    """The facts of lesson ``number`` for the Estimate on screen and the chapter's knobs."""
    from model.lesson_numbers import generation_facts, ladder_facts, roofline_facts, warp_facts
    cat = catalog or default_catalog()
    hw = cat.gpu(e.scenario.gpu)
    if number == 1:
        return generation_facts(params.get("line", "nvidia"), params.get("show", ""), cat)
    if number == 2:
        return warp_facts(hw, int(params.get("warps", 1)), float(params.get("divergence", 0.0)))
    if number == 3:
        return ladder_facts(hw)
    if number == 4:
        return roofline_facts(hw, e.compute_dtype, float(params.get("intensity", 1.0)))
    if number == 5:
        return decode_facts(e, cat)
    if number == 6:
        return batching_facts(e, cat, params.get("key", ""))
    if number == 7:
        return precision_facts(e, cat, params.get("key", ""))
    return multi_gpu_facts(e, cat)
