"""Steady-state serving of one replica shape, vectorised over batch cap × chunk × speculation.

With B sequences running at mean context c̄ = L + O/2 (q tokens verified per decode, E gained),
each step makes B·E output tokens and finishes λ = B·E/O requests, whose places are taken by new
prompts at once (the engines admit waiting prompts every step): p = λ·L prompt tokens per step.
A prompt goes through in m = ⌈L / min(C − B·q, L)⌉ chunks (C the step's token budget). With
λ·m ≥ 1 every step carries prompt tokens, n = p of them (f = 1); else a share f = λ·m of the
steps carries one chunk of n = L/m tokens. Feasible while p ≤ C − B·q (l = min(n, L) below):

    decode step   s_d = G_dec(B·q) + attn(B(c̄ + q), q·B·c̄)             (the step table)
    mixed step    s_m = G_pre(B·q + n) + attn(B(c̄ + q) + (n/l)(L + l)/2, q·B·c̄ + n·L/2)
                        + request overhead × n/l
    mean step     s   = s_d + f·(s_m − s_d) + drafting                   feasible while f ≤ 1
    TPOT          = s / E;     speed per user = E / s tokens/s;  TTFT = m · s_m
    per replica   = B·E / s tokens/s;   per GPU = that / GPUs per replica;  capacity = per replica / O req/s
    fits          ⇔ B·(L + O) ≤ KV tokens the replica holds (no preemption at the cap)
A serving run (model/serving) then gives the percentiles of the frontier's points.
"""
from __future__ import annotations

import numpy as np

from model.catalog.active import default_efficiency
from model.catalog.parts import Catalog
from model.errors import ScenarioError
from model.physics.memory import kv_bytes_per_token
from model.physics.scenario import ResolvedScenario
from model.serving.parallel import expert_parallel_table
from model.planning.space import Group, PlanRequest, axis, resolve_group
from model.serving.limits import mtp_heads
from model.serving.run import kv_room
from model.serving.setup import expected_tokens_per_step
from model.serving.simulate import Speculation
from model.serving.steptable import StepTable, step_table
from model.values import frozen


@frozen(eq=False)
class GroupPoints:
    """One group's points (arrays, index-aligned): the knobs and what they give."""

    group: Group
    resolved: ResolvedScenario
    table: StepTable
    kv_tokens: int
    batch: np.ndarray
    chunk: np.ndarray
    spec_k: np.ndarray
    spec_accept: np.ndarray
    tpot_s: np.ndarray
    ttft_s: np.ndarray
    tokens_per_s_per_gpu: np.ndarray
    tokens_per_s_per_user: np.ndarray
    capacity_req_per_s: np.ndarray      # per replica
    feasible: np.ndarray

    @property
    def gpus_per_replica(self) -> float:
        return float(self.group.gpus)

    @property
    def usd_per_hour_per_replica(self) -> float:
        return self.group.gpus * self.resolved.hw.usd_per_hour

    @property
    def tdp_w_per_replica(self) -> float:
        return self.group.gpus * self.resolved.hw.tdp_w

    @property
    def max_replicas(self) -> int:
        return self.group.max_replicas

    def label(self, i: int) -> str:
        return self.group.label()


def speculation_options(model_id: str, on: bool = True) -> list[tuple[int, float, str]]:
    """(k, α, draft) for off and on: MTP where the model has heads, else n-gram (assets/planning.json)."""
    if not on:
        return [(0, 0.0, "none")]
    spec = axis("spec_mtp") if mtp_heads(model_id) else axis("spec_ngram")
    return [(0, 0.0, "none"), (int(spec["k"]), float(spec["accept"]), "mtp" if mtp_heads(model_id) else "ngram")]


def group_table(g: Group, r: PlanRequest, catalog: Catalog | None = None,
                max_tokens: int | None = None) -> tuple[ResolvedScenario, StepTable, int]:
    """(resolved replica, its step table with the all-to-alls for EP, KV tokens it holds)."""
    table = default_efficiency()
    rs = resolve_group(g, r, catalog)
    eff = table.efficiency(rs.engine, rs.hw)
    room = kv_room(rs, table)
    per_token = kv_bytes_per_token(rs)
    kv_tokens = int(room // per_token) if room > 0 else 0
    if kv_tokens < r.input_len + r.output_len:
        raise ScenarioError(f"{g.label()}: no room for one request's KV cache")
    tb = step_table(rs, eff, int(max_tokens or max(axis("chunk_tokens")) + 4 * max(axis("batch_caps"))))
    if g.mode == "ep":
        tb = expert_parallel_table(tb, rs, g.gpus)
    return rs, tb, kv_tokens


def _draft_s(tb: StepTable, spec: Speculation, batch: np.ndarray, ctx_sum: np.ndarray) -> np.ndarray:
    if spec.k == 0 or spec.draft in ("none", "ngram"):
        return np.zeros_like(batch)
    return np.array([float(spec.draft_s(tb, float(b), float(c))) for b, c in zip(batch, ctx_sum)])


def group_points(g: Group, r: PlanRequest, catalog: Catalog | None = None, caps=None, chunks=None) -> GroupPoints:
    """Every (batch cap, chunk, speculation) point of ``g`` (see the module docstring); ``caps``,
    ``chunks``: other values than assets/planning.json's."""
    caps = np.asarray(axis("batch_caps") if caps is None else caps, dtype=float)
    chunks = np.asarray(axis("chunk_tokens") if chunks is None else chunks, dtype=float)
    rs, tb, kv_tokens = group_table(g, r, catalog, int(chunks.max() + 4 * caps.max()))
    L, O = float(r.input_len), float(r.output_len)
    ctx = L + O / 2.0
    out = {k: [] for k in ("batch", "chunk", "k", "a", "tpot", "ttft", "gpu", "user", "cap", "ok")}
    for k, alpha, draft in speculation_options(rs.llm.id, r.speculative):
        q = k + 1
        e = expected_tokens_per_step(k, alpha)
        spec = Speculation(q, e, draft, None, k)
        b = np.repeat(caps, chunks.size)
        c = np.tile(chunks, caps.size)
        room = c - b * q                                   # the step's budget left after the decodes
        p = b * e * L / O                                  # prompt tokens a step must carry on average
        per = np.maximum(np.minimum(room, L), 1.0)         # a prompt's chunk
        m = np.ceil(L / per)                               # chunks per prompt
        lam = b * e / O                                    # prompts admitted per step
        many = lam * m >= 1.0                         # every step carries prompt tokens
        n = np.where(many, p, L / m)
        f = np.where(many, 1.0, lam * m)
        ok = (room >= 1) & (b * (L + O) <= kv_tokens) & (p <= np.maximum(room, 0.0))
        per = np.minimum(n, L)
        s_d = tb.decode_step_s(b, ctx, q)
        kv = b * (ctx + q)
        pairs = q * b * ctx
        g_pre = np.interp(b * q + n, tb.tokens, tb.gemm_prefill_s)
        s_m = tb.finish(g_pre + tb.attention(kv + n / per * (L + per) / 2.0, pairs + n * L / 2.0,
                                             pairs + n * (L + per) / 2.0, True), True) + tb.request_overhead_s * n / per
        s = s_d + f * (s_m - s_d) + _draft_s(tb, spec, b, b * ctx)
        tpot = s / e
        per_replica = b * e / s
        for key, v in (("batch", b), ("chunk", c), ("k", np.full(b.size, k)), ("a", np.full(b.size, alpha)),
                       ("tpot", tpot), ("ttft", m * s_m), ("gpu", per_replica / g.gpus),
                       ("user", e / s), ("cap", per_replica / O), ("ok", ok)):
            out[key].append(v)
    cat = {k: np.concatenate(v) for k, v in out.items()}
    return GroupPoints(g, rs, tb, kv_tokens, cat["batch"], cat["chunk"], cat["k"], cat["a"], cat["tpot"],
                       cat["ttft"], cat["gpu"], cat["user"], cat["cap"], cat["ok"].astype(bool))
