"""What a lesson's chart draws, as values: each plotted number with the words beside it and its
hover text, made here from the numbers the chapter's Facts use (one source: the chapter's
view in ui/chapters places them and formats nothing).

    Mark(x, y, label, tip)                  a point (or where a line's words go), in the chart's units
    Bar(slot, length, label, tip, start)    a bar along the value axis at a place 0, 1, 2 … of the
                                            category axis; ``start`` for a stacked segment
    Tick(value, text)                       an axis tick the chapter names itself
    chart_texts(chart)                      every word a chart value carries (for the screen checks)
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Mapping

from model.values import frozen


@frozen
class Mark:
    x: float
    y: float
    label: str = ""               # the words drawn beside it
    tip: str = ""                 # its hover text


@frozen
class Bar:
    slot: int                     # its place along the category axis: 0, 1, 2 …
    length: float                 # in the value axis' unit
    label: str = ""               # the words at its end (or inside it)
    tip: str = ""                 # its hover text
    start: float = 0.0            # where it begins (a stacked segment)
    kind: str = ""                # which part it is (its colour), e.g. "weights"

    @property
    def end(self) -> float:
        return self.start + self.length


@frozen
class Tick:
    value: float
    text: str


def chart_texts(value) -> tuple[str, ...]:
    """Every non-empty string inside a chart value (its fields, tuples and mappings, recursively)."""
    out: list[str] = []

    def walk(v) -> None:
        if isinstance(v, str):
            if v:
                out.append(v)
        elif is_dataclass(v) and not isinstance(v, type):
            for f in fields(v):
                walk(getattr(v, f.name))
        elif isinstance(v, Mapping):
            for item in v.values():
                walk(item)
        elif isinstance(v, (tuple, list)):
            for item in v:
                walk(item)
    walk(value)
    return tuple(out)
