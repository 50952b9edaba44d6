"""The commands: estimate, list, sweep, validate (and, from cli/custom.py, hardware and calibrate).

    main.py estimate --gpu h100 --model llama-3.1-70b --precision bf16 [--json]
    main.py list [gpus|models|precisions] [--json]
    main.py sweep --gpu h100 --model llama-3.1-8b --precision fp8 > sweep.csv
    main.py validate [--json] [--markdown] [--serving]
    main.py serve --rate 4 | --concurrency 64 | --burst 500 | --trace FILE  [knobs] [--json]   (cli/serve.py)
    main.py plan --model M --gpus-available h100:16,h200:8 --ttft-p90-ms 500 --tpot-p90-ms 25   (cli/plan.py)
"""
from __future__ import annotations

import argparse
import json
import sys

from cli.args import (COMMANDS, Parser, UsageError, add_scenario_flags, add_wide_flag, positive_int, prog_name,
                      scenario_from_args, table_width, warn_context)
from cli.custom import add_commands, add_custom_flags, apply_custom_flags, cmd_calibrate, cmd_hardware


def cmd_estimate(args) -> int:
    from model import estimate      # each branch imports only what it prints (a fresh process's start)
    from model.readouts.command_line import estimate_ran
    e = estimate(scenario_from_args(args))
    warn_context(e.scenario, "estimate")
    if args.json:
        from model.readouts.export import estimate_json
        print(json.dumps({"ran": estimate_ran(e), **estimate_json(e, explain=args.explain is not None or args.kernels)},
                         indent=2))
        return 0
    if args.explain is not None or args.kernels:
        return _explain(e, args)
    from model.readouts.explain_text import estimate_table
    from model.readouts.sentences import explain, shown_notes
    from model.readouts.table_fit import pairs_lines, wrap_line
    width = table_width(args)
    lines = pairs_lines(estimate_table(e), width)
    lines += [x for note in shown_notes(e) for x in wrap_line(f"note: {note}", width)]
    print("\n".join(lines + wrap_line(explain(e), width, subsequent="")))
    return 0


def _explain(e, args) -> int:
    """--kernels: the decode step and the prefill pass as their kernels; --explain [KEY]: derivations."""
    from model.readouts.explain_text import HEADLINE, derivation_lines, kernel_rows, table_text
    from model.readouts.sentences import explain
    from model.readouts.table_fit import table_lines, wrap_line
    width = table_width(args)
    if args.kernels:
        for phase in ("decode", "prefill"):
            print(f"{'Decode step' if phase == 'decode' else 'Prefill pass'} as its kernels (per GPU):")
            rows = kernel_rows(e, phase)
            print("\n".join(table_lines(rows, width, indent="  ") if width else
                            ["  " + line for line in table_text(rows)]))
            print()
    keys = [args.explain] if args.explain else ([] if args.kernels else list(HEADLINE))
    for key in keys:
        for line in derivation_lines(e, key, depth=args.depth):
            lead = line[:len(line) - len(line.lstrip())]
            print("\n".join(wrap_line(line.lstrip(), width, lead, lead + "    ")))
        print()
    print("\n".join(wrap_line(explain(e), width, subsequent="")))
    return 0


def cmd_list(args) -> int:
    from model.catalog.active import default_catalog, default_efficiency
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
    if what in ("all", "engines"):
        table = default_efficiency()
        out["engines"] = [{"id": e.id, "name": e.name, "aliases": list(e.aliases), "newest": e.newest,
                           "versions": [{"id": f"{e.id}@{v.id}", "label": v.label} for v in e.versions],
                           "platforms_fitted": sorted({p.split("@")[0] for p, f in e.fitted if f.calibrated_on})}
                          for e in table.engines]
        out["auto"] = [{"field": r.field, "contains": r.contains, "engine": r.engine, "reason": r.reason}
                       for r in table.auto_rules]
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print("\n".join(_list_lines(out, cat, table_width(args))))
    return 0


def _list_lines(out: dict, cat, width: int | None) -> list[str]:
    """The catalogue as tables that fit ``width`` (None: one line per entry)."""
    from model.catalog.active import default_efficiency
    from model.readouts.command_line import auto_lines, engine_rows
    from model.readouts.format import si
    from model.readouts.table_fit import table_lines, wrap_line
    lines = []
    if "gpus" in out:
        rows = [("id", "name", "HBM", "bandwidth", "BF16", "also known as")]
        rows += [(g.id, g.name, si(g.hbm_capacity_bytes, "B"), si(g.hbm_bandwidth_bytes_per_s, "B/s"),
                  si(g.peak("bf16") or g.peak("fp16"), "FLOP/s"), ", ".join(g.aliases)) for g in cat.gpus]
        lines += ["GPUs"] + table_lines(rows, width, wrap=(1, 5), left=(0, 1, 5), indent="  ")
    if "models" in out:
        rows = [("id", "name", "parameters", "also known as")]
        rows += [(m.id, m.name, si(m.params.total, "params"), ", ".join(m.aliases)) for m in cat.models]
        lines += ["Models"] + table_lines(rows, width, wrap=(1, 3), left=(0, 1, 3), indent="  ")
    if "precisions" in out:
        rows = [("id", "name", "bits/weight", "maths in")]
        rows += [(p.id, p.name, f"{p.weight_bits:g}", p.compute.upper()) for p in cat.precisions]
        lines += ["Precisions"] + table_lines(rows, width, wrap=(1,), left=(0, 1, 3), indent="  ")
        lines += wrap_line("KV-cache precisions: " + ", ".join(k.id for k in cat.kv_precisions if not k.hidden), width)
    if "engines" in out:
        table = default_efficiency()
        lines += ["Engines (--engine ID, or ID@VERSION for an older release)"]
        lines += table_lines(engine_rows(table, cat), width, wrap=(1, 2, 4), left=(0, 1, 2, 3, 4), indent="  ")
        lines += [x for line in auto_lines(table) for x in wrap_line(line, width, subsequent="      ")]
    return lines


def cmd_sweep(args) -> int:
    import csv

    import numpy as np
    from model.physics.sweep import default_batches, sweep_batch
    if args.batches:
        try:
            batches = np.array([positive_int("batch")(x) for x in args.batches.split(",")], dtype=float)
        except argparse.ArgumentTypeError:
            raise UsageError("--batches must be comma-separated whole numbers, e.g. 1,2,4,8") from None
    else:
        batches = default_batches(args.max_batch)
    scenario = scenario_from_args(args)
    warn_context(scenario, "sweep")
    sw = sweep_batch(scenario, batches)
    writer = csv.writer(sys.stdout, lineterminator="\n")
    for row in sw.rows():
        writer.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])
    return 0


def _add_estimate(sub) -> argparse.ArgumentParser:
    e = sub.add_parser("estimate", help="one scenario, as a table or JSON")
    add_scenario_flags(e)
    e.add_argument("--json", action="store_true")
    e.add_argument("--explain", nargs="?", const="", default=None, metavar="KEY",
                   help="how each number is made: its equation, with this scenario's numbers, its assumptions "
                        "and its inputs (KEY: one readout, e.g. decode_time; none: the headline numbers)")
    e.add_argument("--depth", type=positive_int("depth"), default=2, help="levels of inputs --explain follows (default 2)")
    e.add_argument("--kernels", action="store_true", help="the decode step and the prefill pass as their kernels")
    add_wide_flag(e)
    return e


def _add_list(sub) -> argparse.ArgumentParser:
    ls = sub.add_parser("list", help="the catalogue")
    ls.add_argument("what", nargs="?", choices=("gpus", "models", "precisions", "engines"))
    ls.add_argument("--json", action="store_true")
    add_wide_flag(ls)
    return ls


def _add_sweep(sub) -> argparse.ArgumentParser:
    sw = sub.add_parser("sweep", help="CSV over batch sizes")
    add_scenario_flags(sw)
    sw.add_argument("--batches", help="comma-separated batch sizes (default: powers of two up to --max-batch)")
    sw.add_argument("--max-batch", type=positive_int("max batch"), default=4096)
    return sw


def _add_validate(sub) -> argparse.ArgumentParser:
    from cli.validate import add_validate_parser
    return add_validate_parser(sub)


def _add_serve(sub) -> argparse.ArgumentParser:
    from cli.serve import add_serve_parser
    return add_serve_parser(sub)


def _add_lessons(sub) -> argparse.ArgumentParser:
    from cli.lessons import add_lessons_parser
    return add_lessons_parser(sub)


def _add_plan(sub) -> argparse.ArgumentParser:
    from cli.plan import add_plan_parser
    return add_plan_parser(sub)


# each command's parser, in COMMANDS order (hardware and calibrate: cli/custom.add_commands, with their flags)
_PARSERS = {"estimate": _add_estimate, "list": _add_list, "sweep": _add_sweep, "validate": _add_validate,
            "serve": _add_serve, "plan": _add_plan, "lessons": _add_lessons}


def build_command_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every command's, or only ``command``'s (what one run parses: a
    fresh process builds and imports no other command's parser)."""
    p = Parser(prog=prog_name(), description="Memory Wall: the cost model from the command line.")
    sub = p.add_subparsers(dest="command", parser_class=Parser)
    for name, add in _PARSERS.items():
        if command in (None, name):
            add_custom_flags(add(sub))
    if command in (None, "hardware", "calibrate"):
        add_commands(sub)
    return p


def run_command(argv: list[str]) -> int:
    """Parse and run one command (``argv[0]`` is one of COMMANDS)."""
    args = build_command_parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
    apply_custom_flags(args, argv)
    if args.command == "serve":
        from cli.serve import cmd_serve
        return cmd_serve(args)
    if args.command == "plan":
        from cli.plan import cmd_plan
        return cmd_plan(args)
    if args.command == "validate":
        from cli.validate import cmd_validate
        return cmd_validate(args)
    if args.command == "lessons":
        from cli.lessons import cmd_lessons
        return cmd_lessons(args)
    return {"estimate": cmd_estimate, "list": cmd_list, "sweep": cmd_sweep,
            "hardware": cmd_hardware, "calibrate": cmd_calibrate}[args.command](args)
