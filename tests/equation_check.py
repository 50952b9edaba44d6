"""Redo a printed equation from its printed numbers, as a reader with a calculator would.

    bad_equations(text) -> [(equation, printed result, what the printed inputs give)]

A line is cut into clauses (at ": ", "; ", ", " before a word, " — "); in each clause with an
"=", every side that is one number with its unit is a printed result and every side with an
operator (÷ × + − max min ⌊⌋) is its arithmetic. Words between the numbers (a term's name:
"QKV 4.58 ms + out 3.66 ms") are dropped. The arithmetic is evaluated at face value, in SI
units (ms → 10⁻³ s, GB → 10⁹ B, % → ÷ 100), and must round to the printed result at the
precision printed (its last digit). Nothing here imports the app: it reads text only.
"""
from __future__ import annotations

import math
import re
import warnings

_PREFIX = {"P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "m": 1e-3, "µ": 1e-6, "n": 1e-9}
_BASE = ("min", "FLOP/s", "FLOP/byte", "FLOP/B", "FLOP", "B/s", "B", "s", "tokens/s", "tok/s", "W", "J", "Hz",
         "weights", "tokens", "GPU-hour")
_NUMBER = re.compile(r"(?<![\w.⁰¹²³⁴⁵⁶⁷⁸⁹])(\d{1,3}(?:[, ]\d{3})+(?![\d])|\d+(?:\.\d+)?|\.\d+)"
                     r"(?:\s?(?:(%)|(×)|([PTGMkmµn]?)(" + "|".join(re.escape(b) for b in _BASE) + r")(?![\w])|([PTGMk])(?![\w/])))?")
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_OPS = {"÷": "/", "×": "*", "+": "+", "−": "-", "(": "(", ")": ")", ",": ",", "⌊": "_floor(", "⌋": ")"}


def _unit_scale(pct, times, prefix, base, count=None) -> float:
    if count:
        return _PREFIX[count]
    if base == "min":
        return 60.0
    if pct:
        return 0.01
    if base in ("s",) and prefix == "m":
        return 1e-3
    return _PREFIX.get(prefix or "", 1.0)


def _tokens(side: str):
    """(kind, value, decimals) tokens of one side: 'n' numbers, 'o' operators, 'f' functions."""
    out, i = [], 0
    side = side.replace("½", " 0.5 ").replace("10⁶", "1000000").replace("10⁹", "1000000000")
    side = re.sub(r"10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", lambda m: str(10.0 ** int(m.group(1).translate(_SUPER))), side)
    while i < len(side):
        m = _NUMBER.match(side, i) if (i == 0 or not (side[i - 1].isalnum() or side[i - 1] in "._")) else None
        if m and m.group(1)[0].isdigit() or (m and m.group(1)[0] == "."):
            digits = m.group(1).replace(",", "").replace(" ", "")
            dec = len(digits.split(".")[1]) if "." in digits else 0
            scale = _unit_scale(*m.groups()[1:])
            out.append(("n", float(digits) * scale, 0.5 * 10.0 ** -dec * scale))
            i = m.end()
            continue
        for word in ("max(", "min("):
            if side.startswith(word, i):
                out.append(("f", word[:-1], 0))
                out.append(("o", "(", 0))
                i += len(word)
                break
        else:
            c = side[i]
            if c in _OPS:
                out.append(("o", c, 0))
            i += 1
    return out


def _value(tokens) -> float | None:
    """The tokens as arithmetic (None when they are not a sound expression or hold no operator)."""
    if not any(t[0] == "o" and t[1] in "÷×+−⌊" or t[0] == "f" for t in tokens):
        return None
    py, last = [], None
    for kind, v, _ in tokens:
        if kind == "n":
            if last == "n":
                return None                     # two numbers side by side: words between them, not arithmetic
            py.append(repr(v))
        elif kind == "f":
            py.append("_" + v)
        else:
            py.append(_OPS[v])
        last = kind if kind != "o" or v not in ")⌋" else "n"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = eval("".join(py), {"__builtins__": {}}, {"_max": max, "_min": min, "_floor": math.floor})
    except Exception:                           # noqa: BLE001 — not arithmetic after all
        return None
    return float(x) if isinstance(x, (int, float)) else None


def _result(tokens) -> tuple[float, float] | None:
    """A side that is one printed number: (value, half its last digit), SI units."""
    if len(tokens) == 1 and tokens[0][0] == "n":
        return tokens[0][1], tokens[0][2]
    return None


def clauses(line: str) -> list[str]:
    parts = re.split(r": |; | — |, (?=[A-Za-z])|\n", line)
    return [p for p in parts if "=" in p]


def bad_equations(line: str) -> list[tuple[str, float, float]]:
    """Each equation of ``line`` whose printed inputs do not give its printed result."""
    bad = []
    for clause in clauses(line):
        sides = [_tokens(s) for s in clause.split("=")]
        for a, b in zip(sides, sides[1:]):
            for res, expr in ((a, b), (b, a)):
                shown, got = _result(res), _value(expr)
                if shown is None or got is None:
                    continue
                value, half = shown
                if not math.isfinite(got) or abs(got - value) > half * (1 + 1e-6) + 1e-12 * abs(value):
                    bad.append((clause.strip(), value, got))
    return bad


def checked_equations(line: str) -> int:
    """How many equations of ``line`` the checker could redo (a test asserts it sees some)."""
    n = 0
    for clause in clauses(line):
        sides = [_tokens(s) for s in clause.split("=")]
        for a, b in zip(sides, sides[1:]):
            n += sum(1 for res, expr in ((a, b), (b, a)) if _result(res) and _value(expr) is not None)
    return n
