"""main.py validate [--serving] [--json | --markdown] [--wide] [--no-cache]: the model against every
published measurement (model/machine/validate.py, validate_serving.py).

The refits (one per publisher, one per source) take about a minute and a half the first time; they
are kept by their inputs in the user's cache folder (model/machine/fit_cache.py), so later runs take
seconds and print the same numbers. Progress goes to stderr (cli/progress.py).
"""
from __future__ import annotations

import argparse
import json

from cli.args import table_width
from cli.progress import progress


def add_validate_parser(sub) -> argparse.ArgumentParser:
    v = sub.add_parser("validate", help="leave-one-publisher-out: each publisher predicted from the others "
                                        "(and leave-one-source-out)")
    v.add_argument("--json", action="store_true")
    v.add_argument("--markdown", action="store_true", help="a Markdown table (docs/validation.md)")
    v.add_argument("--serving", action="store_true", help="the published serving runs against the request-level "
                                                          "simulator")
    v.add_argument("--wide", action="store_true", help="one line per row, names in full (default: fit the "
                                                       "terminal, at most 100 columns)")
    v.add_argument("--no-cache", action="store_true", help="refit everything: read and write no cached fits "
                                                           "(the numbers are the same)")
    return v


def cmd_validate(args: argparse.Namespace) -> int:
    from model.machine import fit_cache
    if args.no_cache:
        fit_cache.use_disk(False)
    width = table_width(args)
    if args.serving:
        from model.machine import validate_serving as vs
        with progress("validate") as p:
            rep = vs.report(progress=p)
        print(json.dumps(rep, indent=2) if args.json else "\n".join(serving_lines(rep, width)))
        return 0
    from model.machine import validate as v
    with progress("validate") as p:
        rep = v.report(progress=p)
    if args.markdown:
        print(v.markdown(rep), end="")
    elif args.json:
        print(json.dumps(rep.as_dict(), indent=2))
    else:
        print("\n".join(step_lines(rep, width)))
    return 0


def _blocks(blocks: dict, header: tuple[str, ...], title: str, width: int | None) -> list[str]:
    from model.readouts.table_fit import table_lines
    out = []
    for name, rows in blocks.items():
        out.append(title.format(name=name))
        out += table_lines([(name,) + header] + rows, width, wrap=(0,), indent="  ")
    return out


def step_lines(rep, width: int | None) -> list[str]:
    """Every row (names wrapped at words), the headline, and the breakdowns, within ``width``."""
    from model.machine.validate import BREAKDOWN_HEADER, breakdown_cells, headline_lines, row_cells
    from model.readouts.table_fit import table_lines, wrap_line
    out = table_lines(row_cells(rep), width, wrap=(1, 3), left=(0, 1, 2, 3, 7)) + [""]
    out += [x for line in headline_lines(rep) for x in wrap_line(line, width)]
    return out + _blocks(breakdown_cells(rep), BREAKDOWN_HEADER, "by {name} (leave-one-publisher-out; "
                                                                 "leave-one-source-out beside it):", width)


def serving_lines(rep: dict, width: int | None) -> list[str]:
    """The serving rows, the headline and the summaries by metric and by source, within ``width``."""
    from model.machine.validate_serving import BLOCK_HEADER, block_cells, headline_lines, row_cells
    from model.readouts.table_fit import table_lines, wrap_line
    out = table_lines(row_cells(rep), width, wrap=(1, 3), left=(0, 1, 2, 3)) + [""]
    out += [x for line in headline_lines(rep) for x in wrap_line(line, width)]
    return out + _blocks(block_cells(rep), BLOCK_HEADER, "{name}:", width)
