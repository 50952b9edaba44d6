"""main.py plan: the frontier of throughput per GPU against speed per user, and the cheapest setups
that meet TTFT/TPOT p90 targets (model/planning).

    main.py plan --model llama-3.1-70b --input-len 1000 --output-len 200 \
                 --gpus-available h100:16,h200:8,mi300x:8 --ttft-p90-ms 500 --tpot-p90-ms 25
                 [--rate R] [--precisions fp8,bf16] [--engines vllm,sglang] [--no-spec] [--json] [--csv FILE [--force]]
An unknown GPU, or targets no setup meets, exit 2 with one line (naming the closest setup).
"""
from __future__ import annotations

import argparse

from cli.args import UsageError, positive_int
from cli.serve import _float


def add_plan_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("plan", help="the price of speed: the frontier and the cheapest setup that meets TTFT/TPOT targets")
    p.add_argument("--model", required=True, help="model id or alias (main.py list models)")
    p.add_argument("--input-len", type=positive_int("input length"), default=1000)
    p.add_argument("--output-len", type=positive_int("output length"), default=200)
    p.add_argument("--gpus-available", required=True, metavar="KIND:N,…",
                   help="the accelerators on hand, e.g. h100:16,h200:8,mi300x:8 (ids or aliases: main.py list gpus)")
    p.add_argument("--ttft-p90-ms", type=_float("--ttft-p90-ms"))
    p.add_argument("--tpot-p90-ms", type=_float("--tpot-p90-ms"))
    p.add_argument("--rate", type=_float("--rate"), help="requests per second to serve (sets the replicas and $/hour)")
    p.add_argument("--precisions", help="comma-separated precisions to sweep (default: assets/planning.json's)")
    p.add_argument("--engines", help="comma-separated engines to sweep (default: vllm, sglang, tensorrt-llm)")
    p.add_argument("--no-spec", action="store_true", help="leave speculative decoding out of the sweep")
    p.add_argument("--no-disaggregated", action="store_true", help="leave prefill/decode pools out of the sweep")
    p.add_argument("--json", action="store_true")
    p.add_argument("--csv", metavar="FILE", help="write the frontier as CSV (never replaces a file without --force)")
    p.add_argument("--force", action="store_true", help="with --csv: replace FILE if it exists")
    return p


def _list(text: str | None) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip()) if text else ()


def cmd_plan(args) -> int:
    import json
    import time
    from pathlib import Path
    from model.files.safe_io import atomic_write_text
    from model.planning.plan import make_plan
    from model.planning.space import PlanRequest, parse_available
    from model.readouts.planning import (cheapest_lines, closest_line, frontier_csv, frontier_rows, measured_lines,
                                         plan_json, summary_line)
    if args.rate == 0:
        raise UsageError("plan: --rate must be more than 0")
    for name in ("ttft_p90_ms", "tpot_p90_ms"):
        if getattr(args, name) == 0:
            raise UsageError(f"plan: --{name.replace('_', '-')} must be more than 0")
    if args.csv and Path(args.csv).exists() and not args.force:
        raise UsageError(f"plan: {args.csv} exists; add --force to replace it")
    req = PlanRequest(args.model, args.input_len, args.output_len, parse_available(args.gpus_available),
                      args.ttft_p90_ms, args.tpot_p90_ms, args.rate, _list(args.precisions), _list(args.engines),
                      not args.no_spec)
    t0 = time.perf_counter()
    plan = make_plan(req, disaggregated=not args.no_disaggregated)
    took = time.perf_counter() - t0
    if args.csv:
        atomic_write_text(args.csv, frontier_csv(plan), overwrite=args.force)
    if args.json:
        print(json.dumps(plan_json(plan), indent=2))
    else:
        rows = frontier_rows(plan)
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        print(summary_line(plan, took))
        print("frontier (throughput per GPU against speed per user; p90s from the serving simulator):")
        for r in rows:
            print("  " + "  ".join(v.ljust(w) if c == 0 else v.rjust(w) for c, (v, w) in enumerate(zip(r, widths))))
        print("\n".join(cheapest_lines(plan)))
        print("\n".join(measured_lines(plan)))
    if (req.ttft_p90_ms is not None or req.tpot_p90_ms is not None) and not plan.met:
        raise UsageError(closest_line(plan))
    return 0
