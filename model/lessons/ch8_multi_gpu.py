"""Lesson 8 — interconnect limits multi-GPU scaling.

    speed-up(N) = step time on 1 GPU ÷ step time on N (same batch)
    GPU work(N) = step time − all-reduces − overhead (the kernels: the part that splits N ways)
"""
from __future__ import annotations

import numpy as np
from typing import Iterable

from model.catalog.active import default_catalog
from model.catalog.parts import Catalog
from model.errors import ModelError, ScenarioError
from model.lessons.chart import Bar
from model.lessons.facts import Facts, KeyNumber, gpus_text, ms, pct, short_gpu, times
from model.lessons.measured import measured_e2e, short_source
from model.physics.estimate import Estimate, estimate
from model.physics.scenario import GPU_COUNTS, Scenario
from model.lessons.ch5_decode import overhead_line
from model.readouts.derivations import all_readouts
from model.readouts.explain_text import derivation_view
from model.readouts.redo import divided, summed
from model.readouts.format import duration, si
from model.readouts.numbers import readouts
from model.values import frozen


SCALING_COUNTS = (1, 2, 4, 8)


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


@frozen
class GpuBar:
    gpus: int
    work_ms: float                  # the kernels' time (step − all-reduces − overhead): the part that shrinks with N
    comm_ms: float
    overhead_ms: float
    total_ms: float
    speedup: float                  # step time on 1 GPU ÷ on N
    bound: str
    fits: bool = True
    work_bound: str = "memory"      # what bounds the kernels themselves (memory or compute), whatever bounds the step
    need_bytes: float = 0.0         # weights + KV cache per GPU: what must fit
    capacity_bytes: float = 0.0


def bar_sum(b: GpuBar) -> str:
    """A bar's step as its parts, in the one wording the step line, the details and the hover share."""
    total = ms(b.total_ms)
    parts = summed(total, (("GPU work", b.work_ms / 1e3), ("all-reduces", b.comm_ms / 1e3), ("overhead", b.overhead_ms / 1e3)))
    return f"{total} = {parts}" + ("" if b.comm_ms else " (no all-reduces on 1 GPU)")


def no_fit_words(b: GpuBar) -> str:
    """A bar that could not run: how much it needs of what it has, so the speed-up's base is plain."""
    return f"needs {si(b.need_bytes, 'B')} of {si(b.capacity_bytes, 'B')}: as if it fit"


def comm_line(e: Estimate) -> str:
    """What the all-reduces are made of on this state's GPUs: a fixed latency per call (the same on 2, 4
    or 8 GPUs) and the bytes a ring moves, 2(N − 1)/N of the partial sums (growing with N)."""
    if e.decode_comm_ms <= 0:
        return "No all-reduces: one GPU."
    r = all_readouts(e)
    if "allreduces" not in r:          # the layers split over the GPUs (a pipeline), no tensor parallelism
        return (f"Between the GPUs {r['decode_comm_time'].text} a step: this engine puts consecutive layers on "
                f"each GPU, and each hands its activations on to the next.")
    lat = float(r["allreduces"].value) * float(r["link_latency"].value) * float(r["allreduce_scale"].value)
    moved = float(r["decode.allreduce_bytes"].value) / float(r["link_bandwidth"].value)
    total = r["decode_comm_time"].text
    parts = summed(total, (("latency", lat), ("bytes", moved)))
    return (f"All-reduces {total} = {parts}: the latency is {r['allreduces'].text} calls × "
            f"{r['link_latency'].text} × {r['allreduce_scale'].text} (the engine's start per call), the same on "
            f"2, 4 or 8 GPUs; only the bytes grow with N, as a ring moves 2(N − 1)/N of the partial sums.")


def gpu_bars(s: Scenario, counts=SCALING_COUNTS, catalog: Catalog | None = None) -> tuple[GpuBar, ...]:
    out = []
    base = None
    for n in counts:
        try:
            e = estimate(s.with_(gpus=int(n)), catalog)
        except ModelError:
            continue
        base = base or e.decode_ms_per_token
        work = e.decode_ms_per_token - e.decode_comm_ms - e.decode_overhead_ms
        kernels_compute = sum(k.compute_s for k in e.decode_kernels) > sum(k.memory_s for k in e.decode_kernels)
        out.append(GpuBar(int(n), work, e.decode_comm_ms,
                          e.decode_overhead_ms, e.decode_ms_per_token, base / e.decode_ms_per_token, e.bound,
                          e.fits, "compute" if kernels_compute else "memory",
                          e.weight_bytes_per_gpu + e.kv_cache_bytes_per_gpu, e.hbm_capacity_bytes))
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
            "comm_share": pct(e.decode_comm_ms / e.decode_ms_per_token),
            "wall": "the overhead" if e.decode_overhead_ms >= e.decode_comm_ms else "the all-reduce time"}
    meas = multi_gpu_measured(s, catalog)
    if now is not None:
        vals["speedup"] = times(now.speedup)
        vals["work"] = ms(now.work_ms)
    if one is not None:
        vals["work1"] = ms(one.work_ms)
        vals["step1"] = ms(one.total_ms)
    runs = _measured_runs(s, catalog)
    if s.gpus in meas:
        mx, px = meas[s.gpus]
        vals.update(meas_x=times(mx), model_x=times(px))
        if runs is not None:
            vals["source"] = short_source(runs[0].row)
        key = KeyNumber(times(mx), f"faster on {gpus_text(s.gpus)} than on 1, measured (model {times(px)}; ideal {s.gpus}×)")
    elif now is not None:
        key = KeyNumber(times(now.speedup), f"faster on {gpus_text(s.gpus)} than on 1 (ideal {s.gpus}×)")
    else:
        key = KeyNumber(ms(e.decode_ms_per_token), "per decode step")
    details = tuple(f"{b.gpus} GPU{'s' if b.gpus > 1 else ''}: {bar_sum(b)}; {times(b.speedup)}, {b.bound}-bound"
                    for b in bars.values())
    details += ("GPU work (reading the weights, or the maths when that is longer) splits across the GPUs; "
                "the all-reduces and the per-step software overhead do not.",)
    if one is not None and not one.fits:
        details += (f"One GPU cannot hold this job at batch {s.batch}: weights and KV cache need "
                    f"{si(one.need_bytes, 'B')} of its {si(one.capacity_bytes, 'B')} (lesson 7's one-GPU run is batch 1); "
                    f"its bar is the time it would take if it fit.",)
    details += (comm_line(e), overhead_line(e))
    return Facts(key, vals, details, _why(e, now, one, runs))


def _measured_runs(s: Scenario, catalog: Catalog | None):
    """The published runs on 1 GPU and on this scenario's N at its batch (MeasuredPoints), or None."""
    rows = [m for m in measured_e2e(s, catalog) if m.row.batch == s.batch]
    base = next((m for m in rows if m.row.n_gpus == 1), None)
    this = next((m for m in rows if m.row.n_gpus == s.gpus), None)
    return (base, this) if base is not None and this is not None and s.gpus > 1 else None


def _why(e: Estimate, now: GpuBar | None, one: GpuBar | None, runs) -> tuple[str, ...]:
    """The key number's derivation with this state's numbers: the speed-up as two step times (or
    two measured runs), this step's parts, and the all-reduces' own arithmetic."""
    if now is None or one is None:
        return ()
    n = gpus_text(e.scenario.gpus)
    lines = []
    if runs is not None:
        base, this = runs
        mx, px = times(base.measured / this.measured), times(base.predicted / this.predicted)
        lines += [f"{mx} = {divided(base.measured, 's', this.measured, 's', mx)}: measured end to end on 1 GPU, then on {n}",
                  f"Model: {px} = {divided(base.predicted, 's', this.predicted, 's', px)}"]
    else:
        x = times(now.speedup)
        lines.append(f"{x} = {divided(one.total_ms / 1e3, 's', now.total_ms / 1e3, 's', x)}: one step on 1 GPU, then on {n}")
    lines.append(f"A step on {n}: {bar_sum(now)}")
    if now.comm_ms > 0:
        v = derivation_view(e, "decode_comm_time")
        lines.append(f"All-reduces: {v.arithmetic}")
        lines += [f"Assumes: {a}" for a in v.assumptions[:1]]
    return tuple(lines) if lines[-1].startswith("Assumes: ") else (*lines, "Assumes: the work splits evenly")


@frozen
class MultiGpuChart:
    """Lesson 8's chart: one decode step on 1, 2, 4, 8 GPUs as stacked segments (GPU work,
    all-reduces, overhead), each bar's time and speed-up at its end (and the published
    speed-up, in its own state), with their words."""

    title: str
    tooltip: str
    names: tuple[str, ...]            # one per bar, place 0 (1 GPU) first
    work: tuple[Bar, ...]             # kind: the bar's bound (memory | compute | communication); label: its word
    comm: tuple[Bar, ...]
    overhead: tuple[Bar, ...]
    totals: tuple[Bar, ...]           # the whole bar: its end words and its hover text; kind "current" for the state's
    measured: dict                    # {N: (measured speed-up, model speed-up)}
    measured_lines: tuple[str, ...]   # the published runs, for the details
    bars: tuple[GpuBar, ...]
    legend: tuple[tuple[str, str], ...] = ()   # (kind, its words) for each colour drawn


def multi_gpu_chart(e: Estimate, catalog: Catalog | None = None) -> MultiGpuChart:
    s = e.scenario
    bars = gpu_bars(s, catalog=catalog)
    meas = multi_gpu_measured(s, catalog)
    work, comm, over, totals = [], [], [], []
    for i, b in enumerate(bars):
        work.append(Bar(i, b.work_ms, "maths" if b.work_bound == "compute" else "weight reads", kind=b.work_bound))
        comm.append(Bar(i, b.comm_ms, "all-reduces", start=b.work_ms))
        over.append(Bar(i, b.overhead_ms, "overhead", start=b.work_ms + b.comm_ms))
        text = f"{ms(b.total_ms)} · {times(b.speedup)} (ideal {b.gpus}×)"
        if b.gpus in meas:
            text = f"{ms(b.total_ms)} · model {times(meas[b.gpus][1])} · measured {times(meas[b.gpus][0])}"
        rest = f"all-reduces {ms(b.comm_ms)} · overhead {ms(b.overhead_ms)}" if b.comm_ms > 0 else \
            f"overhead {ms(b.overhead_ms)}"
        totals.append(Bar(i, b.total_ms, f"{text}\n{rest}" + ("" if b.fits else f"\n{no_fit_words(b)}"),
                          f"{gpus_text(b.gpus)}: {bar_sum(b)}; {times(b.speedup)} one GPU, "
                          f"{b.bound}-bound", kind="current" if b.gpus == s.gpus else ""))
    lines = tuple(f"Published, {n} GPUs: measured {times(m)} one GPU, model {times(p)}"
                  for n, (m, p) in sorted(meas.items()) if n > 1)
    return MultiGpuChart(f"{e.model_name.upper()} · {e.precision_name} · {e.gpu_name.upper()} · "
                         f"{(e.link_name or '').upper()} · BATCH {s.batch}",
                         "One decode step on 1 to 8 GPUs: the GPU work splits, the all-reduces and the "
                         "software overhead do not", tuple(gpus_text(b.gpus) for b in bars),
                         tuple(work), tuple(comm), tuple(over), tuple(totals), meas, lines, bars,
                         tuple(dict.fromkeys((w.kind, f"GPU work: {w.label}") for w in work))
                         + ((("comm", "all-reduces over the link"),) if any(c.length > 0 for c in comm) else ())
                         + (("overhead", "per-step software overhead"),))
