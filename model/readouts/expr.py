"""Equations as small trees over readouts: written once, then evaluated and printed from the same tree.

    t = ref("weights_read_per_step") / ref("peak_bandwidth")
    t.evaluate(values)          → the number, from the inputs' values (SI units)
    t.render(words)             → "Weights read per decode step ÷ HBM bandwidth"
    t.render(texts)             → "15.0 GB ÷ 3.35 TB/s"
    t.refs()                    → ("weights_read_per_step", "peak_bandwidth")

A derivation (model/readouts/derivations.py) is a readout's key, such a tree and its
assumptions; the same tree that prints the arithmetic is the one a test evaluates, so the
equation on screen can never differ from the one that made the number.
"""
from __future__ import annotations

import math
from typing import Callable, Mapping

from model.values import frozen

# operator → (its sign, binding strength: a child binding less strongly gets parentheses)
_INFIX = {"+": (" + ", 1), "-": (" − ", 1), "*": (" × ", 2), "/": (" ÷ ", 2)}


@frozen(eq=False)
class Expr:
    """A node: ``ref`` (a readout's key), ``num`` (a pure number with its text: 2, ½), an infix
    operator, or a function (max, min, sum). Compared by identity."""

    op: str
    args: tuple = ()
    key: str = ""
    number: float = 0.0

    # ---------------------------------------------------------------- building
    def __add__(self, other) -> "Expr":
        return Expr("+", (self, _wrap(other)))

    def __sub__(self, other) -> "Expr":
        return Expr("-", (self, _wrap(other)))

    def __mul__(self, other) -> "Expr":
        return Expr("*", (self, _wrap(other)))

    def __rmul__(self, other) -> "Expr":
        return Expr("*", (_wrap(other), self))

    def __truediv__(self, other) -> "Expr":
        return Expr("/", (self, _wrap(other)))

    def __rtruediv__(self, other) -> "Expr":
        return Expr("/", (_wrap(other), self))

    # ---------------------------------------------------------------- using
    def evaluate(self, values: Mapping[str, float]) -> float:
        """The tree's value with every ref replaced by ``values[key]``."""
        if self.op == "ref":
            return float(values[self.key])
        if self.op == "num":
            return self.number
        xs = [a.evaluate(values) for a in self.args]
        if self.op == "+":
            return xs[0] + xs[1]
        if self.op == "-":
            return xs[0] - xs[1]
        if self.op == "*":
            return xs[0] * xs[1]
        if self.op == "/":
            return xs[0] / xs[1] if xs[1] else math.inf
        if self.op == "max":
            return max(xs)
        if self.op == "min":
            return min(xs)
        if self.op == "sum":
            return math.fsum(xs)
        if self.op == "floor":
            return float(math.floor(xs[0]))
        raise ValueError(f"unknown operator {self.op}")

    def render(self, name: Callable[[str], str]) -> str:
        """The tree as text, each ref written as ``name(key)`` (a label, or a readout's text)."""
        if self.op == "ref":
            return name(self.key)
        if self.op == "num":
            return _num_text(self.number)
        if self.op in _INFIX:
            sign, strength = _INFIX[self.op]
            left, right = self.args
            return (_child(left, name, strength, False) + sign + _child(right, name, strength, self.op in "-/"))
        if self.op == "floor":
            return f"⌊{self.args[0].render(name)}⌋"
        if self.op == "sum":
            return " + ".join(a.render(name) for a in self.args) if self.args else "0"
        return f"{self.op}({', '.join(a.render(name) for a in self.args)})"

    def refs(self) -> tuple[str, ...]:
        """The readouts the tree names, in order, once each."""
        if self.op == "ref":
            return (self.key,)
        seen: dict[str, None] = {}
        for a in self.args:
            for k in a.refs():
                seen.setdefault(k, None)
        return tuple(seen)


def ref(key: str) -> Expr:
    return Expr("ref", key=key)


def num(x: float) -> Expr:
    return Expr("num", number=float(x))


def emax(*xs) -> Expr:
    return Expr("max", tuple(_wrap(x) for x in xs))


def emin(*xs) -> Expr:
    return Expr("min", tuple(_wrap(x) for x in xs))


def esum(*xs) -> Expr:
    return Expr("sum", tuple(_wrap(x) for x in xs))


def efloor(x) -> Expr:
    """⌊x⌋ (a count that must be whole: sequences that fit)."""
    return Expr("floor", (_wrap(x),))


def _wrap(x) -> Expr:
    return x if isinstance(x, Expr) else num(x)


def _strength(e: Expr) -> int:
    if e.op == "sum":
        return 1 if len(e.args) > 1 else 3
    return _INFIX[e.op][1] if e.op in _INFIX else 3


def _child(e: Expr, name, parent: int, right_of_minus_or_divide: bool) -> str:
    text = e.render(name)
    s = _strength(e)
    if s < parent or (right_of_minus_or_divide and s == parent):
        return f"({text})"
    return text


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _num_text(x: float) -> str:
    if x == 0.5:
        return "½"
    if x >= 1e5 and math.log10(x).is_integer():
        return "10" + str(int(math.log10(x))).translate(_SUPERSCRIPT)
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:g}"
