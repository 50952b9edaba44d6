"""Lesson 4 — arithmetic intensity and the roofline.

    attainable = min(F, I·B);   ridge I* = F ÷ B;   gain of 2× compute = min(2F, I·B) ÷ min(F, I·B)
"""
from __future__ import annotations

import math

from model.catalog.parts import Hardware
from model.errors import ScenarioError
from model.lessons.facts import Facts, KeyNumber, pct, times
from model.physics.roofline import attainable_flops
from model.readouts.format import si, sig3
from model.values import frozen


@frozen
class RooflinePoint:
    intensity_flops_per_byte: float
    attainable_flops: float
    attainable_with_double_compute: float
    ridge_flops_per_byte: float
    bound: str


def roofline_point(hw: Hardware, dtype: str, intensity: float) -> RooflinePoint:
    if not intensity > 0:
        raise ScenarioError(f"intensity must be positive, got {intensity}")
    peak, bw = hw.peak(dtype), hw.hbm_bandwidth_bytes_per_s
    if peak is None:
        raise ScenarioError(f"{hw.short_name} has no {dtype.upper()} tensor-core path")
    att = float(attainable_flops(intensity, peak, bw))
    return RooflinePoint(intensity, att, float(attainable_flops(intensity, 2 * peak, bw)), peak / bw,
                         "memory" if intensity < peak / bw else "compute")


def roofline_facts(hw: Hardware, dtype: str, intensity: float) -> Facts:
    pt = roofline_point(hw, dtype, intensity)
    peak = hw.peak(dtype)
    gain = pt.attainable_with_double_compute / pt.attainable_flops
    vals = {"gpu": hw.short_name, "dtype": dtype.upper(), "intensity": sig3(intensity),
            "attainable": si(pt.attainable_flops, "FLOP/s"), "peak": si(peak, "FLOP/s"),
            "share": pct(pt.attainable_flops / peak), "ridge": sig3(pt.ridge_flops_per_byte),
            "gain": times(gain), "bound": pt.bound, "bw": si(hw.hbm_bandwidth_bytes_per_s, "B/s")}
    if abs(math.log(intensity / pt.ridge_flops_per_byte)) < 0.05:
        key = KeyNumber(f"{sig3(pt.ridge_flops_per_byte)} FLOP/byte",
                        f"the ridge: {si(peak, 'FLOP/s')} ÷ {si(hw.hbm_bandwidth_bytes_per_s, 'B/s')}")
    else:
        key = KeyNumber(times(gain), f"speed from doubling the FLOP/s at {sig3(intensity)} FLOP/byte "
                                     f"({pt.bound}-bound)")
    details = (f"attainable = min({si(peak, 'FLOP/s')}, {sig3(intensity)} FLOP/byte × "
               f"{si(hw.hbm_bandwidth_bytes_per_s, 'B/s')}) = {si(pt.attainable_flops, 'FLOP/s')} "
               f"({pct(pt.attainable_flops / peak)} of peak)",
               f"With twice the FLOP/s the ridge moves to {sig3(2 * pt.ridge_flops_per_byte)} FLOP/byte.")
    return Facts(key, vals, details)
