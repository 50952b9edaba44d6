"""The numbers behind the numbers: the inputs a derivation names, each a Readout of its own.

    term_readouts(e)["decode.attention.time"].text   -> "21.1 ms"

What the screens show is model/readouts/numbers.py; what those numbers are made of is here:
the kernels of the decode step and of the prefill pass (bytes, FLOPs, memory, compute and
time of each), the engine's factors (achieved fractions of peak bandwidth and FLOP/s, its
overheads) with the rows they were fitted on, the parts' datasheet numbers with their sources,
and the scenario's own numbers. A leaf (a datasheet number, a fitted factor, a model's
architecture, a choice the user made) carries its source in ``help``.

Kernel keys are "<phase>.<kernel>.<quantity>", phase decode | prefill, kernel as
model/physics/cost.KERNELS, quantity bytes | flops | memory | compute | time | weights.
"""
from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

import numpy as np

from model.catalog.active import default_efficiency
from model.catalog.architecture import DENSE_LAYER_KERNELS, MLA_EXTRA_KERNELS
from model.physics.estimate import decode_contexts, e2e_seconds
from model.physics.cost import GEMM_KERNELS, queue_wait
from model.physics.memory import streamed_weight_bytes
from model.physics.roofline import sequence_terms
from model.physics.step import (allreduce_bytes, decode_pass, experts_apart, gemm_split, layer_equivalents,
                                microbatch, moe_tile, pipeline_hop_bytes, prefill_terms, weight_only)
from model.readouts.format import duration, percent, si, sig3
from model.readouts.layer_kinds import kind_readouts
from model.readouts.numbers import Readout, count_text

KERNEL_WORDS = {
    "qkv": "Q, K, V projections", "out_proj": "Output projection", "mlp_up": "FFN up and gate",
    "mlp_down": "FFN down", "experts": "Routed experts", "lm_head": "LM head (vocabulary)",
    "small": "Norms, biases, router", "attention": "Attention over the KV cache",
    "scores": "Attention scores in memory",
}
KERNEL_HELP = {
    "qkv": "The layer's input multiplied by the Q, K and V weights",
    "out_proj": "The attention output multiplied by the O weights",
    "mlp_up": "The FFN's up (and gate) weights",
    "mlp_down": "The FFN's down weights",
    "experts": "The routed experts the step's tokens touch (each token multiplies with K of them)",
    "lm_head": "The last hidden state multiplied by the vocabulary matrix",
    "small": "Norms, biases and the MoE router: elementwise work and tiny matrices",
    "attention": "QKᵀ and PV of every sequence over its own cached tokens (flash attention keeps scores on chip)",
    "scores": "The score matrix written to memory and read back (an attention without flash attention)",
}
PHASES = ("decode", "prefill")


def _ro(key: str, label: str, value, unit: str, text: str, help_: str) -> Readout:
    return Readout(key, label, value, unit, text, help_)


def _t(key: str, label: str, seconds: float, help_: str) -> Readout:
    return _ro(key, label, seconds, "s", duration(seconds), help_)


def term_readouts(e) -> Mapping[str, Readout]:
    """Every input a derivation of ``e`` names (cached per Estimate, read-only)."""
    return _terms(e)


@lru_cache(maxsize=8)
def _terms(e) -> Mapping[str, Readout]:
    out: dict[str, Readout] = {}
    for r in (*_scenario(e), *_parts(e), *_engine(e), *_passes(e), *_kernels(e, "decode"), *_kernels(e, "prefill"),
              *_memory_terms(e), *_links(e), *_whole_request(e), *_critical(e), *kind_readouts(e)):
        out[r.key] = r
    return MappingProxyType(out)


def _scenario(e) -> list[Readout]:
    s, rs = e.scenario, e.resolved
    m, b = microbatch(rs, s.batch)
    out = [_ro("batch", "Batch", s.batch, "sequences", f"{s.batch:,}", "Sequences decoded together (your choice)"),
           _ro("input_len", "Input length", s.input_len, "tokens", f"{s.input_len:,} tokens", "Prompt tokens (your choice)"),
           _ro("output_len", "Output length", s.output_len, "tokens", f"{s.output_len:,} tokens",
               "Generated tokens (your choice)"),
           _ro("gpus", "GPUs", s.gpus, "", f"{s.gpus:,}", "GPUs the model runs on (your choice)"),
           _ro("tp", "Tensor-parallel GPUs", rs.tp, "", f"{rs.tp}",
               "GPUs each layer is split over (the GPUs of one node on the chosen link)"),
           _ro("layers", "Layers", rs.llm.layers, "", f"{rs.llm.layers}", f"{rs.llm.name}: {rs.llm.source}"),
           *_layer_kernels(rs),
           _ro("decode_tokens_per_pass", "Tokens per decode pass", float(b), "tokens", count_text(float(b)),
               "Each sequence of a micro-batch gains one token" + (f"; {int(m)} micro-batches in flight" if rs.pp > 1 else "")),
           _ro("prefill_tokens_per_pass", "Tokens per prefill pass", float(b) * s.input_len, "tokens",
               count_text(float(b) * s.input_len), "Every prompt token of a micro-batch at once")]
    out.append(_ro("pp", "Pipeline stages", rs.pp, "", f"{rs.pp}",
                   "Nodes the layers are split over (one stage per node), or an engine that splits by layers"))
    if rs.pp > 1:
        out.append(_ro("pipeline_share", "Share of a step's work on one GPU", float(m) / rs.pp, "",
                       percent(float(m) / rs.pp), f"micro-batches in flight ÷ stages = {int(m)} ÷ {rs.pp}"))
        fill = (float(m) + rs.pp - 1) / rs.pp
        out.append(_ro("pipeline_fill", "Pipeline fill (prefill)", fill, "×", f"{sig3(fill)}×",
                       f"(micro-batches + stages − 1) ÷ stages = ({int(m)} + {rs.pp} − 1) ÷ {rs.pp}"))
    return out


def _parts(e) -> list[Readout]:
    rs = e.resolved
    hw, p = rs.hw, rs.precision
    return [
        _ro("bytes_per_weight", "Bytes per weight", p.bytes_per_weight, "B", f"{sig3(p.bytes_per_weight)} B",
            f"{p.name}: {p.weight_bits:g} bits per weight ({p.source or 'assets/precisions.json'})"),
        *([_ro("expert_bytes_per_weight", "Bytes per routed-expert weight", p.expert_bytes_per_weight, "B",
               f"{sig3(p.expert_bytes_per_weight)} B", f"{p.name}: the routed experts' {p.expert_weight_bits:g} bits per weight"),
           _ro("params_routed", "Routed-expert parameters", rs.llm.params.routed_total, "weights",
               si(rs.llm.params.routed_total, ""), f"Every routed expert of every MoE layer of {rs.llm.name}")]
          if experts_apart(rs) else []),
        _ro("activation_bytes", "Bytes per activation", p.activation_bytes, "B", f"{sig3(p.activation_bytes)} B",
            f"{p.name}: activations cross kernels in {max(p.activation_bits, 8):g} bits"),
        _ro("kv_bytes_per_value", "Bytes per cached value", rs.kv.bytes_per_value, "B", f"{sig3(rs.kv.bytes_per_value)} B",
            f"KV cache in {rs.kv.name} ({rs.kv.source or 'assets/precisions.json'})"),
        _ro("params_total", "Parameters", rs.llm.params.total, "weights", si(rs.llm.params.total, ""),
            f"Every weight of {rs.llm.name}, all experts and the embedding table (model/catalog/architecture.py; "
            f"{rs.llm.source})"),
        _ro("kv_values_per_token", "Cached values per token", rs.llm.shape.kv_values_per_token, "values",
            si(rs.llm.shape.kv_values_per_token, ""), f"K and V (or the MLA latent) of every layer ({rs.llm.source})"),
        _ro("activation_values_per_token", "Activation values per token", rs.llm.shape.activation_values_per_token,
            "values", si(rs.llm.shape.activation_values_per_token, ""),
            "What each kernel writes and the next reads back, all layers (×2: written once, read once)"),
        _ro("attention_flops_per_context", "Attention FLOPs per token per cached token",
            rs.llm.shape.attention_flops_per_context, "FLOP", si(rs.llm.shape.attention_flops_per_context, "FLOP"),
            "QKᵀ and PV: 4 × layers × heads × head dim (2 FLOPs per multiply-add)"),
        _ro("tp_kv", "Ways the KV cache is split", rs.tp_kv, "", f"{rs.tp_kv}",
            "KV heads shard over the tensor-parallel GPUs (replicated past the number of KV heads; an MLA latent is shared)"),
        _ro("workspace_fraction", "Workspace share of HBM", default_efficiency().workspace_fraction, "",
            percent(default_efficiency().workspace_fraction), "assets/engines.json: vLLM's default gpu_memory_utilization 0.9"),
        _ro("usd_per_gpu_hour", "Price per GPU-hour", hw.usd_per_hour if hw.usd_per_hour > 0 else None, "$",
            f"${sig3(hw.usd_per_hour)}" if hw.usd_per_hour > 0 else "n/a",
            f"{hw.name}: {hw.source('price') or 'assets/hardware.json'}"),
        _ro("tdp", "Power per GPU (TDP)", hw.tdp_w, "W", si(hw.tdp_w, "W"), f"{hw.name}: {hw.source('power') or 'datasheet'}"),
    ]


def _engine(e) -> list[Readout]:
    rs = e.resolved
    table = default_efficiency()
    eff = table.efficiency(rs.engine, rs.hw)
    name = e.engine_name
    rows = len(eff.calibrated_on)
    fitted = f"{name}'s factor, fitted on {rows} published runs" if rows else f"{name}'s prior (no published run fitted)"
    sustained = table.sustained_fraction(rs.hw)
    quantised = "the FP32 units" if rs.precision.weight_bits < 16 else "the tensor cores"
    matmul = _matmul_peak(e)
    out = [
        _ro("eta_bw", "Share of peak HBM bandwidth reached", eff.hbm_fraction, "", percent(eff.hbm_fraction),
            f"{fitted} ({percent(eff.hbm_fraction / sustained) if sustained else '—'} of the sustained "
            f"{percent(sustained)} of the datasheet a STREAM copy reaches)"),
        _ro("achieved_bandwidth", "HBM bandwidth reached", e.peak_bandwidth_bytes_per_s * eff.hbm_fraction, "B/s",
            si(e.peak_bandwidth_bytes_per_s * eff.hbm_fraction, "B/s"), "Datasheet bandwidth × the share the engine reaches"),
        _ro("eta_kv", "Share of that bandwidth in attention", eff.kv_read_fraction, "", percent(eff.kv_read_fraction),
            f"{fitted}: the paged KV cache is read in gathers, a little slower than the weights"),
        _ro("matmul_peak", "Peak the matmuls run against", matmul, "FLOP/s", si(matmul, "FLOP/s"),
            "The tensor-core peak, unless the engine's kernels use other units (dp4a on CUDA cores, "
            "FP16 accumulation on GeForce)"),
    ]
    for ph, frac in (("decode", eff.compute_fraction_decode), ("prefill", eff.compute_fraction_prefill)):
        rate = min(matmul * frac, rs.peak_flops)
        out += [_ro(f"eta_c_{ph}", f"Share of the matmul peak reached ({ph})", frac, "", percent(frac),
                    f"{fitted}: small {ph} matmuls fill the tensor cores only partly"),
                _ro(f"achieved_flops_{ph}", f"Matmul FLOP/s reached ({ph})", rate, "FLOP/s", si(rate, "FLOP/s"),
                    "min(the matmul peak × the share reached, the datasheet peak)")]
    out += [
        _t("step_overhead", "Overhead per step", eff.step_overhead_s,
           f"{fitted}: scheduling, sampling and launching the step, once per step"),
        _t("layer_overhead", "Overhead per layer", eff.layer_overhead_s,
           f"{fitted}: kernel launches and the gaps between a layer's kernels"
           + (" (CUDA graphs keep it small)" if table.engine(rs.engine).cuda_graphs else "") if rs.engine != "ideal" else
           "the roofline floor has none"),
        _t("request_overhead", "Overhead per request", eff.request_overhead_s,
           f"{fitted}: tokenising, scheduling and bookkeeping of a new request, once per prefill"),
        _ro("dequant_ops", "Operations to unpack a weight", eff.dequant_ops_per_weight, "ops",
            f"{sig3(eff.dequant_ops_per_weight)} ops", f"{fitted}: weight-only formats unpack each weight on {quantised}"),
        _ro("vector_flops", "FP32 FLOP/s (CUDA cores)", rs.hw.peak("fp32") or rs.peak_flops, "FLOP/s",
            si(rs.hw.peak("fp32") or rs.peak_flops, "FLOP/s"), f"{rs.hw.name}: where weights are unpacked"),
    ]
    return out


def _layer_kernels(rs) -> list[Readout]:
    """What the per-layer overheads are paid for: the layers counted in a dense layer's kernels
    (model/physics/step.layer_equivalents) and the counts behind them."""
    sh, q, leq = rs.llm.shape, float(rs.precision.activation_quant_kernels), layer_equivalents(rs)
    mla = (f"; multi-head latent attention {MLA_EXTRA_KERNELS} more (q_a/kv_a, q_a's norm, q_b, the latent's "
           "norm, the two absorbed matmuls)" if sh.layer_kernels > DENSE_LAYER_KERNELS else "")
    quant = ("each input scaled per 1 × 128 tile in a kernel of its own" if q
             else "the GEMMs take their inputs as they are")
    return [_ro("layer_kernels", "Kernels a layer launches", sh.layer_kernels, "", count_text(sh.layer_kernels),
                f"A dense layer's {DENSE_LAYER_KERNELS} in a decode step (norm, QKV, RoPE, attention, O, norm, "
                "gate/up, SiLU, down)" + mla),
            _ro("quant_kernels", "Kernels quantising a linear layer's input", q, "", count_text(q),
                f"{rs.precision.name}: {quant}"),
            _ro("linears_per_layer", "Linear layers per layer", sh.linears_per_layer, "", sig3(sh.linears_per_layer),
                "QKV (MLA: q_a/kv_a and q_b), O, gate/up, down; an MoE layer's shared experts two more, "
                "on average over the layers"),
            _ro("layer_equivalents", "Layers, counted in a dense layer's kernels", leq, "", sig3(leq),
                "What the per-layer overheads are paid for")]


def _passes(e) -> list[Readout]:
    """How many passes a prefill runs (engines that prefill in chunks), the KV tokens its chunks read,
    and the time each phase's GPU waits for a host that issues every kernel (eager engines)."""
    rs, s = e.resolved, e.scenario
    table = default_efficiency()
    terms = prefill_terms(rs, s.batch, s.input_len)
    chunk = table.prefill_chunk(rs.engine) if rs.engine != "ideal" else 0
    passes = float(np.asarray(terms.passes))
    out = [_ro("prefill_passes", "Prefill passes", passes, "", count_text(passes),
               f"⌈prompt tokens ÷ {chunk:,}⌉: {e.engine_name} prefills in chunks of {chunk:,} tokens, each pass reading "
               "every weight once" if chunk else "One pass over every prompt token")]
    if not rs.llm.shape.kinds:          # (a model that mixes layer kinds: per kind, model/readouts/layer_kinds.py)
        out.append(_ro("prefill_kv_tokens", "Cached tokens the prefill reads and writes", float(np.asarray(terms.kv_bytes))
               * rs.tp_kv / (rs.llm.shape.kv_values_per_token * rs.kv.bytes_per_value), "tokens",
               si(float(np.asarray(terms.kv_bytes)) * rs.tp_kv / (rs.llm.shape.kv_values_per_token * rs.kv.bytes_per_value), ""),
               "Every prompt token's entry written" + (", and each chunk reads the chunks before it" if chunk else "")))
    eff = table.efficiency(rs.engine, rs.hw)
    phases = [ph for ph in PHASES if eff.host_issues(ph == "prefill")]
    if phases:
        out.append(_t("host_layer", "Host time per layer", eff.host_layer_s,
                      f"{e.engine_name}'s factor: the host (Python) issuing one layer's kernels one by one, "
                      "which a faster GPU does not shorten" + ("" if eff.eager else
                      " (its CUDA graphs hold decode steps only: a prefill is issued this way)")))
        for phase in phases:
            cost = e.decode_kernels if phase == "decode" else e.prefill_kernels
            gpu = sum(k.time_s for k in cost) + _gpu_rest(e, phase)
            p = 1.0 if phase == "decode" else passes
            fill = _fill(e, phase)
            host = p * layer_equivalents(rs) * eff.host_layer_s * fill
            wait = float(queue_wait(gpu, host))
            out += [_t(f"{phase}.host_issue", f"Host issue time ({phase})", host,
                       "Passes × layers (in dense layers' kernels) × host time per layer: the host queues "
                       "kernels ahead of the GPU"),
                    _t(f"{phase}.gpu_busy", f"GPU time with its own overheads ({phase})", gpu,
                       "Σ kernels + communication + passes × layers (in dense layers' kernels) × overhead "
                       "per layer"),
                    _t(f"{phase}.host_wait", f"Waiting for the host ({phase})", wait,
                       f"‖GPU, host‖₆ − GPU: nothing while the host is well ahead, its lag once it falls behind "
                       f"(a smooth maximum: the GPU waits {duration(wait)} here)")]
    return out


def _fill(e, phase: str) -> float:
    rs = e.resolved
    if phase == "decode" or rs.pp == 1:
        return 1.0
    m, _ = microbatch(rs, e.scenario.batch)
    return (float(m) + rs.pp - 1) / rs.pp


def _gpu_rest(e, phase: str) -> float:
    """Communication and the per-layer overheads of a phase's passes (what the GPU does besides its kernels)."""
    rs = e.resolved
    eff = default_efficiency().efficiency(rs.engine, rs.hw)
    comm = (e.decode_comm_ms if phase == "decode" else e.prefill_comm_ms) / 1e3
    passes = 1.0 if phase == "decode" else float(np.asarray(prefill_terms(rs, e.scenario.batch, e.scenario.input_len).passes))
    return comm + passes * layer_equivalents(rs) * eff.layer_overhead_s * _fill(e, phase)


def _matmul_peak(e) -> float:
    rs = e.resolved
    return default_efficiency().matmul_flops(rs.engine, rs.hw, rs.compute_dtype, weight_only(rs)) or rs.peak_flops


def _kernels(e, phase: str) -> list[Readout]:
    rs = e.resolved
    ks = e.decode_kernels if phase == "decode" else e.prefill_kernels
    tokens = term_tokens(e, phase)
    streamed, active, acts = gemm_split(rs, tokens)
    weights = dict(zip(GEMM_KERNELS, streamed))
    act_bytes = dict(zip(GEMM_KERNELS, (a * tokens * rs.precision.activation_bytes / rs.tp for a in acts)))
    out = []
    for k in ks:
        words, key = f"{KERNEL_WORDS[k.name]} ({phase})", f"{phase}.{k.name}"
        out += [_ro(f"{key}.bytes", f"{words}: bytes", k.bytes, "B", si(k.bytes, "B"), KERNEL_HELP[k.name] + ": bytes per GPU"),
                _ro(f"{key}.flops", f"{words}: FLOPs", k.flops, "FLOP", si(k.flops, "FLOP"), KERNEL_HELP[k.name] + ": FLOPs per GPU"),
                _t(f"{key}.memory", f"{words}: memory time", k.memory_s, "Its bytes ÷ the bandwidth reached"),
                _t(f"{key}.compute", f"{words}: maths time", k.compute_s, "Its FLOPs ÷ the FLOP/s reached"),
                _t(f"{key}.time", f"{words}: time", k.time_s, f"The longer of its memory and maths time: {k.bound}-bound")]
        if k.name in weights:
            w, ab = float(weights[k.name]), float(act_bytes[k.name])
            out += [_ro(f"{key}.weights", f"{words}: weights read", w, "weights", si(w, ""),
                        f"From {rs.llm.name}'s architecture ({rs.llm.source or 'assets/models.json'})"),
                    _ro(f"{key}.activations", f"{words}: activation bytes", ab, "B", si(ab, "B"),
                        "Its input and output values per token × tokens × bytes per activation ÷ tensor-parallel GPUs")]
        if k.name == "experts":
            a = float(active[GEMM_KERNELS.index("experts")])
            out.append(_ro(f"{key}.active", f"{words}: weights per token", a, "weights", si(a, ""),
                           "K experts per token, every MoE layer: what each token multiplies with"))
            tile = moe_tile(rs)
            if tile > 1:
                p = rs.llm.params
                rows = float(p.expert_rows(tokens, tile)) / p.experts_per_token
                out.append(_ro(f"{key}.tiled_tokens", f"{words}: tokens as computed", rows, "tokens",
                               count_text(rows), f"The tokens each expert computes, padded up to its grouped GEMM's "
                               f"tile of {tile} rows: E·t·Σ P(n > j·t) ÷ K, n ~ Poisson(tokens·K/E)"))
    return out


def term_tokens(e, phase: str) -> float:
    """Tokens one pass of ``phase`` carries per micro-batch (decode: one per sequence)."""
    rs, s = e.resolved, e.scenario
    _, b = microbatch(rs, s.batch)
    return float(b) * (1 if phase == "decode" else s.input_len)


def _memory_terms(e) -> list[Readout]:
    """Context lengths the KV cache and the attention use (a sliding window caps them)."""
    s, shp = e.scenario, e.resolved.llm.shape
    w = shp.sliding_window
    full = s.input_len + s.output_len
    mean = s.input_len + s.output_len / 2.0
    cap = (lambda c: min(c, w)) if w else (lambda c: c)
    sq = s.input_len
    csum = sq * sq / 2.0 if not w or sq <= w else w * w / 2.0 + (sq - w) * w
    note = f" (capped at the {w:,}-token sliding window)" if w else ""
    return [_ro("context_full", "Context at the end", float(cap(full)), "tokens", count_text(float(cap(full))),
                "Input + output tokens: the cache that must fit" + note),
            _ro("decode_context", "Context a decode step attends to", float(cap(mean)), "tokens",
                count_text(float(cap(mean))), "The mean context input + output/2" + note),
            _ro("decode_kv_context", "Cached tokens a decode step reads", float(cap(mean)) + 1.0, "tokens",
                count_text(float(cap(mean)) + 1.0), "The mean context, + the new token's own entry" + note),
            _ro("prefill_context_sum", "Σ context over the prompt", float(csum), "tokens", si(float(csum), ""),
                "Causal attention: token i attends to i tokens, Σ = S²/2 for a prompt of S tokens" + note)]


def _links(e) -> list[Readout]:
    rs = e.resolved
    out = []
    if rs.tp > 1 and rs.tp_link is not None:
        link, llm = rs.tp_link, rs.llm
        n = llm.layers * llm.shape.allreduces_per_layer
        out += [_ro("allreduces", "All-reduces per pass", n, "", f"{n:,}",
                    f"{llm.shape.allreduces_per_layer} per layer (after attention and after the FFN)"),
                _t("link_latency", f"{link.name}: latency per call", link.latency_s, f"{link.source or 'assets/hardware.json'}"),
                _ro("link_bandwidth", f"{link.name}: bandwidth per GPU", link.bandwidth_bytes_per_s, "B/s",
                    si(link.bandwidth_bytes_per_s, "B/s"), f"Per direction per GPU ({link.source or 'assets/hardware.json'})")]
    if rs.pp > 1:
        net = rs.hw.network
        out += [_t("network_latency", f"{net.name}: latency per hop", net.latency_s, net.source or "assets/hardware.json"),
                _ro("network_bandwidth", f"{net.name}: bandwidth", net.bandwidth_bytes_per_s, "B/s",
                    si(net.bandwidth_bytes_per_s, "B/s"), net.source or "assets/hardware.json")]
    for phase in PHASES:
        tokens = term_tokens(e, phase)
        if rs.tp > 1 and rs.tp_link is not None:
            ar = float(allreduce_bytes(rs, tokens))
            out.append(_ro(f"{phase}.allreduce_bytes", f"All-reduced bytes per GPU ({phase})", ar, "B", si(ar, "B"),
                           "Ring all-reduce: 2(tp − 1)/tp of the tokens' hidden states per call, summed in 16 bits"))
        if rs.pp > 1:
            hop = float(pipeline_hop_bytes(rs, tokens))
            out.append(_ro(f"{phase}.hop_bytes", f"Bytes across the pipeline hops ({phase})", hop, "B", si(hop, "B"),
                           "(stages − 1) × the tokens' hidden states"))
    if out:
        eff = default_efficiency().efficiency(rs.engine, rs.hw)
        out.append(_ro("allreduce_scale", "Latency per call, × the link's", eff.allreduce_latency_scale, "×",
                       f"{sig3(eff.allreduce_latency_scale)}×", f"{e.engine_name}'s factor: the all-reduce kernel's own start"))
    return out


def _whole_request(e) -> list[Readout]:
    """The decode's mean step over the request (the context grows), and the waves of a batch too
    large to fit at once."""
    rs, s = e.resolved, e.scenario
    eff = default_efficiency().efficiency(rs.engine, rs.hw)
    steps = decode_pass(rs, s.batch, decode_contexts(s.input_len, s.output_len), eff).time_s
    out = [_t("mean_decode_step", "Mean decode step over the request", float(steps.mean()),
              "The decode step at 16 contexts spread over the output (input + (j + ½) × output/16), averaged")]
    if e.waves > 1:
        fit = e.max_batch_that_fits
        full, rest = divmod(s.batch, fit)
        out += [_ro("full_waves", "Full waves", full, "", f"{full:,}", f"⌊batch ÷ largest batch that fits⌋ = ⌊{s.batch:,} ÷ {fit:,}⌋"),
                _t("e2e_full_wave", f"One wave of {fit:,} sequences", e2e_seconds(rs, fit, eff),
                   "Its prefill + output × its mean decode step")]
        if rest:
            out.append(_t("e2e_last_wave", f"The last wave, {rest:,} sequences", e2e_seconds(rs, rest, eff),
                          "Its prefill + output × its mean decode step"))
    return out


def _critical(e) -> list[Readout]:
    """What the critical batch is made of: per sequence FLOPs and bytes beside the weights' bytes."""
    rs = e.resolved
    llm = rs.llm
    out = []
    for suffix, crit, with_kv in (("", e.critical_batch, True), ("_wo", e.critical_batch_weights_only, False)):
        if not crit:
            continue
        if with_kv:
            f_seq, b_seq = sequence_terms(rs, e.scenario.input_len + e.scenario.output_len / 2.0)
        else:
            f_seq, b_seq = (2.0 * llm.params.active_per_token + 0.0) / rs.tp, 0.0
        w = float(streamed_weight_bytes(llm, rs.precision, crit)) / rs.tp
        what = "with the KV cache" if with_kv else "weights only"
        out += [_ro(f"crit{suffix}.flops_per_sequence", f"FLOPs per sequence per step ({what})", f_seq, "FLOP",
                    si(f_seq, "FLOP"), "2 × the weights each token multiplies with" + (" + its attention" if with_kv else "")),
                _ro(f"crit{suffix}.weight_bytes", f"Weight bytes read at the critical batch ({what})", w, "B", si(w, "B"),
                    "Read once for the whole batch" + (" (MoE: the experts that many tokens touch)" if llm.is_moe else ""))]
        if with_kv:
            out.append(_ro("crit.bytes_per_sequence", "Bytes per sequence per step (KV cache, activations)", b_seq, "B",
                           si(b_seq, "B"), "Each sequence's own cache at the mean context + its activations"))
    return out
