"""One guarded path for every file the app reads or writes.

    read_bytes(path, max_bytes)                  -> bytes   (regular files only, never blocks)
    read_text(path, max_bytes)                   -> str     (UTF-8, decoding errors caught)
    read_json(path, max_bytes, max_depth, ...)   -> object  (size, depth and integer limits)
    loads_json(text, name, max_depth, ...)       -> object  (the same checks on a string)
    atomic_write_text(path, text, overwrite=False)          (unique temp file, fsync, link/rename; umask kept)
    atomic_write_with(path, write, overwrite=False)         (the same for writers that need a file name)
    clean_stale_temps(folders)                              (what a killed save left: the app's own, marked)
    guard_output() / finish_output(exc=None) -> int         (stdout/stderr: encodings, full disks, pipes)

Every failure raises ``SafeIOError`` (a ``ModelError``, so the CLI prints it as one line) whose
message is one line naming the file: a path refused before anything is written exits 2; a write
that fails once under way (a full disk, an I/O error) is a ``WriteFailed`` and exits 1. What is
refused, and why:

* FIFOs, sockets and devices (``/dev/zero``, a pipe named ``x.json``): ``os.stat`` before
  ``open``, and the file is opened with ``O_NONBLOCK`` and checked again with ``fstat``, so a
  swap between the two calls cannot block either.
* More than ``max_bytes``: at most ``max_bytes + 1`` bytes are ever read.
* JSON nested deeper than ``max_depth`` (Python's parser recurses: 100 000 brackets raise
  RecursionError), integers longer than ``max_int_digits`` (a 5 000-digit integer is slow to
  convert and refused by Python; a 400-digit one overflows ``float`` later), NaN/Infinity.
* Writing: an empty path, a folder, a read-only target, a missing folder, and — unless the
  caller passes ``overwrite=True`` (the window after asking, the command line with --force) —
  any existing file (``TargetExistsError``, so a caller can ask). A failure (a full disk) keeps
  the old file; a temporary file is ``.memory-wall-RRRRRRRR-MMMMMMMM.tmp[.EXT]`` beside the
  target, MMMMMMMM a mark only this app makes of RRRRRRRR (and the user's id): cleaning removes
  only such files, regular, the user's own and over an hour old, never one that merely looks alike.
"""
from __future__ import annotations

import codecs
import errno
import json
import os
import re
import stat
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from model.errors import ModelError

MAX_JSON_BYTES = 1_000_000
MAX_JSON_DEPTH = 64
MAX_INT_DIGITS = 30           # 10^30 is far beyond any count the model accepts


class SafeIOError(ModelError):
    """A file could not be read or written; the message is one line naming it."""


class TargetExistsError(SafeIOError):
    """The save target exists and overwrite=False: ask the user first."""


class WriteFailed(SafeIOError):
    """The path was fine but writing failed under way (a full disk, an I/O error): exit status 1."""

    status = 1


def _name(path: str | os.PathLike) -> str:
    return str(path)


def _reason(exc: OSError) -> str:
    if exc.strerror:
        return exc.strerror
    return str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__


def _check_regular(path: str | os.PathLike, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise SafeIOError(f"{_name(path)} is a folder, not a regular file")
    if not stat.S_ISREG(st.st_mode):
        raise SafeIOError(f"{_name(path)} is not a regular file (a pipe, socket or device); refusing to read it")


def read_bytes(path: str | os.PathLike, max_bytes: int = MAX_JSON_BYTES) -> bytes:
    """The file's bytes; refuses non-regular files and files over ``max_bytes``, never blocks."""
    if not str(path):
        raise SafeIOError("no file name given")
    try:
        _check_regular(path, os.stat(path))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise SafeIOError(f"no such file: {_name(path)}") from None
    except OSError as exc:
        raise SafeIOError(f"cannot read {_name(path)}: {_reason(exc)}") from None
    try:
        _check_regular(path, os.fstat(fd))
        chunks, total = [], 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise SafeIOError(f"cannot read {_name(path)}: {_reason(exc)}") from None
    finally:
        os.close(fd)
    if total > max_bytes:
        raise SafeIOError(f"{_name(path)} is too large (over {max_bytes:,} bytes)")
    return b"".join(chunks)


def read_text(path: str | os.PathLike, max_bytes: int = MAX_JSON_BYTES) -> str:
    data = read_bytes(path, max_bytes)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SafeIOError(f"{_name(path)} is not UTF-8 text (byte {exc.start})") from None


# json_depth: each byte that matters becomes one code (bytes.translate, in C), so numpy only
# walks the brackets and quotes, not the whole text.
_CODES = bytearray(256)
_CODES[ord("[")] = _CODES[ord("{")] = 1
_CODES[ord("]")] = _CODES[ord("}")] = 255         # -1 as int8
_CODES[ord('"')] = 2
_CODES = bytes(_CODES)


def json_depth(text: str) -> int:
    """The deepest nesting of [ and { outside strings (linear, no recursion). A string is what
    lies between two quotes once the escaped backslashes and quotes are taken out; in text that
    is not JSON the count may be off, and the parser that follows refuses that text."""
    raw = text.encode("utf-8", "surrogatepass")
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    codes = np.frombuffer(raw.translate(_CODES), dtype=np.int8)
    where = np.flatnonzero(codes)
    if not where.size:
        return 0
    marks = codes[where]
    quote = marks == 2
    outside = (np.cumsum(quote) & 1) == 0          # an even number of quotes so far
    steps = np.where(outside & ~quote, marks, 0).astype(np.int64)
    return int(np.cumsum(steps).max(initial=0))


def _bounded_int(max_digits: int, name: str):
    def parse(token: str) -> int:
        digits = len(token.lstrip("-"))
        if digits > max_digits:
            raise SafeIOError(f"{name} holds a {digits}-digit number (at most {max_digits} digits)")
        return int(token)
    return parse


def _no_constant(name: str):
    def parse(token: str):
        raise SafeIOError(f"{name} is not valid JSON: it holds {token}, which JSON does not allow")
    return parse


def _unique_keys(name: str):
    def build(pairs):
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set = set()
            twice = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise SafeIOError(f"{name} holds the key {str(twice)[:40]!r} twice (which one is meant?)")
        return out
    return build


def loads_json(text: str, name: str = "the data", max_depth: int = MAX_JSON_DEPTH,
               max_int_digits: int = MAX_INT_DIGITS, max_bytes: int = MAX_JSON_BYTES,
               unique_keys: bool = False, allow_constants: bool = False) -> Any:
    """Parse JSON text with the depth, integer and size limits (and, ``unique_keys``: no key twice
    in one object — a user's file where the last one would silently win; ``allow_constants``: a bare
    NaN or Infinity read as Python's json reads it, for a Hugging Face config.json); SafeIOError on any problem."""
    if not isinstance(text, str):
        raise SafeIOError(f"{name} is not text")
    if len(text) > max_bytes:
        raise SafeIOError(f"{name} is too large (over {max_bytes:,} bytes)")
    depth = json_depth(text)
    if depth > max_depth:
        raise SafeIOError(f"{name} is nested {depth} levels deep (at most {max_depth})")
    try:
        return json.loads(text, parse_int=_bounded_int(max_int_digits, name),
                          parse_constant=float if allow_constants else _no_constant(name),
                          object_pairs_hook=_unique_keys(name) if unique_keys else None)
    except json.JSONDecodeError as exc:
        raise SafeIOError(f"{name} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except (RecursionError, ValueError, OverflowError) as exc:
        if isinstance(exc, SafeIOError):
            raise
        raise SafeIOError(f"{name} cannot be read as JSON ({exc.__class__.__name__})") from None


def read_json(path: str | os.PathLike, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH,
              max_int_digits: int = MAX_INT_DIGITS, unique_keys: bool = False, allow_constants: bool = False) -> Any:
    """A JSON file read through every guard above."""
    return loads_json(read_text(path, max_bytes), Path(path).name, max_depth, max_int_digits, max_bytes, unique_keys,
                      allow_constants)


def current_umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ---------------------------------------------------------------- writing
# Every file the app writes goes through atomic_write_bytes / atomic_write_text / atomic_write_with:
# a unique temporary file beside the target (TEMP_PREFIX, so clean_stale_temps can recognise its
# own), written, fsynced, then moved into place — os.link when the target must not exist (a file
# that appears meanwhile is not replaced), os.replace when the caller has asked the user. On any
# failure the temporary file goes and the old file is untouched.
TEMP_PREFIX = ".memory-wall-"
STALE_TEMP_S = 3600.0        # a temporary file older than this is left over from a crash (a save takes seconds)
_TEMP_NAME = re.compile(r"\.memory-wall-([a-z0-9]{8})-([0-9a-f]{8})\.tmp(\.[A-Za-z0-9]{1,8})?")


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else -1


def _mark(random_part: str) -> str:
    """The part of a temporary file's name only this app makes (from its random part and the user)."""
    import hashlib
    return hashlib.sha256(f"memory-wall temporary {random_part} {_uid()}".encode()).hexdigest()[:8]


def is_own_temp_name(name: str) -> bool:
    """Whether ``name`` is one new_temp_file makes: its pattern, and the mark of its random part."""
    m = _TEMP_NAME.fullmatch(name)
    return bool(m) and m.group(2) == _mark(m.group(1))


def check_writable_target(path: str | os.PathLike, overwrite: bool = False) -> Path:
    """Refuse, with one line, an empty path, a folder, a missing folder, a read-only or special
    target, and (overwrite=False) any existing file. Returns the path."""
    if not str(path).strip():
        raise SafeIOError("no file name given; choose where to save")
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    try:
        if not parent.is_dir():
            raise SafeIOError(f"cannot save {p.name}: the folder {parent} does not exist")
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:              # a name too long, a loop of links …
        raise SafeIOError(f"cannot save {_short(p)}: {_reason(exc)}") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise SafeIOError(f"cannot save to {p}: it is a folder")
        if not stat.S_ISREG(st.st_mode):
            raise SafeIOError(f"cannot save to {p}: it is not a regular file")
        if not (st.st_mode & 0o222) or not os.access(p, os.W_OK):   # root ignores the bits: we do not
            raise SafeIOError(f"{p} is read-only; not overwritten (save under another name)")
        if not overwrite:
            raise TargetExistsError(f"{p} already exists; not overwritten")
    if not os.access(parent, os.W_OK):
        raise SafeIOError(f"cannot save {p.name}: the folder {parent} is not writable")
    return p


def _short(p: Path) -> str:
    """A path for a one-line message: a name of thousands of characters is cut short."""
    text = str(p)
    return text if len(text) <= 120 else text[:100] + "…" + text[-16:]


def new_temp_file(path: str | os.PathLike) -> str:
    """A new, empty, uniquely named file beside ``path`` (``.memory-wall-RRRRRRRR-MMMMMMMM.tmp.EXT``:
    the mark as the module says, the target's extension last, for writers that choose a format by
    it). WriteFailed when impossible. Our own temporaries there that a killed save left (over an
    hour old) go first."""
    import secrets
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    clean_stale_temps([parent])
    ext = p.suffix if re.fullmatch(r"\.[A-Za-z0-9]{1,8}", p.suffix or "") else ""
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    for _ in range(100):
        part = "".join(secrets.choice(alphabet) for _ in range(8))
        tmp = str(parent / f"{TEMP_PREFIX}{part}-{_mark(part)}.tmp{ext}")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600))
            return tmp
        except FileExistsError:
            continue
        except OSError as exc:
            raise WriteFailed(f"cannot save {_short(p)}: {_reason(exc)}") from None
    raise WriteFailed(f"cannot save {_short(p)}: no temporary name was free beside it")


def place_file(tmp: str, path: str | os.PathLike, overwrite: bool = False) -> None:
    """Move a finished temporary file onto ``path``: fsync, the mode of the file it replaces (else
    0666 minus the umask), then os.replace (``overwrite``) or os.link (never replaces). ``tmp`` is
    gone afterwards; on failure the old file is untouched and SafeIOError says why in one line."""
    p = Path(path)
    try:
        try:
            check_writable_target(p, overwrite)
            try:
                mode = stat.S_IMODE(os.stat(p).st_mode)
            except OSError:
                mode = 0o666 & ~current_umask()
            if os.path.getsize(tmp) == 0:
                raise WriteFailed(f"cannot save {p}: nothing was written")
            fd = os.open(tmp, os.O_RDWR | getattr(os, "O_BINARY", 0))
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            os.chmod(tmp, mode)
            if overwrite:
                os.replace(tmp, p)
            else:
                _link_new(tmp, p)
        except OSError as exc:
            raise WriteFailed(f"cannot save {p}: {_reason(exc)}; the old file is kept" if p.exists()
                              else f"cannot save {p}: {_reason(exc)}") from None
    finally:
        _discard(tmp)


def _link_new(tmp: str, p: Path) -> None:
    try:                       # link fails if the name appeared meanwhile
        os.link(tmp, p)
    except FileExistsError:
        raise TargetExistsError(f"{p} already exists; not overwritten") from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        if os.path.lexists(p):
            raise TargetExistsError(f"{p} already exists; not overwritten") from None
        os.replace(tmp, p)     # file systems without hard links


def atomic_write_bytes(path: str | os.PathLike, data: bytes, overwrite: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (see place_file). An existing file only with
    ``overwrite`` (the window asks first; the command line needs --force)."""
    p = check_writable_target(path, overwrite)
    tmp = new_temp_file(p)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        _discard(tmp)
        raise WriteFailed(f"cannot save {p}: {_reason(exc)}" + ("; the old file is kept" if p.exists() else "")) from None
    except BaseException:
        _discard(tmp)
        raise
    place_file(tmp, p, overwrite)


def atomic_write_text(path: str | os.PathLike, text: str, overwrite: bool = False) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), overwrite)


def atomic_write_with(path: str | os.PathLike, write: Callable[[str], object], overwrite: bool = False) -> None:
    """For writers that need a file name (Pillow, ffmpeg, Qt): ``write(tmp)`` fills a temporary file
    beside ``path``; a False result, an exception or an empty file raise SafeIOError (one line), the
    old file kept. Other exceptions pass through after the temporary file is removed."""
    p = check_writable_target(path, overwrite)
    tmp = new_temp_file(p)
    try:
        ok = write(tmp)
    except OSError as exc:
        _discard(tmp)
        raise WriteFailed(f"cannot save {p}: {_reason(exc)}") from None
    except BaseException:
        _discard(tmp)
        raise
    if ok is False:
        _discard(tmp)
        raise WriteFailed(f"cannot save {p}: the file could not be written")
    place_file(tmp, p, overwrite)


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def clean_stale_temps(folders: Iterable[str | os.PathLike], max_age_s: float = STALE_TEMP_S,
                      now: float | None = None) -> list[str]:
    """Remove the temporary files a killed save left in ``folders``: names new_temp_file made (its
    pattern and its mark, is_own_temp_name), regular files, the user's own, older than
    ``max_age_s``. A file that merely looks like one (another mark, another owner, a link, a
    folder) is never touched. Returns the paths removed."""
    now = time.time() if now is None else now
    uid = _uid()
    removed: list[str] = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.startswith(TEMP_PREFIX) or not is_own_temp_name(entry.name):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
                if (stat.S_ISREG(st.st_mode) and (uid < 0 or st.st_uid == uid)
                        and now - st.st_mtime > max_age_s):
                    os.unlink(entry.path)
                    removed.append(entry.path)
            except OSError:
                continue
    return removed


# ---------------------------------------------------------------- streams
_ASCII = {"·": "-", "×": "x", "→": "->", "←": "<-", "≈": "~", "±": "+/-", "…": "...", "—": "-", "–": "-",
          "µ": "u", "≥": ">=", "≤": "<=", "²": "^2", "³": "^3", "°": " deg", "’": "'", "‘": "'", "“": '"',
          "”": '"', "≠": "!=", "∞": "inf", "√": "sqrt", "Σ": "sum", "Δ": "delta", "€": "EUR", "\u00a0": " "}


def _to_ascii(exc: UnicodeError):
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start:exc.end]
    return "".join(_ASCII.get(ch, "?") for ch in text), exc.end


codecs.register_error("memory_wall_ascii", _to_ascii)


def guard_output() -> None:
    """stdout/stderr whose encoding lacks a character (PYTHONIOENCODING=ascii, a C locale) print an
    ASCII stand-in ('×' → 'x', '→' → '->', else '?') instead of raising UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        enc = getattr(stream, "encoding", None)
        try:
            utf = enc is not None and codecs.lookup(enc).name.startswith("utf")
        except LookupError:
            utf = False
        if enc and not utf and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="memory_wall_ascii")


def finish_output(exc: OSError | None = None) -> int:
    """Flush stdout; when writing it failed (``exc``, or now): say so in one line on stderr and
    point stdout at /dev/null, so the interpreter's own flush at exit stays silent. Returns the exit
    status: 0 when fine or when the reader closed the pipe (``| head``), else 1."""
    if exc is None:
        try:
            sys.stdout.flush()
            return 0
        except OSError as failure:
            exc = failure
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    if isinstance(exc, BrokenPipeError):
        return 0
    try:
        print(f"error: could not write the output ({_reason(exc)})", file=sys.stderr)
    except OSError:
        pass
    return 1
