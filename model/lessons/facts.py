"""What every lesson screen is made of: the key number, the values its claim may name, detail lines.

A prepared state's caption (its claim) in assets/lessons.json is a template such as
"V100 → H100: compute grew {flops_x}, bandwidth {bw_x}"; ``Facts.fill`` puts in the chapter's
formatted values (model/lessons/chN_*.py), so a claim is always true for the numbers on screen.
"""
from __future__ import annotations

import math
import string
from dataclasses import field
from typing import Mapping

from model.catalog.active import default_catalog
from model.catalog.parts import Catalog
from model.readouts.format import duration, sig3
from model.values import frozen


UNMATCHED_CLAIM = ("This step's claim is about its prepared scenario, which this one does not match: "
                   "press R (Prepared state) to go back to it")


@frozen
class KeyNumber:
    text: str                     # the number in large type, with its unit
    label: str                    # one line: what it counts


@frozen
class Facts:
    """A lesson screen's numbers: the key number, the values its claim may name, detail lines."""

    key: KeyNumber
    values: Mapping[str, str] = field(default_factory=dict)
    details: tuple[str, ...] = ()
    why: tuple[str, ...] = ()      # the key number's derivation with this screen's numbers, then "Assumes: …"

    def fill(self, template: str, missing: str | None = None) -> str:
        """The template with {name} replaced by this screen's values (unknown names stay visible,
        or become ``missing``)."""
        out = []
        for literal, name, _spec, _conv in string.Formatter().parse(template):
            out.append(literal)
            if name is not None:
                out.append(str(self.values.get(name, "{" + name + "}" if missing is None else missing)))
        return "".join(out)

    def missing(self, template: str) -> tuple[str, ...]:
        """The names in ``template`` this screen has no value for."""
        return tuple(name for _lit, name, _spec, _conv in string.Formatter().parse(template)
                     if name is not None and name not in self.values)

    def claim(self, template: str) -> str:
        """The claim on screen: the filled template, or, when this scenario lacks one of its
        numbers (a published run that does not match it), UNMATCHED_CLAIM: never a claim with holes."""
        return UNMATCHED_CLAIM if self.missing(template) else self.fill(template)


def times(x: float) -> str:
    """A ratio as people say it: 7.92×, 111×."""
    return f"{sig3(x)}×"


def pct(fraction: float) -> str:
    return f"{sig3(100.0 * fraction)}%" if math.isfinite(fraction) else "—"


def ms(x_ms: float) -> str:
    """A time given in ms, written as the readouts write times."""
    return duration(x_ms / 1e3)


def short_gpu(e, catalog: Catalog | None = None) -> str:
    """The accelerator's short name (e.g. "H100 SXM") for claims that name the part on screen."""
    return (catalog or default_catalog()).gpu(e.scenario.gpu).short_name


def gpus_text(n: int) -> str:
    return f"{n} GPU" if n == 1 else f"{n} GPUs"
