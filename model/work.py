"""Floor 0 — long work that may be called off: the model's long loops (the serving simulator,
the planner's sweep and its serving runs) pass ``cancel_point()`` now and then; a caller that runs
them on a thread of its own (the window's Serve and Plan pages, ui/kit/background.py) wraps the
call in ``cancellable(check)``, and once ``check()`` is true the next cancel point raises
``Cancelled``. Anywhere else (the command line, tests) a cancel point costs one attribute read.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Callable, Iterator

_here = threading.local()


class Cancelled(Exception):
    """The work was called off (a newer request superseded it); not a problem to show anyone."""


def cancel_point() -> None:
    """Raise Cancelled when the caller on this thread has called the work off."""
    check = getattr(_here, "check", None)
    if check is not None and check():
        raise Cancelled()


@contextmanager
def cancellable(check: Callable[[], bool]) -> Iterator[None]:
    """Within this block, on this thread, cancel points raise Cancelled once ``check()`` is true."""
    before = getattr(_here, "check", None)
    _here.check = check
    try:
        yield
    finally:
        _here.check = before
