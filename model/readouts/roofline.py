"""What the roofline plot draws and writes, made in the model (the plot only places it).

    roofs(hw, e)              one roof per distinct tensor-core peak of the GPU, highest first;
                              the active one is the peak the Estimate runs at (its compute dtype)
    comparison_roof(e, hw)    the comparison GPU's roof at the precision the comparison
                              estimate runs at: the scenario's precision resolved on that GPU
                              (its own path, or the fallback it would emulate on) — never
                              simply its highest peak
    sweep_point_text(sw, k)   the hover text of batch k of the trail
    operating_point_*(e)      the operating point's label and hover text

    ridge I* = peak FLOP/s ÷ HBM bytes/s;   attainable = min(peak, I × bytes/s)
"""
from __future__ import annotations

from model.catalog.active import default_catalog, default_efficiency
from model.errors import ModelError
from model.physics.scenario import compute_path
from model.readouts.format import duration, percent, si, sig3
from model.readouts.numbers import readouts, words
from model.readouts.terms import KERNEL_WORDS
from model.physics.roofline import ridge_flops_per_byte
from model.values import frozen


@frozen
class Roof:
    """One horizontal roof of the roofline: a compute type's peak FLOP/s, where it meets the HBM
    slope (the ridge, FLOP/byte), and its label texts."""

    names: str                  # "BF16 / FP16"
    peak_flops: float
    bandwidth_bytes_per_s: float
    ridge_flops_per_byte: float
    active: bool
    forms: tuple[str, ...]      # label texts, longest first
    tooltip: str


def roofs(hw, e) -> list[Roof]:
    """One roof per distinct peak (BF16 and FP16 share one), highest first."""
    bw = e.peak_bandwidth_bytes_per_s
    by_peak: dict[float, list[str]] = {}
    table = default_efficiency()
    doubled = set()
    for dtype, v in hw.peak_flops:
        fastest = table.peak_flops(hw, dtype) or v        # GeForce FP16: the FP16-accumulate rate
        if fastest != v:
            doubled.add(fastest)
        by_peak.setdefault(fastest, []).append(dtype.upper())
    out = []
    for p in sorted(by_peak, reverse=True):
        names = " / ".join(by_peak[p])
        active = p == e.peak_flops
        peak = si(p, "FLOP/s")
        tip = f"{names} tensor-core peak: {peak} dense per GPU ({hw.short_name})"
        if p in doubled:
            tip += ", accumulating in FP16 (twice the FP32-accumulate rate)"
        if active:
            tip += "\nthe roof this scenario runs under" + (" (emulated)" if e.emulated else "")
        out.append(Roof(names, p, bw, ridge_flops_per_byte(p, bw), active,
                        (f"{names}  {peak}", f"{by_peak[p][0]}  {peak}"), tip))
    return out


@frozen
class ComparisonRoof:
    """The comparison GPU's roof and slope for the faint second roofline."""

    gpu_name: str
    dtype: str                  # the compute type the comparison runs at
    emulated: bool
    peak_flops: float
    bandwidth_bytes_per_s: float
    ridge_flops_per_byte: float
    label: str
    tooltip: str


def comparison_roof(e, hw, catalog=None) -> ComparisonRoof | None:
    """The comparison GPU's roof at the scenario's precision as that GPU would run it.
    None when that GPU cannot run the precision at all."""
    cat = catalog or default_catalog()
    try:
        dtype, emulated, _ = compute_path(hw, cat.precision(e.scenario.precision))
    except ModelError:
        return None
    peak, bw = default_efficiency().peak_flops(hw, dtype), hw.hbm_bandwidth_bytes_per_s
    ridge = ridge_flops_per_byte(peak, bw)
    run = f"{dtype.upper()}{' (emulated)' if emulated else ''}"
    return ComparisonRoof(hw.short_name, dtype, emulated, peak, bw, ridge, f"{hw.short_name} (compare)",
                          f"{hw.short_name} (comparison): {si(bw, 'B/s')} HBM, {run} peak {si(peak, 'FLOP/s')}, "
                          f"ridge {sig3(ridge)} FLOP/B — the precision {e.precision_name} runs at there")


def comparison_point_text(ce, gpu_name: str) -> str:
    """The comparison GPU's operating point, in its own words (its numbers are not the main
    GPU's, so they carry no main-panel labels), for the same phase as the main point."""
    r = readouts(ce)
    step = (f"{r['prefill_time'].text} to the first token" if ce.phase == "prefill"
            else f"{r['decode_time'].text} per token")
    return (f"{gpu_name} at the same scenario ({ce.phase}, {ce.compute_dtype.upper()}): "
            f"{r['arithmetic_intensity'].text}, {r['achieved_flops'].text} per GPU, {step}")


def slope_text(hw, e) -> str:
    bw = readouts(e)["peak_bandwidth"].text
    return f"HBM bandwidth slope: {bw} ({hw.short_name})\nattainable FLOP/s = intensity × {bw}"


def ridge_texts(e) -> tuple[str, str, str]:
    """(label on the plot, hover text of the ridge point, hover text of the dashed line)."""
    r = readouts(e)
    ridge = r["ridge"].text
    return (f"ridge {ridge}",
            f"Ridge point: {ridge} = {r['peak_flops'].text} ÷ {r['peak_bandwidth'].text}\n"
            "left of it memory-bound, right of it compute-bound",
            f"Ridge at {ridge}")


def operating_point_label(e) -> str:
    return f"batch {e.scenario.batch} · {readouts(e)['achieved_flops'].text}"


def operating_point_tooltip(e) -> str:
    r = readouts(e)
    return (f"Operating point ({e.phase}, batch {e.scenario.batch}, {e.precision_name})\n"
            f"{r['arithmetic_intensity'].labelled}\n"
            f"{r['achieved_flops'].labelled} of {r['peak_flops'].text}\n"
            f"{r['mfu'].labelled} · {r['mbu'].labelled}\n{r['bound'].text}")


def sweep_point_text(sw, k: int) -> str:
    """Hover text of the trail's point k (decode at the mean context)."""
    fit = "fits" if bool(sw.fits[k]) else "does not fit in HBM"
    return (f"batch {int(sw.batch[k])}: {sig3(float(sw.arithmetic_intensity_flops_per_byte[k]))} FLOP/B, "
            f"{si(float(sw.achieved_flops[k]), 'FLOP/s')} per GPU\n"
            f"{duration(float(sw.decode_ms_per_token[k]) / 1e3)}/token, "
            f"{si(float(sw.output_tokens_per_s[k]), 'tok/s')} for the group, "
            f"MBU {percent(float(sw.mbu[k]))}, MFU {percent(float(sw.mfu[k]))} — {fit}")


KERNEL_LEGEND = "◆ the step's kernels (click one)"
UNFIT_LEGEND = "○ a batch whose KV cache does not fit in HBM"     # the trail's hollow dots


def kernel_points(e) -> list[tuple[float, float, str, str]]:
    """The current phase's kernels as roofline points: (intensity, attained FLOP/s per GPU, hover text,
    the readout a click explains). Kernels that do no maths (scores in memory) have no point."""
    phase = e.phase
    ks = e.prefill_kernels if phase == "prefill" else e.decode_kernels
    out = []
    for k in ks:
        if k.flops <= 0 or k.time_s <= 0:
            continue
        out.append((k.intensity_flops_per_byte, k.attained_flops,
                    f"{KERNEL_WORDS[k.name]} ({phase}): {sig3(k.intensity_flops_per_byte)} FLOP/B, "
                    f"{si(k.attained_flops, 'FLOP/s')}, {duration(k.time_s)} of the step, {k.bound}-bound\n"
                    "click: how its time is made", f"{phase}.{k.name}.time"))
    return out


def axis_titles(e) -> tuple[str, str]:
    """(x, y) axis titles in the part's own words."""
    return (f"Arithmetic intensity (FLOP per byte of {words(e)['mem']} traffic)", "Attained FLOP/s per GPU")


def title(hw, e) -> str:
    return f"ROOFLINE — {hw.short_name}, {e.compute_dtype.upper()}" + (" (emulated)" if e.emulated else "")
