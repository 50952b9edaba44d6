"""Lesson 5 — why decode is memory-bound.

    realistic step = the kernels (the GEMMs, then attention, each bound by its own resource)
                     + communication + overhead  (model.physics.cost.pass_cost);
    memory = (weight + KV + activation bytes) ÷ (HBM B/s × hbm_fraction), split by bytes;
    maths beyond the reads = step − memory − communication − overhead (0 while memory-bound);
    floor = bytes ÷ peak HBM B/s (or FLOPs ÷ peak, whichever is longer)
"""
from __future__ import annotations

from model.catalog.parts import Catalog
from model.lessons.chart import Bar
from model.lessons.facts import Facts, KeyNumber, ms, short_gpu
from model.physics.estimate import Estimate
from model.readouts.derivations import all_readouts
from model.readouts.explain_text import derivation_view
from model.readouts.redo import divided, inputs_that_redo, summed
from model.readouts.format import si
from model.readouts.numbers import readouts
from model.values import frozen


@frozen
class DecodeBreakdown:
    """One decode step, in ms: the floor's parts and the realistic time's parts (they add up)."""

    floor_weights_ms: float
    floor_kv_ms: float              # KV cache and activations at peak bandwidth
    floor_ms: float
    weights_ms: float               # weight read at the achieved bandwidth
    kv_ms: float                    # KV cache (and activations) at the achieved bandwidth
    extra_compute_ms: float         # maths beyond the reads (0 while memory-bound): step − reads − all-reduces − overhead
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
                           max(0.0, e.decode_ms_per_token - mem - e.decode_comm_ms - e.decode_overhead_ms),
                           e.decode_comm_ms, e.decode_overhead_ms,
                           e.decode_compute_ms, e.decode_ms_per_token)


def achieved_bandwidth(e: Estimate, b: DecodeBreakdown) -> float:
    """The HBM bytes/s the realistic time reads the weights at: weight bytes ÷ weight read time."""
    return b.weights_ms and e.weight_bytes_per_step / (b.weights_ms / 1e3)


def decode_facts(e: Estimate, catalog: Catalog | None = None) -> Facts:
    """Lesson 5's numbers; every quantity Explore also shows is its readout (model.readouts)."""
    b = decode_breakdown(e)
    r = readouts(e)
    vals = {"gpu": e.gpu_name, "gpu_short": short_gpu(e, catalog), "model": e.model_name,
            "precision": e.precision_name, "weights_read": r["weights_read_per_step"].text, "weights_held": r["weights_resident_per_gpu"].text,
            "needed": r["memory_needed_per_gpu"].text, "capacity": r["hbm_capacity"].text,
            "floor": r["decode_floor"].text, "realistic": r["decode_time"].text, "bw": r["peak_bandwidth"].text,
            "fits": "fits" if e.fits else "does not fit", "compute": r["decode_compute_time"].text,
            "overhead": r["decode_overhead_time"].text, "achieved_bw": si(achieved_bandwidth(e, b), "B/s"),
            "tokens_per_s": r["tokens_per_s_per_user"].text}
    vals["bytes_read"] = r["bytes_per_step"].text
    vals.update(bytes_fine=bytes_that_redo(e), run_need=si(e.weight_bytes_per_gpu + e.kv_cache_bytes_per_gpu, "B"),
                workspace=r["workspace_per_gpu"].text)
    key = KeyNumber(vals["floor"], f"per token at best: {vals['bytes_fine']} read ÷ {vals['bw']} "
                                   f"(realistic {vals['realistic']})")
    floor_sum = summed(ms(b.floor_ms), (("weights", b.floor_weights_ms / 1e3), ("KV cache and activations", b.floor_kv_ms / 1e3)))
    real_sum = summed(ms(b.total_ms), (("weight read", b.weights_ms / 1e3), ("KV cache and activations read", b.kv_ms / 1e3),
                                       ("maths beyond the reads", b.extra_compute_ms / 1e3),
                                       ("all-reduces", b.comm_ms / 1e3), ("software overhead", b.overhead_ms / 1e3)))
    details = (f"Floor {ms(b.floor_ms)} = {floor_sum}, at the datasheet {vals['bw']}.",
               f"Realistic {ms(b.total_ms)} = {real_sum}; the reads at the achieved {vals['achieved_bw']}.",
               overhead_line(e),
               f"{r['decode_compute_time'].labelled}: it runs while the bytes stream in.",
               f"{r['weights_read_per_step'].labelled}; {r['weights_resident_per_gpu'].labelled} (a step does not "
               f"read the input embedding table).",
               run_need_line(e))
    weights = derivation_view(e, "weights_read_per_step")
    why = (*floor_why(e), weights.arithmetic, *(f"Assumes: {a}" for a in weights.assumptions[:1]))
    return Facts(key, vals, details, why)


def floor_why(e: Estimate) -> tuple[str, str]:
    """The decode floor's derivation with this scenario's numbers: the bytes a token reads ÷ the
    datasheet bandwidth (the roofline's max where the maths is the longer), then those bytes by kind."""
    r = readouts(e)
    step_bytes = e.weight_bytes_per_step + e.kv_bytes_per_step + e.activation_bytes_per_step
    if e.flops_per_step / e.peak_flops <= step_bytes / e.peak_bandwidth_bytes_per_s:     # the memory side
        floor = (f"Floor {r['decode_floor'].text} = "
                 f"{divided(step_bytes, 'B', e.peak_bandwidth_bytes_per_s, 'B/s', r['decode_floor'].text)}: "
                 f"the bytes a token reads ÷ the datasheet bandwidth")
    else:
        floor = derivation_view(e, "decode_floor").arithmetic
    return floor, derivation_view(e, "bytes_per_step").arithmetic


def bytes_that_redo(e: Estimate) -> str:
    """The bytes a decode step reads, written with the digits (five at least, the same in every state
    of one run) that give the floor when divided by the datasheet bandwidth: "139.55 GB"."""
    step_bytes = e.weight_bytes_per_step + e.kv_bytes_per_step + e.activation_bytes_per_step
    bw = e.peak_bandwidth_bytes_per_s
    floor = readouts(e)["decode_floor"].text
    return inputs_that_redo(floor, ((step_bytes, lambda x, n: si(x, "B", n + 2)), (bw, lambda x, n: si(x, "B/s", n))),
                            lambda a, c: a / c)[0]


def run_need_line(e: Estimate) -> str:
    """The run's own need (weights and KV cache: the same on any GPU), then the workspace the engine
    keeps back on this GPU (a share of its memory, so it differs from part to part)."""
    r = all_readouts(e)
    need = e.weight_bytes_per_gpu + e.kv_cache_bytes_per_gpu
    need_text = si(need, "B")
    terms = summed(need_text, (("weights", e.weight_bytes_per_gpu), ("KV cache", e.kv_cache_bytes_per_gpu)),
                   lambda x, f: si(x, "B", f))
    return (f"The run needs {need_text} = {terms}; the engine keeps back {r['workspace_per_gpu'].text} more as "
            f"workspace ({r['workspace_fraction'].text} of this GPU's {r['hbm_capacity'].text}: "
            f"{r['workspace_fraction'].help.split(': ', 1)[-1]}): {r['memory_needed_per_gpu'].text} in all, "
            f"of {r['hbm_capacity'].text}.")


def overhead_line(e: Estimate) -> str:
    """What the overhead is and what sets it: the engine's software time per step and per layer (fitted
    on published runs), so two GPUs under the same engine and model share it."""
    v = derivation_view(e, "decode_overhead_time")
    return (f"Overhead {v.arithmetic or v.title}: "
            f"{e.engine_name}'s software time (kernel launches and the gaps between them, scheduling, sampling), "
            f"per step and per layer, fitted on published runs for {e.resolved.hw.short_name}'s family: it follows "
            f"the engine, the GPU family and the model's layers, not the GPU's memory, so two parts of one "
            f"family share it.")


ROWS = ("maths", "realistic", "floor")          # the chart's places 0, 1, 2 (bottom to top)
PARTS = (("weights", "weights"), ("kv", "KV cache + activations"), ("compute", "maths"), ("comm", "all-reduces"),
         ("overhead", "overhead"))


@frozen
class DecodeChart:
    """Lesson 5's chart, in ms: three rows of bar segments (the floor's parts, the realistic
    time's parts, the tensor-core maths), each segment named, each row with its sentence."""

    title: str
    tooltip: str
    names: tuple[str, ...]                     # the rows, place 0 first
    segments: tuple[Bar, ...]                  # kind: weights | kv | compute | comm | overhead; label: its word
    row_texts: tuple[str, ...]                 # one sentence per row, place 0 first
    total_ms: float
    breakdown: DecodeBreakdown
    legend: tuple[tuple[str, str], ...] = ()   # (kind, its words) for each colour drawn


SHOWN_MS = 0.0005             # a part shorter than this (0.5 µs) is not named: it would print as 0 µs


def decode_chart(e: Estimate) -> DecodeChart:
    b = decode_breakdown(e)
    r = readouts(e)
    name = dict(PARTS)
    realistic = (("weights", b.weights_ms), ("kv", b.kv_ms), ("compute", b.extra_compute_ms), ("comm", b.comm_ms),
                 ("overhead", b.overhead_ms))
    segments, x = [Bar(2, b.floor_weights_ms, kind="weights"), Bar(2, b.floor_kv_ms, start=b.floor_weights_ms, kind="kv")], 0.0
    for kind, w in realistic:
        segments.append(Bar(1, w, start=x, kind=kind))
        x += w
    segments.append(Bar(0, b.compute_ms, kind="compute"))
    shown = tuple(Bar(s.slot, s.length, name[s.kind], f"{ROWS[s.slot]}: {name[s.kind]} {ms(s.length)}", s.start, s.kind)
                  for s in segments if s.length > 0)
    parts = summed(ms(b.total_ms), [(name[k], w / 1e3) for k, w in realistic if w > SHOWN_MS])
    rows = (f"Tensor-core maths {ms(b.compute_ms)}: "
            + ("runs while the bytes stream in" if b.extra_compute_ms <= SHOWN_MS else "longer than the reads"),
            f"Realistic {ms(b.total_ms)} = {parts}, the reads at the achieved {si(achieved_bandwidth(e, b), 'B/s')}",
            f"Floor {ms(b.floor_ms)} = " + summed(ms(b.floor_ms), (("weights", b.floor_weights_ms / 1e3),
                                                                 (name["kv"], b.floor_kv_ms / 1e3)))
            + f" at the datasheet {r['peak_bandwidth'].text}")
    s = e.scenario
    return DecodeChart(f"{e.model_name.upper()} · {e.precision_name} · {e.gpu_name.upper()} · BATCH {s.batch} · "
                       f"{s.gpus} GPU{'S' if s.gpus > 1 else ''}",
                       "One decode step: the floor at datasheet bandwidth, the realistic time and its parts, "
                       "and the tensor-core maths", ROWS, shown, rows, b.total_ms, b,
                       tuple((k, w) for k, w in PARTS if any(s.kind == k for s in shown)))
