"""Bytes per second on every link of the memory hierarchy, for the animated chip view.

Everything here is derived from one step of the Estimate's phase (per GPU): a decode step
(one token for each of the batch's sequences) or, in the prefill phase, the prefill pass
(every prompt token of the batch at once). ``chip_readouts`` gives every number the chip
view shows as a model.readouts.Readout:

    bytes per step   W = weight bytes, K = KV-cache bytes, A = activation bytes   [B]
    step time        t = the Estimate's step of its phase (decode ms per token, prefill ms) [s]
    link rate        r(kind) = bytes per step(kind) / t                            [B/s]
    conservation     host→HBM is ≈ 0 in steady decode (the weights already live in HBM);
                     every byte the tensor cores consume per step was read from HBM in
                     that step, so HBM→L2, L2→SMEM, SMEM→registers and registers→tensor
                     cores each carry exactly W + K + A bytes per step:
                         r(HBM→L2) = r(L2→SMEM) = r(SMEM→regs) = r(regs→TC)
    level use        u(level) = min(1, r / level bandwidth)                         [0..1]
                     (u(HBM) is the Estimate's MBU)
    tensor cores     busy = compute time / step time   (model.readouts.tensor_cores_busy: the
                     share of step time the cores work at their achievable rate; idle = 1 − busy;
                     not MFU = FLOPs / t / peak, which divides by the peak)          [0..1]
    all-reduce       per GPU per step, ring over tp GPUs, 16-bit partial sums (c bytes), the
                     bytes model.physics.step.allreduce_bytes defines:
                         R = L·a · 2(tp−1)/tp · b·d·c · m/pp          [B]
                     L layers, a all-reduces per layer, b tokens per micro-batch, d hidden,
                     m micro-batches in flight; link rate = R / t, link use = rate / link B/s,
                     link busy = communication time / step time
    time scale       chip seconds per screen second, a 1-2-5 number near the time it takes to
                     read the weights once at 16 bits (so precision does not change it and a
                     decode step lasts about a second or two on screen)

The bottleneck is the Estimate's ``bound``: memory → the part's memory ("HBM", "GDDR6X", "unified
memory"), compute → its matrix units ("tensor cores", "matrix cores" …: model/readouts/vocabulary.py),
communication → the tensor-parallel link's name.
"""
from __future__ import annotations

import math
from typing import Iterator, Sequence

from model.catalog.parts import Catalog, Hardware
from model.physics.estimate import Estimate, estimates_on
from model.readouts.format import percent, si
from model.physics.scenario import Scenario, resolve
from model.readouts.numbers import Readout, readouts, tensor_cores_busy
from model.readouts.vocabulary import capitalised, matrix_units, matrix_units_short, memory_word
from model.physics.step import allreduce_bytes, microbatch, pipeline_hop_bytes
from model.values import frozen

KINDS = ("weights", "kv", "activations")
CHIP_LINKS = ("host_hbm", "hbm_l2", "l2_smem", "smem_reg", "reg_tc")
LINK_LABELS = {
    "host_hbm": "host → HBM",
    "hbm_l2": "HBM → L2",
    "l2_smem": "L2 → shared mem",
    "smem_reg": "shared mem → registers",
    "reg_tc": "registers → tensor cores",
    "gpu_gpu": "GPU ↔ GPU",
    "pipeline": "pipeline hop",
}
# which level's bandwidth limits each link
_LIMIT = {"host_hbm": "host", "hbm_l2": "hbm", "l2_smem": "l2", "smem_reg": "smem", "reg_tc": "registers"}


@frozen
class LinkFlow:
    """Traffic on one link, per GPU. Tuples are ordered as KINDS (weights, kv, activations)."""

    key: str
    label: str
    bytes_per_step: tuple[float, float, float]
    bytes_per_s: tuple[float, float, float]
    capacity_bytes_per_s: float | None     # None: the catalogue has no number for this level
    utilisation: float                     # bytes/s over capacity, in [0, 1] (0 when unknown)

    @property
    def total_bytes_per_step(self) -> float:
        return sum(self.bytes_per_step)

    @property
    def total_bytes_per_s(self) -> float:
        return sum(self.bytes_per_s)


@frozen
class Flow:
    """What one decode or prefill step moves per link of the memory hierarchy, how busy each level
    is and which one bounds the step (for the animated chip)."""

    step_s: float
    batch: int
    gpus: int
    tp: int
    pp: int
    links: tuple[LinkFlow, ...]             # CHIP_LINKS order, host first, tensor cores last
    interconnect: LinkFlow | None           # GPU ↔ GPU all-reduce traffic (None when tp = 1)
    pipeline: LinkFlow | None               # stage-to-stage hops (None when pp = 1)
    utilisation: tuple[tuple[str, float], ...]   # per level: host, hbm, l2, smem, registers, tensor_cores, link
    tensor_busy: float                      # compute time / step time
    mfu: float
    mbu: float
    link_busy: float                        # communication time / step time
    flops_per_step: float
    peak_flops: float
    bottleneck: str                         # memory | compute | communication
    bottleneck_label: str                   # "HBM" | "tensor cores" | link name
    caption: str
    weight_bits: float
    kv_bits: float
    link_name: str | None
    link_kind: str | None                   # nvlink | infinity-fabric | ici | roce | pcie | network
    link_bandwidth_bytes_per_s: float | None
    time_scale: float                       # chip seconds per screen second (1-2-5)
    fits: bool
    phase: str = "decode"                   # decode | prefill
    tokens_per_step: int = 1                # tokens one step produces (decode) or takes in (prefill)

    def link(self, key: str) -> LinkFlow:
        for lf in self.links:
            if lf.key == key:
                return lf
        if key == "gpu_gpu" and self.interconnect is not None:
            return self.interconnect
        if key == "pipeline" and self.pipeline is not None:
            return self.pipeline
        raise KeyError(key)

    def level(self, key: str) -> float:
        return dict(self.utilisation)[key]

    @property
    def hbm_bytes_per_s(self) -> float:
        return self.link("hbm_l2").total_bytes_per_s


def nice_125(x: float) -> float:
    """The 1-2-5 number nearest ``x`` on a log scale (0.037 → 0.05, 0.0045 → 0.005)."""
    if not (x > 0 and math.isfinite(x)):
        return 1.0
    exp = math.floor(math.log10(x))
    best = None
    for e in (exp - 1, exp, exp + 1):
        for m in (1.0, 2.0, 5.0):
            v = m * 10.0 ** e
            d = abs(math.log(v / x))
            if best is None or d < best[0]:
                best = (d, v)
    return best[1]


def _clamp01(x: float) -> float:
    if not math.isfinite(x):
        return 0.0
    return min(1.0, max(0.0, x))


def _link(key: str, per_step: tuple[float, float, float], step_s: float, cap: float | None,
          label: str | None = None) -> LinkFlow:
    rates = tuple(b / step_s for b in per_step)
    util = _clamp01(sum(rates) / cap) if cap else 0.0
    return LinkFlow(key, label or LINK_LABELS[key], per_step, rates, cap, util)


def _phase_step(est: Estimate) -> tuple[float, tuple[float, float, float], float, float, int]:
    """The current phase's step as the Estimate gives it, per GPU: step time [s], bytes (weights,
    KV, activations), FLOPs, communication time [s], and tokens per sequence in one step."""
    if est.phase == "prefill":
        return (est.prefill_ms / 1e3,
                (float(est.prefill_weight_bytes), float(est.prefill_kv_bytes), float(est.prefill_activation_bytes)),
                float(est.prefill_flops), est.prefill_comm_ms / 1e3, est.scenario.input_len)
    return (est.decode_ms_per_token / 1e3,
            (float(est.weight_bytes_per_step), float(est.kv_bytes_per_step), float(est.activation_bytes_per_step)),
            float(est.flops_per_step), est.decode_comm_ms / 1e3, 1)


def flow(est: Estimate, catalog: Catalog | None = None) -> Flow:
    """Per-link bytes/s, per-level utilisation and the bottleneck for one Estimate (per GPU): the
    parts the estimate resolved (``catalog`` only for an estimate made without them)."""
    rs = est.resolved if est.resolved is not None else resolve(est.scenario, catalog)
    hw, s = rs.hw, rs.scenario
    step_s, per_step, flops_step, comm_s, seq_tokens = _phase_step(est)
    bw = {lvl.key: lvl.bandwidth_bytes_per_s for lvl in hw.levels}
    bw["hbm"] = hw.hbm_bandwidth_bytes_per_s

    links = [_link("host_hbm", (0.0, 0.0, 0.0), step_s, bw.get("host"))]
    for key in CHIP_LINKS[1:]:
        links.append(_link(key, per_step, step_s, bw.get(_LIMIT[key])))

    # tensor-parallel all-reduce and pipeline hops, per GPU per step (model.physics.step's bytes)
    m, b = microbatch(rs, s.batch)
    b = b * seq_tokens                  # tokens per micro-batch in one step
    inter = None
    if rs.tp > 1 and rs.tp_link is not None:
        ar = float(allreduce_bytes(rs, b) * m / rs.pp)
        inter = _link("gpu_gpu", (0.0, 0.0, ar), step_s, rs.tp_link.bandwidth_bytes_per_s,
                      label=f"GPU ↔ GPU ({rs.tp_link.name})")
    pipe = None
    if rs.pp > 1:
        hop = float(pipeline_hop_bytes(rs, b) * m / rs.pp)
        pipe = _link("pipeline", (0.0, 0.0, hop), step_s, hw.network.bandwidth_bytes_per_s,
                     label=f"pipeline hop ({hw.network.name})")

    tensor_busy = tensor_cores_busy(est)
    link_busy = _clamp01(comm_s / step_s)
    util = (
        ("host", links[0].utilisation),
        ("hbm", links[1].utilisation),
        ("l2", links[2].utilisation),
        ("smem", links[3].utilisation),
        ("registers", links[4].utilisation),
        ("tensor_cores", _clamp01(est.mfu)),
        ("link", inter.utilisation if inter else 0.0),
    )

    link_name = rs.tp_link.name if (rs.tp_link is not None and rs.tp > 1) else None
    link_kind = rs.tp_link.kind if (rs.tp_link is not None and rs.tp > 1) else None
    bound = est.bound
    units, mem = matrix_units(hw), memory_word(hw)
    if bound == "compute":
        label = units
    elif bound == "communication":
        label = _link_word(link_kind, link_name)
    else:
        label = mem
    caption = _caption(bound, label, tensor_busy, link_busy, mem, capitalised(units))
    if bound == "memory":                 # the memory is not busy all the step either: say what else it waits on
        pre = est.phase == "prefill"
        total_ms = est.prefill_ms if pre else est.decode_ms_per_token
        over_ms = est.prefill_overhead_ms if pre else est.decode_overhead_ms
        mem_ms = est.prefill_memory_ms if pre else est.decode_memory_ms
        if total_ms > 0 and over_ms / total_ms >= 0.1:
            caption += (f" ({percent(min(1.0, mem_ms / total_ms))} of the step) and on software overhead "
                        f"({percent(over_ms / total_ms)})")

    weights16_s = per_step[0] / rs.precision.bytes_per_weight * 2.0 / hw.hbm_bandwidth_bytes_per_s
    time_scale = nice_125(max(weights16_s, step_s / 4.0, 1e-7))

    return Flow(
        step_s=step_s, batch=s.batch, gpus=s.gpus, tp=rs.tp, pp=rs.pp, links=tuple(links),
        interconnect=inter, pipeline=pipe, utilisation=util, tensor_busy=tensor_busy,
        mfu=_clamp01(est.mfu), mbu=_clamp01(est.mbu), link_busy=link_busy,
        flops_per_step=flops_step, peak_flops=float(est.peak_flops),
        bottleneck=bound, bottleneck_label=label, caption=caption,
        weight_bits=rs.precision.weight_bits, kv_bits=rs.kv.bits,
        link_name=link_name, link_kind=link_kind,
        link_bandwidth_bytes_per_s=rs.tp_link.bandwidth_bytes_per_s if link_name else None,
        time_scale=time_scale, fits=bool(est.fits), phase=s.phase, tokens_per_step=s.batch * seq_tokens,
    )


def flows_on(scenario: Scenario, gpus: Sequence[str],
             catalog: Catalog | None = None) -> Iterator[tuple[str, Estimate, Flow, Hardware]]:
    """(GPU id, estimate, flow, part) of ``scenario`` on each of ``gpus`` that can run it, one at a
    time (model.physics.estimate.estimates_on)."""
    for est in estimates_on(scenario, gpus, catalog):
        yield est.resolved.hw.id, est, flow(est), est.resolved.hw


def link_title(kind: str | None, name: str | None) -> str:
    """A link as the chip writes it: 'PCIe Gen5 x16', 'Thunderbolt 4', 'NVLink 4.0 + NVSwitch'."""
    if kind == "pcie" and not (name or "").lower().startswith(("pcie", "thunderbolt")):
        return f"PCIe {name}" if name else "PCIe"
    return name or "link"


def _link_word(kind: str | None, name: str | None) -> str:
    if kind == "pcie":
        return link_title(kind, name)
    if kind == "network":
        return "the network"
    return name or "the interconnect"


def _caption(bound: str, label: str, busy: float, link_busy: float, memory: str, units: str = "Tensor cores") -> str:
    if bound == "compute":
        return f"{units} busy {percent(busy)} of each step — compute-bound, {memory} has bandwidth to spare"
    if bound == "communication":
        return (f"{units} idle {percent(1.0 - busy)} of each step — waiting on all-reduces over {label} "
                f"({percent(link_busy)} of each step)")
    return f"{units} idle {percent(1.0 - busy)} of each step — waiting on {label}"


def describe(f: Flow) -> str:
    """One line for logs and tests: the HBM rate and the bottleneck."""
    return f"HBM {si(f.hbm_bytes_per_s, 'B/s')}, tensor cores busy {percent(f.tensor_busy)}, bound by {f.bottleneck_label}"


def memory_name(hw: Hardware) -> str:
    """'HBM3 × 5 stacks', or for a part whose GPU shares the CPU's memory 'Unified memory (LPDDR5)'."""
    if is_unified(hw):
        kind = " ".join(w for w in hw.hbm_kind.split() if w.lower() != "unified")
        return f"Unified memory ({kind})" if kind else "Unified memory"
    return f"{hw.hbm_kind} × {hw.hbm_stacks} stacks" if hw.hbm_stacks else hw.hbm_kind


def is_unified(hw: Hardware) -> bool:
    """True for a part whose GPU and CPU share one memory (Apple silicon): no HBM stacks."""
    return "unified" in hw.hbm_kind.lower()


def _level_readouts(hw: Hardware, f: Flow) -> list[Readout]:
    out = []
    for key in ("registers", "smem", "l2", "hbm", "host"):
        lvl = hw.level(key)
        cap = si(lvl.capacity_bytes, "B") if lvl.capacity_bytes else "—"
        bw = si(lvl.bandwidth_bytes_per_s, "B/s") if lvl.bandwidth_bytes_per_s else "bandwidth n/a"
        name = {"registers": "Registers", "smem": "Shared mem / L1", "l2": "L2 cache", "hbm": memory_name(hw)}.get(key)
        text = f"{cap} · {bw}"
        if key == "host" and is_unified(hw):
            name, text = "CPU (same memory)", "shares the unified memory"
        elif key == "host":
            link = hw.pcie.name if hw.pcie else "host link"
            name = f"Host RAM ({'PCIe ' + link if hw.pcie else link})"
            text = text if lvl.capacity_bytes else f"{bw} to the GPU"
        out.append(Readout(f"level_{key}", name, lvl.bandwidth_bytes_per_s, "B/s", text,
                           f"{lvl.label}: capacity and bandwidth, whole chip ({lvl.source or 'catalogue'})"))
        u = f.level(key) if lvl.bandwidth_bytes_per_s else None
        out.append(Readout(f"use_{key}", "used", u, "", percent(u) if u is not None else "n/a",
                           f"Bytes/s through {name} ÷ its bandwidth, this {_step_word(f)}"
                           + ("" if u is not None else " (the catalogue has no bandwidth for it)")))
    return out


def _step_word(f: Flow) -> str:
    return "prefill" if f.phase == "prefill" else "decode step"


def chip_readouts(est: Estimate, f: Flow, hw: Hardware) -> dict[str, Readout]:
    """Every number the chip view shows, by the chip's key: model.readouts' own where one
    exists (the step's bytes and FLOPs of the current phase, tensor-core and link busy time,
    MFU), and the chip-only ones (levels and their use, memory blocks, the rate on every link)."""
    r = readouts(est)
    prefill = f.phase == "prefill"
    blocks = 1 if is_unified(hw) or not hw.hbm_stacks else hw.hbm_stacks
    out = {x.key: x for x in _level_readouts(hw, f)}
    items = {
        "level_tensor_cores": Readout(
            "level_tensor_cores", matrix_units_short(hw), f.peak_flops, "FLOP/s",
            (f"{hw.tensor_cores:,} · " if hw.tensor_cores else "") + f"{r['peak_flops'].text} "
            f"{est.compute_dtype.upper()}", r["peak_flops"].help),
        "use_tensor_cores": r["tensor_cores_busy"], "mfu": r["mfu"], "mean_context": r["mean_context"],
        "busy_words": Readout("busy_words", "legend", None, "", f"{matrix_units(hw)} busy",
                              "The legend's words for the busy share of the matrix units"),
        "link_busy": r["link_busy"],
        "memory_block": Readout("memory_block", "per block", hw.hbm_capacity_bytes / blocks, "B",
                                si(hw.hbm_capacity_bytes / blocks, "B"), f"{memory_name(hw)}: capacity per block drawn"),
        "units": Readout("units", f"{hw.unit_name}s", hw.units, "", f"×{hw.units:,} {hw.unit_name}s",
                         f"Streaming units on the chip ({hw.tensor_cores:,} tensor cores)"),
        "step_weights": r["weights_read_per_prefill" if prefill else "weights_read_per_step"],
        "step_kv": r["kv_written_per_prefill" if prefill else "kv_read_per_step"],
        "step_activations": r["activations_per_prefill" if prefill else "activations_per_step"],
        "step_flops": r["flops_per_prefill" if prefill else "flops_per_step"],
        "step_time": r["prefill_time" if prefill else "decode_time"],
        "chip_rate": Readout("chip_rate", f"on every link {'memory' if is_unified(hw) else 'HBM'} → cores",
                             f.hbm_bytes_per_s, "B/s", si(f.hbm_bytes_per_s, "B/s"),
                             "Bytes per step ÷ step time: the same bytes cross every level (conserved)"),
    }
    if f.link_bandwidth_bytes_per_s:
        items["link_bandwidth"] = Readout("link_bandwidth", f.link_name or "link", f.link_bandwidth_bytes_per_s,
                                          "B/s", si(f.link_bandwidth_bytes_per_s, "B/s"),
                                          "Link bandwidth per direction per GPU")
    out.update(items)
    return out
