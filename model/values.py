"""Floor 0 — ``@frozen``: a frozen dataclass whose methods are shared, not generated.

    @frozen
    class Scenario:
        gpu: str = "h100-sxm5-80gb"
        ...

is ``@dataclass(frozen=True)`` in every way a caller sees: ``fields``, ``replace``, ``asdict``,
``__init__`` by position or keyword with the fields' defaults and factories, frozen attributes
(``FrozenInstanceError``), ``==`` and ``hash`` over the fields that compare (in order,
NotImplemented against another class), and the same ``repr`` text. The difference is start-up:
Python 3.11 makes each generated method by compiling its source (six per frozen class:
``__init__``, ``__setattr__``, ``__delattr__``, ``__eq__``, ``__hash__``, ``__repr__``), the
largest cost of the window's own start for its ~60 value classes (docs/speed.md has the counts).
Here they are functions written once: each class keeps its field names and defaults and an ``operator.attrgetter`` of its
compared fields; an instance keeps its hash once worked out. ``__init__`` fills the instance's
``__dict__`` directly, as the generated one does through ``object.__setattr__``.
"""
from __future__ import annotations

import reprlib
from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
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
    """The fields only: a kept hash is this process's (string hashes differ between processes),
    and what ``kept`` worked out is worked out again where needed."""
    state = dict(self.__dict__)
    state.pop("_value_hash", None)
    state.pop("_value_kept", None)
    return state


def kept(value, key: str, make):
    """``make(value)`` worked out once per instance of a frozen value and kept with it (its fields
    never change, so neither does anything made from them alone): e.g. what a pass needs of a
    resolved scenario that no batch or context changes. Not a field: not compared, not shown."""
    try:
        return value.__dict__["_value_kept"][key]        # (kept already: the usual case, kept cheap)
    except KeyError:
        pass
    store = value.__dict__.get("_value_kept")
    if store is None:
        store = {}
        object.__setattr__(value, "_value_kept", store)
    got = store.get(key)
    if got is None:
        got = store[key] = make(value)
    return got


def filled(cls, /, **fields):
    """An instance of @frozen ``cls`` from every one of its fields by keyword, without ``__init__``'s
    checks of the names (a value built at every control change, the estimate: its maker names each
    field once, as a test of it checks). ``cls(**fields)`` in every other way."""
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


@reprlib.recursive_repr()
def _repr(self):
    shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
    return f"{self.__class__.__qualname__}({shown})"


class _Factory:
    """A field's ``default_factory``, told apart from a plain default."""
    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


def _init_spec(cls):
    """(names, defaults) of the fields ``__init__`` takes, in order; MISSING when required."""
    names, defaults = [], []
    for f in fields(cls):
        if not f.init:
            raise TypeError(f"{cls.__qualname__}: @frozen takes only init fields ({f.name})")
        names.append(f.name)
        defaults.append(_Factory(f.default_factory) if f.default_factory is not MISSING else f.default)
    return tuple(names), tuple(defaults)


def _init(self, *args, **kwargs):
    """As the generated ``__init__``: each field by position or keyword, else its default."""
    names, defaults = self.__class__._value_init
    n = len(args)
    if n > len(names):
        raise TypeError(f"{self.__class__.__qualname__}() takes {len(names)} positional arguments "
                        f"but {n} were given")
    d = self.__dict__
    if not n and len(kwargs) == len(names) and kwargs.keys() == self.__class__._value_names:
        d.update(kwargs)               # every field by keyword (the instance's __dict__ in the caller's order)
        return
    if n:
        d.update(zip(names, args))
        if kwargs:
            for name in names[:n]:
                if name in kwargs:
                    raise TypeError(f"{self.__class__.__qualname__}() got multiple values for argument '{name}'")
        if n == len(names):
            if kwargs:
                raise TypeError(f"{self.__class__.__qualname__}() got an unexpected keyword argument "
                                f"'{next(iter(kwargs))}'")
            return
        names, defaults = names[n:], defaults[n:]
    pop = kwargs.pop
    for name, default in zip(names, defaults):
        value = pop(name, default)
        if value is MISSING:
            raise TypeError(f"{self.__class__.__qualname__}() missing required argument: '{name}'")
        d[name] = value.make() if value.__class__ is _Factory else value
    if kwargs:
        raise TypeError(f"{self.__class__.__qualname__}() got an unexpected keyword argument '{next(iter(kwargs))}'")


def _setattr(self, name, value):
    raise FrozenInstanceError(f"cannot assign to field '{name}'")


def _delattr(self, name):
    raise FrozenInstanceError(f"cannot delete field '{name}'")


def frozen(cls=None, *, eq: bool = True):
    """A frozen dataclass (see the module docstring). ``eq=False``: compared and hashed by
    identity (a value holding arrays)."""
    if cls is None:
        return lambda c: frozen(c, eq=eq)
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__qualname__}: @frozen's shared __init__ runs no __post_init__ (use @dataclass)")
    had_doc = bool(cls.__dict__.get("__doc__"))
    if not had_doc:
        cls.__doc__ = cls.__name__            # (dataclass would build one with inspect.signature)
    cls = dataclass(init=False, eq=False, repr=False)(cls)
    cls._value_init = _init_spec(cls)
    cls._value_names = frozenset(cls._value_init[0])
    if not had_doc:
        cls.__doc__ = f"{cls.__name__}({', '.join(cls._value_init[0])})"
    cls.__init__ = _init
    cls.__setattr__ = _setattr
    cls.__delattr__ = _delattr
    if eq:
        cls._value_key = staticmethod(_key_of(cls))
        cls.__eq__ = _eq
        cls.__hash__ = _hash
    cls.__repr__ = _repr
    cls.__getstate__ = _getstate
    return cls
