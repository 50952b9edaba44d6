"""Measure this machine: the numpy path on the CPU, or PyTorch's when it sees a GPU.

torch itself is imported only inside model/machine/benchmark_torch.py's functions, so this
module costs nothing when PyTorch is absent.
"""
from __future__ import annotations

import time
from typing import Callable

from model.machine.benchmark import Measurements, Step, numpy_plan
from model.machine.benchmark_torch import torch_device, torch_plan


def gpu_available() -> bool:
    """True when PyTorch is installed and sees a GPU (CUDA, ROCm or MPS)."""
    return torch_device() is not None


def plan(quick: bool = False, backend: str = "auto") -> list[Step]:
    """The measuring steps: ``backend`` 'numpy', 'torch', or 'auto' (torch when it sees a GPU)."""
    if backend == "torch" or (backend == "auto" and gpu_available()):
        return torch_plan(quick)
    return numpy_plan(quick)


def run(quick: bool = False, backend: str = "auto",
        progress: Callable[[int, int, str], None] | None = None) -> Measurements:
    """Do every step; ``progress(done, total, label)`` before each."""
    steps = plan(quick, backend)
    m = Measurements(date=time.strftime("%Y-%m-%d"))
    for i, step in enumerate(steps):
        if progress:
            progress(i, len(steps), step.label)
        step.run(m)
    if progress:
        progress(len(steps), len(steps), "done")
    return m
