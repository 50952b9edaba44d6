"""Who runs: admission and preemption against the KV cache's blocks, for one replica's scheduler.

A mixin of model/serving/simulate._Sim (it reads and moves that state). A request is admitted when
fewer than max_running run, the step's token budget has room for its prompt (or, chunked, for a
chunk of it) and its blocks fit leaving the engine's watermark free:

    blocks(tokens) = ⌈tokens / block_tokens⌉
    admit i  ⇔  blocks(base_i + chunk) ≤ free − watermark × kv_blocks
                (preemption "none": blocks(L_i + O_i − shared), its whole output reserved)

When the decodes' new tokens need more blocks than are free, the newest running request is
evicted (recompute: its blocks freed, back to the queue's head to be prefilled again with what it
made; swap: its KV copied to host memory, own tokens × swap_s each way).
"""
from __future__ import annotations

import heapq

from model.serving.setup import CHUNKED

WAITING, PREFILL, DECODE, DONE = 1, 2, 3, 4      # a request's states


class Admission:
    # ------------------------------------------------------------------ preemption
    def preempt(self) -> bool:
        """Evict the newest running request; False when none is left."""
        while self.order:
            i = self.order.pop()
            st = self.state[i]
            if st == DECODE:
                made = self.gen[i] + (self.tau - self.tau0[i])
                own = self.bkey[i] + self.tau
                self.free += self._release_blocks_of_decode(i)
                self.gen[i] = made
                if self.lim.preemption == "swap":
                    self.swapped[i] = True
                    self._swap_time += own * self.swap_s
                    self.need[i] = 0
                else:
                    self.need[i] = self.L[i] + made - self.cached[i]
                    self.base[i] = self.cached[i] - self.share[i]
            elif st == PREFILL:
                self.prefilling.remove(i)
                self.free += self.held[i]
                self.held[i] = 0
                self.need[i] = self.L[i] + self.gen[i] - self.cached[i]
            else:
                continue
            self.done[i] = 0
            self.state[i] = WAITING
            self.pre[i] += 1
            self.waiting.appendleft(i)
            return True
        return False

    # ------------------------------------------------------------------ admission
    def _blocks(self, tokens: int) -> int:
        return -(-tokens // self.bs)

    def _admit_blocks(self, i: int, chunk: int) -> int:
        if self.lim.preemption == "none":
            return self._blocks(self.L[i] + self.O[i] - self.share[i])
        if self.swapped[i]:
            return self._blocks(self.L[i] + self.gen[i] - self.share[i])
        return self._blocks(self.base[i] + chunk)

    def running(self) -> int:
        return self.B + len(self.prefilling)

    def can_admit(self, budget_left: int) -> bool:
        if not self.waiting or self.running() >= self.max_running or self.preempted_now:
            return False
        if self.wpos and self.B:
            return False
        if self.lim.batching == "static" and self.running():
            return False
        i = self.waiting[0]
        if self.swapped[i]:
            return self._admit_blocks(i, 0) <= self.free - self.reserve
        need = self.need[i]
        if self.lim.prefill in CHUNKED:
            chunk = min(need, budget_left)
            if chunk <= 0:
                return False
        else:
            chunk = need
            if need > budget_left and self.running():
                return False
        return self._admit_blocks(i, chunk) <= self.free - self.reserve

    def resume_swapped(self, i: int) -> None:
        """A swapped-out decode comes back: its KV is copied in; it decodes on from where it was."""
        kv = self.L[i] + self.gen[i] - 1
        self._swap_time += (kv - self.share[i]) * self.swap_s
        self.swapped[i] = False
        self.state[i] = DECODE
        self.key[i] = kv - self.tau
        self.bkey[i] = kv - self.share[i] - self.tau
        self.tau0[i] = self.tau
        self.tauf[i] = self.tau + (self.O[i] - self.gen[i])
        self.B += 1
        self.K0 += self.key[i]
        self.cls[self.bkey[i] % self.bs] += 1
        heapq.heappush(self.heap, (self.tauf[i], self.ver[i], i))

    def decode_blocks(self, a: int) -> int:
        """Blocks the decodes open while each gains ``a`` tokens from τ."""
        if self.lim.preemption == "none" or not self.B:
            return 0
        bs, cls, tau = self.bs, self.cls, self.tau
        if a == 1:
            return cls[(-tau) % bs]
        return sum(cls[(-(tau + j)) % bs] for j in range(a))

