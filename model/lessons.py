"""The numbers behind the eight lessons (the chapters), as pure functions.

1  generations:     dense 16-bit FLOP/s and HBM B/s per generation, ÷ the first part's
                    (V100 → H100: 7.9× compute, 3.7× bandwidth); ridge = FLOP/s ÷ B/s
2  latency_hiding:  a warp computes C cycles then waits L cycles for memory. With W warps
                    in flight a scheduler issues a fraction  busy = min(1, W·C / (C + L))
                    of cycles (Little's law). A divergent branch runs both paths with
                    half the lanes masked:  lane use = busy · (1 − d/2)
3  memory_ladder:   registers → shared memory → L2 → HBM → host: capacity, bandwidth,
                    latency, and the factor between neighbouring steps
4  roofline_point:  attainable = min(F, I·BW); doubling F changes nothing left of the ridge
5  (decode)         model.estimate at batch 1
6  (batching)       model.sweep.sweep_batch, with the critical batch and the batch that fits
7  precision_table: per precision: weight bytes, floor ms/token, the fewest GPUs it fits on
8  scaling:         tokens/s at N GPUs ÷ at 1 GPU, per interconnect, against the ideal N
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

import numpy as np

from model.catalog import ASSETS_DIR, Catalog, Hardware, MemoryLevel, _read_json, default_catalog
from model.errors import AssetError, ModelError, ScenarioError
from model.estimate import estimate
from model.roofline import attainable_flops
from model.scenario import GPU_COUNTS, Scenario
from model.values import frozen

# ---------------------------------------------------------------- 1 generations

NVIDIA_LINE = ("v100-sxm2-32gb", "a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb", "b200-180gb")
AMD_LINE = ("mi250x-128gb", "mi300x-192gb", "mi325x-256gb")


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


# ---------------------------------------------------------------- 2 latency hiding

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


# ---------------------------------------------------------------- 3 memory ladder

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


# ---------------------------------------------------------------- 4 roofline

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


# ---------------------------------------------------------------- 7 precision

@frozen
class PrecisionRow:
    precision_id: str
    name: str
    weight_bits: float
    weight_bytes_total: float
    floor_ms_per_token: float
    ms_per_token: float
    gpus_to_fit: int | None          # fewest of 1, 2, 4 … 64 on which it fits, None if none
    emulated: bool
    accuracy_note: str


ACCURACY = {
    "fp32": "reference",
    "bf16": "negligible loss (the usual serving precision)",
    "fp16": "negligible loss",
    "fp8": "negligible to ~1% with per-tensor scales",
    "int8": "negligible with SmoothQuant-style scaling",
    "w8a16": "negligible (weight-only)",
    "int4": "small but measurable; needs AWQ/GPTQ-style calibration — engineering",
    "fp4": "measurable; needs NVFP4 scaling and calibration — engineering",
}


def precision_table(s: Scenario, precisions: Iterable[str] = ("fp32", "bf16", "fp8", "int8", "int4", "fp4"),
                    catalog: Catalog | None = None) -> tuple[PrecisionRow, ...]:
    cat = catalog or default_catalog()
    rows = []
    for pid in precisions:
        p = cat.precision(pid)
        base = s.with_(precision=pid, kv_precision=None)
        try:
            e = estimate(base, cat)
        except ModelError:
            continue
        fit_n = None
        for n in GPU_COUNTS:
            try:
                if estimate(base.with_(gpus=n), cat).fits:
                    fit_n = n
                    break
            except ScenarioError:
                continue
        rows.append(PrecisionRow(pid, p.name, p.weight_bits, cat.model(s.model).params.total * p.bytes_per_weight,
                                 e.decode_floor_ms_per_token, e.decode_ms_per_token, fit_n, e.emulated,
                                 ACCURACY.get(pid, "")))
    return tuple(rows)


# ---------------------------------------------------------------- 8 scaling

@frozen
class ScalingCurve:
    interconnect: str
    gpus: np.ndarray
    speedup: np.ndarray              # tokens/s at N ÷ tokens/s at 1 (same batch); NaN where N is illegal
    ms_per_token: np.ndarray
    bound: tuple[str, ...]


def scaling(s: Scenario, counts: Iterable[int] = GPU_COUNTS, interconnects=("nvlink", "pcie", "network"),
            catalog: Catalog | None = None) -> tuple[ScalingCurve, ...]:
    cat = catalog or default_catalog()
    base = estimate(s.with_(gpus=1), cat)
    ns = np.array(list(counts), dtype=float)
    out = []
    for link in interconnects:
        sp, ms, bd = [], [], []
        for n in ns:
            try:
                e = estimate(s.with_(gpus=int(n), interconnect=link), cat)
                sp.append(e.output_tokens_per_s / base.output_tokens_per_s)
                ms.append(e.decode_ms_per_token)
                bd.append(e.bound)
            except ScenarioError:
                sp.append(np.nan)
                ms.append(np.nan)
                bd.append("")
        out.append(ScalingCurve(link, ns, np.array(sp), np.array(ms), tuple(bd)))
    return tuple(out)


# ---------------------------------------------------------------- chapters and prepared states

@frozen
class PreparedState:
    caption: str                    # the state's one claim: a template filled by model.lesson_numbers.Facts.fill
    scenario: Scenario
    params: tuple[tuple[str, Any], ...]
    notes: str = ""                 # what the speaker says (read by the presenter's speaker view)

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)


@frozen
class Chapter:
    number: int
    key: str
    title: str
    takeaway: str
    states: tuple[PreparedState, ...]


def load_chapters(path=None) -> tuple[Chapter, ...]:
    p = path or ASSETS_DIR / "lessons.json"
    doc = _read_json(p)
    chapters = []
    try:
        for ch in doc["chapters"]:
            base = Scenario.from_dict(ch.get("scenario", {}))
            states = []
            for st in ch["states"]:
                scen = base.with_(**st.get("scenario", {}))
                states.append(PreparedState(st["caption"], scen, tuple(sorted(st.get("params", {}).items())),
                                            str(st.get("notes", ""))))
            chapters.append(Chapter(int(ch["number"]), ch["key"], ch["title"], ch["takeaway"], tuple(states)))
    except (KeyError, TypeError, ValueError, ModelError) as exc:
        raise AssetError(f"lessons.json is malformed: {exc}") from None
    if [c.number for c in chapters] != list(range(1, len(chapters) + 1)):
        raise AssetError("lessons.json: chapters must be numbered 1, 2, 3 … in order")
    return tuple(chapters)


@lru_cache(maxsize=1)
def default_chapters() -> tuple[Chapter, ...]:
    return load_chapters()


# ---------------------------------------------------------------- measured results beside the model

def matching_measurements(model_id: str | None = None, gpu_id: str | None = None, precision: str | None = None,
                          metric: str | None = None, catalog: Catalog | None = None):
    """Published measurements (with the model's prediction of each) that match the given ids.
    Ids and aliases are resolved, so 'h100' finds rows of 'h100-sxm5-80gb'."""
    from model.validate import compare
    from model.measured import default_measured
    cat = catalog or default_catalog()
    m = cat.model(model_id).id if model_id else None
    g = cat.gpu(gpu_id).id if gpu_id else None
    p = cat.precision(precision).id if precision else None
    rows = tuple(r for r in default_measured()
                 if (m is None or r.model == m) and (g is None or r.gpu == g)
                 and (p is None or r.precision == p) and (metric is None or r.metric == metric))
    return compare(rows, cat) if rows else ()
