"""Sentences about the current state, for the window (footer, badge, HBM bar) and the CLI.

Every number in them is a readout's text (model/readouts/numbers.py), so a sentence can never show a
value that another panel shows differently. Where a sentence names a phase, it is the
Estimate's phase, and the times it lists are that phase's.
"""
from __future__ import annotations

from model.readouts.format import percent, si
from model.readouts.kind_words import kinds_sentence
from model.readouts.numbers import HBM_FREE, KV_RESIDENT, WEIGHTS_RESIDENT, WORKSPACE, readouts, words


def _phase_keys(phase: str) -> tuple[str, str, str, str]:
    p = "prefill" if phase == "prefill" else "decode"
    return (f"{p}_memory_time", f"{p}_compute_time", f"{p}_comm_time", f"{p}_overhead_time")


def explain(e) -> str:
    """One plain sentence: what binds the current phase, and the number that proves it."""
    r = readouts(e)
    s = e.scenario
    prefix = ""
    if not e.fits:
        prefix = f"Does not fit: needs {r['memory_needed_per_gpu'].text} per GPU of {r['hbm_capacity'].text}. "
    if s.phase == "prefill":
        ttft = r["prefill_time"].text
        if e.bound == "compute":
            tokens = s.batch * s.input_len
            reuse = round(tokens / e.prefill_passes)
            chunks = f" (in {e.prefill_passes:,.0f} passes)" if e.prefill_passes > 1 else ""
            return prefix + (f"Prefill of {s.batch}×{s.input_len} tokens reuses each weight {reuse:,} times per read"
                             f"{chunks}: compute-bound, {ttft} to the first token.")
        return prefix + f"Prefill is {e.bound}-bound: {ttft} to the first token."
    if e.bound == "communication":
        return prefix + (f"All-reduces over {e.link_name} take {r['decode_comm_time'].text} per token, "
                         f"more than reading the weights ({r['decode_memory_time'].text}): "
                         "the interconnect is the wall.")
    if e.bound == "compute":
        return prefix + (f"At batch {s.batch} each weight byte feeds enough maths: the {words(e)['units']} are the limit "
                         f"({r['flops_per_step'].text} per step, {r['decode_time'].text}).")
    bw, floor, total = r["peak_bandwidth"].text, r["decode_floor"].text, r["bytes_per_step"].text
    read, resident = r["weights_read_per_step"].text, r["weights_resident_per_gpu"].text
    weights = f"{read} of weights per GPU" + ("" if read == resident else f" (of {resident} held)")
    rest = si(e.kv_bytes_per_step + e.activation_bytes_per_step, "B")
    if s.batch == 1:
        return prefix + (f"Each token reads {weights} and {rest} of KV cache and activations; "
                         f"at {bw} those {total} take at least {floor}.")
    return prefix + (f"Each step reads {weights} once for all {s.batch} sequences, plus {rest} of KV cache and "
                     f"activations; at {bw} those {total} take at least {floor}.")


def badge_text(e) -> str:
    """The bound of the current phase, e.g. 'MEMORY-BOUND'."""
    return f"{e.bound.upper()}-BOUND"


def badge_tooltip(e) -> str:
    """Why the badge says what it says, in the same phase's times."""
    r = readouts(e)
    mem, comp, comm, over = (r[k] for k in _phase_keys(e.phase))
    step = r["prefill_time"] if e.phase == "prefill" else r["decode_time"]
    lines = [f"The roof that binds this {e.phase} step: {e.bound}",
             " · ".join(x.labelled for x in (mem, comp, comm)),
             f"{over.labelled} · {step.labelled}"]
    crit = r["critical_batch"]
    if e.phase == "decode":
        lines.append(f"Decode turns compute-bound at batch ≈ {crit.text}" if e.critical_batch
                     else "Decode never turns compute-bound at this context (the KV cache grows with the batch)")
    return "\n".join(lines)


def memory_bar_title(e) -> str:
    """The memory bar's title: 'HBM per GPU', 'unified memory per GPU' …"""
    mem = words(e)["mem"]
    return f"{mem[:1].upper()}{mem[1:]} per GPU"


def hbm_status(e) -> str:
    """The words on the HBM bar: need of capacity, and whether it fits."""
    r = readouts(e)
    return f"{r['memory_needed_per_gpu'].text} of {r['hbm_capacity'].text}" + ("" if e.fits else " — DOES NOT FIT")


def hbm_parts(capacity_bytes: float, weight_bytes: float, kv_bytes: float,
              workspace_bytes: float, mem: str = "HBM") -> list[tuple[str, float, str]]:
    """The HBM bar's parts in order, per GPU: (name, bytes, hover text). The hover text is
    'label: bytes (share of capacity)' with the readouts' labels and formats; 'free' only
    when something is free."""
    free = capacity_bytes - weight_bytes - kv_bytes - workspace_bytes
    parts = [("weights", WEIGHTS_RESIDENT, weight_bytes), ("kv", KV_RESIDENT, kv_bytes),
             ("workspace", WORKSPACE, workspace_bytes)] + ([("free", HBM_FREE.format(mem=mem), free)] if free > 0 else [])
    cap = si(capacity_bytes, "B")
    return [(name, b, f"{label}: {si(b, 'B')} ({percent(b / capacity_bytes)} of {cap})")
            for name, label, b in parts]


def hbm_segments(e) -> list[tuple[str, float, str]]:
    """hbm_parts of an Estimate (a model that mixes layer kinds: the KV part also says what each holds)."""
    parts = hbm_parts(e.hbm_capacity_bytes, e.weight_bytes_per_gpu, e.kv_cache_bytes_per_gpu,
                      e.workspace_bytes_per_gpu, words(e)["mem"])
    held = kinds_sentence(e.resolved.llm) if e.resolved is not None else ""
    return [(n, b, f"{t}. {held}" if held and n == "kv" else t) for n, b, t in parts]


def shown_notes(e) -> list[str]:
    """The notes under the gauges: the Estimate's notes, plus the emulation fact when missing."""
    held = kinds_sentence(e.resolved.llm) if e.resolved is not None else ""
    notes = list(e.notes) + ([held] if held else []) + ([fit_note(e)] if not e.fits else [])
    if e.emulated and not any("emulated" in n for n in notes):
        notes.append(f"{e.precision_name} runs emulated in {e.compute_dtype.upper()}")
    return notes


def fit_note(e) -> str:
    """Why a scenario does not fit ("" when it does), in the terms the HBM bar shows: weights alone
    over capacity; weights + workspace over capacity (no room for any KV cache); or the batch's KV
    cache over what is left."""
    if e.fits:
        return ""
    r = readouts(e)
    s = e.scenario
    cap, w, ws = r["hbm_capacity"].text, r["weights_resident_per_gpu"].text, r["workspace_per_gpu"].text
    context_tokens = s.input_len + s.output_len
    if e.weight_bytes_per_gpu > e.hbm_capacity_bytes:
        return f"does not fit: the weights alone need {w} per GPU of {cap}"
    if e.max_batch_that_fits < 1:
        return (f"does not fit: weights {w} + workspace {ws} leave {r['hbm_room_for_kv'].text} per GPU of {cap}, "
                f"less than the KV cache of one sequence of {context_tokens:,} tokens ({r['kv_per_sequence'].text})")
    return (f"does not fit at batch {s.batch}: at most {e.max_batch_that_fits:,} sequences of {context_tokens:,} "
            f"tokens fit; end-to-end runs in {e.waves} waves")
