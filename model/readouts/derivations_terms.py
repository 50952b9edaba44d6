"""Derivations of the inputs (model/readouts/terms.py): the kernels, the links, the whole request.

    kernel time      = max(memory time, maths time)
    memory time      = bytes ÷ bandwidth reached                  (attention: × its share of it)
    maths time       = FLOPs ÷ matmul FLOP/s reached (+ weights ÷ tp × unpack ops ÷ FP32 FLOP/s)
    weight bytes     = weights × bytes per weight ÷ tp + activation bytes
    KV bytes (decode)= tokens × cached tokens read × values per token × bytes per value ÷ KV splits
    FLOPs            = 2 × weights × tokens ÷ tp;  attention: tokens × context × FLOPs per pair ÷ tp
(× the pipeline's fill for a prefill over several stages). Leaves — datasheet numbers, fitted
factors, the architecture, the user's choices — carry their source.
"""
from __future__ import annotations

from model.physics.cost import GEMM_KERNELS
from model.physics.step import experts_apart, moe_tile, rest_unpacked, weight_only
from model.readouts.expr import Expr, emax, emin, esum, num, ref
from model.readouts.kind_words import kinds_sentence
from model.readouts.terms import term_readouts
from model.values import frozen


@frozen(eq=False)
class Derivation:
    """How one readout is made: an expression over other readouts (None for a leaf), what it
    assumes, and for a leaf or a word its inputs and source."""

    key: str
    expr: Expr | None
    assumptions: tuple[str, ...] = ()
    given: tuple[str, ...] = ()      # inputs of a word or a leaf made from others (no arithmetic)
    source: str = ""

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.expr.refs() if self.expr is not None else self.given


def split(e, x: Expr, key: str) -> Expr:
    """``x ÷ key`` for a split over GPUs (tp, tp_kv, pp), written only when it divides by more than one."""
    n = {"tp": e.resolved.tp, "tp_kv": e.resolved.tp_kv, "pp": e.resolved.pp}[key]
    return x if n == 1 else x / ref(key)


def chunked(e, x: Expr, phase: str) -> Expr:
    """× the prefill's passes where it runs in chunks (each pass reads every weight once)."""
    if phase != "prefill" or float(term_readouts(e)["prefill_passes"].value) <= 1:
        return x
    return x * ref("prefill_passes")


def kernel_names(e, phase: str) -> tuple[str, ...]:
    return tuple(k.name for k in (e.decode_kernels if phase == "decode" else e.prefill_kernels))


def filled(e, x: Expr, phase: str) -> Expr:
    """A prefill over several pipeline stages takes (m + pp − 1)/pp of one pass."""
    return x * ref("pipeline_fill") if phase == "prefill" and e.resolved.pp > 1 else x


def term_derivations(e) -> list[Derivation]:
    out = []
    for phase in ("decode", "prefill"):
        out += _kernel_derivations(e, phase)
    out += _link_derivations(e)
    out += _request_derivations(e)
    out += _engine_derivations(e)
    return out


def _kernel_derivations(e, phase: str) -> list[Derivation]:
    rs = e.resolved
    tok = ref(f"{phase}_tokens_per_pass")
    rate = ref(f"achieved_flops_{phase}")
    out = []
    for k in kernel_names(e, phase):
        key = f"{phase}.{k}"
        out.append(Derivation(f"{key}.time", emax(ref(f"{key}.memory"), ref(f"{key}.compute")),
                              ("The kernel waits for the slower of its two resources",)))
        if k == "attention" and rs.llm.shape.kinds:
            mem = ref(f"{key}.bytes") / (ref("achieved_bandwidth") * ref("eta_kv"))
            out += _kind_derivations(e, phase)
            comp = ref(f"{key}.flops") / rate
        elif k == "attention":
            mem = ref(f"{key}.bytes") / (ref("achieved_bandwidth") * ref("eta_kv"))
            ctx = ref("decode_kv_context") if phase == "decode" else None
            tokens = tok * ctx if ctx is not None else ref("prefill_kv_tokens")
            kv = split(e, tokens * ref("kv_values_per_token") * ref("kv_bytes_per_value"), "tp_kv")
            pairs = ref("decode_context") * tok if phase == "decode" else \
                ref("prefill_context_sum") * ref(f"{phase}_tokens_per_pass") / ref("input_len")
            out += [Derivation(f"{key}.bytes", kv, ("Each sequence reads its own cache: nothing is shared across the batch",)),
                    Derivation(f"{key}.flops", split(e, pairs * ref("attention_flops_per_context"), "tp"),
                               ("Flash attention: the scores stay on chip",))]
            comp = ref(f"{key}.flops") / rate
        elif k == "scores":
            mem = ref(f"{key}.bytes") / ref("achieved_bandwidth")
            out.append(Derivation(f"{key}.bytes", None, source="layers × heads × tokens × context × bytes per score "
                                  "÷ tp: the engine writes every attention score and reads it back"))
            comp = None
        else:
            mem = ref(f"{key}.bytes") / ref("achieved_bandwidth")
            weights = ref(f"{key}.active") if k == "experts" else ref(f"{key}.weights")
            tiled = k == "experts" and moe_tile(rs) > 1
            rows = ref(f"{key}.tiled_tokens") if tiled else tok
            flops_why = ("2 FLOPs (a multiply and an add) per weight per token",) + (
                ("Each expert's tokens padded up to its grouped GEMM's tile of rows: the padding is computed too",)
                if tiled else ())
            bpw = ref("expert_bytes_per_weight") if k == "experts" and experts_apart(rs) else ref("bytes_per_weight")
            out += [Derivation(f"{key}.bytes", chunked(e, split(e, ref(f"{key}.weights") * bpw, "tp"), phase)
                               + ref(f"{key}.activations"), ("Every weight is read once per pass, for all its tokens",)),
                    Derivation(f"{key}.flops", split(e, 2 * weights * rows, "tp"), flops_why),
                    Derivation(f"{key}.weights", None, source=f"{rs.llm.name}'s architecture (model/catalog/architecture.py)"),
                    Derivation(f"{key}.activations", None, source="the kernel's input and output values per token")]
            if k == "experts":
                out.append(Derivation(f"{key}.active", None, source="K experts per token × every MoE layer"))
            if tiled:
                out.append(Derivation(f"{key}.tiled_tokens", None, source="Σ over experts of ⌈n/t⌉·t ÷ K, n ~ Poisson("
                                      "tokens·K/E) (uniform routing; model/catalog/architecture.expert_rows)"))
            comp = ref(f"{key}.flops") / rate
            if weight_only(rs) and (k == "experts" or rest_unpacked(rs)):
                comp = comp + chunked(e, split(e, ref(f"{key}.weights"), "tp"), phase) * ref("dequant_ops") / ref("vector_flops")
        out.append(Derivation(f"{key}.memory", filled(e, mem, phase), _memory_assumption(k)))
        if comp is not None:
            out.append(Derivation(f"{key}.compute", filled(e, comp, phase), _compute_assumption(e, k)))
        else:
            out.append(Derivation(f"{key}.compute", None, source="no maths: bytes in and out"))
    return out


def _kind_derivations(e, phase: str) -> list[Derivation]:
    """A model that mixes layer kinds: the attention kernel's bytes and FLOPs are the sums over its kinds
    (model/readouts/layer_kinds.py has each kind's numbers)."""
    rs, kinds = e.resolved, e.resolved.llm.shape.kinds
    key, tok = f"{phase}.attention", ref(f"{phase}_tokens_per_pass")
    each = range(1, len(kinds) + 1)
    why = (kinds_sentence(rs.llm), "Each kind reads what it holds: a window or a chunk caps the tokens, a fixed state "
           "is read and written back once per step")
    out = [Derivation(f"{key}.bytes", esum(*(ref(f"{phase}.kind{i}.bytes") for i in each)), why),
           Derivation(f"{key}.flops", esum(*(ref(f"{phase}.kind{i}.flops") for i in each)), why)]
    if phase == "decode":
        for i, x in zip(each, kinds):
            per = ref(f"kind{i}.state_values") * num(2) * ref(f"kind{i}.state_bytes_per_value") if x.kind == "linear" \
                else ref(f"decode.kind{i}.keys") * ref(f"kind{i}.values_per_token") * ref("kv_bytes_per_value")
            if x.kind != "linear" and x.index_values_per_token:
                continue            # (the indexer reads every key, the attention its top-k: a leaf says so)
            whole = tok * per if min(rs.tp, x.shards) == 1 else tok * per / ref(f"kind{i}.splits")
            out.append(Derivation(f"decode.kind{i}.bytes", whole,
                                  ("Each sequence reads its own cache or state: nothing is shared across the batch",)))
    return out


def _memory_assumption(k: str) -> tuple[str, ...]:
    if k == "attention":
        return ("The paged cache is read in gathers: a share of the bandwidth the weights get",)
    return ("Streams at the bandwidth the engine reaches",)


def _compute_assumption(e, k: str) -> tuple[str, ...]:
    out = ["At the FLOP/s the engine's matmuls reach, not the peak"]
    if weight_only(e.resolved) and k in GEMM_KERNELS and (k == "experts" or rest_unpacked(e.resolved)):
        out.append("Weight-only format: each weight is unpacked on the FP32 units before the multiply")
    return tuple(out)


def _link_derivations(e) -> list[Derivation]:
    rs = e.resolved
    out = []
    for phase in ("decode", "prefill"):
        if rs.tp > 1 and rs.tp_link is not None:
            out.append(Derivation(f"{phase}.allreduce_bytes", None,
                                  source="all-reduces × 2(tp − 1)/tp × tokens × hidden size × 2 bytes (16-bit sums)"))
        if rs.pp > 1:
            out.append(Derivation(f"{phase}.hop_bytes", None, source="(stages − 1) × tokens × hidden size × 2 bytes"))
    return out


def _request_derivations(e) -> list[Derivation]:
    out = [Derivation("mean_decode_step", None, source="the decode step at 16 contexts over the output, averaged")]
    if e.waves > 1:
        out += [Derivation("full_waves", None, source="⌊batch ÷ largest batch that fits⌋"),
                Derivation("e2e_full_wave", None, source="a wave's prefill + output × its mean decode step")]
        if e.scenario.batch % max(1, e.max_batch_that_fits):
            out.append(Derivation("e2e_last_wave", None, source="the last wave's prefill + output × its mean decode step"))
    return out


def _engine_derivations(e) -> list[Derivation]:
    rates = [Derivation(f"achieved_flops_{ph}", emin(ref("matmul_peak") * ref(f"eta_c_{ph}"), ref("peak_flops")),
                        ("Never past the datasheet peak",)) for ph in ("decode", "prefill")]
    return [Derivation("achieved_bandwidth", ref("peak_bandwidth") * ref("eta_bw"),
                       ("A fraction of the datasheet figure the engine's kernels reach, fitted on published runs",)),
            *rates]
