"""The catalogue and the engine table every model function uses when it is given none.

    default_catalog()      the shipped catalogue, plus the user's own entries once installed
                           with set_default_catalog (--hardware-file, the window's editor)
    default_efficiency()   the engines and their fitted factors (assets/engines.json)

This floor reads no file: the shipped catalogue and engine table come from the loaders
model/files/assets.py registers here with ``provide`` (``import model`` does it), so the
physics can ask for "the default" without importing file loading.
"""
from __future__ import annotations

import weakref
from typing import Callable

from model.catalog.engines import EfficiencyTable
from model.catalog.parts import Catalog
from model.errors import AssetError

_load_catalog: Callable[[], Catalog] | None = None
_load_efficiency: Callable[[], EfficiencyTable] | None = None
_shipped: Catalog | None = None
_engines: EfficiencyTable | None = None
_active: Catalog | None = None
_listeners: list[Callable[[], Callable[[Catalog], None] | None]] = []


def provide(load_catalog: Callable[[], Catalog], load_efficiency: Callable[[], EfficiencyTable]) -> None:
    """Register how the shipped catalogue and engine table are read (each is read once, on first use)."""
    global _load_catalog, _load_efficiency, _shipped, _engines
    _load_catalog, _load_efficiency, _shipped, _engines = load_catalog, load_efficiency, None, None


def shipped_catalog() -> Catalog:
    """The catalogue shipped in assets/ (read once)."""
    global _shipped
    if _shipped is None:
        if _load_catalog is None:
            raise AssetError("no catalogue loader registered (import model first)")
        _shipped = _load_catalog()
    return _shipped


def default_efficiency() -> EfficiencyTable:
    """The engine table shipped in assets/engines.json (read once)."""
    global _engines
    if _engines is None:
        if _load_efficiency is None:
            raise AssetError("no engine-table loader registered (import model first)")
        _engines = _load_efficiency()
    return _engines


def default_catalog() -> Catalog:
    """The catalogue every model function uses when given none: the shipped one, plus any
    custom entries installed with ``set_default_catalog`` (--hardware-file, the window's editor)."""
    return _active if _active is not None else shipped_catalog()


def set_default_catalog(catalog: Catalog | None) -> None:
    """Make ``catalog`` the process-wide default (None: back to the shipped catalogue)."""
    global _active
    _active = catalog
    current = default_catalog()
    for ref in list(_listeners):
        fn = ref()
        if fn is None:
            _listeners.remove(ref)
        else:
            fn(current)


def on_default_catalog_changed(fn: Callable[[Catalog], None]) -> None:
    """Call ``fn(catalog)`` after each ``set_default_catalog`` (held weakly: a closed window's
    method is dropped, not kept alive)."""
    ref = weakref.WeakMethod(fn) if hasattr(fn, "__self__") else (lambda f=fn: f)
    _listeners.append(ref)
