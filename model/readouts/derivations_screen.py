"""Derivations of the numbers on screen (model/readouts/numbers.py), from the kernels and inputs.

    step time        = Σ kernel times + communication + overhead
    floor            = max(Σ bytes ÷ datasheet bandwidth, Σ FLOPs ÷ datasheet peak)
    overhead         = per step + layers × per layer (+ per request, once per prefill); the layers
                       counted in a dense layer's kernels: L × (k + q·n) ÷ 9
    end to end       = prefill + output × the mean decode step (in waves when the batch does not fit)
    MBU, MFU         = bytes (FLOPs) per GPU ÷ step time ÷ datasheet peak;  busy = maths time ÷ step time
    critical batch   = ridge × weight bytes ÷ (FLOPs per sequence − ridge × bytes per sequence)
    cost             = GPUs × price per GPU-hour ÷ 3 600 ÷ tokens/s × 10⁶
"""
from __future__ import annotations

from model.catalog.architecture import DENSE_LAYER_KERNELS
from model.physics.step import experts_apart
from model.readouts.derivations_terms import Derivation, chunked, filled, kernel_names, split
from model.readouts.expr import Expr, emax, emin, esum, efloor, num, ref
from model.readouts.kind_words import kinds_sentence


def _sum(e, phase: str, quantity: str, skip: tuple[str, ...] = ()) -> Expr:
    return esum(*(ref(f"{phase}.{k}.{quantity}") for k in kernel_names(e, phase) if k not in skip))


def _share(e, x: Expr, phase: str) -> Expr:
    """Per GPU: a decode step's work × micro-batches ÷ stages; a prefill's ÷ stages."""
    if e.resolved.pp == 1:
        return x
    return x * ref("pipeline_share") if phase == "decode" else x / ref("pp")


def screen_derivations(e, values) -> list[Derivation]:
    """``values``: every readout's value by key (a share is written min(1, x) only where it caps)."""
    return [*_times(e, values), *_utilisation(e, values), *_memory(e), *_money(e)]


def _times(e, values) -> list[Derivation]:
    out = []
    for ph in ("decode", "prefill"):
        over = chunked(e, ref("step_overhead") + ref("layer_equivalents") * ref("layer_overhead"), ph)
        over = filled(e, over, ph) + (ref("request_overhead") if ph == "prefill" else num(0))
        if f"{ph}.host_wait" in values:
            over = over + ref(f"{ph}.host_wait")
        step = "prefill_time" if ph == "prefill" else "decode_time"
        why = ("Kernels run one after another: their times add",
               f"{e.engine_name}'s factors for {e.resolved.hw.short_name}" + (" at the mean context" if ph == "decode" else ""))
        out += [Derivation(step, _sum(e, ph, "time") + ref(f"{ph}_comm_time") + ref(f"{ph}_overhead_time"), why),
                Derivation(f"{ph}_floor", filled(e, emax(_sum(e, ph, "bytes", ("scores",)) / ref("peak_bandwidth"),
                                                         _sum(e, ph, "flops") / ref("peak_flops")), ph),
                           ("100% of the datasheet's bandwidth and FLOP/s, nothing else: the roofline's floor",)),
                Derivation(f"{ph}_memory_time", _sum(e, ph, "memory"), ("Every kernel's time on the HBM",)),
                Derivation(f"{ph}_compute_time", _sum(e, ph, "compute"), ("Every kernel's time on the tensor cores",)),
                Derivation(f"{ph}_overhead_time", _drop_zero(over),
                           ("Software time the GPU spends not computing: launching kernels and the gaps between "
                            "them, scheduling, sampling" + (", and a new request's bookkeeping" if ph == "prefill" else ""),)),
                _comm(e, ph)]
    out += [_e2e(e),
            Derivation("layer_equivalents", ref("layers") * (ref("layer_kernels") + ref("quant_kernels")
                                                             * ref("linears_per_layer")) / num(DENSE_LAYER_KERNELS),
                       ("A layer's overheads come with its kernels: launches and the gaps between them; a dense "
                        f"layer launches {DENSE_LAYER_KERNELS}",)),
            Derivation("waves", None, given=("batch", "max_batch_that_fits"),
                       source="⌈batch ÷ largest batch that fits⌉ (1 when it fits)"),
            Derivation("tokens_per_s_per_user", num(1) / ref("decode_time"), ("Each sequence gains one token per step",)),
            Derivation("output_tokens_per_s", ref("batch") / ref("decode_time"), ("Every sequence of the batch gains one token per step",))]
    return out


def _drop_zero(x: Expr) -> Expr:
    """``a + 0`` written as ``a``."""
    if x.op == "+" and x.args[1].op == "num" and x.args[1].number == 0:
        return x.args[0]
    return x


def _comm(e, ph: str) -> Derivation:
    rs = e.resolved
    key = f"{ph}_comm_time"
    if e.engine_id == "ideal":
        return Derivation(key, None, source="the roofline floor counts no communication")
    parts, lat = [], []
    if rs.tp > 1 and rs.tp_link is not None:
        lat.append(ref("allreduces") * ref("link_latency"))
        parts.append(ref(f"{ph}.allreduce_bytes") / ref("link_bandwidth"))
    if rs.pp > 1:
        lat.append((ref("pp") - num(1)) * ref("network_latency"))
        parts.append(ref(f"{ph}.hop_bytes") / ref("network_bandwidth"))
    if not parts:
        return Derivation(key, None, source="one GPU: nothing crosses a link")
    latency = lat[0] if len(lat) == 1 else lat[0] + lat[1]
    total = latency * ref("allreduce_scale") + (parts[0] if len(parts) == 1 else parts[0] + parts[1])
    why = ["All-reduces: a fixed latency per call (any N) + the ring's 2(N − 1)/N of the 16-bit sums"]
    if rs.pp > 1:
        why.append("Pipeline hops over the network")
    return Derivation(key, filled(e, total, ph), tuple(why))


def _e2e(e) -> Derivation:
    if e.waves > 1:
        expr = ref("full_waves") * ref("e2e_full_wave")
        if e.scenario.batch % max(1, e.max_batch_that_fits):
            expr = expr + ref("e2e_last_wave")
        return Derivation("e2e_latency", expr, ("The batch's KV cache does not fit at once: it runs in waves",))
    return Derivation("e2e_latency", ref("prefill_time") + ref("output_len") * ref("mean_decode_step"),
                      ("The decode's step grows with the context: its mean over the request",))


def _utilisation(e, values) -> list[Derivation]:
    ph = e.phase
    if ph == "prefill":
        step, byts, flops, comp, comm = "prefill_time", ref("bytes_per_prefill"), ref("flops_per_prefill"), "prefill_compute_time", "prefill_comm_time"
    else:
        step, byts, flops, comp, comm = "decode_time", ref("bytes_per_step"), ref("flops_per_step"), "decode_compute_time", "decode_comm_time"
    crit = [Derivation("critical_batch", None, source="never: each sequence's KV cache grows the bytes as fast as the maths")]
    if e.critical_batch:
        crit = [Derivation("critical_batch", emax(num(1), ref("ridge") * ref("crit.weight_bytes")
                                                  / (ref("crit.flops_per_sequence") - ref("ridge") * ref("crit.bytes_per_sequence"))),
                           ("At peak numbers; the batch where FLOPs ÷ bytes reaches the ridge",) + _moe_fixed_point(e))]
    if e.critical_batch_weights_only:
        crit.append(Derivation("critical_batch_weights_only",
                               emax(num(1), ref("ridge") * ref("crit_wo.weight_bytes") / ref("crit_wo.flops_per_sequence")),
                               ("Without the KV cache's reads: ridge × bytes per weight ÷ 2 for a dense model",) + _moe_fixed_point(e)))
    else:
        crit.append(Derivation("critical_batch_weights_only", None, source="never"))
    return [
        Derivation("mbu", _cap(values, byts / ref(step) / ref("peak_bandwidth")), ("Of the datasheet bandwidth",)),
        Derivation("mfu", _cap(values, flops / ref(step) / ref("peak_flops")),
                   ("Of the datasheet peak: below the share of time the tensor cores are busy, which divides by "
                    "the FLOP/s they reach",)),
        Derivation("tensor_cores_busy", _cap(values, ref(comp) / ref(step)), ("The share of the step the maths takes",)),
        Derivation("link_busy", _cap(values, ref(comm) / ref(step)), ("The share of the step the links take",)),
        Derivation("achieved_flops", flops / ref(step), ()),
        Derivation("arithmetic_intensity", flops / byts, ("FLOPs per byte of HBM traffic",)),
        Derivation("ridge", ref("peak_flops") / ref("peak_bandwidth"),
                   ("Left of it a kernel waits on memory, right of it on the maths (at peak numbers)",)),
        Derivation("ridge_reached", (flops / ref(comp)) / (byts / ref(f"{ph}_memory_time")),
                   ("The maths and the memory traffic at the rates this engine reaches, not the datasheet's: the step is "
                    "compute-bound exactly when its intensity is right of this ridge",
                    "Below the datasheet ridge when the engine reaches a smaller share of the FLOP/s than of the bandwidth")),
        Derivation("bound", None, given=(f"{ph}_memory_time", comp, comm),
                   source="the largest of HBM time, maths time and communication time"),
        *crit,
    ]


def _cap(values, x: Expr) -> Expr:
    """min(1, x), written as x when x is below 1 (a share that could not exceed the whole)."""
    return x if x.evaluate(values) <= 1.0 else emin(num(1), x)


def _moe_fixed_point(e) -> tuple[str, ...]:
    return ("MoE: the experts the batch touches grow with it, so this is solved as a fixed point",) \
        if e.resolved.llm.is_moe else ()


def _decode_bytes() -> Expr:
    return ref("weights_read_per_step") + ref("kv_read_per_step") + ref("activations_per_step")


def _prefill_bytes() -> Expr:
    return ref("weights_read_per_prefill") + ref("kv_written_per_prefill") + ref("activations_per_prefill")


def _memory(e) -> list[Derivation]:
    gemm = [k for k in kernel_names(e, "decode") if k not in ("attention", "scores")]
    pgemm = [k for k in kernel_names(e, "prefill") if k not in ("attention", "scores")]
    asum = esum(*(ref(f"decode.{k}.activations") for k in gemm))
    pasum = esum(*(ref(f"prefill.{k}.activations") for k in pgemm))
    held = ("Every parameter, all experts and the input embedding table: more than a step reads",)
    read = ("Not the input embedding table (a step gathers only its tokens' rows)"
            + ("; for MoE only the experts the batch's tokens touch" if e.resolved.llm.is_moe else ""),)
    return [
        Derivation("weights_resident_per_gpu", split(e, split(e, _resident(e), "tp"), "pp"), held),
        Derivation("weights_read_per_step", _share(e, split(e, _read(e, "decode", gemm), "tp"), "decode"), read),
        Derivation("kv_resident_per_gpu", ref("batch") * ref("kv_per_sequence"), ("The cache at the last step",)),
        Derivation("kv_read_per_step", _share(e, ref("decode.attention.bytes"), "decode"),
                   ("At the mean context",) + ((kinds_sentence(e.resolved.llm),) if e.resolved.llm.shape.kinds else ())),
        *_kv_per_sequence(e),
        Derivation("hbm_room_for_kv", emax(num(0), ref("hbm_capacity") - ref("weights_resident_per_gpu")
                                           - ref("workspace_per_gpu")), ()),
        Derivation("activations_per_step", _share(e, asum, "decode"), ("Written by each kernel, read by the next",)),
        Derivation("flops_per_step", _share(e, _sum(e, "decode", "flops"), "decode"), ()),
        Derivation("bytes_per_step", _decode_bytes(), ("What the floor and MBU divide by the bandwidth",)),
        Derivation("bytes_per_prefill", _prefill_bytes(), ()),
        Derivation("weights_read_per_prefill", _share(e, split(e, _read(e, "prefill", pgemm), "tp"), "prefill"), read),
        Derivation("kv_written_per_prefill", _share(e, ref("prefill.attention.bytes"), "prefill"), ()),
        Derivation("activations_per_prefill", _share(e, pasum, "prefill"), ()),
        Derivation("flops_per_prefill", _share(e, _sum(e, "prefill", "flops"), "prefill"), ()),
        Derivation("workspace_per_gpu", ref("workspace_fraction") * ref("hbm_capacity"),
                   ("The runtime's context, activation buffers and fragmentation: a fixed share",)),
        Derivation("memory_needed_per_gpu", ref("weights_resident_per_gpu") + ref("kv_resident_per_gpu")
                   + ref("workspace_per_gpu"), ()),
        Derivation("hbm_free", emax(num(0), ref("hbm_capacity") - ref("memory_needed_per_gpu")), ()),
        Derivation("weights_share_of_hbm", ref("weights_resident_per_gpu") / ref("hbm_capacity"), ()),
        Derivation("kv_share_of_hbm", ref("kv_resident_per_gpu") / ref("hbm_capacity"), ()),
        Derivation("workspace_share_of_hbm", ref("workspace_per_gpu") / ref("hbm_capacity"), ()),
        Derivation("free_share_of_hbm", ref("hbm_free") / ref("hbm_capacity"), ()),
        Derivation("fits", None, given=("memory_needed_per_gpu", "hbm_capacity"), source="needed ≤ capacity"),
        Derivation("max_batch_that_fits", efloor(ref("hbm_room_for_kv") / ref("kv_per_sequence")), ()),
        Derivation("mean_context", ref("input_len") + ref("output_len") * num(0.5),
                   ("The context in the middle of the decode, where decode numbers are taken",)),
    ]


def _resident(e) -> Expr:
    """Every weight × its bytes: a mixed format's routed experts at their own bytes per weight."""
    if not experts_apart(e.resolved):
        return ref("params_total") * ref("bytes_per_weight")
    return ((ref("params_total") - ref("params_routed")) * ref("bytes_per_weight")
            + ref("params_routed") * ref("expert_bytes_per_weight"))


def _read(e, phase: str, kernels: list[str]) -> Expr:
    """The weights a pass reads × their bytes (a mixed format's experts at their own)."""
    if not experts_apart(e.resolved) or "experts" not in kernels:
        return chunked(e, esum(*(ref(f"{phase}.{k}.weights") for k in kernels)), phase) * ref("bytes_per_weight")
    rest = chunked(e, esum(*(ref(f"{phase}.{k}.weights") for k in kernels if k != "experts")), phase)
    return rest * ref("bytes_per_weight") + chunked(e, ref(f"{phase}.experts.weights"), phase) * ref("expert_bytes_per_weight")


def _kv_per_sequence(e) -> list[Derivation]:
    """One sequence's cache at the end of its output: a model that mixes layer kinds adds up its kinds,
    each what it holds (a window's or a chunk's tokens, or a fixed state)."""
    why = ("One sequence's cache at the end of its output",)
    rs = e.resolved
    kinds = rs.llm.shape.kinds
    if not kinds:
        return [Derivation("kv_per_sequence", split(e, split(e, ref("context_full") * ref("kv_values_per_token")
                                                             * ref("kv_bytes_per_value"), "tp_kv"), "pp"), why)]
    each = range(1, len(kinds) + 1)
    out = [Derivation("kv_per_sequence", esum(*(ref(f"kind{i}.held_bytes") for i in each)),
                      why + (kinds_sentence(rs.llm),))]
    for i, x in zip(each, kinds):
        if x.kind == "linear":
            x_expr, words = ref(f"kind{i}.state_values") * ref(f"kind{i}.state_bytes_per_value"), "A fixed state: the same at any context"
        else:
            x_expr = ref(f"kind{i}.held_tokens") * ref(f"kind{i}.values_per_token") * ref("kv_bytes_per_value")
            words = "Its tokens × the values each caches"
        if min(rs.tp, x.shards) > 1:
            x_expr = x_expr / ref(f"kind{i}.splits")
        out.append(Derivation(f"kind{i}.held_bytes", split(e, x_expr, "pp"), (words,)))
    return out


def _money(e) -> list[Derivation]:
    return [
        Derivation("engine", None, given=(), source=f"the engine whose measured speed the numbers follow ({e.engine_name})"),
        Derivation("usd_per_million_tokens", ref("gpus") * ref("usd_per_gpu_hour") / num(3600) / ref("output_tokens_per_s")
                   * num(1e6), ("Rented by the hour, busy all the time",)) if e.resolved.hw.usd_per_hour > 0 else
        Derivation("usd_per_million_tokens", None, given=("usd_per_gpu_hour",),
                   source="n/a: this part has no hourly price (a machine you own)"),
        Derivation("joules_per_token", ref("gpus") * ref("tdp") / ref("output_tokens_per_s"),
                   ("At TDP: an upper bound, not measured power",)),
    ]
