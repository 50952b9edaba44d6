"""Every number a lesson screen shows, as text, from the model: the claim's numbers and the key number.

A prepared state's caption (its claim) in assets/lessons.json is a template such as
"V100 → H100: compute grew {flops_x}, bandwidth {bw_x}"; ``Facts.fill`` puts in this
module's formatted values, so a claim is always true for the numbers on screen.

    1 generations   growth = part ÷ first part of the line (dense 16-bit FLOP/s, HBM B/s);
                    ridge = FLOP/s ÷ B/s
    2 warps         busy = min(1, W·C / (C + L)); lane use = busy · (1 − d/2)
    3 ladder        factor vs registers: bandwidth_registers ÷ bandwidth_level,
                    latency_level ÷ latency_registers; per step: geometric mean over the steps
    4 roofline      attainable = min(F, I·B); gain of 2× compute = min(2F, I·B) ÷ min(F, I·B)
Chapters 5 to 8 (decode, batching, precision, multi-GPU): model/lesson_serving.py.
"""
from __future__ import annotations

import math
import string
from dataclasses import field
from typing import Mapping

import numpy as np

from model.catalog import Catalog, Hardware, default_catalog
from model.errors import ModelError
from model.format import duration, si, sig3
from model.lessons import AMD_LINE, NVIDIA_LINE, generations, hbm_latency_cycles, latency_hiding, roofline_point
from model.values import frozen

LINES = {"nvidia": NVIDIA_LINE, "amd": AMD_LINE}
LESSON_PARTS = {"nvidia": ("v100-sxm2-32gb", "a100-sxm4-80gb", "h100-sxm5-80gb"), "amd": AMD_LINE}
WARP_COMPUTE_CYCLES = 48          # lesson 2: maths between two loads (cycles)
MAX_WARPS = 32


UNMATCHED_CLAIM = ("This step's claim is about its prepared scenario, which this one does not match: "
                   "press R (Prepared state) to go back to it")


@frozen
class KeyNumber:
    text: str                     # the number in large type, with its unit
    label: str                    # one line: what it counts


@frozen
class Facts:
    """A lesson screen's numbers: the key number, the values its claim may name, detail lines."""

    key: KeyNumber
    values: Mapping[str, str] = field(default_factory=dict)
    details: tuple[str, ...] = ()

    def fill(self, template: str, missing: str | None = None) -> str:
        """The template with {name} replaced by this screen's values (unknown names stay visible,
        or become ``missing``)."""
        out = []
        for literal, name, _spec, _conv in string.Formatter().parse(template):
            out.append(literal)
            if name is not None:
                out.append(str(self.values.get(name, "{" + name + "}" if missing is None else missing)))
        return "".join(out)

    def missing(self, template: str) -> tuple[str, ...]:
        """The names in ``template`` this screen has no value for."""
        return tuple(name for _lit, name, _spec, _conv in string.Formatter().parse(template)
                     if name is not None and name not in self.values)

    def claim(self, template: str) -> str:
        """The claim on screen: the filled template, or, when this scenario lacks one of its
        numbers (a published run that does not match it), UNMATCHED_CLAIM: never a claim with holes."""
        return UNMATCHED_CLAIM if self.missing(template) else self.fill(template)


def times(x: float) -> str:
    """A ratio as people say it: 7.92×, 111×."""
    return f"{sig3(x)}×"


def pct(fraction: float) -> str:
    return f"{sig3(100.0 * fraction)}%" if math.isfinite(fraction) else "—"


# ---------------------------------------------------------------- 1 generations

def generation_facts(line: str = "nvidia", show: str = "", catalog: Catalog | None = None) -> Facts:
    cat = catalog or default_catalog()
    parts = LINES[line] if show == "ridge" else LESSON_PARTS[line]
    pts = generations(parts, cat)
    first, last = pts[0], pts[-1]
    vals = {"first": first.name, "last": last.name, "flops_x": times(last.flops_vs_first),
            "bw_x": times(last.bandwidth_vs_first), "ridge_first": sig3(first.ridge_flops_per_byte),
            "ridge_last": sig3(last.ridge_flops_per_byte)}
    details = [f"{p.name} ({p.year}): {si(p.flops16, 'FLOP/s')} dense 16-bit, {si(p.bandwidth_bytes_per_s, 'B/s')} HBM, "
               f"ridge {sig3(p.ridge_flops_per_byte)} FLOP/byte" for p in pts]
    if show == "ridge":
        top = max(pts, key=lambda p: p.ridge_flops_per_byte)
        vals.update(ridge_top=sig3(top.ridge_flops_per_byte), top=top.name)
        for p in pts:
            if p is not top and p.flops16 == top.flops16 and p.bandwidth_bytes_per_s > top.bandwidth_bytes_per_s:
                vals.update(same_compute=p.name, same_ridge=sig3(p.ridge_flops_per_byte),
                            more_bw=times(p.bandwidth_bytes_per_s / top.bandwidth_bytes_per_s))
        key = KeyNumber(f"{sig3(top.ridge_flops_per_byte)} FLOP/byte",
                        f"{top.name} ridge: FLOPs a kernel must do per byte read to keep it busy")
    else:
        key = KeyNumber(times(last.flops_vs_first),
                        f"more dense 16-bit FLOP/s, {first.name} → {last.name} "
                        f"(bandwidth: {times(last.bandwidth_vs_first)})")
    return Facts(key, vals, tuple(details))


# ---------------------------------------------------------------- 2 warps

@frozen
class WarpCurve:
    warps: np.ndarray
    issue_busy: np.ndarray        # fraction of cycles the scheduler issues
    lane_use: np.ndarray          # fraction of lane-cycles doing useful work (divergence applied)
    warps_needed: int


def warp_curve(latency_cycles: int, divergence: float = 0.0, compute_cycles: int = WARP_COMPUTE_CYCLES,
               max_warps: int = MAX_WARPS) -> WarpCurve:
    """busy(W) = min(1, W·C / (C + L)) for W = 1 … max_warps; lane use = busy · (1 − d/2)."""
    w = np.arange(1, max_warps + 1, dtype=float)
    busy = np.minimum(1.0, w * compute_cycles / (compute_cycles + latency_cycles))
    return WarpCurve(w, busy, busy * (1.0 - float(divergence) / 2.0),
                     int(math.ceil((compute_cycles + latency_cycles) / compute_cycles)))


def warp_facts(hw: Hardware, warps: int, divergence: float = 0.0) -> Facts:
    lat = hbm_latency_cycles(hw)
    lh = latency_hiding(int(warps), float(divergence), WARP_COMPUTE_CYCLES, lat)
    vals = {"warps": str(lh.warps), "busy": pct(lh.issue_busy), "lane_use": pct(lh.lane_use),
            "latency": f"{lat}", "compute": str(WARP_COMPUTE_CYCLES), "needed": str(lh.warps_needed),
            "gpu": hw.short_name, "idle": pct(1.0 - lh.issue_busy)}
    if divergence > 0:
        key = KeyNumber(pct(lh.lane_use), f"of lane-cycles do useful work ({lh.warps} warps, "
                                          f"{pct(divergence)} of branches divergent)")
    else:
        key = KeyNumber(pct(lh.issue_busy), f"of cycles the scheduler issues maths ({lh.warps} warp"
                                            f"{'s' if lh.warps != 1 else ''} in flight)")
    details = (f"Each warp: {WARP_COMPUTE_CYCLES} cycles of maths, then a {lat}-cycle HBM load "
               f"({duration(hw.level('hbm').latency_s)} × {si(hw.clock_hz, 'Hz')}).",
               f"busy = min(1, W × {WARP_COMPUTE_CYCLES} ÷ ({WARP_COMPUTE_CYCLES} + {lat})): "
               f"{lh.warps_needed} warps hide the wait.",
               "A divergent branch runs both paths one after the other, half the lanes masked each time.")
    return Facts(key, vals, details)


# ---------------------------------------------------------------- 3 ladder

@frozen
class LadderPoint:
    key: str
    label: str
    bandwidth_bytes_per_s: float
    latency_s: float
    capacity_bytes: float | None
    bandwidth_x: float            # registers' bandwidth ÷ this level's (≥ 1: times narrower)
    latency_x: float              # this level's latency ÷ the registers' (≥ 1: times slower to answer)


def ladder_points(hw: Hardware) -> tuple[LadderPoint, ...]:
    levels = [lv for lv in hw.levels if lv.bandwidth_bytes_per_s and lv.latency_s]
    keys = [lv.key for lv in levels]
    if not keys or keys[0] != "registers" or "hbm" not in keys[1:]:
        raise ModelError(f"{hw.short_name}: no published bandwidth and latency for its registers, on-chip "
                         f"memories and main memory, so there is no ladder to draw; pick another GPU")
    r = levels[0]
    return tuple(LadderPoint(lv.key, lv.label, lv.bandwidth_bytes_per_s, lv.latency_s, lv.capacity_bytes,
                             r.bandwidth_bytes_per_s / lv.bandwidth_bytes_per_s, lv.latency_s / r.latency_s)
                 for lv in levels)


def ladder_facts(hw: Hardware) -> Facts:
    pts = ladder_points(hw)
    i_mem = next(i for i, p in enumerate(pts) if p.key == "hbm")
    mem = pts[i_mem]
    steps_bw = [pts[i].bandwidth_x / pts[i - 1].bandwidth_x for i in range(1, i_mem + 1)]
    steps_lat = [pts[i].latency_x / pts[i - 1].latency_x for i in range(1, i_mem + 1)]
    geo_lat = mem.latency_x ** (1.0 / i_mem)
    geo_bw = mem.bandwidth_x ** (1.0 / i_mem)
    vals = {"gpu": hw.short_name, "mem": mem.label, "bw_x": times(mem.bandwidth_x), "lat_x": times(mem.latency_x),
            "bw_step_min": times(min(steps_bw)), "bw_step_max": times(max(steps_bw)),
            "lat_step_min": times(min(steps_lat)), "lat_step_max": times(max(steps_lat)),
            "lat_geo": times(geo_lat), "bw_geo": times(geo_bw), "steps": str(i_mem),
            "mem_bw": si(mem.bandwidth_bytes_per_s, "B/s"), "mem_cap": si(mem.capacity_bytes or 0, "B")}
    key = KeyNumber(times(mem.bandwidth_x), f"less bandwidth in {mem.label} than in the registers "
                                            f"({si(mem.bandwidth_bytes_per_s, 'B/s')} vs "
                                            f"{si(pts[0].bandwidth_bytes_per_s, 'B/s')})")
    details = [f"{p.label}: {si(p.bandwidth_bytes_per_s, 'B/s')}, {sig3(p.latency_s * 1e9)} ns"
               + (f", {si(p.capacity_bytes, 'B')}" if p.capacity_bytes else ", capacity: the host's")
               for p in pts]
    details.append(f"Per step down to {mem.label}: bandwidth ÷{' ÷'.join(sig3(x) for x in steps_bw)}; "
                   f"latency ×{' ×'.join(sig3(x) for x in steps_lat)}.")
    details.append(f"The 'about 10× per step' rule of thumb is latency on average: {times(mem.latency_x)} in "
                   f"{i_mem} steps is {times(geo_lat)} per step (geometric mean); bandwidth {times(geo_bw)}.")
    return Facts(key, vals, tuple(details))


# ---------------------------------------------------------------- 4 roofline

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
