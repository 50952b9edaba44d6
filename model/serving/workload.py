"""The requests of a run: when each arrives, its prompt and output lengths, what it finds cached.

    rate R         arrival gaps ~ Exponential(1/R) (Poisson, as serving benchmarks' --request-rate
                   with burstiness 1); R = 0 or inf: all at t = 0
    concurrency C  every arrival at t = 0: the C clients' cap decides when each is sent
    burst N        all N at t = 0
    trace          the file's arrival times and lengths (CSV: arrival_s,input_tokens,output_tokens)
    lengths        fixed L; uniform integers in [L(1 − r), L(1 + r)]; ShareGPT-like: lognormal
                   with the published means (μ = ln mean − σ²/2), kept to 4 ≤ input ≤ 1024 and
                   input + output ≤ 2048 as the ShareGPT sampler of serving benchmarks filters them;
                   a named dataset (model/serving/datasets.py): lognormal each side, kept to its
                   bounds, averaging the setup's lengths (else the dataset's means)
    cached tokens  max(shared prefix P for every request but the first, ⌊h · input⌋), at most
                   input − 1 (the last prompt token is always computed: it makes the first token)

Deterministic for a seed (numpy's PCG64).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from model.errors import ScenarioError
from model.files.limits import ceiling
from model.files.safe_io import read_text
from model.serving.datasets import Lengths, datasets
from model.serving.limits import sharegpt
from model.serving.setup import ServingSetup
from model.values import frozen

MAX_TRACE_BYTES = 50_000_000
MAX_SPAN_S, SPAN_WHY = ceiling("span_s")
SHAREGPT_INPUT = (4, 1024)
SHAREGPT_TOTAL = 2048


@frozen(eq=False)
class Requests:
    """One array per quantity, one entry per request (index = request id)."""

    arrival_s: np.ndarray
    input_len: np.ndarray      # int64
    output_len: np.ndarray     # int64
    cached: np.ndarray         # prompt tokens found in the prefix cache (int64)
    shared_prefix: int         # tokens of a prefix shared by all (their KV blocks are held once)

    @property
    def count(self) -> int:
        return int(self.arrival_s.size)

    def subset(self, idx: np.ndarray) -> "Requests":
        return Requests(self.arrival_s[idx], self.input_len[idx], self.output_len[idx], self.cached[idx],
                        self.shared_prefix)


def _lengths(s: ServingSetup, n: int, input_len: int, output_len: int, rng) -> tuple[np.ndarray, np.ndarray]:
    if s.lengths == "fixed":
        return np.full(n, input_len, dtype=np.int64), np.full(n, output_len, dtype=np.int64)
    if s.lengths == "uniform":
        def draw(L):
            lo, hi = max(1, int(math.floor(L * (1 - s.range_ratio)))), max(1, int(math.ceil(L * (1 + s.range_ratio))))
            return rng.integers(lo, hi + 1, size=n, dtype=np.int64)
        return draw(input_len), draw(output_len)
    if s.lengths != "sharegpt":
        ds = datasets()[s.lengths]
        return (_draw(ds.input, s.input_len, n, rng), _draw(ds.output, s.output_len, n, rng))
    d = sharegpt()
    sig = d.sigma
    x = rng.lognormal(_mu(d.input_mean_tokens, sig, *SHAREGPT_INPUT), sig, size=n)
    y = rng.lognormal(_mu(d.output_mean_tokens, sig, 4, SHAREGPT_TOTAL - d.input_mean_tokens), sig, size=n)
    inp = np.clip(np.rint(x), *SHAREGPT_INPUT).astype(np.int64)
    out = np.clip(np.rint(y), 4, SHAREGPT_TOTAL - inp).astype(np.int64)
    return inp, out


def _draw(side: Lengths, mean: int | None, n: int, rng) -> np.ndarray:
    """n lengths of one side of a dataset, averaging ``mean`` (else the dataset's) with its relative spread."""
    m = float(mean) if mean else side.mean
    lo, hi = side.lo, max(side.hi, int(math.ceil(m)))
    if side.sd <= 0:
        return np.full(n, int(round(min(max(m, lo), hi))), dtype=np.int64)
    mu = _mu(m, side.sigma, lo, hi)
    return np.clip(np.rint(rng.lognormal(mu, side.sigma, size=n)), lo, hi).astype(np.int64)


@lru_cache(maxsize=1)
def _normal_quantiles(n: int = 4001) -> np.ndarray:
    from statistics import NormalDist
    return np.array([NormalDist().inv_cdf((i + 0.5) / n) for i in range(n)])


@lru_cache(maxsize=16)
def _mu(mean: float, sigma: float, lo: float, hi: float) -> float:
    """μ of a lognormal whose values, kept to [lo, hi], average ``mean`` (a few fixed-point steps on
    the clipped mean at 4 001 quantiles: deterministic, no sampling)."""
    z = _normal_quantiles()
    mu = math.log(mean) - sigma * sigma / 2
    for _ in range(8):
        got = float(np.clip(np.exp(mu + sigma * z), lo, hi).mean())
        mu += math.log(mean / got)
    return mu


def _cached(s: ServingSetup, inp: np.ndarray) -> tuple[np.ndarray, int]:
    hit = np.floor(s.prefix_hit * inp).astype(np.int64)
    shared = 0
    if s.prefix_len:
        shared = int(min(s.prefix_len, int(inp.min()) - 1)) if inp.size else 0
        if shared < 0:
            shared = 0
        pre = np.full(inp.shape, shared, dtype=np.int64)
        if pre.size:
            pre[0] = 0                      # the first request computes the prefix
        hit = np.maximum(hit, pre)
    return np.minimum(hit, inp - 1), shared


def make_requests(s: ServingSetup, input_len: int, output_len: int) -> Requests:
    """The run's requests. ``input_len``/``output_len``: the lengths when the setup leaves them to the scenario."""
    if s.load == "trace":
        rows = np.asarray(s.trace, dtype=float).reshape(-1, 3)
        order = np.argsort(rows[:, 0], kind="stable")
        rows = rows[order]
        arrival = rows[:, 0] - rows[0, 0]
        inp, out = rows[:, 1].astype(np.int64), rows[:, 2].astype(np.int64)
        cached, shared = _cached(s, inp)
        return Requests(arrival, inp, out, cached, shared)
    rng = np.random.default_rng(s.seed)
    n = s.requests
    inp, out = _lengths(s, n, s.input_len or input_len, s.output_len or output_len, rng)
    if s.load == "rate" and 0 < s.rate_per_s < math.inf:
        gaps = rng.exponential(1.0 / s.rate_per_s, size=n)
        gaps[0] = 0.0
        arrival = np.cumsum(gaps)
    else:
        arrival = np.zeros(n)
    cached, shared = _cached(s, inp)
    return Requests(arrival, inp, out, cached, shared)


def parse_trace(text: str, name: str = "trace") -> tuple[tuple[float, int, int], ...]:
    """(arrival s, input tokens, output tokens) rows of a CSV trace; ScenarioError (one line) when broken."""
    rows = []
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines = lines[1:]
    start = 0
    if lines and not _is_number(lines[0].split(",")[0].strip()):
        header = [c.strip().lower() for c in lines[0].split(",")]
        if header[:3] != ["arrival_s", "input_tokens", "output_tokens"]:
            raise ScenarioError(f"{name}: the header must be arrival_s,input_tokens,output_tokens, got '{lines[0][:60]}'")
        start = 1
    for i, line in enumerate(lines[start:], start=start + 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3:
            raise ScenarioError(f"{name} line {i}: expected 3 values (arrival_s,input_tokens,output_tokens), got {len(parts)}")
        try:
            t, a, b = float(parts[0]), float(parts[1]), float(parts[2])
        except ValueError:
            raise ScenarioError(f"{name} line {i}: not a number in '{line[:60]}'") from None
        if not (math.isfinite(t) and 0 <= t <= MAX_SPAN_S):
            raise ScenarioError(f"{name} line {i}: the arrival time must be a number of seconds from 0 to "
                                f"{MAX_SPAN_S:.0e} ({SPAN_WHY}), got {parts[0][:40]}")
        for label, v in (("input tokens", a), ("output tokens", b)):
            if not (math.isfinite(v) and v == int(v) and 1 <= v <= 1_048_576):
                raise ScenarioError(f"{name} line {i}: {label} must be a whole number from 1 to 1,048,576, got {v:g}")
        rows.append((t, int(a), int(b)))
        if len(rows) > 1_000_000:
            raise ScenarioError(f"{name}: more than 1,000,000 requests")
    if not rows:
        raise ScenarioError(f"{name} holds no requests")
    return tuple(rows)


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def read_trace(path) -> tuple[tuple[float, int, int], ...]:
    """A trace file's rows, read through model.files.safe_io (regular files, size-limited, UTF-8)."""
    from pathlib import Path
    return parse_trace(read_text(path, max_bytes=MAX_TRACE_BYTES), Path(str(path)).name)
