"""main.py serve: a stream of requests on one scenario (model/serving), as a table, JSON or CSV.

    main.py serve --gpu h100 --model llama-3.1-8b --rate 4 --requests 1000 --input-len 1024 --output-len 128
    main.py serve --concurrency 64 | --burst 500 | --trace requests.csv   [--lengths sharegpt]
                  [--prefix-hit 0.5 | --prefix-len 512] [--spec-k 3 --spec-accept 0.7 [--spec-draft ngram]]
                  [--replicas 2] [--ttft-p90-ms 500 --tpot-p90-ms 50] [--json] [--per-request out.csv | -]
                  [--scheduler-steps 10] [--gpu-memory-utilization 0.9 | --kv-free-fraction 0.9]
                  [--ep 8 --dp-attention] [--metrics vllm|sglang|genai-perf|llmperf|mlperf]
    main.py serve my-talk.json        the scenario and serving setup a saved file holds (flags override)
The model is imported inside the command, so `estimate` does not pay for it.
"""
from __future__ import annotations

import argparse
import math

from cli.args import UsageError, add_scenario_flags, add_wide_flag, positive_int


def _float(name: str, allow_inf: bool = False):
    def parse(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got '{text}'") from None
        if math.isnan(x) or (math.isinf(x) and not allow_inf) or x < 0:
            raise argparse.ArgumentTypeError(f"{name} must be a number ≥ 0, got '{text}'")
        return x
    return parse


def add_serve_parser(sub) -> argparse.ArgumentParser:
    sv = sub.add_parser("serve", help="a stream of requests: queues, TTFT/TPOT percentiles, throughput")
    sv.add_argument("scenario_file", nargs="?", help="a saved scenario (.json), with its serving setup if it has one")
    add_scenario_flags(sv, defaults=False)
    g = sv.add_argument_group("load (one of)")
    g.add_argument("--rate", type=_float("--rate", allow_inf=True), help="requests per second, Poisson (inf: all at once)")
    g.add_argument("--concurrency", type=positive_int("--concurrency"), help="clients, each sending its next request "
                   "when the last one finished (with --rate: a cap on requests in flight)")
    g.add_argument("--burst", type=positive_int("--burst"), metavar="N", help="N requests at t = 0")
    g.add_argument("--trace", metavar="FILE", help="CSV: arrival_s,input_tokens,output_tokens")
    w = sv.add_argument_group("requests")
    w.add_argument("--requests", type=positive_int("--requests"), help="how many (default 1000)")
    w.add_argument("--lengths", help="length distribution: fixed (default), uniform, sharegpt, or a named dataset "
                   "(mlperf-llama2-70b, mlperf-llama3.1-8b, mlperf-llama3.1-405b, mlperf-mixtral-8x7b, mlperf-deepseek-r1)")
    w.add_argument("--range-ratio", type=_float("--range-ratio"), help="uniform: ± this share of the lengths")
    w.add_argument("--seed", type=positive_int("--seed"))
    k = sv.add_argument_group("knobs")
    k.add_argument("--prefix-hit", type=_float("--prefix-hit"), help="share of each prompt found in the prefix cache")
    k.add_argument("--prefix-len", type=positive_int("--prefix-len"), help="tokens of a prefix every prompt shares")
    k.add_argument("--spec-k", type=positive_int("--spec-k"), help="speculative decoding: draft tokens per step")
    k.add_argument("--spec-accept", type=_float("--spec-accept"), help="speculative decoding: acceptance rate α")
    k.add_argument("--spec-draft", help="ngram | mtp | a catalogue model id (default: mtp where the model has it)")
    k.add_argument("--replicas", type=positive_int("--replicas"), help="data-parallel copies behind a router")
    t = sv.add_argument_group("targets")
    t.add_argument("--ttft-p90-ms", type=_float("--ttft-p90-ms"))
    t.add_argument("--tpot-p90-ms", type=_float("--tpot-p90-ms"))
    e = sv.add_argument_group("engine scheduler (default: the engine's documented defaults, assets/serving.json)")
    e.add_argument("--max-running", type=positive_int("--max-running"))
    e.add_argument("--max-tokens-per-step", type=positive_int("--max-tokens-per-step"))
    e.add_argument("--prefill", choices=("chunked", "mixed", "separate", "chunked-separate"),
                   help="chunked: prompts in chunks that share steps with the decodes (vLLM); mixed: whole prompts "
                        "join the decode steps; separate: whole prompts in steps of their own; chunked-separate: "
                        "chunks in steps of their own, ahead of the decodes (SGLang)")
    e.add_argument("--block-tokens", type=positive_int("--block-tokens"))
    e.add_argument("--preemption", choices=("recompute", "swap", "none"))
    e.add_argument("--scheduler-steps", type=positive_int("--scheduler-steps"), metavar="N",
                   help="multi-step scheduling: N decode steps per scheduler call, new prompts join only between "
                        "them (vLLM 0.6 --num-scheduler-steps)")
    e.add_argument("--gpu-memory-utilization", type=_float("--gpu-memory-utilization"), metavar="U",
                   help="share of GPU memory the engine takes for weights and KV cache (vLLM "
                        "--gpu-memory-utilization, SGLang --mem-fraction-static; default: the engine's)")
    e.add_argument("--kv-free-fraction", type=_float("--kv-free-fraction"), metavar="F",
                   help="share of the memory the weights leave that holds the KV cache (TensorRT-LLM "
                        "free_gpu_memory_fraction)")
    e.add_argument("--ep", type=positive_int("--ep"), metavar="N",
                   help="expert parallelism: the experts spread over N GPUs of the group (all-to-all instead of "
                        "the MoE all-reduce)")
    e.add_argument("--dp-attention", action="store_true", default=None,
                   help="attention data-parallel over the group: each GPU keeps its own sequences' KV cache "
                        "(SGLang --enable-dp-attention)")
    e.add_argument("--enforce-eager", action="store_true", default=None,
                   help="no CUDA graphs: the host issues every step's kernels one by one, and a step takes about "
                        "the longer of the GPU's time and the host's, ‖GPU, host‖₆ (vLLM --enforce-eager, SGLang "
                        "--disable-cuda-graph)")
    m = sv.add_argument_group("metrics")
    m.add_argument("--metrics", choices=("vllm", "sglang", "genai-perf", "llmperf", "mlperf", "trtllm-bench"),
                   help="compute TTFT, TPOT and ITL the way this benchmark tool does (default vllm)")
    o = sv.add_argument_group("output")
    o.add_argument("--json", action="store_true")
    o.add_argument("--per-request", metavar="CSV", help="write one line per request (never replaces a file; "
                                                         "-: standard output, the table on stderr)")
    add_wide_flag(o)
    return sv


_SETUP_FLAGS = ("requests", "lengths", "range_ratio", "seed", "prefix_hit", "prefix_len", "spec_k", "spec_accept",
                "spec_draft", "replicas", "ttft_p90_ms", "tpot_p90_ms", "max_running", "max_tokens_per_step",
                "prefill", "block_tokens", "preemption", "scheduler_steps", "gpu_memory_utilization",
                "kv_free_fraction", "ep", "dp_attention", "enforce_eager", "metrics")


def setup_from_args(args, base=None):
    """The ServingSetup the flags ask for, over a saved file's (``base``)."""
    from model.serving.setup import ServingSetup
    from model.serving.workload import read_trace
    s = base or ServingSetup()
    loads = [x for x in ("burst", "trace") if getattr(args, x) is not None]
    if len(loads) > 1 or (loads and (args.rate is not None or args.concurrency is not None)):
        raise UsageError("give one load: --rate, --concurrency, --burst or --trace")
    ch = {k: getattr(args, k) for k in _SETUP_FLAGS if getattr(args, k, None) is not None}
    if args.input_len is not None:
        ch["input_len"] = args.input_len
    if args.output_len is not None:
        ch["output_len"] = args.output_len
    if args.burst is not None:
        ch.update(load="burst", requests=args.burst)
    elif args.trace is not None:
        ch.update(load="trace", trace=read_trace(args.trace))
    elif args.rate is not None:
        if args.rate == 0:
            raise UsageError("--rate must be more than 0 (use --burst for all at once)")
        ch.update(load="rate" if math.isfinite(args.rate) else "burst",
                  rate_per_s=args.rate if math.isfinite(args.rate) else 0.0, concurrency=args.concurrency or 0)
    elif args.concurrency is not None:
        ch.update(load="concurrency", concurrency=args.concurrency)
    return s.with_(**ch)


def cmd_serve(args) -> int:
    import json
    from cli.args import scenario_from_args, table_width, warn_context
    from model.catalog.active import default_efficiency
    from model.physics.estimate import engine_label
    from model.readouts.command_line import serve_ran
    from model.readouts.table_fit import pairs_lines, wrap_line
    from cli.output import STDOUT, refuse_two_on_stdout, report_stream, target, write_text
    from model.readouts.serving import per_request_csv, serving_json, serving_table, explain
    from model.serving.results import summarize
    from model.serving.run import serve
    from model.serving.setup import check
    base_scenario, base_setup = None, None
    if args.scenario_file:
        from model.files.scenario_file import load_scenario_with_chapter, read_scenario_document
        from model.serving.setup import serving_from_document
        base_scenario, _ = load_scenario_with_chapter(args.scenario_file)
        base_setup = serving_from_document(read_scenario_document(args.scenario_file), args.scenario_file)
    refuse_two_on_stdout(**{"--json": args.json, "--per-request -": args.per_request == STDOUT})
    per_request = target(args.per_request, "--per-request", exists_hint=" (choose another name)")
    scenario = scenario_from_args(args, base_scenario)
    setup = check(setup_from_args(args, base_setup))
    warn_context(scenario.with_(input_len=setup.input_len or scenario.input_len,
                                output_len=setup.output_len or scenario.output_len), "serve")
    run = serve(scenario, setup)
    sm = summarize(run)
    if per_request is not None:
        write_text(per_request, per_request_csv(run))
    ran = serve_ran(run, engine_label(default_efficiency(), run.resolved.engine))
    if args.json:
        print(json.dumps({"ran": ran, **serving_json(run, sm)}, indent=2))
        return 0
    width = table_width(args)
    lines = wrap_line(ran, width) + pairs_lines(serving_table(run, sm), width)
    print("\n".join(lines + wrap_line(explain(run, sm), width, subsequent="")), file=report_stream(per_request))
    return 0
