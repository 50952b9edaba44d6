"""Lesson 4 — arithmetic intensity and the roofline.

    attainable = min(F, I·B);   ridge I* = F ÷ B;   gain of 2× compute = min(2F, I·B) ÷ min(F, I·B)
"""
from __future__ import annotations

import math

import numpy as np

from model.catalog.parts import Hardware
from model.errors import ScenarioError
from model.lessons.chart import Mark
from model.lessons.facts import Facts, KeyNumber, pct, times
from model.physics.roofline import attainable_flops
from model.readouts.redo import divided, inputs_that_redo
from model.readouts.format import si, sig3
from model.values import frozen


@frozen
class RooflinePoint:
    intensity_flops_per_byte: float
    attainable_flops: float
    attainable_with_double_compute: float
    ridge_flops_per_byte: float
    bound: str

    @property
    def double_compute_gain(self) -> float:
        """How much faster twice the FLOP/s makes a kernel of this intensity: min(2F, I·B) ÷ min(F, I·B)."""
        return self.attainable_with_double_compute / self.attainable_flops


def roofline_point(hw: Hardware, dtype: str, intensity: float) -> RooflinePoint:
    if not intensity > 0:
        raise ScenarioError(f"intensity must be positive, got {intensity}")
    peak, bw = hw.peak(dtype), hw.hbm_bandwidth_bytes_per_s
    if peak is None:
        raise ScenarioError(f"{hw.short_name} has no {dtype.upper()} tensor-core path")
    att = float(attainable_flops(intensity, peak, bw))
    return RooflinePoint(intensity, att, float(attainable_flops(intensity, 2 * peak, bw)), peak / bw,
                         "memory" if intensity < peak / bw else "compute")


def roofline_facts(hw: Hardware, dtype: str, intensity: float, key_kind: str = "") -> Facts:
    """``key_kind`` "share": the key number is the share of the peak reached (the claim's), else the
    gain from twice the FLOP/s (or the ridge, at the ridge)."""
    pt = roofline_point(hw, dtype, intensity)
    peak = hw.peak(dtype)
    gain = pt.double_compute_gain
    vals = {"gpu": hw.short_name, "dtype": dtype.upper(), "intensity": sig3(intensity),
            "attainable": si(pt.attainable_flops, "FLOP/s"), "peak": si(peak, "FLOP/s"),
            "share": pct(pt.attainable_flops / peak), "ridge": sig3(pt.ridge_flops_per_byte),
            "gain": times(gain), "bound": pt.bound, "bw": si(hw.hbm_bandwidth_bytes_per_s, "B/s")}
    at_ridge = abs(math.log(intensity / pt.ridge_flops_per_byte)) < 0.05
    if key_kind == "share":
        key = KeyNumber(pct(pt.attainable_flops / peak), f"of the {si(peak, 'FLOP/s')} peak reached at "
                                                         f"{sig3(intensity)} FLOP/byte ({pt.bound}-bound)")
    elif at_ridge:
        key = KeyNumber(f"{sig3(pt.ridge_flops_per_byte)} FLOP/byte",
                        f"the ridge: {si(peak, 'FLOP/s')} ÷ {si(hw.hbm_bandwidth_bytes_per_s, 'B/s')}")
    else:
        key = KeyNumber(times(gain), f"speed from doubling the FLOP/s at {sig3(intensity)} FLOP/byte "
                                     f"({pt.bound}-bound)")
    att_text = si(pt.attainable_flops, "FLOP/s")
    f_, i_, b_ = inputs_that_redo(att_text, ((peak, lambda x, n: si(x, "FLOP/s", n)),
                                             (intensity, lambda x, n: f"{sig3(x, n)} FLOP/byte"),
                                             (hw.hbm_bandwidth_bytes_per_s, lambda x, n: si(x, "B/s", n))),
                                  lambda f, i, b: min(f, i * b))
    details = (f"attainable = min({f_}, {i_} × {b_}) = {att_text} ({pct(pt.attainable_flops / peak)} of peak)",
               f"With twice the FLOP/s the ridge moves to {sig3(2 * pt.ridge_flops_per_byte)} FLOP/byte.")
    attainable = f"attainable = min({f_}, {i_} × {b_}) = {att_text}"
    derived = (f"ridge = {si(peak, 'FLOP/s')} ÷ {si(hw.hbm_bandwidth_bytes_per_s, 'B/s')} = "
               f"{sig3(pt.ridge_flops_per_byte)} FLOP/byte" if at_ridge else
               f"2× compute: {si(pt.attainable_with_double_compute, 'FLOP/s')} ÷ {si(pt.attainable_flops, 'FLOP/s')} "
               f"= {times(gain)}")
    if key_kind == "share":
        share = pct(pt.attainable_flops / peak)
        derived = f"share of peak = {divided(pt.attainable_flops, 'FLOP/s', peak, 'FLOP/s', share)} = {share}"
    why = (attainable, derived, "Assumes: datasheet peaks, no overhead")
    return Facts(key, vals, details, why)


INTENSITY_RANGE = (0.1, 1e5)          # the lesson's intensity axis (FLOP/byte)
CURVE_POINTS = 121


@frozen(eq=False)
class RooflineChart:
    """Lesson 4's chart: the roof and the roof with twice the compute over the intensity axis,
    their ridges, the chosen intensity on both, with their words."""

    title: str
    tooltip: str
    intensity: np.ndarray             # the curves' x (FLOP/byte)
    roof: np.ndarray                  # attainable FLOP/s
    roof2: np.ndarray                 # the same chip with twice the FLOP/s
    dot: Mark                         # the chosen intensity on the roof
    double: Mark                      # … and on the roof with twice the compute
    ridge: Mark                       # (ridge, peak)
    ridge2: Mark                      # (2 × ridge, 2 × peak)
    legend: tuple[tuple[str, str], ...]   # (kind, its words): the roof ("roof") and the dashed one ("roof2")
    memory_bound: str
    compute_bound: str
    lowest_flops: float               # the lowest attainable FLOP/s on the axis
    point: RooflinePoint
    curve: tuple[RooflinePoint, ...]


def roofline_chart(hw: Hardware, dtype: str, intensity: float, emulated: bool = False) -> RooflineChart:
    x = float(intensity)
    pt = roofline_point(hw, dtype, x)
    xs = np.geomspace(*INTENSITY_RANGE, CURVE_POINTS)
    curve = tuple(roofline_point(hw, dtype, float(v)) for v in xs)
    roof = np.array([c.attainable_flops for c in curve])
    roof2 = np.array([c.attainable_with_double_compute for c in curve])
    peak, r, bw = float(roof.max()), pt.ridge_flops_per_byte, si(hw.hbm_bandwidth_bytes_per_s, "B/s")
    att, att2, gain = si(pt.attainable_flops, "FLOP/s"), si(pt.attainable_with_double_compute, "FLOP/s"), \
        times(pt.double_compute_gain)
    return RooflineChart(
        f"{hw.short_name.upper()} · {dtype.upper()} · HBM {bw}" + (" · EMULATED" if emulated else ""),
        f"attainable = min({si(peak, 'FLOP/s')}, intensity × {bw}); dashed: the same chip with twice the FLOP/s",
        xs, roof, roof2,
        Mark(x, pt.attainable_flops, f"{sig3(x)} FLOP/B\n→ {att}",
             f"Intensity {sig3(x)} FLOP/byte → attainable {att} ({pt.bound}-bound)\n= min({si(peak, 'FLOP/s')}, "
             f"{sig3(x)} FLOP/byte × {bw})"),
        Mark(x, pt.attainable_with_double_compute,
             tip=f"With 2× compute ({si(2 * peak, 'FLOP/s')}): {att2} at {sig3(x)} FLOP/byte = {gain} as fast"),
        Mark(r, peak, f"ridge {sig3(r)}",
             f"Ridge {sig3(r)} FLOP/byte = {si(peak, 'FLOP/s')} ÷ {bw} ({hw.short_name}, {dtype.upper()})"),
        Mark(2 * r, 2 * peak, f"2× compute: ridge {sig3(2 * r)}",
             f"Ridge with 2× compute: {sig3(2 * r)} FLOP/byte = {si(2 * peak, 'FLOP/s')} ÷ {bw}"),
        (("roof", f"the roof: {dtype.upper()} peak {si(peak, 'FLOP/s')}"),
         ("roof2", f"2× compute: {si(2 * peak, 'FLOP/s')}")),
        "MEMORY-BOUND", "COMPUTE-BOUND", float(roof.min()), pt, curve)
