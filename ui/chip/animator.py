"""The chip's motion, without Qt: targets that ease, the token clock, and the particle pool.

    targets    packets/s per kind, tensor-core busy, use per level (from model.readouts.flow and
               model.readouts.chip); a scenario change eases them over EASE_S (smoothstep)
               in wall time, so the flow glides rather than restarts
    clock      phase += screen dt × T / step time; each whole phase is one step of the flow
               (a decode step: batch tokens; a prefill pass: batch × prompt tokens)
    particles  ui.chip.particles.ParticleSystem, advanced by screen dt × speed
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from model.readouts.chip import PacketScale, chip_routes_speeds, link_route_speed
from model.readouts.flow import Flow
from ui.chip.layout import ChipLayout, chip_routes
from ui.chip.particles import ParticleSystem

K_WEIGHTS, K_KV, K_ACT, K_AR = 0, 1, 2, 3
POOL = 2400           # packets alive, at most, whatever the scenario
EASE_S = 0.3
MAX_DT = 0.05


def ease(t: float) -> float:
    t = min(1.0, max(0.0, t))
    return t * t * (3.0 - 2.0 * t)


@dataclass
class Targets:
    """What eases: packets/s per stream, tensor-core busy, level use, link busy."""

    rates: np.ndarray = field(default_factory=lambda: np.zeros(4))
    busy: float = 0.0
    levels: np.ndarray = field(default_factory=lambda: np.zeros(7))   # host hbm l2 smem regs tc link

    def copy(self) -> "Targets":
        return Targets(self.rates.copy(), self.busy, self.levels.copy())

    @staticmethod
    def lerp(a: "Targets", b: "Targets", t: float) -> "Targets":
        return Targets(a.rates + (b.rates - a.rates) * t, a.busy + (b.busy - a.busy) * t,
                       a.levels + (b.levels - a.levels) * t)

    @staticmethod
    def of(f: Flow, ps: PacketScale) -> "Targets":
        lv = dict(f.utilisation)
        levels = np.array([lv["host"], lv["hbm"], lv["l2"], lv["smem"], lv["registers"], f.tensor_busy,
                           f.link_busy])
        return Targets(np.array(ps.rates, dtype=float), f.tensor_busy, levels)


class Animator:
    def __init__(self, seed: int = 0):
        self.particles = ParticleSystem(POOL, seed=seed)
        self.cur = Targets()
        self._from = Targets()
        self._to = Targets()
        self._ease_t = EASE_S
        self.phase = 0.0
        self.steps = 0
        self.tokens = 0
        self.frames = 0

    @property
    def easing(self) -> bool:
        return self._ease_t < EASE_S

    def retarget(self, f: Flow, ps: PacketScale, animate: bool) -> None:
        """New targets; glide to them over EASE_S when ``animate``, else jump."""
        self._to = Targets.of(f, ps)
        if animate:
            self._from = self.cur.copy()
            self._ease_t = 0.0
        else:
            self._from = self._to.copy()
            self.cur = self._to.copy()
            self._ease_t = EASE_S
        self.particles.set_rates(self.cur.rates)

    def set_routes(self, lay: ChipLayout, f: Flow, routes: tuple | None = None) -> None:
        """Routes through ``lay`` (``routes``: ui.chip.layout.chip_routes(lay), when already worked
        out); packet speed per segment grows with its level's bandwidth."""
        chip, chip_lanes, links, link_lanes = routes if routes is not None else chip_routes(lay)
        H = lay.height - lay.header.bottom
        n_mem, n_sm = len(lay.memory_pipes_x), len(lay.sms)
        speeds = [np.array(v) for v in
                  chip_routes_speeds(f, H, n_mem, n_sm, [abs(poly[3][0] - poly[2][0]) for poly in chip])]
        speeds += [np.array([link_route_speed(H)])] * len(links)
        self.particles.set_routes(chip + links, speeds, chip_lanes + link_lanes)
        chip_idx = np.arange(len(chip))
        link_idx = np.arange(len(chip), len(chip) + len(links))
        self.particles.set_streams([(K_WEIGHTS, chip_idx), (K_KV, chip_idx), (K_ACT, chip_idx), (K_AR, link_idx)])
        self.particles.set_rates(self.cur.rates)

    def ease_step(self, dt: float) -> bool:
        """Advance the easing by ``dt`` wall seconds; True when the targets moved."""
        if not self.easing:
            return False
        self._ease_t += dt
        self.cur = Targets.lerp(self._from, self._to, ease(self._ease_t / EASE_S))
        self.particles.set_rates(self.cur.rates)
        return True

    def run(self, dt: float, speed: float, f: Flow) -> int:
        """Move packets and the clock by ``dt`` screen seconds at ``speed``×; returns steps completed."""
        sim = dt * speed
        self.particles.step(sim)
        self.phase += sim * f.time_scale / f.step_s
        if self.phase < 1.0:
            return 0
        n = int(self.phase)
        self.phase -= n
        self.steps += n
        self.tokens += n * f.tokens_per_step
        return n

    def frames_to_finish_step(self, f: Flow, chip_s_per_screen_s: float) -> tuple[int, float]:
        """(frames, screen seconds) to the end of the current step, in 60 Hz frames (≤ 600)."""
        remaining = max(1e-6, (1.0 - self.phase)) * f.step_s / chip_s_per_screen_s
        return int(min(600, max(1, math.ceil(remaining / (1 / 60))))), remaining

    def finish_step(self) -> None:
        """Rounding left the step a hair short: complete it."""
        self.phase = 1.0
