"""Every number explains itself: its equation, the same with this scenario's values, its assumptions
and its inputs — each input a readout with a derivation of its own, down to datasheet numbers,
fitted factors and the model's architecture, which carry their sources.

    d = derivations(e)["decode_floor"]
    equation(e, d)     "Decode floor = max(Bytes per decode step ÷ HBM bandwidth, FLOPs … ÷ BF16 …)"
    arithmetic(e, d)   "4.54 ms = max(15.2 GB ÷ 3.35 TB/s, 15.8 GFLOP ÷ 989 TFLOP/s)"
    d.inputs           the readouts it names (readout(e, key) gives each)

The trees (model/readouts/expr.py) are the physics of model/physics/step.py, estimate.py and
memory.py written once more as arithmetic a person can follow; tests/test_derivations.py
evaluates every tree of hundreds of scenarios and checks it gives the number on screen, so the
two can never drift apart unnoticed. The screen's readouts are model/readouts/numbers.py; the
inputs behind them model/readouts/terms.py; the step's time and bytes are sums over its
kernels (model/physics/kernels.py). Derivations of lesson numbers and bands of error are built
on these (model/readouts/evidence.py).
"""
from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from model.readouts.derivations_screen import screen_derivations
from model.readouts.derivations_terms import Derivation, term_derivations
from model.readouts.numbers import Readout, readouts
from model.readouts.redo import redo_text
from model.readouts.terms import term_readouts

__all__ = ["Derivation", "all_readouts", "arithmetic", "derivations", "equation", "readout"]


def all_readouts(e) -> Mapping[str, Readout]:
    """The screen's readouts and the inputs behind them, by key."""
    return _all(e)


@lru_cache(maxsize=8)
def _all(e) -> Mapping[str, Readout]:
    return MappingProxyType({**term_readouts(e), **readouts(e)})


def readout(e, key: str) -> Readout:
    return all_readouts(e)[key]


def derivations(e) -> Mapping[str, Derivation]:
    """A derivation for every readout of ``e`` (screen and inputs), by key (cached per Estimate)."""
    return _derivations(e)


@lru_cache(maxsize=8)
def _derivations(e) -> Mapping[str, Derivation]:
    values = {k: r.value for k, r in all_readouts(e).items()}
    out = {d.key: d for d in (*term_derivations(e), *screen_derivations(e, values))}
    for key, r in all_readouts(e).items():        # the rest are leaves: their help says where they come from
        out.setdefault(key, Derivation(key, None, source=r.help))
    return MappingProxyType(out)


def equation(e, d: Derivation) -> str:
    """The derivation in words: 'Label = its inputs' labels combined'. A leaf: its source."""
    r = all_readouts(e)
    if d.expr is None:
        return f"{r[d.key].label}: {d.source or r[d.key].help}"
    return f"{r[d.key].label} = {d.expr.render(lambda k: r[k].label)}"


def arithmetic(e, d: Derivation) -> str:
    """The same with this scenario's numbers: 'text = the inputs' texts combined' ('' for a leaf), each
    term of a sum named, zero terms said once, inputs with the digits it takes to redo the result
    (model/readouts/redo.py)."""
    if d.expr is None:
        return ""
    ds = derivations(e)
    return redo_text(d, all_readouts(e), {k: ds[k].source for k in d.expr.refs() if ds[k].expr is None})
