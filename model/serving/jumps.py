"""Many decode steps at once: the scheduler's runs of decode-only steps with nothing to admit.

Between events (a finish, an arrival that could join, the KV cache running out) every step has the
same decodes; only their contexts grow, by a tokens each per step. So k steps cost

    Σ_j [ G(B·q) + attention(C₀ + B·τ_j) ]          τ_j the tokens gained by step j

one numpy expression over j (or, for a handful of steps, a plain loop: numpy's per-call cost
exceeds the work), and the KV blocks they open are the per-(context mod block) counts read at the
tokens they cross. A mixin of model/serving/simulate._Sim: it reads and moves that state.
"""
from __future__ import annotations

import math

import numpy as np

from model.serving.setup import ALONE

JUMP_CAP = 1 << 14        # steps per jump at most (keeps its arrays small)
SMALL_JUMP = 24           # jumps this short run in plain Python


class DecodeJumps:
    def _take_stall(self) -> float:
        stall, self.stall = self.stall, 0.0
        return stall

    def can_jump(self) -> bool:
        if self.prefilling or not self.B:
            return False
        budget = self.budget - (0 if self.lim.prefill in ALONE else self.B * self.spec.q)
        return not self.can_admit(budget)

    def jump(self) -> bool:
        """Run decode-only steps up to the next event in one go; False when not even one fits.

        The horizon is the next finish, or the next arrival that could join (bounded first by the
        first step's time: later steps are never shorter, as the contexts only grow), or the step
        whose new KV blocks no longer fit."""
        tb, spec, B, tau = self.table, self.spec, self.B, self.tau
        q, e = spec.q, spec.expected
        k_fin = self.heap[0][0] - tau if self.heap else JUMP_CAP
        horizon = math.ceil(k_fin / e) + 1
        g = tb.gemm(B * q, False)
        entry = self.next_entry_s()
        arrival = (not self.waiting and entry < math.inf
                   and self.running() < self.max_running and self.lim.batching != "static")
        if arrival:
            wait = entry - self.t
            c0 = float(tb.cap(self.K0 + B * tau, B))
            dt0 = tb.finish_s(g + float(tb.attention(c0 + B * q, q * c0 + B * q * (q - 1) / 2.0, q * c0, False)))
            horizon = min(horizon, int(wait / dt0) + 2)
        n_steps = self.lim.scheduler_steps
        if n_steps > 1 and (self.waiting or arrival):
            horizon = min(horizon, n_steps - self.wpos)       # the scheduler may admit at the window's end
        limit = int(min(JUMP_CAP, max(1, horizon)))
        if limit <= SMALL_JUMP and spec.draft in ("none", "ngram"):
            return self._short_jump(limit, k_fin, g, wait if arrival else None)
        js = np.arange(limit + 1, dtype=np.int64)
        if e == 1.0:
            taus = tau + js
        else:
            taus = tau + (np.floor((self.ns + js) * e).astype(np.int64) - int(math.floor(self.ns * e)))
        steps_fin = int(np.searchsorted(taus, tau + k_fin, side="left"))      # τ reaches the finish
        k = max(1, min(limit, steps_fin))
        ctx = tb.cap(self.K0 + B * taus[:k].astype(float), B)
        dt = tb.finish(g + tb.attention(ctx + B * q, q * ctx + B * q * (q - 1) / 2.0, q * ctx, False))
        if spec.k:
            dt = dt + spec.draft_s(tb, float(B), ctx)
        cum = np.cumsum(dt)
        if arrival:
            k = min(k, int(np.searchsorted(cum, wait, side="left")) + 1)
        need = 0
        if self.lim.preemption != "none":
            toks = np.arange(tau, taus[k], dtype=np.int64)
            per_token = np.asarray(self.cls, dtype=np.int64)[(-toks) % self.bs]
            opened = np.cumsum(per_token)[taus[1:k + 1] - tau - 1]
            k_blk = int(np.searchsorted(opened, self.free, side="right"))
            if k_blk == 0:
                return False
            k = min(k, k_blk)
            need = int(opened[k - 1])
        span = float(cum[k - 1])
        gained = int(taus[k] - tau)
        self.last_step_s = float(dt[k - 1])
        self._log(span, k, B, 0, B * gained, B, self._take_stall())
        self.wpos = (self.wpos + k) % self.lim.scheduler_steps
        self.t += span
        self.free -= need
        self.ns += k
        self.tau += gained
        self.pop_finished()
        return True

    def _short_jump(self, limit: int, k_fin: int, g: float, wait: float | None) -> bool:
        """``jump`` for a few steps, in plain Python numbers (numpy's per-call cost exceeds the work)."""
        tb, B, q, bs, cls = self.table, self.B, self.spec.q, self.bs, self.cls
        e = self.spec.expected
        blocks = self.lim.preemption != "none"
        window = B * tb.window if tb.window else None
        tau, ns, span, need, k = self.tau, self.ns, 0.0, 0, 0
        base = self.K0 + B * tau
        while k < limit:
            a = 1 if e == 1.0 else int(math.floor((ns + 1) * e)) - int(math.floor(ns * e))
            if blocks:
                opened = cls[(-tau) % bs] if a == 1 else sum(cls[(-(tau + j)) % bs] for j in range(a))
                if need + opened > self.free:
                    break
                need += opened
            c = float(base + B * (tau - self.tau))
            if window is not None and c > window:
                c = float(window)
            step = tb.finish_s(g + tb.attention_s(c + B * q, q * c + B * q * (q - 1) / 2.0, q * c, False))
            span += step
            tau += a
            ns += 1
            k += 1
            if tau - self.tau >= k_fin or (wait is not None and span >= wait):
                break
        if k == 0:
            return False
        gained = tau - self.tau
        self.last_step_s = step
        self._log(span, k, B, 0, B * gained, B, self._take_stall())
        self.wpos = (self.wpos + k) % self.lim.scheduler_steps
        self.t += span
        self.free -= need
        self.ns = ns
        self.tau = tau
        self.pop_finished()
        return True

