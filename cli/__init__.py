"""Floor 15 — the command line: argparse and printing over the same model functions the window calls.

Nothing here imports numpy or the model: main.py reads COMMANDS before it knows whether the
window (which must set up its start before numpy loads, ui/kit/quick_start.py) is wanted.
"""
COMMANDS = ("estimate", "list", "sweep", "validate", "serve", "plan", "hardware", "calibrate")
# Commands whose numpy work is element-wise on small arrays: main.py starts OpenBLAS with one
# thread for them (as the window does, ui/kit/quick_start.py), not a pool of one per core that
# costs more CPU to start than they compute; a value the user set is kept. ``calibrate``
# measures the machine with the default pool; validate, serve and plan keep it as well.
ONE_BLAS_THREAD = ("estimate", "list", "sweep", "hardware")


class UsageError(Exception):
    """A one-line command-line mistake (exit status 2)."""
