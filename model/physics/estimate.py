"""Scenario → Estimate: every number the window and the command line show.

    decode ms/token     = one decode step at the mean context c̄ = input + output/2
    floor ms/token      = the same step at 100% of peak, no overhead, no communication
    prefill (TTFT)      = one prefill pass over batch × input tokens
    end-to-end latency  = prefill + Σ decode steps as the context grows (16-point midpoint sum);
                          a batch whose KV cache does not fit runs in waves of the largest that does
    tokens/s (group)    = batch / step time;   per user = 1 / step time
    MBU = bytes per GPU per step / step time / peak bytes/s;  MFU likewise with FLOPs
    $ per 1M tokens     = GPUs × $/GPU-hour / 3600 / tokens/s × 1e6
    J per token         = GPUs × TDP / tokens/s   (an upper bound: TDP, not measured power)
"""
from __future__ import annotations

import functools
import math
from dataclasses import field
from typing import Iterator, Sequence

import numpy as np

from model.catalog.parts import Catalog
from model.catalog.engines import IDEAL_ID, Efficiency, EfficiencyTable
from model.catalog.active import default_efficiency
from model.errors import ModelError
from model.physics.memory import Footprint, footprint
from model.physics.roofline import critical_batch, ridge_flops_per_byte
from model.physics.scenario import ResolvedScenario, Scenario, resolve
from model.physics.kernels import KernelCost, kernel_costs
from model.physics.cost import PassCost, PassTerms, floor_s
from model.physics.step import decode_inputs, decode_pass, joined_pass, microbatch, prefill_inputs, prefill_pass
from model.values import filled, frozen, kept

E2E_POINTS = 16


@frozen
class Estimate:
    """Everything the cost model says about one scenario: times (ms), rates (per s), bytes,
    FLOP, utilisations. Every number on screen is one of these fields or a readout made from them
    (model/readouts/); ``notes`` are the scenario's facts (emulation, links), in words."""

    scenario: Scenario
    gpu_name: str
    model_name: str
    precision_name: str
    kv_precision_name: str
    compute_dtype: str
    emulated: bool
    tp: int
    pp: int
    link_name: str | None
    phase: str
    # decode
    decode_ms_per_token: float
    decode_floor_ms_per_token: float
    decode_memory_ms: float
    decode_compute_ms: float
    decode_comm_ms: float
    decode_overhead_ms: float
    # prefill and end to end
    prefill_ms: float
    prefill_floor_ms: float
    e2e_latency_s: float
    waves: int
    # throughput
    output_tokens_per_s: float
    tokens_per_s_per_user: float
    # roofline (of the current phase)
    arithmetic_intensity_flops_per_byte: float
    ridge_flops_per_byte: float
    peak_flops: float
    peak_bandwidth_bytes_per_s: float
    achieved_flops: float                 # per GPU
    bound: str                            # memory | compute | communication
    critical_batch: float | None
    critical_batch_weights_only: float | None
    mbu: float
    mfu: float
    # bytes and FLOPs per decode step, per GPU
    weight_bytes_per_step: float
    kv_bytes_per_step: float
    activation_bytes_per_step: float
    flops_per_step: float
    # memory
    hbm_capacity_bytes: float
    weight_bytes_per_gpu: float
    kv_cache_bytes_per_gpu: float
    workspace_bytes_per_gpu: float
    memory_needed_bytes_per_gpu: float
    fits: bool
    max_batch_that_fits: int
    # money and energy
    usd_per_million_tokens: float
    joules_per_token: float
    efficiency_stack: str
    engine_id: str                        # the engine the realistic numbers are for (auto resolved)
    engine_name: str
    notes: tuple[str, ...]
    # the prefill pass, per GPU, in the same terms as the decode step (defaults: not computed)
    prefill_memory_ms: float = math.nan
    prefill_compute_ms: float = math.nan
    prefill_comm_ms: float = math.nan
    prefill_overhead_ms: float = math.nan
    prefill_weight_bytes: float = math.nan
    prefill_kv_bytes: float = math.nan
    prefill_activation_bytes: float = math.nan
    prefill_flops: float = math.nan
    prefill_passes: float = 1.0           # passes an engine that prefills in chunks runs (1: one pass)
    # what the scenario resolved to (parts, parallelism, engine): kept so nothing resolves it again
    resolved: ResolvedScenario | None = field(default=None, compare=False, repr=False)
    # the estimate's passes as one (terms, cost, index of the decode step, index of the prefill): what
    # decode_kernels and prefill_kernels are made from, on first use (the window asks on some pages)
    kernel_source: tuple[PassTerms, PassCost, int, int] | None = field(default=None, compare=False, repr=False)

    @property
    def decode_kernels(self) -> tuple[KernelCost, ...]:
        """The decode step as its kernels (model/physics/kernels.py): their times, with communication
        and overhead, add up to decode_ms_per_token."""
        return kept(self, "decode_kernels", lambda e: _kernels(e.kernel_source, 2))

    @property
    def prefill_kernels(self) -> tuple[KernelCost, ...]:
        """The prefill pass as its kernels: their times, with communication and overhead, add up to prefill_ms."""
        return kept(self, "prefill_kernels", lambda e: _kernels(e.kernel_source, 3))


def _kernels(source, which: int) -> tuple[KernelCost, ...]:
    """The kernels of the point at ``source[which]`` of the estimate's joined pass (none without one)."""
    return () if source is None else kernel_costs(source[0], source[1], source[which])


def _f(x) -> float:
    return float(x)


def _at(x, i: int) -> float:
    """Point ``i`` of a joined pass's field: an array over the points, or one plain number for all."""
    return x.item(i) if x.__class__ is np.ndarray else float(x)


def _points(fields: tuple, i: int, j: int) -> tuple[list[float], list[float]]:
    """Points ``i`` and ``j`` of each of a joined pass's fields (``_at`` for two points at once)."""
    at_i, at_j = [], []
    for x in fields:
        if x.__class__ is np.ndarray:
            at_i.append(x.item(i))
            at_j.append(x.item(j))
        else:
            at_i.append(float(x))
            at_j.append(float(x))
    return at_i, at_j


_HALVES = np.arange(E2E_POINTS, dtype=float) + 0.5          # j + ½ for the usual E2E_POINTS (exact)


# (j + ½)/E2E_POINTS of each decode point of the estimate's joined pass: the step at the mean context
# (½), then the midpoints once per wave size (one or two). × output: exactly decode_contexts' (j + ½)·output/
# E2E_POINTS, and output/2, as ÷ a power of two is exact
_STEP_AND_MIDPOINTS = tuple(np.concatenate(([E2E_POINTS / 2.0], np.tile(_HALVES, n))) / E2E_POINTS for n in (1, 2))


def decode_contexts(input_len: int, output_len: int, points: int = E2E_POINTS) -> np.ndarray:
    """Midpoints of ``points`` equal slices of the decode: contexts input + (j + ½)·output/points."""
    halves = _HALVES if points == E2E_POINTS else np.arange(points, dtype=float) + 0.5
    return input_len + halves * output_len / points


def e2e_seconds(rs: ResolvedScenario, batch: int, eff: Efficiency, prefill_s: float | None = None) -> float:
    """Prefill + all decode steps for one batch that fits."""
    s = rs.scenario
    pre = _f(prefill_pass(rs, batch, s.input_len, eff).time_s) if prefill_s is None else prefill_s
    steps = decode_pass(rs, batch, decode_contexts(s.input_len, s.output_len), eff).time_s
    return pre + mean_s(steps.tolist()) * s.output_len


def mean_s(times_s: list[float]) -> float:
    """The mean of a decode's midpoint step times, correctly rounded (math.fsum): the same number
    whichever path adds them (the estimate's joined pass, ``e2e_seconds``)."""
    return math.fsum(times_s) / len(times_s)


def wave_sizes(batch: int, fit_batch: int) -> tuple[int, int, int]:
    """(full waves, sequences in each, sequences in the last, partial one: 0 when none): a batch
    larger than what fits runs in waves of ``fit_batch`` sequences; one wave when it fits."""
    if fit_batch < 1 or batch <= fit_batch:
        return 1, batch, 0
    full, rest = divmod(batch, fit_batch)
    return full, fit_batch, rest


def e2e_with_waves(rs: ResolvedScenario, batch: int, fit_batch: int, eff: Efficiency,
                   prefill_s: float | None = None) -> tuple[float, int]:
    """A batch larger than what fits runs in waves of ``fit_batch`` sequences.
    ``prefill_s``: the prefill time of the whole batch, when already known."""
    full, size, rest = wave_sizes(batch, fit_batch)
    if size == batch:
        return e2e_seconds(rs, batch, eff, prefill_s), 1
    total = full * e2e_seconds(rs, size, eff)
    if rest:
        total += e2e_seconds(rs, rest, eff)
    return total, full + (1 if rest else 0)


def _bound(mem: float, comp: float, comm: float) -> str:
    if comm > max(mem, comp):
        return "communication"
    return "compute" if comp > mem else "memory"


def _passes(rs: ResolvedScenario, eff: Efficiency, batch: int, fit_batch: int):
    """The estimate's passes, computed once as one pass over all the points they need (step.joined_pass:
    the same equations and numbers as ``decode_pass``/``prefill_pass``, one numpy pass):
        decode   point 0 the step at the mean context c̄ = input + output/2, then for each wave size
                 (the whole batch when it fits) the E2E_POINTS midpoint contexts of its decode
        prefill  point 0 the whole batch, then each wave size
    Returns (terms, cost, index of the decode step, index of the prefill, e2e seconds, waves)."""
    s = rs.scenario
    full, size, rest = wave_sizes(batch, fit_batch)
    sizes = (size, rest) if rest else (size,)
    n = len(sizes)
    dec_c = s.input_len + _STEP_AND_MIDPOINTS[n - 1] * s.output_len     # decode_contexts' contexts
    if size == batch:
        dec_b = pre_b = float(batch)                     # one batch for every point: plain floats
    else:
        dec_b = np.repeat(np.asarray([batch, *sizes], dtype=float), [1, *(E2E_POINTS,) * n])
        pre_b = np.asarray([batch, *sizes], dtype=float)
    terms, cost, (dec_i, pre_i) = joined_pass(
        rs, eff, (decode_inputs(rs, dec_b, dec_c), eff.compute_fraction_decode),
        (prefill_inputs(rs, pre_b, float(s.input_len)), eff.compute_fraction_prefill))
    time_s = cost.time_s.tolist()
    pre_s = time_s[pre_i:] if size != batch else time_s[pre_i:pre_i + 1]
    first = dec_i + 1
    wave_s = [pre_s[0 if size == batch else 1 + k]
              + mean_s(time_s[first + k * E2E_POINTS:first + (k + 1) * E2E_POINTS]) * s.output_len
              for k in range(n)]
    e2e = wave_s[0] if size == batch else full * wave_s[0] + (wave_s[1] if rest else 0.0)
    return terms, cost, dec_i, pre_i, e2e, full + (1 if rest else 0)


@functools.lru_cache(maxsize=256)
def _efficiency(table: EfficiencyTable, engine_id: str, hw) -> Efficiency:
    """``table.efficiency(engine_id, hw)``, kept: the same factors for every scenario on these parts."""
    return table.efficiency(engine_id, hw)


def estimate(scenario: Scenario, catalog: Catalog | None = None,
             efficiency: EfficiencyTable | None = None) -> Estimate:
    """The whole picture for one scenario. Raises ScenarioError/UnknownIdError on bad input."""
    rs = resolve(scenario, catalog)
    table = efficiency or default_efficiency()
    eff = _efficiency(table, rs.engine, rs.hw)
    s, hw = rs.scenario, rs.hw
    n = s.gpus
    mean_ctx = s.input_len + s.output_len / 2.0

    fp: Footprint = footprint(rs, table.workspace_fraction)
    max_fit = fp.max_batch
    terms, cost, di, pi, e2e, waves = _passes(rs, eff, s.batch, max_fit)
    (step_s, dec_mem, dec_comp, dec_comm, dec_over, dec_wb, dec_kvb, dec_ab, dec_flops, dec_k), \
        (pre_s, pre_mem, pre_comp, pre_comm, pre_over, pre_wb, pre_kvb, pre_ab, pre_flops, pre_k) = _points(
            (cost.time_s, cost.memory_s, cost.compute_s, cost.comm_s, cost.overhead_s,
             cost.weight_bytes, cost.kv_bytes, cost.activation_bytes, cost.flops, terms.stretch), di, pi)
    bw, peak = hw.hbm_bandwidth_bytes_per_s, rs.peak_flops
    # the floor at these two points only (PassCost.floor_s works out every point, on first use)
    dec_floor = floor_s(dec_wb + dec_kvb + dec_ab, dec_flops, terms.bandwidth_bytes_per_s, terms.peak_flops, dec_k)
    pre_floor = floor_s(pre_wb + pre_kvb + pre_ab, pre_flops, terms.bandwidth_bytes_per_s, terms.peak_flops, pre_k)
    tokens_per_s = s.batch / step_s
    m, _ = microbatch(rs, s.batch)
    share = _f(m) / rs.pp            # fraction of the full-model bytes one GPU moves per step
    decode = s.phase == "decode"
    cur_time = step_s if decode else pre_s
    cur_bytes, cur_flops = (dec_wb + dec_kvb + dec_ab, dec_flops) if decode else (pre_wb + pre_kvb + pre_ab, pre_flops)
    gpu_bytes = cur_bytes * (share if decode else 1.0 / rs.pp)
    gpu_flops = cur_flops * (share if decode else 1.0 / rs.pp)
    intensity = cur_flops / cur_bytes
    bound = _bound(dec_mem, dec_comp, dec_comm) if decode else _bound(pre_mem, pre_comp, pre_comm)

    # a part with no hourly price (a machine you own: price 0) has no cost per token: NaN, not $0
    usd = n * hw.usd_per_hour / 3600.0 / tokens_per_s * 1e6 if hw.usd_per_hour > 0 else math.nan
    joules = n * hw.tdp_w / tokens_per_s
    return filled(
        Estimate, scenario=s, gpu_name=hw.name, model_name=rs.llm.name, precision_name=rs.precision.name,
        kv_precision_name=rs.kv.name, compute_dtype=rs.compute_dtype, emulated=rs.emulated,
        tp=rs.tp, pp=rs.pp, link_name=rs.tp_link.name if rs.tp_link else None, phase=s.phase,
        decode_ms_per_token=step_s * 1e3, decode_floor_ms_per_token=dec_floor * 1e3,
        decode_memory_ms=dec_mem * 1e3, decode_compute_ms=dec_comp * 1e3,
        decode_comm_ms=dec_comm * 1e3, decode_overhead_ms=dec_over * 1e3,
        prefill_ms=pre_s * 1e3, prefill_floor_ms=pre_floor * 1e3,
        e2e_latency_s=e2e, waves=waves,
        output_tokens_per_s=tokens_per_s, tokens_per_s_per_user=1.0 / step_s,
        arithmetic_intensity_flops_per_byte=intensity,
        ridge_flops_per_byte=ridge_flops_per_byte(peak, bw), peak_flops=peak, peak_bandwidth_bytes_per_s=bw,
        achieved_flops=gpu_flops / cur_time, bound=bound,
        critical_batch=critical_batch(rs, mean_ctx),
        critical_batch_weights_only=critical_batch(rs, None, weights_only=True),
        mbu=min(1.0, gpu_bytes / cur_time / bw), mfu=min(1.0, gpu_flops / cur_time / peak),
        weight_bytes_per_step=dec_wb * share, kv_bytes_per_step=dec_kvb * share,
        activation_bytes_per_step=dec_ab * share, flops_per_step=dec_flops * share,
        hbm_capacity_bytes=hw.hbm_capacity_bytes, weight_bytes_per_gpu=fp.weight_bytes,
        kv_cache_bytes_per_gpu=fp.kv_bytes, workspace_bytes_per_gpu=fp.workspace_bytes,
        memory_needed_bytes_per_gpu=fp.needed_bytes, fits=fp.fits, max_batch_that_fits=max_fit,
        usd_per_million_tokens=usd, joules_per_token=joules, efficiency_stack=eff.stack,
        engine_id=rs.engine, engine_name=engine_label(table, rs.engine), notes=rs.notes,
        prefill_memory_ms=pre_mem * 1e3, prefill_compute_ms=pre_comp * 1e3,
        prefill_comm_ms=pre_comm * 1e3, prefill_overhead_ms=pre_over * 1e3,
        prefill_weight_bytes=pre_wb / rs.pp, prefill_kv_bytes=pre_kvb / rs.pp,
        prefill_activation_bytes=pre_ab / rs.pp, prefill_flops=pre_flops / rs.pp,
        prefill_passes=_at(terms.passes, pi), resolved=rs, kernel_source=(terms, cost, di, pi),
    )


@functools.lru_cache(maxsize=64)
def engine_label(table: EfficiencyTable, engine_id: str) -> str:
    """Readable engine name (an older version's label, e.g. 'vLLM 0.4–0.6 (2024, V0 engine)'); the
    roofline floor for ``ideal``."""
    if engine_id == IDEAL_ID:
        return "ideal"
    base, version = table.split(engine_id)
    e = table.engine(base)
    return e.version(version).label if version else e.name


def estimates_on(scenario: Scenario, gpus: Sequence[str], catalog: Catalog | None = None) -> Iterator[Estimate]:
    """``scenario`` on each of ``gpus`` that can run it, one estimate at a time: a caller spreads
    the work (the window's views prepare, while it is idle, what the GPU menu would show next)."""
    for gpu in gpus:
        try:
            yield estimate(scenario.with_(gpu=gpu), catalog)
        except ModelError:
            continue
