"""Lesson 1 — compute has outgrown memory bandwidth.

    growth = part ÷ first part of the line (dense 16-bit FLOP/s, HBM B/s)   (V100 → H100: 7.9×, 3.7×)
    ridge  = FLOP/s ÷ B/s
    4-bit ridge = the part's dense FP4 FLOP/s ÷ B/s (parts with a 4-bit tensor path: Blackwell, CDNA 4)

The lesson goes on past the H100 to Blackwell (B200, B300) and the MI355X: does the wall keep growing?
At 16 bits the ridge stops climbing (H100 295, B300 281, MI355X 315 FLOP/byte), but the parts lead with
4-bit maths, and there it is 1 690 on a B300.
"""
from __future__ import annotations

from typing import Iterable

from model.catalog.active import default_catalog
from model.catalog.parts import Catalog, Hardware
from model.lessons.chart import Bar
from model.lessons.facts import Facts, KeyNumber, times
from model.readouts.redo import divided
from model.readouts.format import si, sig3
from model.values import frozen


NVIDIA_LINE = ("v100-sxm2-32gb", "a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb", "b200-180gb")
AMD_LINE = ("mi250x-128gb", "mi300x-192gb", "mi325x-256gb")
NVIDIA_NEXT = ("v100-sxm2-32gb", "h100-sxm5-80gb", "b300-288gb")
AMD_NEXT = ("mi300x-192gb", "mi325x-256gb", "mi355x-288gb")
NEWEST = ("h100-sxm5-80gb", "b200-180gb", "b300-288gb", "mi300x-192gb", "mi355x-288gb")


@frozen
class GenerationPoint:
    gpu_id: str
    name: str
    year: int
    flops16: float                  # dense 16-bit tensor FLOP/s
    bandwidth_bytes_per_s: float
    flops_vs_first: float
    bandwidth_vs_first: float
    ridge_flops_per_byte: float


def _flops16(hw: Hardware) -> float:
    return hw.peak("bf16") or hw.peak("fp16")


def generations(gpu_ids: Iterable[str] = NVIDIA_LINE, catalog: Catalog | None = None) -> tuple[GenerationPoint, ...]:
    cat = catalog or default_catalog()
    parts = [cat.gpu(g) for g in gpu_ids]
    f0, b0 = _flops16(parts[0]), parts[0].hbm_bandwidth_bytes_per_s
    return tuple(GenerationPoint(hw.id, hw.short_name, hw.year, _flops16(hw), hw.hbm_bandwidth_bytes_per_s,
                                 _flops16(hw) / f0, hw.hbm_bandwidth_bytes_per_s / b0,
                                 _flops16(hw) / hw.hbm_bandwidth_bytes_per_s) for hw in parts)


LINES = {"nvidia": NVIDIA_LINE, "amd": AMD_LINE, "nvidia_next": NVIDIA_NEXT, "amd_next": AMD_NEXT, "newest": NEWEST}
LESSON_PARTS = {"nvidia": ("v100-sxm2-32gb", "a100-sxm4-80gb", "h100-sxm5-80gb"), "amd": AMD_LINE,
                "nvidia_next": NVIDIA_NEXT, "amd_next": AMD_NEXT, "newest": NEWEST}
VENDORS = {"nvidia": "NVIDIA", "amd": "AMD INSTINCT", "nvidia_next": "NVIDIA TO BLACKWELL",
           "amd_next": "AMD INSTINCT TO MI355X", "newest": "HOPPER, BLACKWELL, CDNA 3 AND 4"}


def four_bit_ridges(points: Iterable[GenerationPoint], catalog: Catalog | None = None) -> dict[str, float]:
    """Each part's ridge at its dense FP4 rate, for the parts that have a 4-bit tensor path."""
    cat = catalog or default_catalog()
    out = {}
    for p in points:
        hw = cat.gpu(p.gpu_id)
        if hw.peak("fp4"):
            out[p.name] = hw.peak("fp4") / hw.hbm_bandwidth_bytes_per_s
    return out


def generation_facts(line: str = "nvidia", show: str = "", catalog: Catalog | None = None, fp4: bool = False) -> Facts:
    """The state's numbers; ``fp4``: a ridge state also at the parts' dense FP4 rate (the key number then)."""
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
        fp4 = four_bit_ridges(pts, cat) if fp4 else {}
        if fp4:                       # the parts that lead with 4-bit maths: the wall at that precision
            name4 = max(fp4, key=fp4.get)
            vals.update(fp4_top=name4, fp4_ridge_top=sig3(fp4[name4]))
            key = KeyNumber(f"{sig3(fp4[name4])} FLOP/byte", f"{name4} ridge at its dense FP4 rate (16-bit: "
                            f"{sig3(next(p.ridge_flops_per_byte for p in pts if p.name == name4))})")
            details += [f"{n}: ridge {sig3(r)} FLOP/byte at its dense FP4 rate" for n, r in fp4.items()]
        r_top = sig3(top.ridge_flops_per_byte)
        why = [f"ridge = FLOP/s ÷ bytes/s: {top.name} "
               f"{divided(top.flops16, 'FLOP/s', top.bandwidth_bytes_per_s, 'B/s', r_top)} = {r_top}"]
        if fp4:
            hw4 = next(cat.gpu(p.gpu_id) for p in pts if p.name == vals["fp4_top"])
            four = divided(hw4.peak('fp4'), 'FLOP/s', hw4.hbm_bandwidth_bytes_per_s, 'B/s', vals['fp4_ridge_top'])
            why.append(f"At 4 bits: {vals['fp4_top']} dense FP4 {four} = {vals['fp4_ridge_top']}")
        if "same_compute" in vals:          # the part with the same FLOP/s and more bandwidth: a lower ridge
            p = next(p for p in pts if p.name == vals["same_compute"])
            r_p = sig3(p.ridge_flops_per_byte)
            why.append(f"{p.name}: {divided(p.flops16, 'FLOP/s', p.bandwidth_bytes_per_s, 'B/s', r_p)} = {r_p}")
    else:
        key = KeyNumber(times(last.flops_vs_first),
                        f"more dense 16-bit FLOP/s, {first.name} → {last.name} "
                        f"(bandwidth: {times(last.bandwidth_vs_first)})")
        fx, bx = times(last.flops_vs_first), times(last.bandwidth_vs_first)
        why = [f"FLOP/s: {divided(last.flops16, 'FLOP/s', first.flops16, 'FLOP/s', fx)} = {fx}",
               f"Bandwidth: {divided(last.bandwidth_bytes_per_s, 'B/s', first.bandwidth_bytes_per_s, 'B/s', bx)} = {bx}"]
    why.append("Assumes: datasheet peaks, dense (not sparse) 16-bit FLOP/s")
    return Facts(key, vals, tuple(details), tuple(why))


@frozen
class GenerationsChart:
    """Lesson 1's chart: the growth bars (dense 16-bit FLOP/s and HBM B/s ÷ the first part's) or
    the ridge bars (FLOP/byte), one place per part, with their words."""

    ridge_mode: bool
    title: str
    tooltip: str                  # the whole plot's hover text
    names: tuple[str, ...]        # one per part, along the category axis
    flops: tuple[Bar, ...] = ()
    bandwidth: tuple[Bar, ...] = ()
    ridge: tuple[Bar, ...] = ()
    points: tuple[GenerationPoint, ...] = ()
    legend: tuple[tuple[str, str], ...] = ()   # (kind, its words) for each colour drawn


def generation_chart(line: str = "nvidia", show: str = "", catalog: Catalog | None = None) -> GenerationsChart:
    cat = catalog or default_catalog()
    ridge_mode = show == "ridge"
    pts = generations(LINES[line] if ridge_mode else LESSON_PARTS[line], cat)
    vendor = VENDORS[line]
    names = tuple(f"{p.name.split()[0]} ({p.year})" for p in pts)
    if ridge_mode:
        ridge = tuple(Bar(k, p.ridge_flops_per_byte, sig3(p.ridge_flops_per_byte),
                          f"{p.name} ({p.year}): ridge {sig3(p.ridge_flops_per_byte)} FLOP/byte = "
                          + divided(p.flops16, 'FLOP/s', p.bandwidth_bytes_per_s, 'B/s', sig3(p.ridge_flops_per_byte)))
                      for k, p in enumerate(pts))
        return GenerationsChart(True, f"{vendor} · RIDGE POINT = DENSE 16-BIT FLOP/s ÷ HBM BYTES/s",
                                "Ridge point: the FLOPs a kernel must do per byte it reads to keep the chip busy",
                                names, ridge=ridge, points=pts,
                                legend=(("ridge", "ridge point, FLOP per byte"),))
    first = pts[0]
    flops = tuple(Bar(k, p.flops_vs_first, times(p.flops_vs_first),
                      f"{p.name} ({p.year}): {si(p.flops16, 'FLOP/s')} dense 16-bit\n"
                      f"= {times(p.flops_vs_first)} the {first.name}'s") for k, p in enumerate(pts))
    bandwidth = tuple(Bar(k, p.bandwidth_vs_first, times(p.bandwidth_vs_first),
                          f"{p.name} ({p.year}): {si(p.bandwidth_bytes_per_s, 'B/s')} HBM\n"
                          f"= {times(p.bandwidth_vs_first)} the {first.name}'s") for k, p in enumerate(pts))
    return GenerationsChart(False, f"{vendor} · DENSE 16-BIT FLOP/s AND HBM BANDWIDTH, ÷ THE {first.name.upper()}'S",
                            "Dense (not sparse) 16-bit tensor FLOP/s and HBM bandwidth, each ÷ the first part's",
                            names, flops, bandwidth, points=pts,
                            legend=(("flops", "dense 16-bit FLOP/s"), ("bandwidth", "HBM bandwidth")))
