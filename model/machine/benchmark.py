"""Measure this machine: memory bandwidth, matmul FLOP/s per precision, one decode step.

    bandwidth   = 2 × array bytes / best copy time      (a copy reads and writes each byte once)
    FLOP/s      = 2·n³ / best time of an n×n by n×n matmul
    decode step = best time of one token through L Llama-shaped layers (batch 1, random
                  weights: timing does not depend on their values), beside the floor the
                  cost model predicts from the measured bandwidth: weight bytes / bandwidth

On the CPU with numpy (copies split over threads; matmuls through numpy's BLAS), or on a
GPU through PyTorch when it is installed and sees one (CUDA, ROCm, Apple MPS): torch is
imported only inside that path (model/machine/benchmark_torch.py). ``plan`` gives the work
as small steps (model/machine/measure.py chooses the path, ``plan``, and ``run`` does them all).
"""
from __future__ import annotations

import glob
import os
import platform
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

from model.catalog.architecture import param_breakdown
from model.values import frozen

NUMPY_DTYPES = {"fp32": np.float32, "fp16": np.float16, "int8": np.int8}
BLAS_DTYPES = ("fp32",)         # numpy's fast (BLAS) path; the others run numpy's own loops


@frozen
class DecodeShape:
    """One Llama layer: hidden d, query heads h × head dim k, KV heads g, FFN f (gated)."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int

    @property
    def params(self) -> int:
        """L·(d·h·k + 2·d·g·k + h·k·d + 3·d·f): the catalogue's count (model.catalog.architecture) of the
        attention and gated-FFN weights, without embeddings and norms (the benchmark has none)."""
        p = param_breakdown({**asdict(self), "ffn_gated": True, "vocab": 0})
        return int(p.attention + p.dense_ffn)

    def label(self) -> str:
        return (f"{self.layers} layers of d={self.hidden}, {self.heads} heads ({self.kv_heads} KV) × {self.head_dim}, "
                f"FFN {self.ffn}")


# Llama-3.2-1B-shaped layers (486 MB in FP32); quick: a narrower Llama, a second on a small CPU
CPU_SHAPES = {True: DecodeShape(2, 1024, 16, 4, 64, 4096), False: DecodeShape(2, 2048, 32, 8, 64, 8192)}


@dataclass
class Measurements:
    """What the steps fill in (SI units)."""

    backend: str = "numpy"
    device: str = ""
    units: int = 1
    unit_name: str = "core"
    memory_capacity_bytes: float = 0.0
    memory_bandwidth_bytes_per_s: float = 0.0
    bandwidth_array_bytes: float = 0.0
    flops: dict[str, float] = field(default_factory=dict)
    flops_fast_path: dict[str, bool] = field(default_factory=dict)
    decode_shape: DecodeShape | None = None
    decode_dtype: str = "fp32"
    decode_bytes_per_weight: float = 4.0
    decode_s_by_batch: dict[int, float] = field(default_factory=dict)
    cache_bytes: float = 0.0           # the CPU's last-level cache (0: a GPU, or unknown)
    load_average: float = 0.0          # runnable processes (1-minute average) when measuring began
    date: str = ""

    @property
    def decode_weight_bytes(self) -> float:
        return self.decode_shape.params * self.decode_bytes_per_weight if self.decode_shape else 0.0

    @property
    def decode_floor_s(self) -> float:
        """The cost model's batch-1 floor for the measured step: weight bytes / measured bandwidth."""
        return self.decode_weight_bytes / self.memory_bandwidth_bytes_per_s if self.memory_bandwidth_bytes_per_s else 0.0


@frozen
class Step:
    label: str
    run: Callable[[Measurements], None]


def best_time_s(fn: Callable[[], Any], repeats: int, sync: Callable[[], None] = lambda: None,
                min_total_s: float = 0.25, max_repeats: int = 200) -> float:
    """The fastest timed call, after one warm-up call: at least ``repeats`` calls, and more (up to
    ``max_repeats``) until ``min_total_s`` has passed, so a busy machine still shows one quiet call."""
    fn()
    sync()
    best, start, n = float("inf"), time.perf_counter(), 0
    while n < repeats or (time.perf_counter() - start < min_total_s and n < max_repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
        n += 1
    return best


def total_memory_bytes() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0.0


def last_level_cache_bytes() -> float:
    """The largest CPU cache the OS reports (0 if it does not say)."""
    sizes = []
    for path in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*/size")):
        try:
            text = open(path, encoding="ascii").read().strip().upper()
            scale = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(text[-1:], 1)
            sizes.append(float(text.rstrip("KMG")) * scale)
        except (OSError, ValueError):
            continue
    return max(sizes, default=0.0)


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


# ---------------------------------------------------------------- numpy steps

def _numpy_bandwidth(m: Measurements, quick: bool) -> None:
    n_bytes = (128 if quick else 512) * 1024 * 1024
    src = np.ones(n_bytes // 4, dtype=np.float32)
    dst = np.zeros_like(src)
    threads = max(1, os.cpu_count() or 1)
    chunks = [(s, min(s + len(src) // threads + 1, len(src))) for s in range(0, len(src), len(src) // threads + 1)]
    with ThreadPoolExecutor(threads) as pool:
        def copy() -> None:
            list(pool.map(lambda c: np.copyto(dst[c[0]:c[1]], src[c[0]:c[1]]), chunks))
        t = best_time_s(copy, 3 if quick else 10)
    m.memory_bandwidth_bytes_per_s = 2.0 * n_bytes / t
    m.bandwidth_array_bytes = float(n_bytes)


def _numpy_matmul(m: Measurements, dtype: str, quick: bool) -> None:
    fast = dtype in BLAS_DTYPES
    n = (512 if quick else 2048) if fast else (96 if quick else 256)
    rng = np.random.default_rng(0)
    if dtype == "int8":
        a = rng.integers(-8, 8, (n, n), dtype=np.int8)
        b = rng.integers(-8, 8, (n, n), dtype=np.int8)
    else:
        a = rng.standard_normal((n, n), dtype=np.float32).astype(NUMPY_DTYPES[dtype])
        b = rng.standard_normal((n, n), dtype=np.float32).astype(NUMPY_DTYPES[dtype])
    t = best_time_s(lambda: a @ b, 3 if quick else 5)
    m.flops[dtype] = 2.0 * n ** 3 / t
    m.flops_fast_path[dtype] = fast


def _numpy_decode(m: Measurements, quick: bool) -> None:
    shape = CPU_SHAPES[quick]
    rng = np.random.default_rng(1)
    d, hk, gk = shape.hidden, shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim

    def w(rows: int, cols: int) -> np.ndarray:   # scaled by 1/√rows so activations stay O(1)
        out = rng.standard_normal((rows, cols), dtype=np.float32)
        out *= np.float32(rows ** -0.5)
        return out
    layers = [(w(d, hk + 2 * gk), w(hk, d), w(d, 2 * shape.ffn), w(shape.ffn, d)) for _ in range(shape.layers)]
    x0 = rng.standard_normal((1, d), dtype=np.float32)

    def step() -> None:
        x = x0
        for qkv, o, gate_up, down in layers:
            a = (x @ qkv)[:, :hk]            # attention over a 1-token context: values pass through
            x = x + a @ o
            g, u = np.split(x @ gate_up, 2, axis=1)
            x = x + (g * 0.5 * (1.0 + np.tanh(0.5 * g)) * u) @ down     # SiLU
    m.decode_shape = shape
    m.decode_dtype, m.decode_bytes_per_weight = "fp32", 4.0
    m.decode_s_by_batch[1] = best_time_s(step, 3 if quick else 10)


def numpy_plan(quick: bool) -> list[Step]:
    def describe(m: Measurements) -> None:
        m.backend, m.device = "numpy", f"{cpu_name()} (CPU)"
        m.units, m.unit_name = os.cpu_count() or 1, "core"
        m.memory_capacity_bytes = total_memory_bytes()
        m.cache_bytes = last_level_cache_bytes()
        m.load_average = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    steps = [Step("Looking at the machine", describe),
             Step("Memory bandwidth (copying arrays)", lambda m: _numpy_bandwidth(m, quick))]
    steps += [Step(f"Matmul throughput, {d.upper()}", lambda m, d=d: _numpy_matmul(m, d, quick)) for d in NUMPY_DTYPES]
    steps.append(Step("A Llama-shaped decode step (random weights)", lambda m: _numpy_decode(m, quick)))
    return steps
