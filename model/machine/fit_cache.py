"""Fitted factors kept, keyed by everything the fit sees: validation refits the same factors many
times (each publisher and each source held out; again for the serving validation, the residuals and
the README's numbers), and a fit takes seconds.

    key     sha256 of the design (every pass of every row, which rows count), the pooling (priors,
            anchors, widths), the iterations, and — on disk — the fitting code's own bytes and numpy's
            version: any change to the rows, the catalogue, the priors or the code is a new key
    memo    in this process: an identical refit is never run twice
    disk    θ as a small .npy file per key in the user's cache folder (Linux: $XDG_CACHE_HOME or
            ~/.cache, then MemoryWall/MemoryWall/fits; macOS ~/Library/Caches/…; Windows
            %LOCALAPPDATA%\\…), never inside the program's own folder; a file that cannot be read
            back exactly (wrong shape, not finite, not an array) is refitted and replaced

The cached θ is the fit's own array, bit for bit, so every number made from it is the same with or
without the cache (tests/test_cli_manners.py checks it). ``use_disk(False)``: ``validate --no-cache``.
"""
from __future__ import annotations

import hashlib
import io
import os
import platform
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path

import numpy as np

from model.catalog.engines import EfficiencyTable
from model.files.assets import ASSETS_DIR
from model.files.safe_io import SafeIOError, atomic_write_bytes, read_bytes
from model.machine.calibrate import PARAMS, Design, fit_theta, pooling

MAX_FILES = 400                 # ~3 KB each: a few sets of validation fits; the oldest go first
MAX_FILE_BYTES = 1_000_000
_MEMO: dict[str, np.ndarray] = {}
_MEMO_MAX = 256
_disk = {"on": True}
# The modules whose code decides θ for a given design: the fit, the cost of a pass, the factors.
CODE = ("model.machine.calibrate", "model.physics.cost", "model.catalog.engines")


def use_disk(on: bool) -> None:
    """Read and write the on-disk cache (default), or neither (``validate --no-cache``)."""
    _disk["on"] = bool(on)


def cache_folder() -> Path | None:
    """The folder for cached fits, or None where the user has no proper cache folder."""
    if sys.platform.startswith("win"):
        base = os.environ.get("LOCALAPPDATA", "")
        root = Path(base) / "MemoryWall" / "MemoryWall" / "cache" if os.path.isabs(base) else None
    else:
        home = os.environ.get("HOME", "")
        good_home = os.path.isabs(home) and os.path.realpath(home) != os.path.abspath(os.sep)
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        if sys.platform == "darwin":
            base = Path(home) / "Library" / "Caches" if good_home else None
        else:
            base = Path(xdg) if os.path.isabs(xdg) else (Path(home) / ".cache" if good_home else None)
        root = base / "MemoryWall" / "MemoryWall" if base is not None else None
    if root is None:
        return None
    folder = (root / "fits").resolve()
    own = ASSETS_DIR.parent.resolve()
    if folder == own or own in folder.parents:       # never inside the program's own folder
        return None
    return folder


def _code_bytes() -> bytes | None:
    """The fitting code's bytes and what runs it (None where the code cannot be read: no disk cache)."""
    h = hashlib.sha256(f"{np.__version__} {sys.version_info[:2]} {platform.machine()}".encode())
    for name in CODE:
        path = getattr(sys.modules.get(name), "__file__", None)
        if not path:
            return None
        try:
            h.update(read_bytes(path, max_bytes=5_000_000))
        except SafeIOError:                 # a frozen bundle: the code is inside an archive
            return None
    return h.digest()


def _feed(h, value) -> None:
    """Hash a design's field: arrays by dtype, shape and bytes; dataclasses field by field."""
    if is_dataclass(value):
        for f in fields(value):
            h.update(f.name.encode())
            _feed(h, getattr(value, f.name))
    elif isinstance(value, (np.ndarray, float, int, np.floating, np.integer)):
        a = np.ascontiguousarray(value)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    else:
        h.update(repr(value).encode())


def fit_key(d: Design, table: EfficiencyTable, iterations: int) -> str:
    """The hex key of the fit of ``d`` under ``table``'s priors."""
    h = hashlib.sha256(f"fit v1 {iterations}".encode())
    _feed(h, d)
    _feed(h, pooling(d.groups, table))
    return h.hexdigest()


def _rows(d: Design) -> int:
    """Rows of θ: one per group, the pooled row, one offset per platform other than CUDA."""
    return len(d.groups) + 1 + len({plat for _, plat in d.groups} - {"cuda"})


def _load(path: Path, rows: int) -> np.ndarray | None:
    try:
        theta = np.load(io.BytesIO(read_bytes(path, MAX_FILE_BYTES)), allow_pickle=False)
    except (SafeIOError, ValueError, OSError, EOFError):
        return None
    if not isinstance(theta, np.ndarray) or theta.dtype != np.float64 or theta.shape != (rows, len(PARAMS)) \
            or not np.isfinite(theta).all():
        return None
    try:
        os.utime(path)                      # recently used: pruned last
    except OSError:
        pass
    return theta


def _save(folder: Path, path: Path, theta: np.ndarray) -> None:
    buf = io.BytesIO()
    np.save(buf, theta, allow_pickle=False)
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_bytes(path, buf.getvalue(), overwrite=True)
        kept = sorted(folder.glob("*.npy"), key=lambda p: p.stat().st_mtime)
        for old in kept[:max(0, len(kept) - MAX_FILES)]:
            old.unlink()
    except (OSError, SafeIOError):          # a cache that cannot be written is only slower
        pass


def cached_theta(d: Design, table: EfficiencyTable, iterations: int = 60) -> np.ndarray:
    """``fit_theta(d, table, iterations)``, from the memo or the disk when it was fitted before."""
    key = fit_key(d, table, iterations)
    if key in _MEMO:
        return _MEMO[key].copy()
    code = _code_bytes() if _disk["on"] else None
    folder = cache_folder() if code is not None else None
    path = None
    if folder is not None:
        path = folder / f"{hashlib.sha256(code + key.encode()).hexdigest()[:40]}.npy"
        theta = _load(path, _rows(d))
        if theta is not None:
            _remember(key, theta)
            return theta.copy()
    theta = fit_theta(d, table, iterations)
    _remember(key, theta)
    if path is not None:
        _save(folder, path, theta)
    return theta.copy()


def _remember(key: str, theta: np.ndarray) -> None:
    if len(_MEMO) >= _MEMO_MAX:
        _MEMO.pop(next(iter(_MEMO)))
    _MEMO[key] = theta.copy()


def forget() -> None:
    """Empty the in-process memo (tests: the next fit comes from the disk or is fitted again)."""
    _MEMO.clear()
