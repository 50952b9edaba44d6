"""Arithmetic a reader can redo: every term of a sum named, zero terms left out with their reason,
and the inputs printed with as many digits as it takes for them to give the printed result.

    finer(r, extra)        a readout's text with ``extra`` more digits, and the value that text states
    redo_text(e, d, r)     "56.4 ms = QKV 4.577 ms + out 3.658 ms + … + overhead 8.774 ms
                            (links 0: one GPU: nothing crosses a link)"

The screen writes three significant figures; 13.4 GB ÷ 2.93 TB/s is 4.57 ms, not the 4.58 ms the
unrounded bytes give. So the inputs are written with one digit more, then two, … until the
printed numbers, taken at face value, round to the printed result (tests/test_redo_arithmetic.py
redoes every equation the app shows from its text alone).
"""
from __future__ import annotations

import math
import re

from model.readouts.expr import _INFIX, Expr, _strength
from model.readouts.format import duration, si, sig3

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
MOST_EXTRA_DIGITS = 3

# a term's short name in a sum, by key ("{phase}.{kernel}.{quantity}" by its kernel)
KERNEL_SHORT = {"qkv": "QKV", "out_proj": "out", "mlp_up": "MLP up/gate", "mlp_down": "MLP down",
                "experts": "experts", "lm_head": "LM head", "small": "norms", "attention": "attention",
                "scores": "scores"}
TERM_NAMES = {
    "decode_comm_time": "links", "prefill_comm_time": "links",
    "decode_overhead_time": "overhead", "prefill_overhead_time": "overhead",
    "weights_read_per_step": "weights", "kv_read_per_step": "KV cache", "activations_per_step": "activations",
    "weights_read_per_prefill": "weights", "kv_written_per_prefill": "KV cache",
    "activations_per_prefill": "activations",
    "weights_resident_per_gpu": "weights", "kv_resident_per_gpu": "KV cache", "workspace_per_gpu": "workspace",
    "step_overhead": "per step", "request_overhead": "per request",
    "prefill_time": "prefill", "decode.host_wait": "host", "prefill.host_wait": "host",
}


def term_name(key: str) -> str:
    """The short name a term carries in a sum ('' when its number needs none)."""
    if key in TERM_NAMES:
        return TERM_NAMES[key]
    parts = key.split(".")
    if len(parts) == 3 and parts[1] in KERNEL_SHORT:
        return KERNEL_SHORT[parts[1]] if parts[2] != "activations" else f"{KERNEL_SHORT[parts[1]]} activations"
    if len(parts) >= 2 and parts[-2].startswith("kind"):
        return f"kind {parts[-2][4:]}"
    if len(parts) == 2 and parts[0].startswith("kind"):
        return f"kind {parts[0][4:]}"
    return ""


def finer(r, extra: int) -> tuple[str, float | None]:
    """``r.text`` with ``extra`` more decimals (none added to a number written exactly), and the value the
    written text states, in the readout's own units (None when the text holds no number)."""
    v = r.value
    m = _NUMBER.search(r.text) if isinstance(r.text, str) else None
    if m is None or not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        return r.text, None
    written = m.group()
    shown = float(written.replace(",", ""))
    if shown == 0 or v == 0:
        return r.text, 0.0 if v == 0 else None
    scale = 1 / 60 if r.text[m.end():].strip().startswith("min") else \
        10.0 ** round(math.log10(abs(shown / v)))              # text units per unit of the value
    decimals = len(written.split(".")[1]) if "." in written else 0
    if extra == 0 or math.isclose(shown / scale, v, rel_tol=1e-12):     # nothing or nothing more to say
        return r.text, shown / scale
    number = f"{v * scale:.{decimals + extra}f}"
    return r.text[:m.start()] + number + r.text[m.end():], float(number) / scale


def _half_digit(r) -> float:
    """Half the last printed digit of ``r.text``, in the readout's units."""
    text, value = finer(r, 0)
    m = _NUMBER.search(text)
    if m is None or not value:
        return 0.0
    written = m.group()
    shown = float(written.replace(",", ""))
    decimals = len(written.split(".")[1]) if "." in written else 0
    return 0.5 * 10.0 ** -decimals * abs(value / shown)


def redo_text(d, r, why_zero=None) -> str:
    """``d``'s arithmetic with readouts ``r``: terms named, zero terms said once, inputs precise enough."""
    target, half = finer(r[d.key], 0)[1], _half_digit(r[d.key])
    zeros: dict[str, str] = {}
    text = ""
    for extra in range(MOST_EXTRA_DIGITS + 1):
        faces = {k: finer(r[k], extra)[1] for k in d.expr.refs()}
        texts = {k: finer(r[k], extra)[0] for k in d.expr.refs()}
        zeros.clear()
        text = render(d.expr, texts, faces, zeros, why_zero)
        if target is None or any(v is None for v in faces.values()):
            break
        got = d.expr.evaluate(faces)
        if math.isfinite(got) and abs(got - target) <= half * (1 + 1e-9) + 1e-15 * abs(target):
            break
    out = f"{r[d.key].text} = {text}"
    if zeros:
        out += " (" + "; ".join(f"{n} 0: {why}" if why else f"{n} 0" for n, why in zeros.items()) + ")"
    return out


def render(x: Expr, texts, faces, zeros: dict[str, str], why_zero=None) -> str:
    """The tree with each ref's text; a sum's refs named, and those worth 0 left out (into ``zeros``)."""
    if x.op in ("sum", "+") and any(a.op == "ref" for a in x.args):
        kept = []
        for a in _flat(x):
            if a.op == "ref" and faces.get(a.key) == 0 and term_name(a.key):
                zeros[term_name(a.key)] = (why_zero or {}).get(a.key, "")
                continue
            kept.append(a)
        parts = [_named(a, texts, faces, zeros, why_zero) for a in kept]
        return " + ".join(parts) if parts else "0"
    return _plain(x, texts, faces, zeros, why_zero)


def _flat(x: Expr) -> list[Expr]:
    if x.op == "sum":
        return [b for a in x.args for b in (_flat(a) if a.op == "+" else [a])]
    if x.op == "+":
        return [b for a in x.args for b in (_flat(a) if a.op in ("+", "sum") and len(a.args) > 1 else [a])]
    return [x]


def _named(a: Expr, texts, faces, zeros, why_zero) -> str:
    if a.op == "ref":
        name = term_name(a.key)
        return f"{name} {texts[a.key]}" if name else texts[a.key]
    return render(a, texts, faces, zeros, why_zero)


def _plain(x: Expr, texts, faces, zeros, why_zero) -> str:
    """Any other node, written as the tree writes it (model/readouts/expr.py), its sums named."""
    if x.op == "ref":
        return texts[x.key]
    if x.op == "num":
        return x.render(str)
    inner = [render(a, texts, faces, zeros, why_zero) for a in x.args]
    if x.op in _INFIX:
        sign, strength = _INFIX[x.op]
        out = []
        for i, (a, text) in enumerate(zip(x.args, inner)):
            s = _strength(a)
            out.append(f"({text})" if s < strength or (i == 1 and x.op in "-/" and s == strength) else text)
        return sign.join(out)
    if x.op == "floor":
        return f"⌊{inner[0]}⌋"
    return f"{x.op}({', '.join(inner)})"


_FACE = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)\s?(%|min\b|[PTGMk](?=[A-Za-z/]|\s|$)|[mµn](?=s\b))?")
_FACE_SCALE = {"%": 0.01, "min": 60.0, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "m": 1e-3, "µ": 1e-6, "n": 1e-9}


def face(text: str) -> tuple[float, float]:
    """The first number of a printed text as a reader takes it, in SI units (ms → 10⁻³ s, GB → 10⁹ B,
    % → ÷ 100), and half its last printed digit."""
    m = _FACE.search(text)
    if m is None:
        return math.nan, 0.0
    written = m.group(1).replace(",", "")
    scale = _FACE_SCALE.get(m.group(2) or "", 1.0)
    decimals = len(written.split(".")[1]) if "." in written else 0
    return float(written) * scale, 0.5 * 10.0 ** -decimals * scale


def inputs_that_redo(result_text: str, inputs, combine) -> list[str]:
    """The inputs' texts, each ``(value, fmt)`` written ``fmt(value, figures)``, with as few significant
    figures (3, 4, 5, 6) as it takes for ``combine`` of the printed values to round to ``result_text``."""
    target, half = face(result_text)
    texts: list[str] = []
    for figures in (3, 4, 5, 6):
        texts = [fmt(x, 3) if face(fmt(x, 3))[0] == x else fmt(x, figures) for x, fmt in inputs]
        got = combine(*(face(t)[0] for t in texts))
        if math.isfinite(got) and abs(got - target) <= half * (1 + 1e-9) + 1e-15 * abs(target):
            break
    return texts


def divided(a: float, a_unit, b: float, b_unit, result_text: str, sep: tuple[str, str] = ("", "")) -> str:
    """'a ÷ b' with the digits it takes to give ``result_text`` ("989.4 TFLOP/s ÷ 125 TFLOP/s" for 7.92×).
    A unit is an SI unit's name ("s": a duration, "ns": nanoseconds) or a ``fmt(value, figures)``;
    ``sep``: words written before each of the two ("registers ", "HBM3 ")."""
    x, y = inputs_that_redo(result_text, ((a, _in(a_unit)), (b, _in(b_unit))), lambda p, q: p / q if q else math.inf)
    return f"{sep[0]}{x} ÷ {sep[1]}{y}"


def _in(unit):
    if callable(unit):
        return unit
    if unit == "s":
        return duration
    if unit == "ns":
        return lambda x, figures: f"{sig3(x * 1e9, figures)} ns"
    return lambda x, figures: si(x, unit, figures)


def summed(result_text: str, terms, fmt=None) -> str:
    """'name a + name b + …' for ``terms`` of (name, value), each written ``fmt(value, figures)``
    (a duration by default) with the digits it takes for them to add up to ``result_text``; a term
    worth 0 is left out."""
    terms = list(terms)
    whole = math.fsum(abs(v) for _n, v in terms)
    kept = [(n, v) for n, v in terms if abs(v) > 1e-9 * whole]
    texts = inputs_that_redo(result_text, [(v, fmt or duration) for _n, v in kept], lambda *xs: math.fsum(xs))
    return " + ".join(f"{n} {t}".strip() for (n, _v), t in zip(kept, texts)) or "0"
