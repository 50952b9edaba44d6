"""Progress on stderr for a command that takes a while (validate, plan, calibrate, --record).

On a terminal: one line that overwrites itself ("main.py validate: fitting … [12/51]"), cleared
when the work is done, so stdout's report starts on a clean screen. Anywhere else (a pipe, a file,
a CI log): a few plain lines — the first step and each quarter of the way — never a carriage
return or an escape code. Which lines appear depends only on the counts, never on the time.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Iterator, TextIO

from cli import prog_name

REFRESH_S = 0.1          # a terminal line is redrawn at most this often (the last step always)


class Progress:
    """``progress(done, total, label)``: ``done`` steps of ``total`` finished, ``label`` under way."""

    def __init__(self, command: str, stream: TextIO | None = None, tty: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.prefix = f"{prog_name()} {command}"
        try:
            self.tty = self.stream.isatty() if tty is None else tty
        except (AttributeError, ValueError, OSError):
            self.tty = False
        self.quarter = -1
        self.drawn = 0
        self.last_s = 0.0

    def __call__(self, done: int, total: int, label: str) -> None:
        total = max(1, int(total))
        if done >= total:                   # finished: the terminal line goes before anything else is printed
            self.clear()
            return
        done = max(0, int(done))
        text = f"{self.prefix}: {label} [{done + 1}/{total}]"
        try:
            if self.tty:
                now = time.monotonic()
                if now - self.last_s < REFRESH_S and done + 1 < total:
                    return
                self.last_s = now
                width = _columns() - 1
                line = text if len(text) <= width else text[:width - 1] + "…"
                self.stream.write("\r" + line + "\033[K")
                self.drawn = len(line)
            else:
                quarter = 4 * done // total
                if quarter <= self.quarter:
                    return
                self.quarter = quarter
                self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):       # stderr closed or gone: the work goes on without it
            pass

    def clear(self) -> None:
        """Take the terminal line away (nothing to do in a log)."""
        if self.tty and self.drawn:
            try:
                self.stream.write("\r\033[K")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self.drawn = 0


def _columns() -> int:
    import shutil
    return shutil.get_terminal_size((100, 24)).columns


@contextmanager
def progress(command: str, quiet: bool = False) -> Iterator[Progress | None]:
    """A Progress for ``command`` (None when ``quiet``), its terminal line cleared however the work ends."""
    p = None if quiet else Progress(command)
    try:
        yield p
    finally:
        if p is not None:
            p.clear()
