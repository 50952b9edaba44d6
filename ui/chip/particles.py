"""A fixed-size pool of packets moving along polyline routes, advanced with numpy.

No Qt here: the view owns the routes (pixel polylines), the streams (which kind of packet
enters which routes at how many packets per second) and draws the positions this returns.

    route r      vertices V[r, 0..K-1] (padded by repeating the last one), cumulative
                 arc length C[r, k], and a speed per segment S[r, k] in px/s
    packet i     route[i], travelled distance d[i] (px), kind[i], lane[i] (px across the link)
    one step     d += S[route, segment(d)] · dt · rate;  packets past the end are retired;
                 each stream s accumulates a[s] += Φ[s] · dt · rate and spawns ⌊a[s]⌋ packets
                 on routes drawn from its route set into free slots of the pool
A full pool drops spawns: the number of packets alive never exceeds ``capacity``.
Each stream's accumulator starts at its own phase (golden-ratio steps, so streams do not spawn
in step); the random numbers come from numpy.random on the first spawn (importing it costs
~9 ms, which the first paint does not wait for).
"""
from __future__ import annotations

import numpy as np

GOLDEN_STEP = 0.6180339887498949      # start phases spread evenly over [0, 1)


class ParticleSystem:
    def __init__(self, capacity: int = 2400, seed: int = 0):
        self.capacity = int(capacity)
        self._seed = seed
        self._rng = None
        n = self.capacity
        self.alive = np.zeros(n, dtype=bool)
        self.route = np.zeros(n, dtype=np.int32)
        self.dist = np.zeros(n, dtype=np.float64)
        self.kind = np.zeros(n, dtype=np.int8)
        self.lane = np.zeros(n, dtype=np.float64)
        self.pos = np.zeros((n, 2), dtype=np.float64)
        self.verts = np.zeros((1, 2, 2))
        self.cum = np.zeros((1, 2))
        self.speed = np.ones((1, 1))
        self.lane_width = np.zeros(1)
        self.length = np.ones(1)
        self._seg_len = np.ones((1, 1))
        self._dir = np.zeros((1, 1, 2))
        self._normal = np.zeros((1, 1, 2))
        self.streams: list[tuple[int, np.ndarray]] = []   # (kind, route indices)
        self.rates = np.zeros(0)                          # packets per screen second, per stream
        self._acc = np.zeros(0)
        self.dropped = 0

    @property
    def rng(self) -> np.random.Generator:
        """The packets' random numbers (seeded), made on first use."""
        if self._rng is None:
            self._rng = np.random.default_rng(self._seed)
        return self._rng

    # ---------------------------------------------------------------- set-up
    def set_routes(self, polylines: list[np.ndarray], speeds: list[np.ndarray],
                   lane_widths: list[float]) -> None:
        """Replace the routes. Packets alive keep their place in proportion to the route length."""
        if not polylines:
            self.alive[:] = False
            return
        shapes = [(len(p), len(s)) for p, s in zip(polylines, speeds)]
        k = max(n for n, _ in shapes)
        r = len(polylines)
        verts = np.zeros((r, k, 2))
        speed = np.ones((r, k - 1))
        for n, m in dict.fromkeys(shapes):       # the routes of one shape at once (the chip has two)
            idx = [i for i, sh in enumerate(shapes) if sh == (n, m)]
            p = np.array([polylines[i] for i in idx], dtype=float)            # (routes, n, 2)
            verts[idx, :n] = p
            verts[idx, n:] = p[:, -1:]
            sp = np.array([speeds[i] for i in idx], dtype=float).reshape(len(idx), m)
            speed[idx, :n - 1] = sp
            speed[idx, n - 1:] = sp[:, -1:] if m else 1.0
        seg = np.diff(verts, axis=1)
        seg_len = np.hypot(seg[..., 0], seg[..., 1])
        safe = np.where(seg_len > 0, seg_len, 1.0)
        direction = seg / safe[..., None]
        normal = np.stack([-direction[..., 1], direction[..., 0]], axis=-1)
        cum = np.concatenate([np.zeros((r, 1)), np.cumsum(seg_len, axis=1)], axis=1)
        old_len = self.length
        self.verts, self.speed, self.cum = verts, np.maximum(speed, 1e-3), cum
        self._seg_len, self._dir, self._normal = safe, direction, normal
        self.length = np.maximum(cum[:, -1], 1e-6)
        self.lane_width = np.asarray(lane_widths, dtype=float)
        if self.alive.any():
            idx = np.flatnonzero(self.alive)
            frac = self.dist[idx] / old_len[np.minimum(self.route[idx], len(old_len) - 1)]
            self.route[idx] = self.route[idx] % r
            self.dist[idx] = np.clip(frac, 0.0, 0.999) * self.length[self.route[idx]]
            self.lane[idx] = np.clip(self.lane[idx], -0.5, 0.5)
        self._positions()

    def set_streams(self, streams: list[tuple[int, np.ndarray]]) -> None:
        """Streams: (kind, route indices). Rates are set with ``set_rates``."""
        self.streams = [(int(k), np.asarray(r, dtype=np.int32)) for k, r in streams]
        if len(self._acc) != len(self.streams):
            self._acc = (np.arange(1, len(self.streams) + 1) * GOLDEN_STEP) % 1.0
            self.rates = np.zeros(len(self.streams))

    def set_rates(self, rates) -> None:
        self.rates = np.maximum(np.asarray(rates, dtype=float), 0.0)

    # ---------------------------------------------------------------- one step
    def step(self, dt: float) -> None:
        """Advance every packet by ``dt`` screen seconds (already multiplied by the speed)."""
        if dt <= 0:
            return
        idx = np.flatnonzero(self.alive)
        if len(idx):
            r = self.route[idx]
            seg = self._segment(r, self.dist[idx])
            self.dist[idx] += self.speed[r, seg] * dt
            done = self.dist[idx] >= self.length[r]
            self.alive[idx[done]] = False
        self._spawn(dt)
        self._positions()

    def _segment(self, r: np.ndarray, d: np.ndarray) -> np.ndarray:
        inner = self.cum[r, 1:-1]                                   # (n, K-2) inner vertex distances
        return (d[:, None] >= inner).sum(axis=1) if inner.shape[1] else np.zeros(len(r), dtype=int)

    def _spawn(self, dt: float) -> None:
        if not self.streams:
            return
        self._acc += self.rates * dt
        counts = np.floor(self._acc).astype(int)
        total = int(counts.sum())
        if total == 0:
            return
        self._acc -= counts
        free = np.flatnonzero(~self.alive)
        if total > len(free):
            self.dropped += total - len(free)
            scale = len(free) / total
            counts = np.floor(counts * scale).astype(int)
            total = int(counts.sum())
            if total == 0:
                return
        slots = free[:total]
        kinds = np.empty(total, dtype=np.int8)
        routes = np.empty(total, dtype=np.int32)
        at = 0
        for (kind, rset), c in zip(self.streams, counts):
            if c <= 0 or len(rset) == 0:
                continue
            kinds[at:at + c] = kind
            routes[at:at + c] = rset[self.rng.integers(0, len(rset), size=c)]
            at += c
        slots, kinds, routes = slots[:at], kinds[:at], routes[:at]
        self.alive[slots] = True
        self.kind[slots] = kinds
        self.route[slots] = routes
        # spread a frame's spawns along the first segment so they do not clump
        self.dist[slots] = self.rng.random(at) * self.speed[routes, 0] * dt
        self.lane[slots] = self.rng.random(at) - 0.5

    def _positions(self) -> None:
        idx = np.flatnonzero(self.alive)
        if not len(idx):
            return
        r = self.route[idx]
        d = self.dist[idx]
        seg = self._segment(r, d)
        t = np.clip((d - self.cum[r, seg]) / self._seg_len[r, seg], 0.0, 1.0)
        p = self.verts[r, seg] + self._dir[r, seg] * (t * self._seg_len[r, seg])[:, None]
        p += self._normal[r, seg] * (self.lane[idx] * self.lane_width[r])[:, None]
        self.pos[idx] = p

    # ---------------------------------------------------------------- queries
    @property
    def count(self) -> int:
        return int(self.alive.sum())

    def positions(self, kind: int | None = None) -> np.ndarray:
        mask = self.alive if kind is None else (self.alive & (self.kind == kind))
        return self.pos[mask]

    def clear(self) -> None:
        self.alive[:] = False
        self._acc[:] = 0.0
