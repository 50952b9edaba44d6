"""The lessons' glossary: each term's definition, its equation, and this scenario's value with
its derivation (the readouts' own: model/readouts/derivations.py), so a term read in a lesson
is never a bare word.

    TERMS                        every term, by its anchor key ("mbu", "ridge-point" …)
    glossary(e)                  one GlossaryEntry per term for the Estimate on screen
    entry(e, key)                one of them
    term_pattern(term)           the words that name a term in running text (read mode links them)
"""
from __future__ import annotations

import re

from model.errors import ModelError
from model.readouts.derivations import all_readouts, arithmetic, derivations, equation
from model.readouts.format import si
from model.values import frozen


@frozen
class Term:
    key: str                      # the anchor: "glossary.html#mbu", "#mbu"
    name: str                     # as a heading: "MBU"
    definition: str               # one or two sentences, no number of any scenario
    equation: str                 # the equation in words (the scenario's own, when it has a readout, replaces it)
    readout: str = ""             # the readout that gives this scenario's value ("" none: ``value`` below)
    aliases: tuple[str, ...] = ()  # other words that name it in running text (case-insensitive, whole words)


@frozen
class GlossaryEntry:
    term: Term
    value: str                    # "MBU (achieved ÷ peak bytes/s) = 51.9%": this scenario's, with its label
    equation: str                 # the equation in words
    arithmetic: str               # the same with this scenario's numbers ("" for a datasheet number or a choice)
    source: str = ""              # where a leaf value comes from (a datasheet, a fitted factor)


TERMS: tuple[Term, ...] = (
    Term("prefill", "Prefill", "The first pass over the prompt: every prompt token goes through the model at once, "
         "so the weights are read once for many tokens and the maths dominates. It ends with the first output token.",
         "Prefill time = the prompt pass's kernels + communication + overhead", "prefill_time", ("prefill",)),
    Term("decode", "Decode", "Making the answer one token at a time: each step reads every weight (and the KV cache) "
         "to produce one token per sequence, so the bytes, not the maths, set its time.",
         "Time per token = the decode step's kernels + communication + overhead", "decode_time", ("decode",)),
    Term("hbm", "HBM", "High-bandwidth memory: the stacked DRAM beside the GPU die that holds the weights and the KV "
         "cache. Its bytes per second are the wall decode runs into.",
         "HBM bandwidth: the datasheet's bytes per second per GPU", "peak_bandwidth", ("HBM", "memory bandwidth")),
    Term("decode-floor", "Decode floor", "The fastest a decode step could ever be: its bytes at the datasheet "
         "bandwidth (or its FLOPs at the datasheet peak, whichever takes longer), with no overhead.",
         "Decode floor = max(bytes per step ÷ HBM bandwidth, FLOPs per step ÷ peak FLOP/s)", "decode_floor",
         ("decode floor", "floor")),
    Term("kv-cache", "KV cache", "The keys and values of every token a sequence has seen, kept so each new token "
         "attends to them without recomputing them. It grows with the context and the batch, and is read every step.",
         "KV cache per sequence = context × cached values per token × bytes per cached value", "kv_per_sequence",
         ("KV cache",)),
    Term("arithmetic-intensity", "Arithmetic intensity", "FLOPs done per byte moved from memory. Below the ridge "
         "point the bytes set the time; above it the maths does.",
         "Arithmetic intensity = FLOPs per step ÷ bytes per step", "arithmetic_intensity",
         ("arithmetic intensity", "FLOP/byte", "FLOPs per byte")),
    Term("ridge-point", "Ridge point", "The arithmetic intensity where the memory roof meets the compute roof: "
         "the peak FLOP/s divided by the peak bytes/s. Work left of it is memory-bound.",
         "Ridge point = peak FLOP/s ÷ HBM bandwidth", "ridge", ("ridge point", "ridge")),
    Term("memory-bound", "Memory-bound", "A step whose bytes take longer than its maths: faster compute buys "
         "nothing, fewer bytes or more bandwidth do.", "Bound = the longest of memory time, maths time, communication",
         "bound", ("memory-bound", "compute-bound")),
    Term("critical-batch", "Critical batch", "The batch at which a decode step's maths catches up with its bytes "
         "(its arithmetic intensity reaches the ridge point): beyond it decode is compute-bound and a larger batch "
         "no longer comes free.", "Critical batch = ridge × weight bytes ÷ FLOPs per sequence (weights only)",
         "critical_batch_weights_only", ("critical batch",)),
    Term("achieved-fraction", "Achieved fraction", "The share of a datasheet peak a real engine reaches: of the HBM "
         "bandwidth (about 80–95%) and of the matrix peak (much less for decode's thin matrices). Fitted per "
         "engine on published runs.", "Achieved bandwidth = HBM bandwidth × share of peak reached",
         "achieved_bandwidth", ("achieved fraction", "achieved bandwidth", "achieved")),
    Term("overhead", "Overhead", "Time a step spends on neither bytes nor maths: scheduling, sampling and launching "
         "the step, and the gaps between each layer's kernels. What sets it: the engine (CUDA graphs, a C++ "
         "scheduler), the number of layers, and the host CPU; it does not shrink with more GPUs.",
         "Overhead = per-step overhead + layers × per-layer overhead", "decode_overhead_time", ("overhead",)),
    Term("mbu", "MBU", "Model bandwidth utilisation: the bytes a step must read divided by its real time, as a share "
         "of the datasheet bandwidth. Near 100% means decode runs at the memory wall.",
         "MBU = bytes per step ÷ time per step ÷ HBM bandwidth", "mbu", ("MBU",)),
    Term("mfu", "MFU", "Model FLOP utilisation: the FLOPs a step must do divided by its real time, as a share of "
         "the datasheet peak. Decode's MFU is small: it waits on bytes.",
         "MFU = FLOPs per step ÷ time per step ÷ peak FLOP/s", "mfu", ("MFU",)),
    Term("ttft", "TTFT", "Time to first token: from a request's arrival to its first output token. Without a queue, "
         "the prefill time.", "TTFT = queue wait + prefill time", "prefill_time", ("TTFT", "time to first token")),
    Term("tpot", "TPOT", "Time per output token: the mean time between a request's output tokens after the first, "
         "here one decode step.", "TPOT = time per decode step", "decode_time", ("TPOT", "time per token")),
    Term("itl", "ITL", "Inter-token latency: the time between two consecutive output tokens of one request, as its "
         "user sees them; its mean is the TPOT, its tail grows when prefills of new requests interrupt decode.",
         "ITL = time of the decode step between two tokens", "decode_time", ("ITL", "inter-token latency")),
    Term("goodput", "Goodput", "Requests per second that meet their latency targets (TTFT and TPOT). Throughput that "
         "misses the targets does not count. The Serve page measures it on a stream of requests; a static scenario "
         "gives its upper bound.", "Goodput ≤ output tokens/s ÷ output tokens per request", "", ("goodput",)),
    Term("frontier", "Frontier", "The best trade-off between tokens/s per GPU (cost) and tokens/s per user "
         "(speed): setups no other setup beats on both. A batch is one point on it.",
         "A point: (tokens/s per user, tokens/s per GPU) = (1 ÷ TPOT, batch ÷ TPOT ÷ GPUs)", "",
         ("frontier",)),
    Term("w8a8", "W8A8", "Weights and activations both in 8 bits (FP8 or INT8): half the bytes of 16-bit and the "
         "8-bit matrix units' peak; weight-only formats (W4A16) shrink the bytes but keep 16-bit maths.",
         "Bytes per weight = weight bits ÷ 8", "bytes_per_weight", ("W8A8", "FP8", "precision")),
    Term("tensor-parallelism", "Tensor parallelism", "Each layer's matrices split across GPUs: each GPU reads its "
         "share of the weights, then the GPUs all-reduce the layer's output over the link (NVLink, PCIe). The bytes "
         "split; the all-reduces and the overhead do not.", "Weights read per GPU = weights ÷ tensor-parallel GPUs",
         "tp", ("tensor parallelism", "tensor-parallel", "all-reduce", "all-reduces")),
    Term("batch", "Batch", "Sequences decoded together: one weight read serves every sequence of the batch.",
         "Tokens/s for the group = batch ÷ time per token", "output_tokens_per_s", ("batch", "batching")),
)
BY_KEY = {t.key: t for t in TERMS}


def term_pattern(term: Term) -> re.Pattern:
    """The words that name ``term`` in running text: its name and aliases, whole words, any case
    (the acronyms as written: "MBU", not "mbu" inside another word)."""
    words = sorted({term.name, *term.aliases}, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(w) for w in words) + r")(?![\w-])", re.IGNORECASE)


def entry(e, key: str) -> GlossaryEntry:
    """One term with this scenario's value and derivation (ModelError for an unknown key)."""
    if key not in BY_KEY:
        raise ModelError(f"no glossary term '{key}' (known: {', '.join(BY_KEY)})")
    t = BY_KEY[key]
    if not t.readout:
        value, arith = _derived_value(e, key)
        return GlossaryEntry(t, value, t.equation, arith)
    r, d = all_readouts(e), derivations(e)
    ro, der = r[t.readout], d[t.readout]
    if der.expr is None:                 # a leaf: a datasheet number, a fitted factor, a choice
        return GlossaryEntry(t, ro.labelled, t.equation, "", der.source or ro.help)
    return GlossaryEntry(t, ro.labelled, equation(e, der), arithmetic(e, der))


def _derived_value(e, key: str) -> tuple[str, str]:
    """(value, arithmetic) of a term no single readout carries, from the readouts that make it."""
    r = all_readouts(e)
    tps, out_len = r["output_tokens_per_s"], e.scenario.output_len
    if key == "goodput":
        req_s = tps.value / out_len if out_len else 0.0
        return (f"Goodput ≤ {si(req_s, 'req/s')} (every request within its targets)",
                f"{si(req_s, 'req/s')} = {tps.text} ÷ {out_len:,} tokens per request")
    per_gpu = tps.value / e.scenario.gpus
    user = r["tokens_per_s_per_user"]
    return (f"This scenario's point: {user.text} per user, {si(per_gpu, 'tok/s')} per GPU",
            f"{si(per_gpu, 'tok/s')} per GPU = {tps.text} ÷ {e.scenario.gpus} GPUs; per user {user.text}")


def glossary(e) -> tuple[GlossaryEntry, ...]:
    """Every term, in TERMS' order, with this scenario's values."""
    return tuple(entry(e, t.key) for t in TERMS)
