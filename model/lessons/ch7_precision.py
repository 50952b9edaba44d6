"""Lesson 7 — numeric precision: halving the bytes per weight halves the floor.

    weights = parameters × bytes per weight;  floor ms per token per precision;
    the fewest GPUs each precision fits on
"""
from __future__ import annotations

from typing import Iterable

from model.catalog.active import default_catalog
from model.catalog.parts import Catalog
from model.errors import ModelError, ScenarioError
from model.lessons.ch5_decode import floor_why
from model.lessons.chart import Bar
from model.lessons.facts import gpus_text, Facts, KeyNumber, ms, short_gpu, times
from model.lessons.measured import measured_e2e, short_source
from model.physics.estimate import Estimate, estimate
from model.physics.memory import resident_weight_bytes
from model.physics.scenario import GPU_COUNTS, Scenario
from model.readouts.redo import divided
from model.readouts.format import duration, si, sig3
from model.readouts.numbers import readouts
from model.values import frozen


@frozen
class PrecisionRow:
    precision_id: str
    name: str
    weight_bits: float
    weight_bytes_total: float
    floor_ms_per_token: float
    ms_per_token: float
    gpus_to_fit: int | None          # fewest of 1, 2, 4 … 64 on which it fits, None if none
    emulated: bool
    accuracy_note: str
    kv_bytes_per_step: float = 0.0   # the KV cache read each step beside the weights (its precision follows the weights')
    kv_name: str = ""                # the cache's own format (each weight format's default: BF16, FP8 …)


ACCURACY = {
    "fp32": "reference",
    "bf16": "negligible loss (the usual serving precision)",
    "fp16": "negligible loss",
    "fp8": "negligible to ~1% with per-tensor scales",
    "int8": "negligible with SmoothQuant-style scaling",
    "w8a16": "negligible (weight-only)",
    "int4": "small but measurable; needs AWQ/GPTQ-style calibration — engineering",
    "fp4": "measurable; needs NVFP4 scaling and calibration — engineering",
    "mxfp4": "measurable; a coarser scale per 32 than NVFP4's per 16 — engineering",
    "mxfp4-moe": "as released (gpt-oss was trained for its MXFP4 experts)",
}
PRECISIONS = ("fp32", "bf16", "fp8", "int8", "int4", "fp4")
MOE_FORMATS = ("mxfp4-moe",)     # a MoE model's table also shows its experts in MXFP4 (gpt-oss as released)


def precision_table(s: Scenario, precisions: Iterable[str] | None = None,
                    catalog: Catalog | None = None) -> tuple[PrecisionRow, ...]:
    """One row per precision (``precisions``, default PRECISIONS; for a MoE model MOE_FORMATS in INT8's place):
    weights held (a mixed format's experts at their own bits), floor, realistic time, fewest GPUs."""
    cat = catalog or default_catalog()
    if precisions is None:          # (a MoE model's: INT8 gives way to the mixed format, as many bytes as FP8)
        moe = cat.model(s.model).is_moe
        precisions = tuple(p for p in PRECISIONS if not (moe and p == "int8")) + (MOE_FORMATS if moe else ())
    rows = []
    for pid in precisions:
        p = cat.precision(pid)
        base = s.with_(precision=pid, kv_precision=None)
        try:
            e = estimate(base, cat)
        except ModelError:
            continue
        fit_n = None
        for n in GPU_COUNTS:
            try:
                if estimate(base.with_(gpus=n), cat).fits:
                    fit_n = n
                    break
            except ScenarioError:
                continue
        rows.append(PrecisionRow(pid, p.name, p.weight_bits, resident_weight_bytes(cat.model(s.model), p),
                                 e.decode_floor_ms_per_token, e.decode_ms_per_token, fit_n, e.emulated,
                                 ACCURACY.get(pid, ""), e.kv_bytes_per_step * s.gpus, e.kv_precision_name))
    return tuple(rows)


def precision_facts(e: Estimate, catalog: Catalog | None = None, key: str = "") -> Facts:
    s = e.scenario
    rows = {r.precision_id: r for r in precision_table(s, catalog=catalog)}
    vals = {"gpu": e.gpu_name, "gpu_short": short_gpu(e, catalog), "model": e.model_name}
    for pid, r in rows.items():
        name = pid.replace("-", "_")                 # (a template's names: mxfp4_moe_gb …)
        vals[f"{name}_gb"] = si(r.weight_bytes_total, "B")
        vals[f"{name}_floor"] = ms(r.floor_ms_per_token)
        vals[f"{name}_gpus"] = str(r.gpus_to_fit) if r.gpus_to_fit else "—"
        vals[f"{name}_held"] = gpus_text(r.gpus_to_fit) if r.gpus_to_fit else "no GPU count"
        vals[f"{name}_bits"] = f"{r.weight_bits:g}"
        vals[f"{name}_maths"] = "emulated" if r.emulated else "native"
    cur = rows.get(s.precision)
    meas = measured_e2e(s.with_(precision="fp16"), catalog, 1), measured_e2e(s.with_(precision="fp8"), catalog, 1)
    pair = [(a, b) for a in meas[0] for b in meas[1] if a.row.batch == b.row.batch == s.batch]
    if pair:
        a, b = pair[0]
        vals.update(meas_x=times(a.measured / b.measured), model_x=times(a.predicted / b.predicted),
                    meas16=duration(a.measured), meas8=duration(b.measured), source=short_source(a.row))
        kn = KeyNumber(times(a.measured / b.measured), f"faster end to end, FP16 → FP8, measured "
                                                       f"(model {times(a.predicted / b.predicted)})")
    elif cur is not None and key == "weights":
        kn = KeyNumber(si(cur.weight_bytes_total, "B"), f"of {cur.name} weights: fits on {cur.gpus_to_fit or '—'} "
                                                        f"GPU; floor {ms(cur.floor_ms_per_token)} per token")
    elif cur is not None:
        kn = KeyNumber(ms(cur.floor_ms_per_token), f"floor per token in {cur.name} "
                                                   f"({si(cur.weight_bytes_total, 'B')} of weights)")
    else:
        kn = KeyNumber("—", "no row for this precision")
    details = tuple(f"{r.name}: {si(r.weight_bytes_total, 'B')} ({r.weight_bits:g} bits a weight"
                    f"{'' if float(r.weight_bits).is_integer() else ', scales included'}; "
                    f"KV cache in {r.kv_name}), floor {ms(r.floor_ms_per_token)}, realistic "
                    f"{ms(r.ms_per_token)}, {_fit_text(r)}, maths "
                    f"{'emulated' if r.emulated else 'native'}; accuracy: {r.accuracy_note}" for r in rows.values())
    details += format_notes(rows)
    if pair:
        details += ("End to end includes the prefill and a fixed per-step overhead that fewer bytes do not shrink, "
                    "so halving the bytes buys less than 2×.",)
    return Facts(kn, vals, details, _why(e, cur, pair[0] if pair else None, key))


def _why(e: Estimate, cur: PrecisionRow | None, pair, key: str) -> tuple[str, ...]:
    """The key number's derivation with this state's numbers: the measured ratio's two runs; or the
    weights held (parameters × bytes per weight), the bytes a token reads and the floor they set,
    and why the two byte counts differ (the floor reads less than is held)."""
    if cur is None:
        return ()
    r = readouts(e)
    if pair is not None:
        a, b = pair
        mx, px = times(a.measured / b.measured), times(a.predicted / b.predicted)
        return (f"{mx} = {divided(a.measured, 's', b.measured, 's', mx)}: FP16, then FP8, measured end to end",
                f"Model: {px} = {divided(a.predicted, 's', b.predicted, 's', px)}",
                "Assumes: the model runs each published run's batch, lengths and engine")
    held, read = si(cur.weight_bytes_total, "B"), r["weights_read_per_step"].text
    params = e.resolved.llm.params
    p = e.resolved.precision
    if p.mixed and params.experts:
        lines = [f"{held} = {si(params.routed_total, '')} × {sig3(p.expert_bytes_per_weight)} B (experts) + "
                 f"{si(params.total - params.routed_total, '')} × {sig3(p.bytes_per_weight)} B"]
    else:
        lines = [f"{held} = {si(params.total, '')} weights × {sig3(p.bytes_per_weight)} B each"]
    lines += floor_why(e)
    routed = " or the experts a token is not routed to" if params.moe_layers and params.experts else ""
    lines.append(f"Assumes: a token reads {read} of the {held} held, not the input embedding table{routed} "
                 "(a step gathers only its tokens' rows)")
    return tuple(lines if key == "weights" else lines[1:])


def short_name(name: str) -> str:
    """A precision's name on the chart's axis: "FP8", "INT4" …; a mixed format by its two parts,
    short enough for the axis: "MX4" (MXFP4 experts + BF16), "MX4Q8" (… + Q8_0)."""
    name = name.split(" (")[0].replace(" weights", "")
    if " + " not in name:
        return name
    return name.replace("MXFP4 experts + ", "MX4").replace("BF16", "").replace("Q8_0", "Q8")


@frozen
class PrecisionChart:
    """Lesson 7's chart: the weights in GB per precision (one bar each, the state's precision
    marked "current"), its floor and fewest GPUs at its end, one GPU's memory as a line."""

    title: str
    tooltip: str
    names: tuple[str, ...]
    bars: tuple[Bar, ...]             # length: GB of weights, all GPUs together; kind "current" for the state's
    capacity_gb: float
    capacity_label: str
    rows: tuple[PrecisionRow, ...]
    legend: tuple[tuple[str, str], ...] = ()   # (kind, its words) for each colour drawn


def format_notes(rows: dict) -> tuple[str, ...]:
    """Why the KV cache changes with the weight format, and why the 4-bit float sits above INT4."""
    out = []
    kv = {}
    for r in rows.values():
        kv.setdefault(r.kv_name, []).append(short_name(r.name))
    if len(kv) > 1:
        out.append("The KV cache follows each format's own cache precision ("
                   + "; ".join(f"{k}: {', '.join(v)}" for k, v in kv.items()) + "), so it shrinks with the weights.")
    fp4, int4 = rows.get("fp4"), rows.get("int4")
    if fp4 is not None and int4 is not None and fp4.weight_bits > int4.weight_bits:
        out.append(f"{fp4.name} keeps {fp4.weight_bits:g} bits a weight (an FP8 scale per 16), {int4.name} "
                   f"{int4.weight_bits:g} (an FP16 scale per 128): the 4-bit float reads more bytes, so its floor "
                   f"({ms(fp4.floor_ms_per_token)}) is above INT4's ({ms(int4.floor_ms_per_token)}), native maths "
                   f"or not; it gains where the maths, not the bytes, sets the time.")
    return tuple(out)


def _fit_text(r: PrecisionRow) -> str:
    return (f"fits on {r.gpus_to_fit} GPU{'s' if (r.gpus_to_fit or 0) > 1 else ''}" if r.gpus_to_fit
            else "fits on no GPU count")


def precision_chart(e: Estimate, catalog: Catalog | None = None) -> PrecisionChart:
    s = e.scenario
    rows = precision_table(s, catalog=catalog)
    bars = tuple(Bar(i, r.weight_bytes_total / 1e9,
                     f"{si(r.weight_bytes_total, 'B')} + KV {si(r.kv_bytes_per_step, 'B')} · floor "
                     f"{ms(r.floor_ms_per_token)} · {_fit_text(r)}"
                     + (" · emulated" if r.emulated else ""),
                     f"{r.name}: {si(r.weight_bytes_total, 'B')} of weights ({r.weight_bits:g} bits each); floor "
                     f"{ms(r.floor_ms_per_token)}, realistic {ms(r.ms_per_token)} per token; maths "
                     f"{'emulated' if r.emulated else 'native'}; accuracy: {r.accuracy_note}",
                     kind="current" if r.precision_id == s.precision else "")
                 for i, r in enumerate(rows))
    return PrecisionChart(f"{e.model_name.upper()} ON {e.gpu_name.upper()} · BATCH {s.batch} · "
                          f"{s.input_len:,} IN / {s.output_len:,} OUT",
                          "Weights per precision; the floor per token follows the bytes",
                          tuple(short_name(r.name) for r in rows), bars, e.hbm_capacity_bytes / 1e9,
                          f"one GPU: {si(e.hbm_capacity_bytes, 'B')}", rows,
                          (("", "weights at each precision"), ("current", f"this scenario: {e.precision_name}")))
