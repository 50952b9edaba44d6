"""The command line: argparse and printing over the same model functions the window calls.

Nothing here imports numpy or the model: main.py reads COMMANDS before it knows whether the
window (which must set up its start before numpy loads, ui/quick_start.py) is wanted.
"""
COMMANDS = ("estimate", "list", "sweep", "validate", "serve", "plan", "hardware", "calibrate")


class UsageError(Exception):
    """A one-line command-line mistake (exit status 2)."""
