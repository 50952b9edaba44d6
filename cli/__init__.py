"""Floor 15 — the command line: argparse and printing over the same model functions the window calls.

Nothing here imports numpy or the model: main.py reads COMMANDS before it knows whether the
window (which must set up its start before numpy loads, ui/kit/quick_start.py) is wanted.
"""
import os
import sys

COMMANDS = ("estimate", "list", "sweep", "validate", "serve", "plan", "hardware", "calibrate", "lessons")
# Commands whose numpy work is element-wise on small arrays: main.py starts OpenBLAS with one
# thread for them (as the window does, ui/kit/quick_start.py), not a pool of one per core that
# costs more CPU to start than they compute; a value the user set is kept. ``calibrate``
# measures the machine with the default pool; validate, serve and plan keep it as well.
ONE_BLAS_THREAD = ("estimate", "list", "sweep", "hardware")


class UsageError(Exception):
    """A one-line command-line mistake (exit status 2)."""

    status = 2


class NothingFound(UsageError):
    """A question with no answer (a plan no setup meets): one line, exit status 1."""

    status = 1


def prog_name() -> str:
    """How the program was started, for its messages: 'main.py' from the repository, 'memory-wall'
    installed (and wherever the name says nothing: python -c, a test runner)."""
    name = os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "")
    if name.lower().endswith(".exe"):
        name = name[:-4]
    return name if name == "main.py" or name.startswith("memory-wall") else "memory-wall"
