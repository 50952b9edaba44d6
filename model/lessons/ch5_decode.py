"""Lesson 5 — why decode is memory-bound.

    realistic step = max(memory, compute) + communication + overhead;
    memory = (weight + KV + activation bytes) ÷ (HBM B/s × hbm_fraction), split by bytes;
    floor = bytes ÷ peak HBM B/s (or FLOPs ÷ peak, whichever is longer)
"""
from __future__ import annotations

from model.catalog.parts import Catalog
from model.lessons.facts import Facts, KeyNumber, ms, short_gpu
from model.physics.estimate import Estimate
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
