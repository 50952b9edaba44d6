"""Lesson 2 — throughput over latency: warps in flight hide the wait for memory.

A warp computes C cycles then waits L cycles for memory. With W warps in flight a scheduler
issues a fraction  busy = min(1, W·C / (C + L))  of cycles (Little's law). A divergent branch
runs both paths with half the lanes masked:  lane use = busy · (1 − d/2).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from model.catalog.parts import Hardware
from model.errors import ScenarioError
from model.lessons.chart import Mark, Tick
from model.lessons.facts import Facts, KeyNumber, pct
from model.readouts.redo import inputs_that_redo
from model.readouts.format import duration, percent, si, sig3
from model.values import frozen


WARP_COMPUTE_CYCLES = 48          # maths between two loads (cycles)
MAX_WARPS = 32


@frozen
class LatencyHiding:
    warps: int
    divergence: float
    compute_cycles: int
    latency_cycles: int
    issue_busy: float               # fraction of cycles the scheduler issues an instruction
    lane_use: float                 # fraction of the 32 lanes doing useful work
    warps_needed: int               # warps in flight to hide the latency completely
    timeline: np.ndarray            # [warps, cycles]: 0 waiting on memory, 1 issuing, 2 ready but not chosen


def load_cycles(hw: Hardware, cycles: int) -> str:
    """'347.5 ns × 1.830 GHz': the HBM latency and the clock, with the digits that give ``cycles``."""
    lat = hw.level("hbm").latency_s
    if not lat or not hw.clock_hz:
        return "the part's typical latency"
    a, b = inputs_that_redo(str(cycles), ((lat, lambda x, n: f"{sig3(x * 1e9, n)} ns"),
                                          (hw.clock_hz, lambda x, n: si(x, "Hz", n))), lambda p, q: p * q)
    return f"{a} × {b}"


def hbm_latency_cycles(hw: Hardware, default: int = 600) -> int:
    """The part's HBM load-to-use latency in clock cycles (measured ns × clock), for lesson 2."""
    lat = hw.level("hbm").latency_s
    return int(round(lat * hw.clock_hz)) if lat and hw.clock_hz else default


def latency_hiding(warps: int, divergence: float = 0.0, compute_cycles: int = 48, latency_cycles: int = 600,
                   window: int | None = None) -> LatencyHiding:
    """One scheduler, ``warps`` warps, each repeating: ``compute_cycles`` of work, then one load
    that takes ``latency_cycles``. A deterministic round-robin simulation, run past its start-up,
    gives the timeline of one steady-state period (``window`` cycles, default C + L); the closed
    form gives the utilisation."""
    if not 1 <= int(warps) <= 64:
        raise ScenarioError(f"warps in flight must be between 1 and 64, got {warps}")
    if not 0.0 <= float(divergence) <= 1.0:
        raise ScenarioError(f"divergence must be between 0 and 1, got {divergence}")
    w, c, lat = int(warps), int(compute_cycles), int(latency_cycles)
    period = c + lat
    busy = min(1.0, w * c / period)
    timeline = scheduler_timeline(w, c, lat, int(window or period))
    return LatencyHiding(w, float(divergence), c, lat, busy, busy * (1.0 - float(divergence) / 2.0),
                         int(np.ceil(period / c)), timeline)


@lru_cache(maxsize=512)
def scheduler_timeline(warps: int, compute_cycles: int, latency_cycles: int, span: int) -> np.ndarray:
    """[warps, span] cycle states (0 waiting on memory, 1 issuing, 2 ready but not chosen) of the
    last ``span`` cycles of a 3 (C + L) + span cycle run, from cycle 0 with every warp ready.

    Each cycle the scheduler issues for the first ready warp in round-robin order from ``nxt``
    (the warp after the last one to finish its C cycles); a warp that issues its C-th cycle at
    t waits until t + 1 + L. Worked out interval by interval (the choice changes only when a warp
    finishes or an earlier one in the order becomes ready), not cycle by cycle: the same states,
    a few hundred steps instead of a few thousand. Remembered, and read-only."""
    w, c, lat = warps, compute_cycles, latency_cycles
    total = 3 * (c + lat) + span
    start = total - span
    timeline = np.zeros((w, span), dtype=np.int8)
    ready_at, left, nxt, t = [0] * w, [c] * w, 0, 0

    def mark(rows, state: int, t0: int, t1: int) -> None:
        a, b = max(t0, start) - start, min(t1, total) - start
        if b > a:
            timeline[rows, a:b] = state

    while t < total:
        order = [(nxt + k) % w for k in range(w)]
        pick = next((i for i in order if ready_at[i] <= t), -1)
        if pick < 0:                                   # nobody ready: idle until the first is
            t_end = min(ready_at)
        else:
            earlier = order[:order.index(pick)]        # not ready now; the first to become ready takes over
            t_end = min([t + left[pick], total] + [ready_at[i] for i in earlier])
        for i in range(w):
            if i == pick:
                mark(i, 1, t, t_end)
            elif ready_at[i] < t_end:
                mark(i, 2, max(t, ready_at[i]), t_end)
        if pick >= 0:
            left[pick] -= t_end - t
            if left[pick] == 0:
                ready_at[pick], left[pick], nxt = t_end + lat, c, (pick + 1) % w
        t = t_end
    timeline.setflags(write=False)
    return timeline


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
               f"({load_cycles(hw, lat)}).",
               f"busy = min(1, W × {WARP_COMPUTE_CYCLES} ÷ ({WARP_COMPUTE_CYCLES} + {lat})): "
               f"{lh.warps_needed} warps hide the wait.",
               "A divergent branch runs both paths one after the other, half the lanes masked each time.")
    why = (f"busy = min(1, {lh.warps} × {WARP_COMPUTE_CYCLES} ÷ ({WARP_COMPUTE_CYCLES} + {lat})) = {pct(lh.issue_busy)}",
           f"useful = busy × (1 − divergent ÷ 2) = {pct(lh.lane_use)}" if divergence > 0 else    # the key number
           f"{lh.warps_needed} warps hide the wait: ⌈({WARP_COMPUTE_CYCLES} + {lat}) ÷ {WARP_COMPUTE_CYCLES}⌉",
           f"Assumes: {WARP_COMPUTE_CYCLES} cycles of maths per load, this lesson's example kernel (a dozen "
           f"dependent multiply-adds of 4 cycles each: a choice, not a measurement), and an HBM load of {lat} "
           f"cycles = {load_cycles(hw, lat)}, the part's measured latency × its clock")
    return Facts(key, vals, details, why)


@frozen(eq=False)
class WarpChart:
    """Lesson 2's chart, in % of cycles against warps in flight: the issue curve, the lane-use
    curve (divergent branches only), the warps needed, the current warps, with their words."""

    title: str
    tooltip: str
    warps: np.ndarray
    busy_pct: np.ndarray                 # % of cycles the scheduler issues
    lane_pct: np.ndarray                 # % of lane-cycles doing useful work (empty: no divergence)
    busy_end: Mark                       # where the issue curve's words go (its right end)
    lane_end: Mark
    needed: Mark                         # x: the warps that hide the wait
    now: Mark                            # the current warps on its curve
    points: tuple[Mark, ...]             # one hover text per warp count
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    result: LatencyHiding
    curve: WarpCurve
    legend: tuple[tuple[str, str], ...] = ()   # (kind, its words) for each colour drawn


def warps_control_text(warps: int) -> str:
    return f"Warps in flight: {int(warps)}"


def divergence_control_text(divergence: float) -> str:
    return f"Divergent branches: {percent(divergence)}"


def warp_chart(hw: Hardware, warps: int, divergence: float = 0.0) -> WarpChart:
    lat = hbm_latency_cycles(hw)
    w, d = int(warps), float(divergence)
    r = latency_hiding(w, d, latency_cycles=lat)
    c = warp_curve(lat, d)
    busy, lane = 100 * c.issue_busy, 100 * c.lane_use
    diverged = d > 0
    y_now = 100 * (r.lane_use if diverged else r.issue_busy)
    cc = r.compute_cycles
    points = tuple(Mark(x, 100 * b, tip=f"{int(x)} warps: the scheduler issues {percent(b)} of cycles = "
                                         f"min(1, {int(x)} × {cc} ÷ ({cc} + {lat}))")
                   for x, b in zip(c.warps, c.issue_busy))
    return WarpChart(
        f"ONE SCHEDULER ON {hw.short_name.upper()}: {cc} CYCLES OF MATHS, THEN A {lat}-CYCLE HBM LOAD",
        f"HBM latency {lat} cycles on {hw.short_name} (measured ns × clock); each warp computes {cc} cycles per load",
        c.warps, busy, lane if diverged else np.zeros(0),
        Mark(float(c.warps[-1]), 100.0, "scheduler issuing"),
        Mark(float(c.warps[-1]), float(lane[-1]), "lanes doing useful work (divergent)" if diverged else ""),
        Mark(float(c.warps_needed), 100.0, f"{c.warps_needed} warps hide the wait"),
        Mark(float(w), y_now, f"{w} warp{'s' if w != 1 else ''}: {percent(y_now / 100)}"),
        points, tuple(Tick(v, str(v)) for v in (1, 4, 8, 16, 24, 32)),
        tuple(Tick(v, f"{v}%") for v in (0, 25, 50, 75, 100)), r, c,
        (("busy", "scheduler issuing"),) + ((("lane", "lanes doing useful work"),) if diverged else ()))
