"""Disaggregated serving: x prefill instances and y decode instances (xPyD), possibly of different
GPU kinds, the KV cache of each prompt moved between them over the link between the pools.

    prefill instance (group P, chunk C): a step carries n = min(C, m·L) prompt tokens, m = max(1, ⌊C/L⌋)
        s_p = G_pre(n) + attn((L + n)/2 per chunk …) + request overhead per prompt
        prompts/s = (n / L) / s_p;        prefill time of one prompt = m · s_p(L/m),  m = ⌈L / min(C, L)⌉ chunks
    decode instance (group D, batch cap B): decode steps only
        s_d = G_dec(B·q) + attn(B(c̄ + q), q·B·c̄) + drafting;   TPOT = s_d / E;  prompts/s = B·E / (s_d · O)
    the pair            rate = min(x · prompts/s of P, y · prompts/s of D)
                        TTFT = prefill time of one prompt + KV transfer (model/planning/links.py)
                        tokens/s/GPU = rate · O / (x·GPUs(P) + y·GPUs(D));  speed per user = E / s_d
    aggregated on the same GPUs, each step carries the decodes and a prompt chunk, so its TTFT is
    ⌈L / (C − B·q)⌉ mixed steps: never shorter than the disaggregated prefill with a free link.
Pools pair instances of the same precision, KV precision and engine (the KV cache moves as it is).
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from functools import lru_cache
from typing import Iterator

import numpy as np

from model.catalog.parts import Link
from model.planning.links import kv_transfer_s, pool_link
from model.planning.space import PlanRequest, axis
from model.planning.steady import GroupPoints, speculation_options
from model.serving.setup import expected_tokens_per_step
from model.serving.simulate import Speculation
from model.values import frozen

FREE = "free"       # a link that costs nothing (the comparison's bound)


_NO_POINTS = np.zeros(0)                # a pair's arrays once its points are a table's columns
_NO_POINTS.setflags(write=False)


@frozen(eq=False)
class DisaggPoints:
    """The points of one (prefill group, decode group) pair over x, y, batch, chunk, speculation."""

    prefill: GroupPoints
    decode: GroupPoints
    x: np.ndarray
    y: np.ndarray
    batch: np.ndarray
    chunk: np.ndarray
    spec_k: np.ndarray
    spec_accept: np.ndarray
    tpot_s: np.ndarray
    ttft_s: np.ndarray
    prefill_s: np.ndarray               # one prompt's prefill alone
    transfer_s: float                   # one prompt's KV over the link
    tokens_per_s_per_gpu: np.ndarray
    tokens_per_s_per_user: np.ndarray
    capacity_req_per_s: np.ndarray      # per xPyD unit
    feasible: np.ndarray
    gpus_per_replica: np.ndarray
    usd_per_hour_per_replica: np.ndarray
    tdp_w_per_replica: np.ndarray
    max_replicas: np.ndarray

    @property
    def resolved(self):
        """The decode pool's replica (the model, and the part the decode runs on)."""
        return self.decode.resolved

    def label(self, i: int) -> str:
        return self.pool_label(int(self.x[i]), int(self.y[i]))

    def pool_label(self, x: int, y: int) -> str:
        """The xPyD unit of ``x`` prefill and ``y`` decode instances of this pair, in words."""
        p, d = self.prefill.group, self.decode.group
        return (f"{x}P{y}D prefill {p.gpu} TP{p.gpus} / decode {d.gpu} TP{d.gpus} "
                f"{d.precision}/kv {d.kv_precision} {d.engine}")

    def without_points(self) -> DisaggPoints:
        """The pair without its per-point arrays (each empty): what a plan's table keeps once the
        points are its columns (the pools, their link and their replicas)."""
        return dataclasses.replace(self, **{f.name: _NO_POINTS for f in dataclasses.fields(self)
                                            if isinstance(getattr(self, f.name), np.ndarray)})


def prefill_rate(gp: GroupPoints, r: PlanRequest, chunk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(prompts/s of one prefill instance, one prompt's prefill time) at each ``chunk``."""
    tb = gp.table
    L = float(r.input_len)
    c = np.asarray(chunk, dtype=float)
    m = np.maximum(1.0, np.floor(c / L))
    n = np.minimum(c, m * L)
    per = np.minimum(c, L)                            # one prompt's chunk
    def step(tokens, prompts):
        kv = prompts * (L + np.minimum(tokens / prompts, L)) / 2.0
        pairs = tokens * L / 2.0
        g = np.interp(tokens, tb.tokens, tb.gemm_prefill_s)
        return tb.finish(g + tb.attention(kv, pairs, tokens * (L + tokens / prompts) / 2.0, True), True) \
            + prompts * tb.request_overhead_s
    prompts = np.maximum(1.0, n / L)
    rate = (n / L) / step(n, prompts)
    chunks = np.ceil(L / per)
    alone = chunks * step(L / chunks, 1.0)            # m equal chunks of L/m tokens
    return rate, alone


@lru_cache(maxsize=8)
def _grid(xs: tuple, caps: int, chunks: int) -> tuple[np.ndarray, ...]:
    """x, y, cap index, chunk index of every combination (flat, the same for every pair)."""
    a = np.asarray(xs, dtype=float)
    out = tuple(v.ravel() for v in np.meshgrid(a, a, np.arange(caps), np.arange(chunks), indexing="ij"))
    for v in out:
        v.setflags(write=False)
    return out


def _decode_side(d: GroupPoints, r: PlanRequest) -> list[tuple[int, float, np.ndarray, np.ndarray]]:
    """Per speculation option: (k, α, batch caps, decode step s_d at each cap)."""
    L, O = float(r.input_len), float(r.output_len)
    ctx = L + O / 2.0
    caps = np.asarray(axis("batch_caps"), dtype=float)
    out = []
    for k, alpha, draft in speculation_options(d.resolved.llm.id, r.speculative):
        q, e = k + 1, expected_tokens_per_step(k, alpha)
        s_d = d.table.decode_step_s(caps, ctx, q)
        if k and draft == "mtp":
            spec = Speculation(q, e, draft, None, k)
            s_d = s_d + np.array([float(spec.draft_s(d.table, float(b), float(b * ctx))) for b in caps])
        out.append((k, alpha, caps, s_d))
    return out


def pair_points(p: GroupPoints, d: GroupPoints, r: PlanRequest, link: Link | None | str = "network",
                sides=None) -> DisaggPoints:
    """Every x, y, batch cap, chunk and speculation of the pair (``link``: "network" — the pools'
    network — a Link, or None for a link that costs nothing; ``sides``: the prefill and decode
    instances' numbers when already worked out)."""
    L, O = float(r.input_len), float(r.output_len)
    xs = np.asarray(axis("disaggregated_instances"), dtype=float)
    chunks = np.asarray(axis("chunk_tokens"), dtype=float)
    lk = pool_link(p.resolved, d.resolved) if link == "network" else link
    transfer = kv_transfer_s(p.resolved, L, lk)
    (rate_c, alone_c), dec = sides or (prefill_rate(p, r, chunks), _decode_side(d, r))
    same = p.group.gpu == d.group.gpu
    parts = defaultdict(list)
    for k, alpha, caps, s_dc in dec:
        e = expected_tokens_per_step(k, alpha)
        X, Y, bi, ci = _grid(tuple(xs), caps.size, chunks.size)
        B, C, s_d = caps[bi], chunks[ci], s_dc[bi]
        rate = np.minimum(X * rate_c[ci], Y * (B * e / (s_d * O)))
        gpus = X * p.group.gpus + Y * d.group.gpus
        maxrep = (p.group.available // gpus if same else
                  np.minimum(p.group.available // (X * p.group.gpus), d.group.available // (Y * d.group.gpus)))
        for key, v in (("x", X), ("y", Y), ("batch", B), ("chunk", C), ("spec_k", np.full(B.size, k)),
                       ("spec_accept", np.full(B.size, alpha)), ("tpot_s", s_d / e), ("ttft_s", alone_c[ci] + transfer),
                       ("prefill_s", alone_c[ci]), ("tokens_per_s_per_gpu", rate * O / gpus),
                       ("tokens_per_s_per_user", e / s_d), ("capacity_req_per_s", rate),
                       ("feasible", (B * (L + O) <= d.kv_tokens) & (maxrep >= 1)), ("gpus_per_replica", gpus),
                       ("usd_per_hour_per_replica", X * p.usd_per_hour_per_replica + Y * d.usd_per_hour_per_replica),
                       ("tdp_w_per_replica", X * p.tdp_w_per_replica + Y * d.tdp_w_per_replica),
                       ("max_replicas", maxrep)):
            parts[key].append(v)
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    cat["feasible"] = cat["feasible"].astype(bool)
    return DisaggPoints(p, d, transfer_s=transfer, **cat)


def disaggregated_points(agg: list[GroupPoints], r: PlanRequest) -> list[DisaggPoints]:
    """Pairs of the aggregated groups that can hand a KV cache over: same precision, KV precision
    and engine, tensor-parallel (expert-parallel pools are left aggregated)."""
    return list(each_pair(agg, r))


def each_pair(agg: list[GroupPoints], r: PlanRequest) -> Iterator[DisaggPoints]:
    """``disaggregated_points`` one pair at a time (a plan keeps each pair's points as its columns,
    never all the pairs' arrays at once)."""
    by_kind = defaultdict(list)
    for gp in agg:
        g = gp.group
        if g.mode == "tp":
            by_kind[(g.precision, g.kv_precision, g.engine)].append(gp)
    chunks = np.asarray(axis("chunk_tokens"), dtype=float)
    for members in by_kind.values():
        pre = [prefill_rate(p, r, chunks) for p in members]
        dec = [_decode_side(d, r) for d in members]
        for i, p in enumerate(members):
            for j, d in enumerate(members):
                yield pair_points(p, d, r, sides=(pre[i], dec[j]))
