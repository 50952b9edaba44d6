"""Lesson 3 — the memory ladder: registers → shared memory → L2 → HBM → host.

    factor vs registers: bandwidth_registers ÷ bandwidth_level, latency_level ÷ latency_registers;
    per step: the geometric mean over the steps
"""
from __future__ import annotations

from model.catalog.parts import Hardware, MemoryLevel
from model.errors import ModelError
from model.lessons.chart import Mark
from model.lessons.facts import Facts, KeyNumber, times
from model.readouts.redo import divided
from model.readouts.format import duration, si, sig3
from model.values import frozen


@frozen
class LadderStep:
    level: MemoryLevel
    bandwidth_factor: float | None  # this level's bandwidth ÷ the next-faster level's (< 1)
    latency_factor: float | None    # this level's latency ÷ the next-faster level's (> 1)
    capacity_factor: float | None


def memory_ladder(hw: Hardware) -> tuple[LadderStep, ...]:
    out, prev = [], None
    for lvl in hw.levels:
        def ratio(a, b):
            return a / b if (a and b) else None
        out.append(LadderStep(
            lvl,
            ratio(lvl.bandwidth_bytes_per_s, prev.bandwidth_bytes_per_s) if prev else None,
            ratio(lvl.latency_s, prev.latency_s) if prev else None,
            ratio(lvl.capacity_bytes, prev.capacity_bytes) if prev else None,
        ))
        prev = lvl
    return tuple(out)


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
    reg = pts[0]
    bw_x, lat_x = times(mem.bandwidth_x), times(mem.latency_x)
    lat_unit = "ns" if mem.latency_s < 1e-6 else "s"
    why = (f"Bandwidth: {divided(reg.bandwidth_bytes_per_s, 'B/s', mem.bandwidth_bytes_per_s, 'B/s', bw_x, ('registers ', mem.label + ' '))} = {bw_x}",
           f"Latency: {divided(mem.latency_s, lat_unit, reg.latency_s, 'ns', lat_x, (mem.label + ' ', 'registers '))} = {lat_x}",
           "Assumes: whole-chip bandwidths and load-to-use latencies; a hollow point is derived from other "
           "specs, not published or measured: " + (derived_words(hw) or "none on this part"))
    return Facts(key, vals, tuple(details), why)


def derived_words(hw: Hardware) -> str:
    """Which of the ladder's numbers are derived from other specs ("L2 latency, Shared mem bandwidth"):
    said in words, since a projected slide has no hover."""
    words = {"bandwidth": "bandwidth", "latency": "latency"}
    return ", ".join(f"{short_label(lv.label)} {words[w.split('_')[0]]}" for lv in hw.levels
                     if lv.bandwidth_bytes_per_s and lv.latency_s for w in lv.derived if w.split("_")[0] in words)


def latency_text(seconds: float) -> str:
    """A level's latency as the ladder writes it: ns below a microsecond."""
    return f"{sig3(seconds * 1e9)} ns" if seconds < 1e-6 else duration(seconds)


def short_label(label: str) -> str:
    """A level's name on the ladder's axis: "Shared mem", "L2", "HBM3" …"""
    return label.split(" (")[0].replace("Shared mem / L1", "Shared mem")


@frozen
class LadderSeries:
    """One line of the ladder: each level's factor vs the registers, its words, and whether it is
    derived from other specs (drawn hollow)."""

    key: str                          # "bandwidth" or "latency"
    legend: str
    marks: tuple[Mark, ...]           # x: the level's place (0 = registers), y: × worse than the registers
    derived: tuple[bool, ...]


@frozen
class LadderChart:
    title: str
    tooltip: str
    names: tuple[str, ...]
    bandwidth: LadderSeries
    latency: LadderSeries
    rule: tuple[Mark, ...]            # the "10× per step" rule of thumb: 10**k at place k
    rule_label: str
    top: float                        # the largest factor (the legend sits above it)
    points: tuple[LadderPoint, ...]


def ladder_chart(hw: Hardware) -> LadderChart:
    pts = ladder_points(hw)
    derived = {lv.key: lv.derived for lv in hw.levels}
    src = {p.key: "derived from other specs" if derived.get(p.key) else "published or measured" for p in pts}

    def series(key: str, legend: str, value, label, tip) -> LadderSeries:
        return LadderSeries(key, legend, tuple(Mark(float(k), value(p), label(p), tip(p)) for k, p in enumerate(pts)),
                            tuple(any(key in f for f in derived.get(p.key, ())) for p in pts))

    def capacity(p: LadderPoint) -> str:
        return si(p.capacity_bytes, "B") if p.capacity_bytes else "the host's"
    bw = series("bandwidth", "━━ bandwidth: × narrower", lambda p: p.bandwidth_x,
                lambda p: si(p.bandwidth_bytes_per_s, "B/s"),
                lambda p: f"{p.label}: {si(p.bandwidth_bytes_per_s, 'B/s')} = {sig3(p.bandwidth_x)}× less than the "
                          f"registers; capacity {capacity(p)} ({src[p.key]})")
    lat = series("latency", "╍╍ latency: × slower to answer", lambda p: p.latency_x,
                 lambda p: latency_text(p.latency_s),
                 lambda p: f"{p.label}: {latency_text(p.latency_s)} = {sig3(p.latency_x)}× the registers' latency "
                           f"({src[p.key]})")
    return LadderChart(f"{hw.short_name.upper()}: EACH LEVEL ÷ THE REGISTERS · HOLLOW = DERIVED FROM OTHER SPECS",
                       "Each level's bandwidth and latency, as times worse than the registers (log scale)",
                       tuple(short_label(p.label) for p in pts), bw, lat,
                       tuple(Mark(float(k), 10.0 ** k) for k in range(len(pts))), "┈┈ rule of thumb: 10× per step",
                       max(max(p.bandwidth_x, p.latency_x) for p in pts), pts)
