"""Derivations and kernels as text: what ``main.py estimate --explain`` and ``--kernels`` print and
``--json`` carries.

    derivation_lines(e, key)   the number, its equation in words, the same with this scenario's
                               numbers, its assumptions and its inputs, then each input's own, to
                               ``depth`` levels (each readout once)
    kernel_rows(e, phase)      one row per kernel: bytes, FLOPs, intensity, time, share of the
                               step, what bounds it; then communication and overhead; they add up
"""
from __future__ import annotations

from model.errors import ModelError
from model.readouts.command_line import engine_words
from model.readouts.derivations import all_readouts, arithmetic, derivations, equation
from model.readouts.evidence import band, nearest_runs
from model.machine.measured import UNITS
from model.readouts.format import duration, percent, si, sig3
from model.readouts.numbers import readouts, words
from model.readouts.terms import KERNEL_WORDS
from model.readouts.vocabulary import matrix_units, memory_word
from model.values import frozen

HEADLINE = ("decode_time", "decode_floor", "prefill_time", "e2e_latency", "output_tokens_per_s", "mbu", "mfu",
            "tensor_cores_busy", "critical_batch", "weights_read_per_step", "usd_per_million_tokens")


def derivation_lines(e, key: str, depth: int = 2) -> list[str]:
    """A readout's derivation and, ``depth`` levels down, its inputs' (each once)."""
    d = derivations(e)
    if key not in d:
        known = ", ".join(k for k in HEADLINE if k in d)
        raise ModelError(f"no readout '{key}' (try one of: {known}; `estimate --explain` lists the headline ones)")
    out: list[str] = []
    seen: set[str] = set()

    def walk(k: str, level: int) -> None:
        if k in seen:
            return
        seen.add(k)
        pad = "  " * level
        r = all_readouts(e)[k]
        out.append(f"{pad}{r.label}: {r.text}")
        der = d[k]
        out.append(f"{pad}  {equation(e, der)}")
        a = arithmetic(e, der)
        if a:
            out.append(f"{pad}  {a}")
        out.extend(f"{pad}  · {x}" for x in der.assumptions)
        if level < depth:
            for i in der.inputs:
                walk(i, level + 1)
    walk(key, 0)
    b = band(e, key)
    if b is not None:
        out.append(f"How far to trust it: {all_readouts(e)[key].text} {b.label}")
        for run in nearest_runs(e):
            unit = UNITS.get(run.metric, "")
            out.append(f"  published: {run.label}: measured {run.measured:.4g} {unit}, model {run.predicted:.4g} "
                       f"({100 * run.error:+.0f}%) — {run.source}")
    return out


def derivation_json(e, key: str) -> dict:
    """One derivation as JSON: the words, the arithmetic, the assumptions, the inputs' keys and, for a
    realistic number, its error band."""
    der = derivations(e)[key]
    b = band(e, key)
    return {"equation": equation(e, der), "arithmetic": arithmetic(e, der), "assumptions": list(der.assumptions),
            "inputs": list(der.inputs), "source": der.source,
            "band": None if b is None else {"fraction": b.fraction, "runs": b.runs, "alike": b.alike, "widened": b.widened}}


def kernel_rows(e, phase: str = "decode") -> list[tuple[str, ...]]:
    """Header, then one row per kernel and the rest of the step, then the total (the step time)."""
    ks = e.decode_kernels if phase == "decode" else e.prefill_kernels
    step_ms = e.decode_ms_per_token if phase == "decode" else e.prefill_ms
    comm_ms = e.decode_comm_ms if phase == "decode" else e.prefill_comm_ms
    over_ms = e.decode_overhead_ms if phase == "decode" else e.prefill_overhead_ms
    rows = [("kernel", "bytes", "FLOPs", "FLOP/byte", "time", "of the step", "bound by")]
    for k in ks:
        rows.append((KERNEL_WORDS[k.name], si(k.bytes, "B"), si(k.flops, "FLOP"),
                     sig3(k.intensity_flops_per_byte) if k.flops else "—", duration(k.time_s),
                     percent(k.time_s / (step_ms / 1e3)), _bound_word(e, k.bound)))
    for name, ms in (("All-reduces and pipeline hops", comm_ms), ("Overhead (launches, gaps, scheduling)", over_ms)):
        rows.append((name, "", "", "", duration(ms / 1e3), percent(ms / step_ms), ""))
    rows.append(("Step" if phase == "decode" else "Prefill pass", "", "", "", duration(step_ms / 1e3), percent(1.0), ""))
    return rows


def _bound_word(e, bound: str) -> str:
    hw = e.resolved.hw
    return memory_word(hw) if bound == "memory" else matrix_units(hw)


def table_text(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as aligned columns (the first left, the rest right)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


@frozen
class DerivationView:
    """One readout's derivation as a panel shows it: every text made here, placed by the view."""

    key: str
    title: str                                  # "Time per token (decode): 9.09 ms"
    equation: str                               # in words (a leaf: its source)
    arithmetic: str                             # with this scenario's numbers ("" for a leaf)
    assumptions: tuple[str, ...]
    inputs: tuple[tuple[str, str], ...]         # (key, "label: text") of each input, to walk down to
    trust: str                                  # "9.09 ms ± 14% (vLLM on …, 17 published runs)" or ""
    runs: tuple[str, ...]                       # the nearest published runs, one line each
    is_leaf: bool


def derivation_view(e, key: str) -> DerivationView:
    """The panel's texts for ``key`` (ModelError with one line for a key that has no readout)."""
    d = derivations(e)
    if key not in d:
        raise ModelError(f"no readout '{key}' to explain")
    der, r = d[key], all_readouts(e)
    b = band(e, key)
    runs = ()
    if b is not None:
        runs = tuple(f"{x.label}: measured {x.measured:.4g} {UNITS.get(x.metric, '')}, model {x.predicted:.4g} "
                     f"({100 * x.error:+.0f}%)" for x in nearest_runs(e))
    return DerivationView(key, r[key].labelled, equation(e, der), arithmetic(e, der), der.assumptions,
                          tuple((i, r[i].labelled) for i in der.inputs), f"{r[key].text} {b.label}" if b else "",
                          runs, der.expr is None)


def estimate_table(e) -> list[tuple[str, str]]:
    """The command line's `estimate` table: (row name, readout texts), the window's numbers."""
    r = readouts(e)
    s = e.scenario

    def t(*keys: str, sep: str = " · ") -> str:
        return sep.join(r[k].labelled for k in keys)

    return [
        ("Scenario", f"{e.model_name} · {e.precision_name} (KV {e.kv_precision_name}) · {s.gpus}× {e.gpu_name}"),
        ("", f"batch {s.batch} · {s.input_len} in / {s.output_len} out · TP {e.tp} × PP {e.pp}"
             + (f" over {e.link_name}" if e.link_name else "") + f" · {t('mean_context')}"),
        ("Engine", engine_words(e.engine_id, e.engine_name, s.engine, e.resolved.hw.short_name)),
        ("Decode", f"{r['decode_time'].text}/token{_band(e, 'decode_time')} at the mean context · {t('decode_floor')}"),
        ("  of which", t("decode_memory_time", "decode_compute_time", "decode_comm_time", "decode_overhead_time")),
        ("Prefill (TTFT)", f"{r['prefill_time'].labelled}{_band(e, 'prefill_time')} · {t('prefill_floor')}"),
        ("  of which", t("prefill_memory_time", "prefill_compute_time", "prefill_comm_time", "prefill_overhead_time")),
        ("End to end", r["e2e_latency"].text + _band(e, "e2e_latency") + (f" in {e.waves} waves" if e.waves > 1 else "")),
        ("Throughput", t("output_tokens_per_s", "tokens_per_s_per_user")),
        ("Roofline", t("arithmetic_intensity", "ridge", "bound")),
        ("Critical batch", t("critical_batch", "critical_batch_weights_only")),
        ("Utilisation", t("mbu", "mfu", "tensor_cores_busy")),
        ("Per decode step", t("weights_read_per_step", "kv_read_per_step", "activations_per_step")),
        (f"{words(e)['mem']} per GPU", t("weights_resident_per_gpu", "kv_resident_per_gpu", "workspace_per_gpu")),
        ("", f"{t('memory_needed_per_gpu', 'hbm_capacity')} → " + ("fits" if e.fits else "DOES NOT FIT")),
        ("Largest batch", r["max_batch_that_fits"].text),
        ("Cost", t("usd_per_million_tokens", "joules_per_token")),
    ]


def _band(e, key: str) -> str:
    """' ± 14%' after a realistic number (model/readouts/evidence.py), '' for a floor or the ideal engine."""
    b = band(e, key)
    return f" {b.text}" if b is not None else ""
