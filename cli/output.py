"""Where a command's output flags write, the same for every one of them (-o, --per-request, --csv,
--record, --screenshot):

    "-"        standard output (the report that would go there goes to stderr instead)
    ""         refused: exit 2, one line (never "nothing written" in silence)
    a path     checked before any work is done (a missing folder, a folder, a read-only file, a
               name too long, an existing file without --force: exit 2, one line), then written
               atomically (model/files/safe_io.py); a write that fails under way exits 1

Nothing here imports numpy or the model's physics: only model/files/safe_io.py, when a path is checked.
"""
from __future__ import annotations

import sys
from typing import TextIO

from cli import UsageError

STDOUT = "-"


def target(path: str | None, flag: str, overwrite: bool = False, exists_hint: str = "") -> str | None:
    """``path`` as given, once it can be written (None: the flag was not given)."""
    if path is None or path == STDOUT:
        return path
    if not path.strip():
        raise UsageError(f"{flag} needs a file name ('-' for standard output)")
    from model.files.safe_io import TargetExistsError, check_writable_target
    try:
        check_writable_target(path, overwrite)
    except TargetExistsError as exc:
        raise TargetExistsError(f"{exc}{exists_hint}") from None
    return path


def report_stream(*targets: str | None) -> TextIO:
    """Where a command's report goes: stderr when one of its outputs is standard output."""
    return sys.stderr if STDOUT in targets else sys.stdout


def refuse_two_on_stdout(**flags) -> None:
    """Two outputs that both want standard output (--json and --csv -, say): one line, exit 2."""
    on = [name for name, value in flags.items() if value]
    if len(on) > 1:
        raise UsageError(f"{' and '.join(on)} both write to standard output: give one of them a file name")


def write_text(path: str, text: str, overwrite: bool = False) -> None:
    if path == STDOUT:
        sys.stdout.write(text)
        return
    from model.files.safe_io import atomic_write_text
    atomic_write_text(path, text, overwrite=overwrite)


def write_bytes(path: str, data: bytes, overwrite: bool = False) -> None:
    if path == STDOUT:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    from model.files.safe_io import atomic_write_bytes
    atomic_write_bytes(path, data, overwrite=overwrite)
