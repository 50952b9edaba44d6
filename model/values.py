"""``@frozen``: a frozen dataclass whose comparison, hash and repr are shared, not generated.

    @frozen
    class Scenario:
        gpu: str = "h100-sxm5-80gb"
        ...

is ``@dataclass(frozen=True)`` in every way a caller sees: ``fields``, ``replace``, ``asdict``,
the generated ``__init__``, frozen attributes, ``==`` and ``hash`` over the fields that compare
(in order, NotImplemented against another class), and the same ``repr`` text. The difference is
start-up: Python 3.11 makes each generated method by compiling its source, and the three that
are the same for every class cost the window's start ~80 M instructions (~12 ms here; counted
with callgrind, issue 13). Here they are three functions written once; each class keeps an
``operator.attrgetter`` of its compared fields, and an instance keeps its hash once worked out.
"""
from __future__ import annotations

import reprlib
from dataclasses import dataclass, fields
from operator import attrgetter


def _key_of(cls):
    """A function: instance -> tuple of the fields that compare (the dataclass's order)."""
    names = [f.name for f in fields(cls) if f.compare]
    if not names:
        return lambda _obj: ()
    if len(names) == 1:
        get = attrgetter(names[0])
        return lambda obj: (get(obj),)
    return attrgetter(*names)


def _eq(self, other):
    if other.__class__ is self.__class__:
        key = self.__class__._value_key
        return key(self) == key(other)
    return NotImplemented


def _hash(self):
    """Worked out once per instance (the fields never change): a value that keys a cache (an
    Estimate for its readouts) is hashed at every lookup."""
    d = self.__dict__
    h = d.get("_value_hash")
    if h is None:
        h = hash(self.__class__._value_key(self))
        object.__setattr__(self, "_value_hash", h)
    return h


def _getstate(self):
    """The fields only: a kept hash is this process's (string hashes differ between processes)."""
    state = dict(self.__dict__)
    state.pop("_value_hash", None)
    return state


@reprlib.recursive_repr()
def _repr(self):
    shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
    return f"{self.__class__.__qualname__}({shown})"


def frozen(cls):
    """A frozen dataclass (see the module docstring)."""
    cls = dataclass(frozen=True, eq=False, repr=False)(cls)
    cls._value_key = staticmethod(_key_of(cls))
    cls.__eq__ = _eq
    cls.__hash__ = _hash
    cls.__repr__ = _repr
    cls.__getstate__ = _getstate
    return cls
