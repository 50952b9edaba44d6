"""The one mapping from the model's bytes per second to the chip view's packets and speeds.

The chip view slows the GPU down by a time scale T (chip seconds per screen second) and
draws bytes as packets. Everything it shows about packets comes from here (pure, no Qt):

    time scale          T = flow.time_scale × speed                      [chip s / screen s]
    packet size         P = HBM peak B/s × T / R_CHIP                    [B]
                        (HBM at its peak carries R_CHIP packets per screen second)
    weights per packet  P / bytes per weight
    in-chip flux        Φ(kind) = R_CHIP × bytes/s(kind) / HBM peak B/s  [packets / screen s]
                        the same Φ crosses every link HBM → tensor cores (bytes are conserved)
    packet speed        v(level) = v₀ × clamp((B/s(level) / HBM B/s × stacks / SMs)^0.35, 0.6, 8)
                        a packet moves faster on a wider link, so density = flux / speed ∝ use:
                        a crowded link is a busy link
    all-reduce flux     R_LINK × link use × GPUs drawn; its packet P_link = link B/s × T / R_LINK
    one step on screen  step time / T                                    [screen s]
"""
from __future__ import annotations

import re
from typing import Sequence

from model.readouts.flow import Flow
from model.readouts.format import duration, si
from model.values import frozen

R_CHIP = 200.0        # packets per screen second on the HBM links when HBM runs at its peak
R_LINK = 45.0         # all-reduce packets per screen second per GPU when its link is saturated
MAX_TILES = 8         # GPUs drawn in the cluster, at most
SPEED_MIN, SPEED_MAX, SPEED_EXPONENT = 0.6, 8.0, 0.35
V0_PER_H = 0.17       # v₀: an HBM pipe's packet speed, in body heights per screen second
LINK_V_PER_H = 0.1    # all-reduce packets between a GPU tile and the switch
ACROSS_S = 0.35       # a packet crosses L2 sideways in at most this many screen seconds
# the level each segment of a chip route runs through: HBM pipe, into L2, across L2, out of L2,
# L2 → SM pipe, shared memory, registers, into the tensor cores
ROUTE_LEVELS = ("hbm", "l2", "across", "l2", "l2", "smem", "registers", "registers")


@frozen
class PacketScale:
    """The chip view's packets for one Flow at one speed."""

    chip_s_per_screen_s: float
    packet_bytes: float                      # one in-chip packet
    weights_per_packet: float
    link_packet_bytes: float | None          # one all-reduce packet (None without a tp link)
    rates: tuple[float, float, float, float]  # packets per screen second: weights, KV, activations, all-reduce
    step_screen_s: float                     # one step of the flow, on screen

    @property
    def slowdown(self) -> float:
        """How many times slower than the chip the screen runs (1 / T)."""
        return 1.0 / self.chip_s_per_screen_s


def tiles_drawn(gpus: int) -> int:
    """GPU tiles the cluster panel draws: none for one GPU, else up to MAX_TILES."""
    return min(gpus, MAX_TILES) if gpus > 1 else 0


def packet_scale(f: Flow, speed: float = 1.0) -> PacketScale:
    """Packet size, packet rates per kind and the time scale for ``f`` at ``speed``×."""
    t = f.time_scale * float(speed)
    hbm_bw = f.link("hbm_l2").capacity_bytes_per_s or 1.0
    chip = f.link("hbm_l2").bytes_per_s
    packet = hbm_bw * t / R_CHIP
    ar = 0.0
    link_packet = None
    if f.interconnect is not None:
        ar = R_LINK * f.interconnect.utilisation * tiles_drawn(f.gpus)
        if f.link_bandwidth_bytes_per_s:
            link_packet = f.link_bandwidth_bytes_per_s * t / R_LINK
    return PacketScale(
        chip_s_per_screen_s=t, packet_bytes=packet, weights_per_packet=packet / (f.weight_bits / 8.0),
        link_packet_bytes=link_packet,
        rates=(R_CHIP * chip[0] / hbm_bw, R_CHIP * chip[1] / hbm_bw, R_CHIP * chip[2] / hbm_bw, ar),
        step_screen_s=f.step_s / t)


def speed_factor(f: Flow, level: str, stacks: int, sms: int) -> float:
    """Packet speed on ``level``'s drawn pipes relative to an HBM pipe's. Each of the ``sms``
    drawn SM pipes stands for 1/sms of the level's bandwidth, each of the ``stacks`` HBM pipes
    for 1/stacks of HBM's; a level without a bandwidth in the catalogue counts as 10× HBM."""
    limit = {"hbm": "hbm_l2", "l2": "l2_smem", "smem": "smem_reg", "registers": "reg_tc"}[level]
    bw = f.link(limit).capacity_bytes_per_s
    hbm_bw = f.link("hbm_l2").capacity_bytes_per_s
    ratio = (bw / hbm_bw) * (max(1, stacks) / max(1, sms)) if bw and hbm_bw else 10.0
    return min(SPEED_MAX, max(SPEED_MIN, ratio ** SPEED_EXPONENT))


def chip_route_speeds(f: Flow, body_h_px: float, stacks: int, sms: int, across_px: float) -> tuple[float, ...]:
    """Packet speed [px / screen s] on each segment of a chip route (ROUTE_LEVELS order)."""
    return chip_routes_speeds(f, body_h_px, stacks, sms, (across_px,))[0]


def chip_routes_speeds(f: Flow, body_h_px: float, stacks: int, sms: int,
                       across_px: Sequence[float]) -> list[tuple[float, ...]]:
    """``chip_route_speeds`` for many routes that differ only in the length of their run
    along L2 (``across_px``): the levels' speeds are worked out once. The run along L2 goes
    at L2's speed or faster, so that it takes at most ACROSS_S screen seconds."""
    v0 = V0_PER_H * body_h_px
    v = {k: v0 * speed_factor(f, k, stacks, sms) for k in ("l2", "smem", "registers")}
    v["hbm"] = v0
    out = []
    for a in across_px:
        v["across"] = max(v["l2"], a / ACROSS_S)
        out.append(tuple(v[k] for k in ROUTE_LEVELS))
    return out


def link_route_speed(body_h_px: float) -> float:
    """All-reduce packet speed between a tile and the switch [px / screen s]."""
    return LINK_V_PER_H * body_h_px


def step_word(f: Flow) -> str:
    return "prefill" if f.phase == "prefill" else "decode step"


def scale_forms(f: Flow, ps: PacketScale) -> tuple[list[str], str]:
    """The control bar's time-scale text, longest form first, and its tooltip."""
    t, slow = duration(ps.chip_s_per_screen_s), si(ps.slowdown, "").strip()
    forms = [f"1 s on screen = {t} on chip ({slow}× slower)", f"1 s = {t} on chip ({slow}× slower)",
             f"1 s = {t} chip ({slow}×)", f"1 s = {t} chip"]
    tip = (f"1 s on screen = {t} on chip ({slow}× slower); one {step_word(f)} = {duration(f.step_s)} on chip "
           f"= {ps.step_screen_s:.2g} s on screen")
    return forms, tip


def packet_texts(ps: PacketScale) -> dict[str, str]:
    """The legend's packet sizes, formatted."""
    out = {"packet": si(ps.packet_bytes, "B"), "weights_per_packet": si(ps.weights_per_packet, "").strip()}
    if ps.link_packet_bytes is not None:
        out["link_packet"] = si(ps.link_packet_bytes, "B")
    return out


def shorter_sizes(s: str) -> list[str]:
    """'16.0 GB' -> ['16.0 GB', '16 GB', '16G']: the same number in less room (formatting only)."""
    forms = [s]
    m = re.fullmatch(r"(\d+)(?:\.(\d+))? (\S*?)B", s)
    if m:
        whole, frac, prefix = m.groups()
        if frac and set(frac) == {"0"}:
            forms.append(f"{whole} {prefix}B")
        forms.append(f"{whole}{prefix or 'B'}")
    return forms
