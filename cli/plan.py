"""main.py plan: the frontier of throughput per GPU against speed per user, and the cheapest setups
that meet TTFT/TPOT p90 targets (model/planning).

    main.py plan --model llama-3.1-70b --input-len 1000 --output-len 200 \
                 --gpus-available h100:16,h200:8,mi300x:8 --ttft-p90-ms 500 --tpot-p90-ms 25
                 [--rate R] [--precisions fp8,bf16] [--engines vllm,sglang] [--no-spec] [--json] [--csv FILE [--force]]
                 [--wide] [--max-configurations N]
The lengths default to the scenario's (1024 in / 1024 out, as every other command). An unknown GPU exits
2 with one line; targets no setup meets, or GPUs no setup runs on, exit 1 with one line naming the
closest setup and the targets it would meet.
"""
from __future__ import annotations

import argparse

from cli import NothingFound, prog_name
from cli.args import UsageError, add_wide_flag, positive_int, table_width
from cli.progress import progress
from cli.serve import _float
from model.physics.scenario import Scenario
from model.planning.size import MAX_SIZE


def add_plan_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("plan", help="the price of speed: the frontier and the cheapest setup that meets TTFT/TPOT targets")
    p.add_argument("--model", help=f"model id or alias ({prog_name()} list models); with --model-config, "
                                   "that config's model unless given")
    d = Scenario()
    p.add_argument("--input-len", type=positive_int("input length"), default=d.input_len,
                   help=f"prompt tokens (default {d.input_len}, the scenario's)")
    p.add_argument("--output-len", type=positive_int("output length"), default=d.output_len,
                   help=f"output tokens (default {d.output_len}, the scenario's)")
    p.add_argument("--gpus-available", required=True, metavar="KIND:N,…",
                   help=f"the accelerators on hand, e.g. h100:16,h200:8,mi300x:8 (ids or aliases: {prog_name()} list gpus)")
    p.add_argument("--ttft-p90-ms", type=_float("--ttft-p90-ms"))
    p.add_argument("--tpot-p90-ms", type=_float("--tpot-p90-ms"))
    p.add_argument("--rate", type=_float("--rate"), help="requests per second to serve (sets the replicas and $/hour)")
    p.add_argument("--precisions", help="comma-separated precisions to sweep (default: assets/planning.json's)")
    p.add_argument("--engines", help="comma-separated engines to sweep (default: vllm, sglang, tensorrt-llm)")
    p.add_argument("--no-spec", action="store_true", help="leave speculative decoding out of the sweep")
    p.add_argument("--no-disaggregated", action="store_true", help="leave prefill/decode pools out of the sweep")
    p.add_argument("--max-configurations", type=positive_int("--max-configurations"), metavar="N",
                   help=f"refuse a plan larger than N configurations, a replica shape counting as 1,000 "
                        f"(default {MAX_SIZE:,}: about 0.5 GB and a few seconds)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--csv", metavar="FILE", help="write the frontier as CSV (never replaces a file without --force; "
                                                 "-: standard output, the table on stderr)")
    p.add_argument("--force", action="store_true", help="with --csv: replace FILE if it exists")
    add_wide_flag(p)
    return p


def _list(text: str | None) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip()) if text else ()


def cmd_plan(args) -> int:
    import json
    import time
    from cli.output import STDOUT, refuse_two_on_stdout, report_stream, target, write_text
    from model.catalog.active import default_catalog
    from model.planning.plan import make_plan
    from model.planning.size import SHAPE_WEIGHT, PlanTooLarge
    from model.planning.space import PlanRequest, check_request, parse_available
    from model.readouts.command_line import no_plan_line, plan_ran
    from model.readouts.planning import frontier_csv, plan_json
    if not args.model:
        raise UsageError("which model? give --model (an id or alias) or --model-config")
    if args.rate == 0:
        raise UsageError("--rate must be more than 0")
    for name in ("ttft_p90_ms", "tpot_p90_ms"):
        if getattr(args, name) == 0:
            raise UsageError(f"--{name.replace('_', '-')} must be more than 0")
    refuse_two_on_stdout(**{"--json": args.json, "--csv -": args.csv == STDOUT})
    csv = target(args.csv, "--csv", overwrite=args.force, exists_hint=" (add --force to replace it)")
    req = PlanRequest(args.model, args.input_len, args.output_len, parse_available(args.gpus_available),
                      args.ttft_p90_ms, args.tpot_p90_ms, args.rate, _list(args.precisions), _list(args.engines),
                      not args.no_spec)
    ran = plan_ran(check_request(req), default_catalog())
    t0 = time.perf_counter()
    try:
        with progress("plan") as p:
            plan = make_plan(req, disaggregated=not args.no_disaggregated, progress=p, limit=args.max_configurations)
    except PlanTooLarge as exc:
        raise UsageError(f"{exc}; or raise the limit (--max-configurations {exc.configurations + SHAPE_WEIGHT * exc.shapes})") \
            from None
    took = time.perf_counter() - t0
    if not len(plan.table):                  # nothing runs: no table to show, one line to say why
        raise NothingFound(no_plan_line(plan, prog_name()))
    if csv is not None:
        write_text(csv, frontier_csv(plan), overwrite=args.force)
    if args.json:
        print(json.dumps({"ran": ran, **plan_json(plan)}, indent=2))
    else:
        print("\n".join(plan_lines(plan, ran, took, table_width(args))), file=report_stream(csv))
    if (req.ttft_p90_ms is not None or req.tpot_p90_ms is not None) and not plan.met:
        raise NothingFound(no_plan_line(plan, prog_name()))
    return 0


def plan_lines(plan, ran: str, took_s: float, width: int | None) -> list[str]:
    """What was asked, the sweep, the frontier table, the cheapest setups and the published runs."""
    from model.readouts.planning import cheapest_lines, frontier_rows, measured_lines, summary_line
    from model.readouts.table_fit import table_lines, wrap_line
    out = wrap_line(ran, width) + wrap_line(summary_line(plan, took_s), width)
    out.append("frontier (throughput per GPU against speed per user; p90s from the serving simulator):")
    out += table_lines(frontier_rows(plan), width, wrap=(0,), indent="  ")
    for line in cheapest_lines(plan) + measured_lines(plan):
        lead = line[:len(line) - len(line.lstrip())]
        out += wrap_line(line.lstrip(), width, lead, lead + "     ")
    return out
