"""Every quantity the window and the command line show, made once from an Estimate.

    readouts(e)["weights_resident_per_gpu"].text  -> "141 GB"

A Readout is (key, label, value, unit, text, help): ``text`` is the value formatted by
model.readouts.format with its unit, ``label`` is what the screen writes beside it, ``help`` one line
saying what it counts. Views place and format nothing else: they look a readout up by key.

Where two numbers look alike but count different things, they have different keys and
labels, and the help says why:

    weights resident per GPU   = every parameter (all experts, the embedding table) / (tp·pp)
    weights read per step      = what one decode step streams: for MoE only the experts the
                                 batch's tokens are routed to; never the input embedding table
    KV cache resident          = batch × (input + output) tokens: the cache at the end
    KV cache read per step     = batch × (mean context + 1) tokens: a step in mid-decode
    tensor cores busy          = compute time ÷ step time (the share of the step the cores work)
    MFU                        = achieved FLOP/s ÷ peak FLOP/s (what the work would take at peak)
    decode / prefill           = the badge, MBU, MFU and intensity follow the current phase;
                                 the time breakdown under them names its phase

Mean context c̄ = input + output/2 (the same number the Estimate's decode step uses).
"""
from __future__ import annotations

import math
from dataclasses import asdict, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping

from model.readouts.format import duration, percent, si, sig3
from model.readouts.kind_words import kinds_sentence
from model.readouts.redo import inputs_that_redo
from model.readouts.vocabulary import capitalised, matrix_unit_adjective, matrix_units, memory_word
from model.values import frozen

PHASE_WORDS = {"decode": "decode", "prefill": "prefill"}
WEIGHTS_RESIDENT = "Weights resident per GPU"
KV_RESIDENT = "KV cache resident per GPU (full context)"
WORKSPACE = "Workspace per GPU"
HBM_FREE = "{mem} free per GPU"               # {mem}: the part's memory word (model/readouts/vocabulary.py)
HBM_CAPACITY = "{mem} capacity per GPU"


@frozen
class Readout:
    """One number as the screen shows it: its value and unit, the text written, and a line of help."""

    key: str
    label: str
    value: Any            # float | int | str | None
    unit: str
    text: str             # value and unit as the screen writes them
    help: str             # one line: what it counts (and, where a look-alike exists, why it differs)
    short: str = ""       # a shorter label for narrow places (a gauge title); "" when the label is short

    @property
    def labels(self) -> tuple[str, ...]:
        """The label, then the short label if any: the forms a screen may write beside the text."""
        return (self.label, self.short) if self.short else (self.label,)

    @property
    def labelled(self) -> str:
        """'Label: text', the one way a labelled quantity is written in sentences and tooltips."""
        return f"{self.label}: {self.text}"


def _r(key: str, label: str, value, unit: str, text: str, help_: str, short: str = "") -> Readout:
    return Readout(key, label, value, unit, text, help_, short)


SHORT_LABELS = {
    "prefill_time": "Time to first token",
    "output_tokens_per_s": "Tokens/s, group",
    "mbu": "MBU (of peak bytes/s)",
    "mfu": "MFU (of peak FLOP/s)",
    "usd_per_million_tokens": "Cost per 1M tokens",
    "joules_per_token": "Energy per token (TDP)",
    "tensor_cores_busy": "{Units} busy (of step time)",
}


def _time_ms(key: str, label: str, ms: float, help_: str) -> Readout:
    return _r(key, label, ms / 1e3, "s", duration(ms / 1e3), help_)


def _bytes(key: str, label: str, b: float, help_: str) -> Readout:
    return _r(key, label, b, "B", si(b, "B"), help_)


def count_text(n: float) -> str:
    """A count of tokens or sequences: thousands separated, a half shown as .5."""
    if n is None or not math.isfinite(n):
        return "—"
    return f"{int(n):,}" if float(n).is_integer() else f"{n:,.1f}"


def mean_context_tokens(input_len: int, output_len: int) -> float:
    """c̄ = input + output/2: the context at the middle of the decode."""
    return input_len + output_len / 2.0


def _share(part: float, whole: float) -> float:
    return part / whole if whole else math.nan


def words(e) -> dict[str, str]:
    """The part's words: {mem} its memory, {units} / {Units} its matrix units, {adj} before a noun."""
    hw = e.resolved.hw if e.resolved is not None else None
    if hw is None:
        return {"mem": "HBM", "units": "tensor cores", "Units": "Tensor cores", "adj": "tensor-core"}
    units = matrix_units(hw)
    return {"mem": memory_word(hw), "units": units, "Units": capitalised(units), "adj": matrix_unit_adjective(hw)}


def _timing(e) -> list[Readout]:
    s = e.scenario
    w = words(e)
    out = [
        _time_ms("decode_time", "Time per token (decode)", e.decode_ms_per_token,
                 "One realistic decode step at the mean context: every sequence of the batch gains one token"),
        _time_ms("decode_floor", "Decode floor", e.decode_floor_ms_per_token,
                 "The same step at 100% of peak bandwidth and FLOP/s, no overhead, no communication"),
        _time_ms("decode_memory_time", f"Decode {w['mem']} time", e.decode_memory_ms,
                 f"Bytes of one decode step ÷ achievable {w['mem']} bandwidth"),
        _time_ms("decode_compute_time", "Decode maths time", e.decode_compute_ms,
                 f"FLOPs of one decode step ÷ achievable {w['adj']} FLOP/s"),
        _time_ms("decode_comm_time", "Decode communication time", e.decode_comm_ms,
                 "All-reduces and pipeline hops of one decode step"),
        _time_ms("decode_overhead_time", "Decode overhead", e.decode_overhead_ms,
                 "Kernel launches and scheduling per decode step"),
        _time_ms("prefill_time", "Time to first token (prefill)", e.prefill_ms,
                 f"The prefill pass over {s.batch} × {s.input_len:,} prompt tokens"),
        _time_ms("prefill_floor", "Prefill floor", e.prefill_floor_ms,
                 "The prefill pass at 100% of peak, no overhead, no communication"),
        _time_ms("prefill_memory_time", f"Prefill {w['mem']} time", e.prefill_memory_ms,
                 f"Bytes of the prefill pass ÷ achievable {w['mem']} bandwidth"),
        _time_ms("prefill_compute_time", "Prefill maths time", e.prefill_compute_ms,
                 f"FLOPs of the prefill pass ÷ achievable {w['adj']} FLOP/s"),
        _time_ms("prefill_comm_time", "Prefill communication time", e.prefill_comm_ms,
                 "All-reduces and pipeline hops of the prefill pass"),
        _time_ms("prefill_overhead_time", "Prefill overhead", e.prefill_overhead_ms,
                 "Kernel launches and scheduling of the prefill pass"),
        _r("e2e_latency", "End-to-end request", e.e2e_latency_s, "s", duration(e.e2e_latency_s),
           f"Prefill + {s.output_len:,} decode steps as the context grows"
           + (f", in {e.waves} waves (the batch does not fit at once)" if e.waves > 1 else "")),
        _r("waves", "Waves", e.waves, "", f"{e.waves:,}",
           "How many rounds the batch runs in: a batch whose KV cache does not fit runs in waves"),
        _r("tokens_per_s_per_user", "Tokens/s per user", e.tokens_per_s_per_user, "tok/s",
           si(e.tokens_per_s_per_user, "tok/s"), "What each sequence sees: 1 ÷ decode step time"),
        _r("output_tokens_per_s", "Tokens/s for the group", e.output_tokens_per_s, "tok/s",
           si(e.output_tokens_per_s, "tok/s"), "Output tokens per second of the whole group: batch ÷ step time"),
    ]
    return out


def _phase_times(e) -> dict[str, float]:
    if e.phase == "prefill":
        return {"step": e.prefill_ms, "memory": e.prefill_memory_ms, "compute": e.prefill_compute_ms,
                "comm": e.prefill_comm_ms}
    return {"step": e.decode_ms_per_token, "memory": e.decode_memory_ms, "compute": e.decode_compute_ms,
            "comm": e.decode_comm_ms}


def tensor_cores_busy(e) -> float:
    """Share of the current phase's step time the tensor cores work: compute time ÷ step time."""
    t = _phase_times(e)
    return min(1.0, max(0.0, _share(t["compute"], t["step"])))


def _reached_words(e, busy: float) -> str:
    """': busy, they reach 25.6% of the peak, and 0.697% × 25.6% = MFU 0.178%' (the two gauges' link)."""
    if not (busy > 0 and e.mfu > 0):
        return ""
    share = e.mfu / busy
    b, sh = inputs_that_redo(percent(e.mfu), ((busy, _pct_in), (share, _pct_in)), lambda x, y: x * y)
    return f": busy, they reach {sh} of the peak (the engine's fitted share), and {b} × {sh} = MFU {percent(e.mfu)}"


def _pct_in(x: float, figures: int) -> str:
    return f"{sig3(100 * x, figures)}%"


def _utilisation(e) -> list[Readout]:
    ph = PHASE_WORDS.get(e.phase, e.phase)
    w = words(e)
    pt = _phase_times(e)
    flops, byts = ((e.prefill_flops, e.prefill_weight_bytes + e.prefill_kv_bytes + e.prefill_activation_bytes)
                   if e.phase == "prefill" else
                   (e.flops_per_step, e.weight_bytes_per_step + e.kv_bytes_per_step + e.activation_bytes_per_step))
    reached = (flops / pt["compute"]) / (byts / pt["memory"]) if pt["compute"] > 0 and pt["memory"] > 0 else math.nan
    dtype = e.compute_dtype.upper()
    busy = tensor_cores_busy(e)
    t = _phase_times(e)
    link = min(1.0, max(0.0, _share(t["comm"], t["step"])))
    return [
        _r("mbu", "MBU (achieved ÷ peak bytes/s)", e.mbu, "", percent(e.mbu),
           f"Model bandwidth utilisation ({ph}): {w['mem']} bytes per second achieved ÷ the peak "
           f"{si(e.peak_bandwidth_bytes_per_s, 'B/s')}"),
        _r("mfu", "MFU (achieved ÷ peak FLOP/s)", e.mfu, "", percent(e.mfu),
           f"Model FLOP utilisation ({ph}): FLOP/s achieved ÷ the {dtype} peak. Not the share of time the "
           f"{w['units']} are busy: they run below peak even when busy"),
        _r("tensor_cores_busy", f"{w['Units']} busy (share of step time)", busy, "", percent(busy),
           f"Compute time ÷ step time ({ph}): how much of each step the {w['units']} work at their "
           "achievable rate. Higher than MFU, which divides by the peak instead" + _reached_words(e, busy)),
        _r("link_busy", "Interconnect busy (share of step time)", link, "", percent(link),
           f"Communication time ÷ step time ({ph}): all-reduces and pipeline hops"),
        _r("achieved_flops", "Attained FLOP/s per GPU", e.achieved_flops, "FLOP/s",
           si(e.achieved_flops, "FLOP/s"), f"FLOPs of the {ph} pass per GPU ÷ its time"),
        _r("peak_flops", f"{dtype} {w['adj']} peak", e.peak_flops, "FLOP/s", si(e.peak_flops, "FLOP/s"),
           f"Dense {dtype} peak per GPU, the roof this scenario runs under"
           + (" (emulated)" if e.emulated else "")),
        _r("peak_bandwidth", f"{w['mem']} bandwidth", e.peak_bandwidth_bytes_per_s, "B/s",
           si(e.peak_bandwidth_bytes_per_s, "B/s"), f"Peak {w['mem']} bytes per second per GPU (datasheet)"),
        _r("arithmetic_intensity", f"Arithmetic intensity ({ph})", e.arithmetic_intensity_flops_per_byte,
           "FLOP/B", f"{sig3(e.arithmetic_intensity_flops_per_byte)} FLOP/B",
           f"FLOPs ÷ {w['mem']} bytes of the {ph} pass"),
        _r("ridge", "Ridge point", e.ridge_flops_per_byte, "FLOP/B", f"{sig3(e.ridge_flops_per_byte)} FLOP/B",
           f"Peak FLOP/s ÷ peak bytes/s: left of it memory-bound, right of it compute-bound"),
        _r("ridge_reached", "Ridge at the rates reached", reached, "FLOP/B", f"{sig3(reached)} FLOP/B",
           f"FLOP/s the {ph} step's maths reaches ÷ bytes/s its memory traffic reaches: right of it the step is "
           f"compute-bound, left of it memory-bound (the badge's bound), whatever the datasheet ridge says"),
        _r("bound", f"Bound ({ph})", e.bound, "", f"{e.bound}-bound",
           f"The larger of {w['mem']} time, maths time and communication time of the {ph} step"),
        _r("critical_batch", "Critical batch (with KV cache)", e.critical_batch, "",
           sig3(e.critical_batch) if e.critical_batch else "never",
           "The decode batch at which a step turns compute-bound at peak numbers; never when the KV "
           "cache's reads grow as fast as the maths"),
        _r("critical_batch_weights_only", "Critical batch (weights only)", e.critical_batch_weights_only, "",
           sig3(e.critical_batch_weights_only) if e.critical_batch_weights_only else "never",
           "The same without KV-cache reads: ridge × bytes per weight ÷ 2 for a dense model"),
    ]


def _memory(e) -> list[Readout]:
    s = e.scenario
    w = words(e)
    mem = w["mem"]
    cap = e.hbm_capacity_bytes
    free = max(0.0, cap - e.memory_needed_bytes_per_gpu)
    room = max(0.0, cap - e.weight_bytes_per_gpu - e.workspace_bytes_per_gpu)
    ctx = mean_context_tokens(s.input_len, s.output_len)
    held = kinds_sentence(e.resolved.llm) if e.resolved is not None else ""
    kinds = f". {held}" if held else ""
    return [
        _bytes("weights_resident_per_gpu", WEIGHTS_RESIDENT, e.weight_bytes_per_gpu,
               "Every parameter this GPU holds (all experts, the embedding table) ÷ (tp·pp). "
               "More than a decode step reads: see weights read per decode step"),
        _bytes("weights_read_per_step", "Weights read per decode step", e.weight_bytes_per_step,
               f"Weight bytes one decode step streams from {mem} per GPU: for MoE only the experts the batch "
               "is routed to, never the input embedding table. Less than the weights resident"),
        _bytes("kv_resident_per_gpu", KV_RESIDENT, e.kv_cache_bytes_per_gpu,
               f"The cache of {s.batch} sequences at {s.input_len + s.output_len:,} tokens (the last step): "
               "what must fit. More than a mid-decode step reads" + kinds),
        _bytes("kv_read_per_step", "KV cache read per decode step (mean context)", e.kv_bytes_per_step,
               f"The cache one decode step reads at the mean context {count_text(ctx)} tokens (+ the new "
               "token's entry): less than the cache resident at full context" + kinds),
        _bytes("kv_per_sequence", "KV cache per sequence (full context)", e.kv_cache_bytes_per_gpu / s.batch,
               f"One sequence's cache at {s.input_len + s.output_len:,} tokens, per GPU"),
        _bytes("hbm_room_for_kv", f"{mem} left for the KV cache", room,
               "Capacity − weights resident − workspace, per GPU (0 when the weights and workspace fill it)"),
        _bytes("activations_per_step", "Activations moved per decode step", e.activation_bytes_per_step,
               "Values each kernel writes and the next reads back, per GPU"),
        _bytes("bytes_per_prefill", "Bytes per prefill pass",
               e.prefill_weight_bytes + e.prefill_kv_bytes + e.prefill_activation_bytes,
               f"Everything the prefill pass moves through {mem}, per GPU: weights + KV cache + activations"),
        _bytes("bytes_per_step", "Bytes per decode step",
               e.weight_bytes_per_step + e.kv_bytes_per_step + e.activation_bytes_per_step,
               f"Everything one decode step moves through {mem}, per GPU: weights + KV cache + activations"),
        _r("flops_per_step", "FLOPs per decode step", e.flops_per_step, "FLOP", si(e.flops_per_step, "FLOP"),
           "Multiply-adds ×2 of one decode step per GPU"),
        _bytes("weights_read_per_prefill", "Weights read per prefill", e.prefill_weight_bytes,
               "Weight bytes the prefill streams per GPU (MoE: the experts its prompt tokens touch)"
               + (f"; it runs in {e.prefill_passes:,.0f} passes of the engine's chunk, each reading them"
                  if e.prefill_passes > 1 else "")),
        _bytes("kv_written_per_prefill", "KV cache written per prefill pass", e.prefill_kv_bytes,
               "The prompt's KV cache the prefill pass writes, per GPU"),
        _bytes("activations_per_prefill", "Activations moved per prefill pass", e.prefill_activation_bytes,
               "Values each kernel writes and the next reads back in the prefill pass, per GPU"),
        _r("flops_per_prefill", "FLOPs per prefill pass", e.prefill_flops, "FLOP", si(e.prefill_flops, "FLOP"),
           "Multiply-adds ×2 of the prefill pass per GPU"),
        _bytes("workspace_per_gpu", WORKSPACE, e.workspace_bytes_per_gpu,
               f"Runtime context and activation buffers, a fixed share of {mem}"),
        _bytes("memory_needed_per_gpu", f"{mem} needed per GPU", e.memory_needed_bytes_per_gpu,
               "Weights resident + KV cache resident + workspace"),
        _bytes("hbm_capacity", HBM_CAPACITY.format(mem=mem), cap, "Datasheet capacity of one GPU"),
        _bytes("hbm_free", HBM_FREE.format(mem=mem), free, "Capacity − need (0 when it does not fit)"),
        _r("weights_share_of_hbm", f"Weights share of {mem}", _share(e.weight_bytes_per_gpu, cap), "",
           percent(_share(e.weight_bytes_per_gpu, cap)), f"Weights resident ÷ {mem} capacity"),
        _r("kv_share_of_hbm", f"KV cache share of {mem}", _share(e.kv_cache_bytes_per_gpu, cap), "",
           percent(_share(e.kv_cache_bytes_per_gpu, cap)), f"KV cache resident ÷ {mem} capacity"),
        _r("workspace_share_of_hbm", f"Workspace share of {mem}", _share(e.workspace_bytes_per_gpu, cap), "",
           percent(_share(e.workspace_bytes_per_gpu, cap)), f"Workspace ÷ {mem} capacity"),
        _r("free_share_of_hbm", f"Free share of {mem}", _share(free, cap), "", percent(_share(free, cap)),
           f"Free ÷ {mem} capacity"),
        _r("fits", f"Fits in {mem}", e.fits, "", "fits" if e.fits else "does not fit",
           "Weights + KV cache + workspace ≤ capacity, per GPU"),
        _r("max_batch_that_fits", "Largest batch that fits", e.max_batch_that_fits, "sequences",
           f"{e.max_batch_that_fits:,}", "⌊(capacity − workspace − weights) ÷ KV cache per sequence⌋"),
        _r("mean_context", "Mean context", ctx, "tokens", f"{count_text(ctx)} tokens",
           "input + output/2: the context in the middle of the decode, where decode numbers are taken"),
    ]


def _money(e) -> list[Readout]:
    s = e.scenario
    return [
        _r("engine", "Engine", e.engine_name, "", e.engine_name,
           "Whose realistic numbers these are (efficiencies of that serving stack); ideal = the roofline floor"),
        _r("usd_per_million_tokens", "Cost per 1M output tokens",
           e.usd_per_million_tokens if math.isfinite(e.usd_per_million_tokens) else None, "$",
           f"${sig3(e.usd_per_million_tokens)}" if math.isfinite(e.usd_per_million_tokens) else "n/a",
           f"{s.gpus} GPU × GPU-hour price ÷ output tokens/s of the group"),
        _r("joules_per_token", "Energy per output token (at TDP)", e.joules_per_token, "J",
           si(e.joules_per_token, "J"), f"{s.gpus} × TDP ÷ output tokens/s: an upper bound, not measured power"),
    ]


def readouts(e) -> Mapping[str, Readout]:
    """Every shown quantity of ``e``, by key (insertion order is display order). Read-only and
    cached per Estimate (frozen, so hashable): every panel asks for the same one."""
    return _readouts(e)


@lru_cache(maxsize=16)
def _readouts(e) -> Mapping[str, Readout]:
    out: dict[str, Readout] = {}
    w = words(e)
    for r in (*_timing(e), *_utilisation(e), *_memory(e), *_money(e)):
        out[r.key] = replace(r, short=SHORT_LABELS[r.key].format(**w)) if r.key in SHORT_LABELS else r
    return MappingProxyType(out)


def readouts_json(e) -> dict[str, dict]:
    """The readouts as plain JSON-ready dicts (non-finite numbers become None)."""
    def clean(v):
        return None if isinstance(v, float) and not math.isfinite(v) else v
    return {k: {**asdict(r), "value": clean(r.value)} for k, r in readouts(e).items()}
