#!/usr/bin/env python3
"""Memory Wall — see the memory wall of LLM inference.

    python main.py                                    open the window (last scenario)
    python main.py scenario.json                      open the window on a saved scenario
    python main.py --screenshot out.png [flags]       render the window offscreen to a PNG
    python main.py --record chip.gif [--chapter N]    an animated GIF (or .mp4) for slides
    python main.py estimate --gpu h100 --model llama-3.1-70b --precision bf16 [--json]
    python main.py list [gpus|models|precisions] [--json]
    python main.py sweep --gpu h100 --model llama-3.1-8b --precision fp8 > sweep.csv
    python main.py validate [--json]                  the model against published measurements
    python main.py hardware export h100 -o my.json    a catalogue entry as an editable hardware file
    python main.py calibrate [--quick] [--json]       measure this machine, write a hardware file
    --hardware-file my.json / --model-config config.json (any command): your own hardware and models

The command line and the window call the same functions in model/. Bad input exits 2
with one line on stderr.
"""
from __future__ import annotations

import argparse
import json
import math
import sys

COMMANDS = ("estimate", "list", "sweep", "validate", "hardware", "calibrate")


class UsageError(Exception):
    """A one-line command-line mistake (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _positive_int(name: str):
    def parse(text: str) -> int:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got '{text}'") from None
        if not math.isfinite(value) or value != int(value):
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got '{text}'")
        if abs(value) > 2 ** 53:
            raise argparse.ArgumentTypeError(f"{name} is far too large, got '{text}'")
        return int(value)
    return parse


def add_scenario_flags(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    from model.scenario import Scenario
    d = Scenario()
    g = p.add_argument_group("scenario")
    g.add_argument("--gpu", default=d.gpu if defaults else None, help=f"GPU id or alias (default {d.gpu})")
    g.add_argument("--model", default=d.model if defaults else None, help=f"model id or alias (default {d.model})")
    g.add_argument("--precision", default=d.precision if defaults else None, help="fp32 bf16 fp16 fp8 int8 w8a16 int4 fp4")
    g.add_argument("--kv-precision", default=None, help="bf16 fp16 fp8 int8 int4 (default: follows --precision)")
    g.add_argument("--batch", type=_positive_int("batch"), default=d.batch if defaults else None)
    g.add_argument("--gpus", type=_positive_int("GPU count"), default=d.gpus if defaults else None)
    g.add_argument("--interconnect", default=d.interconnect if defaults else None, help="nvlink | pcie | network")
    g.add_argument("--input-len", type=_positive_int("input length"), default=d.input_len if defaults else None)
    g.add_argument("--output-len", type=_positive_int("output length"), default=d.output_len if defaults else None)
    g.add_argument("--phase", default=d.phase if defaults else None, help="decode | prefill")
    g.add_argument("--engine", default=d.engine if defaults else None,
                   help="auto | ideal | tensorrt-llm vllm sglang llama.cpp exllamav2 mlc-llm transformers deepspeed")


def scenario_from_args(args, base=None):
    from model.scenario import Scenario
    s = base or Scenario()
    changes = {k: getattr(args, k) for k in ("gpu", "model", "precision", "kv_precision", "batch", "gpus",
                                             "interconnect", "input_len", "output_len", "phase", "engine")
               if getattr(args, k, None) is not None}
    return s.with_(**changes)


def _json_value(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


# ---------------------------------------------------------------- commands

def cmd_estimate(args) -> int:
    from model import estimate
    from model.explain import estimate_table
    from model.readouts import readouts_json
    e = estimate(scenario_from_args(args))
    if args.json:
        d = {k: _json_value(v) for k, v in e.to_json_dict().items()}
        d["readouts"] = readouts_json(e)
        print(json.dumps(d, indent=2))
        return 0
    rows = estimate_table(e)
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    for note in e.notes:
        print(f"note: {note}")
    print(e.explanation)
    return 0


def cmd_list(args) -> int:
    from model.catalog import default_catalog
    from model.format import si
    cat = default_catalog()
    what = args.what or "all"
    out: dict[str, list] = {}
    if what in ("all", "gpus"):
        out["gpus"] = [{"id": g.id, "name": g.name, "aliases": list(g.aliases), "vendor": g.vendor,
                        "hbm_bytes": g.hbm_capacity_bytes, "hbm_bytes_per_s": g.hbm_bandwidth_bytes_per_s,
                        "peak_flops": dict(g.peak_flops)} for g in cat.gpus]
    if what in ("all", "models"):
        out["models"] = [{"id": m.id, "name": m.name, "aliases": list(m.aliases), "params": m.params.total,
                          "active_params": m.params.active_per_token} for m in cat.models]
    if what in ("all", "precisions"):
        out["precisions"] = [{"id": p.id, "name": p.name, "weight_bits": p.weight_bits, "compute": p.compute}
                             for p in cat.precisions]
        out["kv_precisions"] = [{"id": k.id, "name": k.name, "bits": k.bits} for k in cat.kv_precisions if not k.hidden]
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    if "gpus" in out:
        print("GPUs")
        for g in cat.gpus:
            bf = g.peak("bf16") or g.peak("fp16")
            print(f"  {g.id:16s} {g.name:44s} {si(g.hbm_capacity_bytes, 'B'):>8s} {si(g.hbm_bandwidth_bytes_per_s, 'B/s'):>10s}"
                  f" {si(bf, 'FLOP/s'):>13s}  aka {', '.join(g.aliases)}")
    if "models" in out:
        print("Models")
        for m in cat.models:
            print(f"  {m.id:16s} {m.name:16s} {si(m.params.total, 'params'):>14s}  aka {', '.join(m.aliases)}")
    if "precisions" in out:
        print("Precisions")
        for p in cat.precisions:
            print(f"  {p.id:10s} {p.name:22s} {p.weight_bits:g} bits/weight, maths in {p.compute.upper()}")
        print("KV-cache precisions: " + ", ".join(k.id for k in cat.kv_precisions if not k.hidden))
    return 0


def cmd_sweep(args) -> int:
    import numpy as np
    from model.sweep import default_batches, sweep_batch
    if args.batches:
        try:
            batches = np.array([_positive_int("batch")(x) for x in args.batches.split(",")], dtype=float)
        except argparse.ArgumentTypeError:
            raise UsageError("--batches must be comma-separated whole numbers, e.g. 1,2,4,8") from None
    else:
        batches = default_batches(args.max_batch)
    sw = sweep_batch(scenario_from_args(args), batches)
    import csv
    writer = csv.writer(sys.stdout, lineterminator="\n")
    for row in sw.rows():
        writer.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])
    return 0


def cmd_validate(args) -> int:
    from model.validate import main as validate_main
    return validate_main((["--json"] if args.json else []) + (["--markdown"] if args.markdown else []))


def build_command_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="main.py", description="Memory Wall: the cost model from the command line.")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    e = sub.add_parser("estimate", help="one scenario, as a table or JSON")
    add_scenario_flags(e)
    e.add_argument("--json", action="store_true")
    ls = sub.add_parser("list", help="the catalogue")
    ls.add_argument("what", nargs="?", choices=("gpus", "models", "precisions"))
    ls.add_argument("--json", action="store_true")
    sw = sub.add_parser("sweep", help="CSV over batch sizes")
    add_scenario_flags(sw)
    sw.add_argument("--batches", help="comma-separated batch sizes (default: powers of two up to --max-batch)")
    sw.add_argument("--max-batch", type=_positive_int("max batch"), default=4096)
    v = sub.add_parser("validate", help="leave-one-source-out: each source predicted from the others")
    v.add_argument("--json", action="store_true")
    v.add_argument("--markdown", action="store_true", help="a Markdown table (docs/validation.md)")
    from model.custom_commands import add_commands, add_custom_flags
    for sp in (e, ls, sw, v):
        add_custom_flags(sp)
    add_commands(sub)
    return p


def build_app_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="main.py", description="Memory Wall: open the window (or render it offscreen).",
                epilog=f"Commands: {', '.join(COMMANDS)} (main.py COMMAND --help)")
    p.add_argument("scenario_file", nargs="?", help="a saved scenario (.json) to open")
    add_scenario_flags(p, defaults=False)
    p.add_argument("--screenshot", metavar="PNG", help="render offscreen and write a PNG, then exit")
    p.add_argument("--size", default=None, help="window size for --screenshot, e.g. 1600x900")
    p.add_argument("--view", default="main", choices=("main", "hierarchy"))
    p.add_argument("--chapter", type=_positive_int("chapter"), default=None, help="open lesson N (1-8)")
    p.add_argument("--presenter", action="store_true", help="start in presenter mode")
    p.add_argument("--theme", choices=("dark", "light"), default=None)
    p.add_argument("--large-text", action="store_true")
    p.add_argument("--smoke", action="store_true", help="start, render every view once, exit 0")
    p.add_argument("--first-paint", action="store_true", help=argparse.SUPPRESS)  # benches: paint once, exit
    p.add_argument("--record", metavar="OUT.gif", help="record the chip (or --chapter N gliding through its "
                   "states) as a looping GIF or an MP4, then exit (ui/recording.py)")
    p.add_argument("--seconds", type=float, default=None, help="length of --record (default 3; 2 per state)")
    p.add_argument("--fps", type=float, default=None, help="frames per second of --record (default 20)")
    from model.custom_commands import add_custom_flags
    add_custom_flags(p)
    return p


def _parse_size(text: str | None):
    if not text:
        return None
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size must look like 1600x900, got '{text}'") from None
    if not (320 <= w <= 7680 and 240 <= h <= 4320):
        raise UsageError(f"--size must be between 320x240 and 7680x4320, got '{text}'")
    return w, h


def run_app(argv: list[str]) -> int:
    args = build_app_parser().parse_args(argv)
    from model.custom_commands import apply_custom_flags
    apply_custom_flags(args, argv)
    base, chapter = None, args.chapter
    if args.scenario_file:
        from model.scenario_file import load_scenario_with_chapter
        _not_a_command_typo(args.scenario_file)
        base, saved_chapter = load_scenario_with_chapter(args.scenario_file)
        chapter = chapter or saved_chapter
    if chapter is not None and not 1 <= chapter <= 8:
        raise UsageError(f"--chapter must be 1-8, got {chapter}")
    flags_given = any(getattr(args, k) is not None for k in ("gpu", "model", "precision", "kv_precision", "batch",
                                                              "gpus", "interconnect", "input_len", "output_len", "phase",
                                                              "engine"))
    scenario = scenario_from_args(args, base) if (base or flags_given) else None
    if scenario is not None:
        from model import estimate
        estimate(scenario)  # validate before any window opens: bad flags exit 2 with one line
    if args.screenshot or args.smoke or args.first_paint:
        import os
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from ui.app import qt_startup_error
    except ImportError as exc:
        print(f"memory-wall: the window needs PySide6 and pyqtgraph ({exc}); run `make run` to set them up",
              file=sys.stderr)
        return 2
    problem = qt_startup_error()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if args.record:
        from ui import quick_start
        quick_start.end()       # no main window paints here
        from ui.recording import record_cli
        return record_cli(args.record, chapter=chapter, scenario=scenario, seconds=args.seconds,
                          size=_parse_size(args.size), fps=args.fps, theme=args.theme)
    from ui.app import run
    return run(scenario, screenshot=args.screenshot, size=_parse_size(args.size), view=args.view,
               chapter=chapter, presenter=args.presenter, smoke=args.smoke, theme=args.theme,
               large_text=args.large_text, first_paint=args.first_paint)


def _not_a_command_typo(word: str) -> None:
    """`main.py estimat` is a mistyped command, not a missing scenario file."""
    import difflib
    import os
    if os.path.lexists(word) or word.lower().endswith(".json"):
        return
    close = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}?" if close else f"commands are {', '.join(COMMANDS)}, or give a saved .json"
    raise UsageError(f"unknown command '{word}'; {hint}")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not (argv and argv[0] in COMMANDS):
        from ui import quick_start
        quick_start.begin()     # the window: before numpy and Qt are imported (ui/quick_start.py)
    from model.errors import ModelError
    from model.safe_io import finish_output, guard_output
    guard_output()       # characters the terminal's encoding lacks become ASCII, never a traceback
    try:
        if argv and argv[0] in COMMANDS:
            args = build_command_parser().parse_args(argv)
            from model.custom_commands import apply_custom_flags, cmd_calibrate, cmd_hardware
            apply_custom_flags(args, argv)
            rc = {"estimate": cmd_estimate, "list": cmd_list, "sweep": cmd_sweep, "validate": cmd_validate,
                  "hardware": cmd_hardware, "calibrate": cmd_calibrate}[args.command](args)
        else:
            rc = run_app(argv)
        finish_output()
        return rc
    except (UsageError, ModelError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:      # stdout on a full disk, a closed pipe
        return finish_output(exc)


if __name__ == "__main__":
    sys.exit(main())
