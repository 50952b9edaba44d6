"""One replica's scheduler, step by step: continuous batching on the step table's times.

Each step the scheduler (vLLM V1's order, which the other engines' in-flight batchers share):
  1. gives every running decode its q tokens; when the KV cache lacks the blocks their new tokens
     need, it preempts the newest running request (recompute: its blocks are freed and it goes
     back to the head of the queue, to be prefilled again with what it generated; swap: its KV
     moves to host memory over the host link and back later);
  2. continues the prompts being prefilled, then — unless step 1 preempted something (vLLM V0 and V1,
     SGLang: a step that had to evict admits nothing new, so an evicted request is not re-admitted
     at once to be evicted again) and, with multi-step scheduling, only at the end of each window of
     N decode steps — admits waiting requests in arrival order while
     fewer than max_running run, the step's token budget lasts and their blocks fit leaving the
     engine's watermark of blocks free (vLLM V0: 1%) (chunked:
     a prompt takes what is left of the budget; mixed: whole prompts join the decodes; separate:
     a step of prompts alone, before any decode; chunked-separate (SGLang, whose scheduler runs a
     prefill batch whenever one can be formed and never mixes it with decodes): a step of prompt
     chunks alone, the whole budget theirs, before any decode; preemption "none": a request is admitted only
     when its prompt and whole output fit, so nothing is ever evicted);
  3. costs the step (model/serving/steptable.py) and advances the clock: a prompt whose last
     chunk ran emits its first token at the end of the step; a decode gains a tokens
     (a = 1, or ⌊(n+1)E⌋ − ⌊nE⌋ with speculation, E the expected tokens per verified step).
     A step of prompts alone (prefill "separate" or "chunked-separate") while decodes wait is a stall: its time is added
     to the gap before those decodes' next token (their ITL), as a streaming client sees it.
An overlap scheduler (SGLang's default) forms the next step while the GPU runs the current one, so
the step that starts when one ends was formed as that one began: while the GPU is busy, a request
that enters during a step joins the step after next (``release``).

Runs of decode-only steps with nothing to admit are taken in one jump to the next event (a finish,
an arrival that could be admitted, the KV cache running out): model/serving/jumps.py. The decodes are never walked one by one: the running batch is
kept as the sum of its contexts (context = key + τ, τ the tokens every decode has gained so far)
and a count per key mod block size (which of them open a new block at τ), so a step costs O(1)
in the batch size.
"""
from __future__ import annotations

import heapq
import math
from array import array
from collections import deque

import numpy as np

from model.errors import ScenarioError
from model.serving.budget import budget, least_events, over_budget, refuse_if_too_long
from model.serving.admission import DECODE, DONE, PREFILL, WAITING, Admission
from model.serving.jumps import DecodeJumps
from model.serving.limits import SchedulerLimits
from model.serving.setup import ALONE, CHUNKED
from model.serving.steptable import StepTable
from model.serving.workload import Requests
from model.values import frozen
from model.work import cancel_point

# The most scheduler events (steps or jumps) a run may log, and the least a load needs, known
# before it runs: model/serving/budget.py (a load past it is refused at once, in one line).


@frozen
class Speculation:
    """Per decode step: q tokens verified, E gained on average, the drafting's cost."""

    q: int = 1
    expected: float = 1.0
    draft: str = "none"                 # none | ngram | mtp | model
    draft_table: StepTable | None = None
    k: int = 0

    def draft_s(self, table: StepTable, batch: float, ctx_sum):
        """Time to draft k tokens for ``batch`` sequences whose contexts sum to ``ctx_sum`` (arrays ok)."""
        if self.k == 0 or self.draft in ("none", "ngram"):
            return 0.0 * ctx_sum
        if self.draft == "mtp":           # one transformer block and the shared LM head per draft token
            body = table.gemm(batch, False) + table.attention(ctx_sum + batch, ctx_sum, ctx_sum, False)
            head = float(np.interp(batch, table.tokens, table.lm_head_s))
            return self.k * ((body - head) / table.layers + head)
        return self.k * self.draft_table.decode_step_s(batch, ctx_sum / max(batch, 1.0))


@frozen(eq=False)
class ReplicaRun:
    """Per request (index = the replica's request order) and the step log."""

    sent_s: np.ndarray
    admitted_s: np.ndarray
    first_token_s: np.ndarray
    finish_s: np.ndarray
    preemptions: np.ndarray
    step_start_s: np.ndarray      # one entry per step, or per jump of decode-only steps
    step_s: np.ndarray            # its duration
    step_count: np.ndarray        # steps it stands for
    step_running: np.ndarray      # sequences in it (decodes + prompts)
    step_prompt_tokens: np.ndarray
    step_output_tokens: np.ndarray
    step_decode_steps: np.ndarray   # decodes × steps: the tokens whose gap is this entry's mean step
    step_stall_s: np.ndarray      # prompt-only steps the decodes of this entry waited through before it
    kv_blocks: int


class _Sim(DecodeJumps, Admission):
    """The state of one replica's run (plain Python numbers and lists: a step is a few dozen operations)."""

    def __init__(self, table: StepTable, lim: SchedulerLimits, req: Requests, kv_blocks: int, concurrency: int,
                 spec: Speculation, swap_s_per_token: float):
        self.table, self.lim, self.spec = table, lim, spec
        n = req.count
        self.n = n
        # per request: inputs and outputs in typed arrays (8 bytes each: 100 000 requests stay small),
        # the state the scheduler touches every step in lists
        self.arr = array("d", req.arrival_s.tobytes())
        self.L = array("q", req.input_len.astype(np.int64).tobytes())
        self.O = array("q", req.output_len.astype(np.int64).tobytes())
        self.cached = array("q", req.cached.astype(np.int64).tobytes())
        shared = req.shared_prefix
        self.share = array("q", (np.where(req.cached >= shared, shared, 0) if shared > 0
                                 else np.zeros(n, dtype=np.int64)).astype(np.int64).tobytes())
        self.bs = lim.block_tokens
        self.max_running = lim.max_running or 1 << 30
        self.budget = lim.max_tokens_per_step
        self.cap = concurrency if concurrency > 0 else 1 << 62
        self.swap_s = swap_s_per_token
        self.free = kv_blocks - (-(-shared // self.bs) if shared else 0)
        self.kv_blocks = kv_blocks
        self.t = 0.0
        self.ns = 0                    # decode steps run
        self.tau = 0                   # tokens each decode gained so far: ⌊ns · E⌋
        self.state = [0] * n
        self.key = [0] * n             # decode: context − τ
        self.bkey = [0] * n            # decode: own KV tokens − τ (blocks)
        self.tauf = [0] * n
        self.ver = [0] * n
        self.gen = [0] * n             # output tokens made (at the last prefill or preemption)
        self.tau0 = [0] * n
        self.need = [0] * n            # prompt tokens to compute in this prefill
        self.done = [0] * n
        self.base = [0] * n            # own tokens already in the cache when the prefill starts
        self.held = [0] * n            # blocks held while prefilling (or reserved: preemption "none")
        self.swapped = [False] * n
        nan = array("d", [math.nan])
        self.sent, self.admit, self.first, self.fin = nan * n, nan * n, nan * n, nan * n
        self.pre = array("q", bytes(8 * n))
        self.B = 0
        self.K0 = 0
        self.cls = [0] * self.bs
        self.heap: list = []
        self.waiting: deque = deque()
        self.prefilling: list[int] = []
        self.order: list[int] = []     # running, in admission order (victims from the end)
        self.next_arrival = 0
        self.in_flight = 0
        self.freed_at = 0.0
        self.finished = 0
        self.log = [array("d") for _ in range(8)]
        self._swap_time = 0.0
        self.stall = 0.0               # prompt-only steps run while decodes waited (added to their next gap)
        self.wpos = 0                  # multi-step: decode steps into the scheduler's window (admits at 0)
        self.preempted_now = False     # this step evicted a request: it admits nothing new
        self.reserve = lim.watermark * kv_blocks
        self.front = deque()           # (time it is ready, request): the server's front end, one at a time
        self.front_free = 0.0          # when the front end is done with the request it is on
        self.last_step_s = 0.0         # the step that just ended (an overlap scheduler formed the next during it)
        self.front_cost = lim.frontend_s > 0 or lim.tokenize_s_per_token > 0 or lim.overlap_schedule

    # ------------------------------------------------------------------ arrivals and finishes
    def release(self) -> None:
        """Sent requests pass the server's front end (HTTP, tokenising: one at a time, each
        frontend_s + prompt tokens × tokenize_s_per_token) and then wait for the scheduler. An
        overlap scheduler (SGLang) formed the step that starts now while the last one ran: while the
        GPU is busy it takes only the requests ready when that step began (t − last step)."""
        arr, t = self.arr, self.t
        while self.next_arrival < self.n and self.in_flight < self.cap and arr[self.next_arrival] <= t:
            i = self.next_arrival
            self.next_arrival += 1
            self.in_flight += 1
            self.sent[i] = max(arr[i], self.freed_at)
            self.need[i] = self.L[i] - self.cached[i]
            self.base[i] = self.cached[i] - self.share[i]
            if self.front_cost:
                ready = max(self.sent[i], self.front_free) + self.lim.frontend_s + self.L[i] * self.lim.tokenize_s_per_token
                self.front_free = ready
                self.front.append((ready, i))
            else:
                self.state[i] = WAITING
                self.waiting.append(i)
        front = self.front
        if self.lim.overlap_schedule and (self.B or self.prefilling):
            t -= self.last_step_s      # the next step was formed as the last one began: later entries wait one more
        while front and front[0][0] <= t:
            i = front.popleft()[1]
            self.state[i] = WAITING
            self.waiting.append(i)

    def next_entry_s(self) -> float:
        """The earliest time a request not yet waiting can join the queue (inf: none can)."""
        nxt = self.front[0][0] if self.front else math.inf
        if self.next_arrival < self.n and self.in_flight < self.cap:
            nxt = min(nxt, self.arr[self.next_arrival])
        return nxt

    def _finish(self, i: int) -> None:
        self.state[i] = DONE
        self.fin[i] = self.t
        self.finished += 1
        if self.in_flight == self.cap:
            self.freed_at = self.t
        self.in_flight -= 1

    def _release_blocks_of_decode(self, i: int) -> int:
        blocks = -(-(self.bkey[i] + self.tau) // self.bs)
        self.B -= 1
        self.K0 -= self.key[i]
        self.cls[self.bkey[i] % self.bs] -= 1
        self.ver[i] += 1
        return blocks

    def pop_finished(self) -> None:
        heap, tau = self.heap, self.tau
        while heap and heap[0][0] <= tau:
            _, ver, i = heapq.heappop(heap)
            if ver != self.ver[i] or self.state[i] != DECODE:
                continue
            blocks = self._release_blocks_of_decode(i)
            self.free += self.held[i] if self.lim.preemption == "none" else blocks
            self.held[i] = 0
            self._finish(i)

    def start_decode(self, i: int) -> None:
        """Prompt i's prefill is done: its first (or next) token comes at the end of this step."""
        g = self.gen[i] + 1
        kv = self.L[i] + self.gen[i]
        if math.isnan(self.first[i]):
            self.first[i] = self.t
        self.gen[i] = g
        if g >= self.O[i]:
            self.free += self.held[i]
            self.held[i] = 0
            self._finish(i)
            return
        self.state[i] = DECODE
        self.key[i] = kv - self.tau
        self.bkey[i] = kv - self.share[i] - self.tau
        self.tau0[i] = self.tau
        self.tauf[i] = self.tau + (self.O[i] - g)
        self.B += 1
        self.K0 += self.key[i]
        self.cls[self.bkey[i] % self.bs] += 1
        if self.lim.preemption != "none":     # the prefill's blocks become the decode's (counted from bkey)
            self.held[i] = 0
        heapq.heappush(self.heap, (self.tauf[i], self.ver[i], i))

    # ------------------------------------------------------------------ one step
    def advance_tokens(self) -> int:
        e = self.spec.expected
        return 1 if e == 1.0 else int(math.floor((self.ns + 1) * e)) - int(math.floor(self.ns * e))

    def step(self) -> None:
        lim, q = self.lim, self.spec.q
        self._swap_time = 0.0
        a = self.advance_tokens()
        if not self.B:
            self.wpos = 0              # nothing decoding: a new multi-step window starts with the next decodes
        need = self.decode_blocks(a)
        while need > self.free and self.preempt():
            self.preempted_now = True
            need = self.decode_blocks(a)
        separate, chunked = lim.prefill in ALONE, lim.prefill in CHUNKED
        budget = self.budget - (0 if separate else self.B * q)
        chunks: list[tuple[int, int, int]] = []          # (request, new tokens, tokens before them)
        new_prompts = 0
        if chunked:
            for i in list(self.prefilling):
                if budget <= 0:
                    break
                n = min(self.need[i] - self.done[i], budget)
                if lim.preemption != "none":
                    extra = self._blocks(self.base[i] + self.done[i] + n) - self.held[i]
                    if extra > self.free:
                        n = (self.held[i] + self.free) * self.bs - self.base[i] - self.done[i]
                        n = min(n, self.need[i] - self.done[i], budget)
                        if n <= 0:
                            continue
                        extra = self._blocks(self.base[i] + self.done[i] + n) - self.held[i]
                    self.free -= extra
                    self.held[i] += extra
                chunks.append((i, n, self.L[i] + self.gen[i] - self.need[i] + self.done[i]))
                budget -= n
        while self.can_admit(budget):
            i = self.waiting.popleft()
            self.order.append(i)
            if math.isnan(self.admit[i]):
                self.admit[i] = self.t
            blocks = self._admit_blocks(i, min(self.need[i], max(budget, 0)) if chunked else self.need[i])
            self.free -= blocks
            if self.swapped[i]:
                self.resume_swapped(i)
                continue
            self.held[i] = blocks
            n = min(self.need[i], budget) if chunked else self.need[i]
            self.state[i] = PREFILL
            self.done[i] = 0
            self.prefilling.append(i)
            chunks.append((i, n, self.L[i] + self.gen[i] - self.need[i]))
            budget -= n
            new_prompts += 1
        self.preempted_now = False
        dec = 0 if (separate and chunks) else self.B
        self.cost_and_advance(dec, a, chunks, new_prompts, need if dec else 0)

    def cost_and_advance(self, dec: int, a: int, chunks, new_prompts: int, need: int) -> None:
        tb, q = self.table, self.spec.q
        prompt_tokens = sum(n for _, n, _ in chunks)
        prefill = prompt_tokens > 0
        ctx = float(tb.cap(self.K0 + dec * self.tau, dec)) if dec else 0.0
        kv, pairs, spairs = ctx + dec * q, q * ctx + dec * q * (q - 1) / 2.0, q * ctx
        for _, n, p in chunks:
            pp, sp = tb.chunk_pairs(n, p)
            kv += p + n
            pairs += pp
            spairs += sp
        dt = tb.finish_s(tb.gemm(dec * q + prompt_tokens, prefill) + tb.attention_s(kv, pairs, spairs, prefill), prefill)
        if new_prompts:
            dt += tb.request_overhead_s
        if dec and self.spec.k:
            dt += float(self.spec.draft_s(tb, float(dec), ctx))
        dt += self._swap_time
        stall = 0.0
        if dec:
            stall, self.stall = self.stall, 0.0
        elif self.B:                  # prompts alone while decodes wait: their next token comes later
            self.stall += dt
        self._log(dt, 1, dec + len(chunks), prompt_tokens, dec * a + len(chunks), dec, stall)
        self.t += dt
        self.last_step_s = dt
        for i, n, _ in chunks:
            self.done[i] += n
            if self.done[i] >= self.need[i]:
                self.prefilling.remove(i)
                self.start_decode(i)
        if dec:
            self.free -= need
            self.ns += 1
            self.tau += a
            self.wpos = (self.wpos + 1) % self.lim.scheduler_steps
            self.pop_finished()

    def _log(self, dt: float, steps: int, running: int, prompt_tokens: int, out_tokens: float, decodes: int,
             stall: float = 0.0) -> None:
        lg = self.log
        lg[0].append(self.t)
        lg[1].append(dt)
        lg[2].append(steps)
        lg[3].append(running)
        lg[4].append(prompt_tokens)
        lg[5].append(out_tokens)
        lg[6].append(decodes * steps)
        lg[7].append(stall)

    # ------------------------------------------------------------------ the run
    def run(self) -> None:
        allowed = budget(self.n)
        while self.finished < self.n:
            events = len(self.log[0])
            if events > allowed or not events & 127:       # the budget's backstop, its pace, a cancel point
                why = over_budget(events, self.finished, self.n)
                if why:
                    raise ScenarioError(why)
                cancel_point()
            self.release()
            if not self.waiting and not self.B and not self.prefilling:
                nxt = self.next_entry_s()
                if nxt == math.inf:
                    break
                self.t = max(self.t, nxt)
                continue
            if self.can_jump() and self.jump():
                continue
            before = (self.finished, self.t)
            self.step()
            if (self.finished, self.t) == before and not self.B and not self.prefilling:
                raise RuntimeError("the scheduler is stuck: a request can never be admitted")


def simulate_replica(table: StepTable, lim: SchedulerLimits, req: Requests, kv_blocks: int, concurrency: int = 0,
                     spec: Speculation = Speculation(), swap_s_per_token: float = 0.0) -> ReplicaRun:
    """Run ``req`` through one replica (requests sorted by arrival). A load whose least number of
    events (model/serving/budget.py) is past the budget is refused before anything runs."""
    shared = -(-req.shared_prefix // lim.block_tokens) if req.shared_prefix else 0
    refuse_if_too_long(least_events(req.input_len - req.cached, req.output_len, req.input_len,
                                    tokens_per_step=lim.max_tokens_per_step, chunked=lim.prefill in CHUNKED,
                                    max_running=lim.max_running, kv_blocks=kv_blocks, block_tokens=lim.block_tokens,
                                    shared_blocks=shared, concurrency=concurrency, expected=spec.expected), req.count)
    sim = _Sim(table, lim, req, kv_blocks, concurrency, spec, swap_s_per_token)
    sim.run()
    def f(a, dtype=float):
        return np.frombuffer(a, dtype=dtype).copy() if len(a) else np.zeros(0, dtype=dtype)
    lg = [f(x) for x in sim.log]
    return ReplicaRun(f(sim.sent), f(sim.admit), f(sim.first), f(sim.fin), f(sim.pre, np.int64),
                      lg[0], lg[1], lg[2], lg[3], lg[4], lg[5], lg[6], lg[7], kv_blocks)
