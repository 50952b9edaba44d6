"""One plain sentence about the current state, for the window's footer and the CLI."""
from __future__ import annotations

from model.format import duration, si


def explain(e) -> str:
    s = e.scenario
    bw = si(e.peak_bandwidth_bytes_per_s, "B/s")
    weights = si(e.weight_bytes_per_step, "B")
    prefix = ""
    if not e.fits:
        prefix = (f"Does not fit: needs {si(e.memory_needed_bytes_per_gpu, 'B')} per GPU of "
                  f"{si(e.hbm_capacity_bytes, 'B')}. ")
    if s.phase == "prefill":
        if e.bound == "compute":
            return prefix + (f"Prefill of {s.batch}×{s.input_len} tokens reuses each weight {s.batch * s.input_len:,} "
                             f"times: compute-bound, {duration(e.prefill_ms / 1e3)} to the first token.")
        return prefix + (f"Prefill is {e.bound}-bound: {duration(e.prefill_ms / 1e3)} to the first token.")
    if e.bound == "communication":
        return prefix + (f"All-reduces over {e.link_name} take {duration(e.decode_comm_ms / 1e3)} per token, "
                         f"more than reading the weights ({duration(e.decode_memory_ms / 1e3)}): "
                         "the interconnect is the wall.")
    if e.bound == "compute":
        return prefix + (f"At batch {s.batch} each weight byte feeds enough maths: the tensor cores are the limit "
                         f"({si(e.flops_per_step, 'FLOP')} per step, {duration(e.decode_ms_per_token / 1e3)}).")
    if s.batch == 1:
        return prefix + (f"Each token reads all {weights} of weights; at {bw} that takes at least "
                         f"{duration(e.decode_floor_ms_per_token / 1e3)}.")
    kv = si(e.kv_bytes_per_step, "B")
    return prefix + (f"Each step reads {weights} of weights once for {s.batch} sequences, plus {kv} of KV cache; "
                     f"at {bw} that takes at least {duration(e.decode_floor_ms_per_token / 1e3)}.")
