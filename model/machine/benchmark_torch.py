"""The GPU path of model/machine/benchmark.py, through PyTorch (optional: `pip install -e .[calibrate]`).

torch is imported inside these functions only, so the app and the tests never need it.
Same equations as the numpy path; times are taken after the device synchronises.
    bandwidth = 2 × tensor bytes / copy time;  FLOP/s = 2·n³ / matmul time
    decode    = one token through L Llama-3.1-8B-shaped layers in BF16, for batch 1…256
"""
from __future__ import annotations

from typing import Any

from model.machine.benchmark import DecodeShape, Measurements, Step, best_time_s, cpu_name, total_memory_bytes

GPU_SHAPES = {True: DecodeShape(2, 4096, 32, 8, 128, 14336), False: DecodeShape(8, 4096, 32, 8, 128, 14336)}
DECODE_BATCHES = {True: (1, 16), False: (1, 2, 4, 8, 16, 32, 64, 128, 256)}


def torch_device() -> tuple[Any, Any] | None:
    """(torch, device) when PyTorch is installed and sees a GPU, else None."""
    try:
        import torch
    except Exception:          # not installed, or a broken install: measure with numpy
        return None
    if torch.cuda.is_available():
        return torch, torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch, torch.device("mps")
    return None


def _sync(torch: Any, device: Any):
    if device.type == "cuda":
        return torch.cuda.synchronize
    return torch.mps.synchronize


def _describe(m: Measurements) -> None:
    torch, dev = torch_device()
    m.backend = f"torch-{'rocm' if getattr(torch.version, 'hip', None) else dev.type}"
    if dev.type == "cuda":
        props = torch.cuda.get_device_properties(0)
        m.device, m.units, m.unit_name = props.name, int(props.multi_processor_count), "SM"
        m.memory_capacity_bytes = float(props.total_memory)
    else:
        m.device, m.units, m.unit_name = f"{cpu_name()} (Apple GPU, MPS)", 1, "GPU"
        m.memory_capacity_bytes = total_memory_bytes()


def _bandwidth(m: Measurements, quick: bool) -> None:
    torch, dev = torch_device()
    n_bytes = (256 if quick else 2048) * 1024 * 1024
    src = torch.ones(n_bytes // 2, dtype=torch.float16, device=dev)
    dst = torch.empty_like(src)
    t = best_time_s(lambda: dst.copy_(src), 5 if quick else 20, _sync(torch, dev))
    m.memory_bandwidth_bytes_per_s = 2.0 * n_bytes / t
    m.bandwidth_array_bytes = float(n_bytes)


def _matmul(m: Measurements, dtype: str, quick: bool) -> None:
    torch, dev = torch_device()
    n = 2048 if quick else 8192
    sync = _sync(torch, dev)
    try:
        if dtype == "int8":
            a = torch.randint(-8, 8, (n, n), dtype=torch.int8, device=dev)
            b = torch.randint(-8, 8, (n, n), dtype=torch.int8, device=dev).t()
            fn = lambda: torch._int_mm(a, b)      # noqa: E731
        elif dtype == "fp8":
            a = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
            b = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn).t()
            one = torch.tensor(1.0, device=dev)
            fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
        else:
            tdt = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
            a = torch.randn(n, n, device=dev, dtype=tdt)
            b = torch.randn(n, n, device=dev, dtype=tdt)
            fn = lambda: a @ b                    # noqa: E731
        t = best_time_s(fn, 5 if quick else 20, sync)
    except (RuntimeError, TypeError, AttributeError):
        return                                    # this GPU or torch build has no such path
    m.flops[dtype] = 2.0 * n ** 3 / t
    m.flops_fast_path[dtype] = True


def _decode(m: Measurements, quick: bool) -> None:
    torch, dev = torch_device()
    shape = GPU_SHAPES[quick]
    d, hk, gk = shape.hidden, shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim

    def w(rows: int, cols: int):
        return torch.randn(rows, cols, device=dev, dtype=torch.bfloat16) * 0.02
    layers = [(w(d, hk + 2 * gk), w(hk, d), w(d, 2 * shape.ffn), w(shape.ffn, d)) for _ in range(shape.layers)]
    m.decode_shape, m.decode_dtype, m.decode_bytes_per_weight = shape, "bf16", 2.0
    for batch in DECODE_BATCHES[quick]:
        x0 = torch.randn(batch, d, device=dev, dtype=torch.bfloat16)

        def step() -> None:
            x = x0
            for qkv, o, gate_up, down in layers:
                x = x + (x @ qkv)[:, :hk] @ o
                g, u = (x @ gate_up).chunk(2, dim=1)
                x = x + (torch.nn.functional.silu(g) * u) @ down
        with torch.inference_mode():
            m.decode_s_by_batch[batch] = best_time_s(step, 5 if quick else 20, _sync(torch, dev))


def torch_plan(quick: bool) -> list[Step]:
    steps = [Step("Looking at the GPU", _describe),
             Step("Memory bandwidth (copying tensors)", lambda m: _bandwidth(m, quick))]
    steps += [Step(f"Matmul throughput, {d.upper()}", lambda m, d=d: _matmul(m, d, quick))
              for d in ("fp32", "bf16", "fp16", "fp8", "int8")]
    steps.append(Step("Llama-shaped decode steps (random weights)", lambda m: _decode(m, quick)))
    return steps
