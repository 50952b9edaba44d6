#!/usr/bin/env python3
"""Memory Wall — see the memory wall of LLM inference.

    python main.py                                    open the window (last scenario)
    python main.py scenario.json                      open the window on a saved scenario
    python main.py --screenshot out.png [flags]       render the window offscreen to a PNG
    python main.py --record chip.gif [--chapter N]    an animated GIF (or .mp4) for slides
    python main.py estimate --gpu h100 --model llama-3.1-70b --precision bf16 [--json]
    python main.py list [gpus|models|precisions] [--json]
    python main.py sweep --gpu h100 --model llama-3.1-8b --precision fp8 > sweep.csv
    python main.py validate [--json] [--serving]       the model against published measurements
    python main.py serve --rate 4 [--json]            a stream of requests: queues and percentiles
    python main.py plan --model llama-3.1-70b --gpus-available h100:16,h200:8 --ttft-p90-ms 500 --tpot-p90-ms 25
    python main.py hardware export h100 -o my.json    a catalogue entry as an editable hardware file
    python main.py calibrate [--quick] [--json]       measure this machine, write a hardware file
    python main.py lessons [--html DIR]               the lessons' claims, or linked web pages with the glossary
    --hardware-file my.json / --model-config config.json (any command): your own hardware and models
    python main.py --version                          the version (memory-wall 0.1.0)

The command line (cli/) and the window (ui/) call the same functions in model/. Bad input exits 2
with one line on stderr that starts with the program and the command ("main.py estimate: …",
"memory-wall estimate: …" when installed); a plan that finds nothing exits 1. An output path that
cannot be written exits 2 before any work; a write that fails under way (a full disk), or a report
that cannot be written to stdout, exits 1 (cli/output.py; "-" is standard output for every output flag).
"""
from __future__ import annotations

import sys

from cli import COMMANDS, ONE_BLAS_THREAD, UsageError, prog_name


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:   # Ctrl+C in the terminal: one line, the shell's 130, no traceback
        print(f"{prog_name()}: interrupted (Ctrl+C)", file=sys.stderr or sys.__stderr__)
        return 130


def _main(argv: list[str]) -> int:
    import os
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:      # started with the stream closed (main.py list >&-): write nowhere
            setattr(sys, name, open(os.devnull, "w"))
    if argv[:1] in (["--version"], ["-V"]):
        from cli.version import print_version
        from model.files.safe_io import finish_output
        try:
            return print_version() or finish_output()
        except OSError as exc:
            return finish_output(exc)
    quick = bool(argv) and argv[0] in ONE_BLAS_THREAD
    if quick:                   # a short command (cli.ONE_BLAS_THREAD): before numpy is imported
        import gc
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        gc.disable()            # importing numpy and the model: ~50 collections that free nothing (~4 ms)
    elif not (argv and argv[0] in COMMANDS):
        from ui.kit import quick_start
        quick_start.begin()     # the window: before numpy and Qt are imported (ui/kit/quick_start.py)
    from model.errors import ModelError
    from model.files.safe_io import finish_output, guard_output
    guard_output()       # characters the terminal's encoding lacks become ASCII, never a traceback
    try:
        if argv and argv[0] in COMMANDS:
            from cli.commands import run_command
            if quick:           # what start-up made, frozen (as the window does after its first paint):
                gc.freeze()     # no collection walks it again, not even the one at exit (~11 ms here)
                gc.enable()     # the command itself runs with collection on
            rc = run_command(argv)
        else:
            from cli.window import run_app
            rc = run_app(argv)
        flushed = finish_output()            # a report that could not be written: exit 1, never 0
        return rc or flushed
    except (UsageError, ModelError) as exc:   # one line naming the program and the command
        from model.readouts.command_line import error_line
        print(error_line(exc, prog_name(), argv[0] if argv and argv[0] in COMMANDS else None), file=sys.stderr)
        return getattr(exc, "status", 2)
    except OSError as exc:      # stdout on a full disk, a closed pipe
        return finish_output(exc)


if __name__ == "__main__":
    sys.exit(main())
