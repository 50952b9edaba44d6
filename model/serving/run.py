"""A serving run: the scenario's step table, the engine's scheduler, the requests, the replicas.

    KV cache (blocks)  = ⌊room × n_dp / (block × KV bytes per token)⌋, room per GPU =
                           HBM − workspace − weights − draft weights   the engine's default (the room
                                                                       model/physics/memory.py leaves)
                           u × HBM − weights − draft weights          --gpu-memory-utilization u
                           f × (HBM − weights − draft weights)        --kv-free-fraction f (TensorRT-LLM)
                         n_dp = the group's GPUs with data-parallel attention (each holds its own
                         sequences' whole KV), else 1 (KV bytes per token: that GPU's shard)
    capacity (req/s)   = 1 / (prefill(L̄) + (Ō − 1) · t_decode(B*, L̄ + Ō/2) / B*)      per replica,
                         B* = the largest running batch: min(max running, KV tokens / (L̄ + Ō/2))
    rate 0 ("auto")    = 0.8 × capacity × replicas, to two significant figures
    replicas           R copies of the scenario behind a router that deals requests round robin
                         (a concurrency C is split as evenly; C < R reaches C of them); each is simulated on its own
A target that no request can meet (TTFT below one prompt's prefill alone, TPOT below the batch-1
decode step) is refused before anything runs.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from model.catalog.active import default_catalog, default_efficiency
from model.catalog.engines import Efficiency, EfficiencyTable
from model.catalog.parts import Catalog
from model.errors import ScenarioError
from model.physics.memory import footprint, kv_bytes_per_token
from model.physics.scenario import ResolvedScenario, Scenario, resolve
from model.serving.limits import SchedulerLimits, limits_for, mtp_heads, trtllm_bench_limits
from model.serving.setup import CHUNKED, PRETOKENIZED, ServingSetup, check, expected_tokens_per_step
from model.serving.parallel import parallel_table
from model.serving.simulate import Speculation, simulate_replica
from model.serving.steptable import StepTable, step_table
from model.serving.workload import Requests, make_requests
from model.values import frozen

AUTO_LOAD = 0.8
MAX_TABLE_TOKENS = 1 << 21


@frozen(eq=False)
class ServingRun:
    """What a run did: per request (arrays, request order), the step log (all replicas), the setting."""

    scenario: Scenario
    setup: ServingSetup                 # as checked, with the rate chosen when it was "auto"
    limits: SchedulerLimits
    resolved: ResolvedScenario
    table: StepTable
    speculation: Speculation
    requests: Requests
    replica: np.ndarray                 # which replica served each request
    sent_s: np.ndarray
    admitted_s: np.ndarray
    first_token_s: np.ndarray
    finish_s: np.ndarray
    preemptions: np.ndarray
    log_replica: np.ndarray             # per log entry (steps, or jumps of decode-only steps)
    log_start_s: np.ndarray
    log_s: np.ndarray
    log_steps: np.ndarray
    log_running: np.ndarray
    log_prompt_tokens: np.ndarray
    log_output_tokens: np.ndarray
    log_decode_steps: np.ndarray
    log_stall_s: np.ndarray             # prompt-only steps its decodes waited through just before it
    kv_blocks: int                      # per replica
    kv_tokens: int
    capacity_req_per_s: float           # per replica, steady state at the largest running batch
    largest_batch: int


def kv_room(rs: ResolvedScenario, table: EfficiencyTable, draft: ResolvedScenario | None = None,
            setup: ServingSetup | None = None) -> float:
    """Bytes per GPU left for the KV cache (the module's docstring): by default HBM − workspace −
    weights (− a draft model's weights); with the setup's KV budget, as the engine counts it."""
    fp = footprint(rs, table.workspace_fraction)
    weights = fp.weight_bytes + (footprint(draft, table.workspace_fraction).weight_bytes if draft is not None else 0.0)
    if setup is not None and setup.gpu_memory_utilization is not None:
        return setup.gpu_memory_utilization * fp.capacity_bytes - weights
    if setup is not None and setup.kv_free_fraction is not None:
        return setup.kv_free_fraction * (fp.capacity_bytes - weights)
    return fp.capacity_bytes - fp.workspace_bytes - weights


def _efficiency(table: EfficiencyTable, rs: ResolvedScenario, s: ServingSetup) -> Efficiency:
    """The engine's factors on this GPU; with ``enforce_eager`` every step is issued by the host
    (eager = 1: a step takes ‖GPU, host‖₆, the host's time L_eq × host_layer_s)."""
    eff = table.efficiency(rs.engine, rs.hw)
    return dataclasses.replace(eff, eager=1.0) if s.enforce_eager else eff


def _speculation(rs: ResolvedScenario, s: ServingSetup, table: EfficiencyTable, cat: Catalog,
                 max_tokens: int) -> tuple[Speculation, ResolvedScenario | None]:
    if s.spec_k == 0:
        return Speculation(), None
    draft = s.spec_draft or ("mtp" if mtp_heads(rs.llm.id) else "ngram")
    e = expected_tokens_per_step(s.spec_k, s.spec_accept)
    if draft == "mtp" and not mtp_heads(rs.llm.id):
        raise ScenarioError(f"{rs.llm.name} has no MTP heads: draft with ngram or a smaller model (--spec-draft)")
    if draft in ("ngram", "mtp"):
        return Speculation(s.spec_k + 1, e, draft, None, s.spec_k), None
    drs = resolve(rs.scenario.with_(model=draft), cat)
    if drs.llm.id == rs.llm.id:
        raise ScenarioError("the draft model must be smaller than the model it drafts for")
    dtable = step_table(drs, _efficiency(table, drs, s), max_tokens)
    return Speculation(s.spec_k + 1, e, "model", dtable, s.spec_k), drs


def _split(req: Requests, replicas: int, concurrency: int) -> list[tuple[np.ndarray, int]]:
    """Requests dealt round robin to the replicas, with their share of C clients (C < R: only C
    replicas see traffic, one client each, so never more than C requests are in flight)."""
    used = min(replicas, concurrency) if concurrency else replicas
    ids = np.arange(req.count)
    out = []
    for r in range(used):
        mine = ids[r::used]
        c = concurrency // used + (1 if r < concurrency % used else 0) if concurrency else 0
        if mine.size:
            out.append((mine, c))
    return out


def capacity(tb: StepTable, lim: SchedulerLimits, kv_tokens: int, mean_in: float, mean_out: float,
             mean_cached: float = 0.0, spec: Speculation = Speculation()) -> tuple[float, int]:
    """(requests/s one replica sustains at its largest running batch, that batch)."""
    per_seq = max(1.0, mean_in + mean_out / 2.0)
    b = int(max(1, min(lim.max_running or 1 << 30, kv_tokens // per_seq)))
    step = float(tb.decode_step_s(b, mean_in + mean_out / 2.0, spec.q))
    if spec.k:
        step += float(spec.draft_s(tb, float(b), b * (mean_in + mean_out / 2.0)))
    decode_steps = max(0.0, mean_out - 1.0) / spec.expected
    per_request = tb.prefill_s(mean_in, min(mean_cached, mean_in - 1)) + decode_steps * step / b
    return 1.0 / per_request, b


def _check_targets(s: ServingSetup, tb: StepTable, req: Requests, spec: Speculation) -> None:
    if s.ttft_p90_ms is not None:
        best = min(tb.prefill_s(float(L), float(c)) for L, c in {(int(L), int(c)) for L, c in
                                                                  zip(req.input_len[:2000], req.cached[:2000])})
        if s.ttft_p90_ms / 1e3 < best:
            raise ScenarioError(f"a TTFT p90 of {s.ttft_p90_ms:g} ms can never be met: one prompt alone takes "
                                f"{best * 1e3:.3g} ms to prefill here")
    if s.tpot_p90_ms is not None:
        step = float(tb.decode_step_s(1, float(req.input_len.min()), spec.q)) + float(spec.draft_s(tb, 1.0, float(req.input_len.min())))
        best = step / spec.expected
        if s.tpot_p90_ms / 1e3 < best:
            raise ScenarioError(f"a TPOT p90 of {s.tpot_p90_ms:g} ms can never be met: one decode step at batch 1 "
                                f"takes {best * 1e3:.3g} ms here")


def serve(scenario: Scenario, setup: ServingSetup, catalog: Catalog | None = None,
          efficiency: EfficiencyTable | None = None, resolved: ResolvedScenario | None = None,
          table_hook=None) -> ServingRun:
    """Simulate ``setup``'s requests on ``scenario``. ScenarioError (one line) when it cannot run.
    ``table_hook``: StepTable → StepTable, applied to the step table once it is built (the planner
    swaps the MoE all-reduces for expert parallelism's all-to-alls)."""
    cat = catalog or default_catalog()
    table = efficiency or default_efficiency()
    rs = resolved if resolved is not None else resolve(scenario, cat)
    s = check(setup)
    if (s.ep or 1) > rs.tp:
        raise ScenarioError(f"experts spread over {s.ep} GPUs need a group of at least {s.ep} (--gpus {s.ep}): "
                            f"this replica has {rs.tp}")
    lim = limits_for(rs.engine, rs.hw, s)
    if s.metrics in PRETOKENIZED:
        lim = dataclasses.replace(lim, tokenize_s_per_token=0.0)
    req = make_requests(s, rs.scenario.input_len, rs.scenario.output_len)
    q = s.spec_k + 1
    longest = int(req.input_len.max() + req.output_len.max())
    kv_per_token = kv_bytes_per_token(rs)           # (a linear kind's fixed state is per sequence, not per token)
    rough = int(min(MAX_TABLE_TOKENS, lim.max_tokens_per_step + int(req.input_len.max())
                    + q * min(lim.max_running or 1 << 20, 1 << 20)))
    spec, drs = _speculation(rs, s, table, cat, rough)
    room = kv_room(rs, table, drs, s)
    if room <= 0:
        raise ScenarioError(f"{rs.llm.name} in {rs.precision.name} leaves no room for a KV cache on {rs.scenario.gpus} "
                            f"{rs.hw.short_name}" + (": a larger memory share, " if s.gpu_memory_utilization or
                                                     s.kv_free_fraction else ": ") + "more GPUs or a smaller precision")
    if s.dp_attention and rs.tp > 1:         # each GPU holds its own sequences' whole KV cache
        room, kv_per_token = room * rs.tp, kv_per_token * rs.tp_kv
    blocks = int(room // (lim.block_tokens * kv_per_token)) if room > 0 else 0
    kv_tokens = blocks * lim.block_tokens
    if kv_tokens < longest:
        raise ScenarioError(f"no room for one request: the KV cache holds {kv_tokens:,} tokens here, a request needs "
                            f"up to {longest:,} (fewer tokens, more GPUs or a smaller precision)")
    if s.metrics == "trtllm-bench" and rs.engine.startswith("tensorrt-llm"):
        lim = trtllm_bench_limits(lim, kv_tokens, float(req.input_len.mean()), float(req.output_len.mean()),
                                  int(req.input_len.max()))
    whole = int(req.input_len.max()) if lim.prefill in CHUNKED else longest   # mixed/separate: a recomputed
    max_tokens = int(min(MAX_TABLE_TOKENS, max(lim.max_tokens_per_step, whole)   # request's prompt comes whole
                         + q * min(lim.max_running or kv_tokens, kv_tokens)))
    tb = step_table(rs, _efficiency(table, rs, s), max_tokens)
    if (s.ep or 1) > 1 or s.dp_attention:
        tb = parallel_table(tb, rs, s.ep or 1, s.dp_attention)
    if table_hook is not None:
        tb = table_hook(tb)
    cap, largest = capacity(tb, lim, kv_tokens, float(req.input_len.mean()), float(req.output_len.mean()),
                            float(req.cached.mean()), spec)
    if s.load == "rate" and s.rate_per_s == 0:
        rate = float(f"{AUTO_LOAD * cap * s.replicas:.2g}")
        s = s.with_(rate_per_s=rate)
        req = make_requests(s, rs.scenario.input_len, rs.scenario.output_len)
    _check_targets(s, tb, req, spec)
    swap = kv_per_token / (rs.hw.level("host").bandwidth_bytes_per_s or rs.hw.pcie.bandwidth_bytes_per_s)
    conc = s.concurrency if s.load in ("concurrency", "rate") else 0
    return _merge(scenario, s, lim, rs, tb, spec, req, blocks, kv_tokens, cap, largest,
                  [(ids, simulate_replica(tb, lim, req.subset(ids), blocks, c, spec, swap))
                   for ids, c in _split(req, s.replicas, conc)])


def _merge(scenario, s, lim, rs, tb, spec, req, blocks, kv_tokens, cap, largest, parts) -> ServingRun:
    n = req.count
    out = {k: np.full(n, math.nan) for k in ("sent", "admitted", "first", "finish")}
    pre = np.zeros(n, dtype=np.int64)
    replica = np.zeros(n, dtype=np.int64)
    logs: list[list[np.ndarray]] = [[] for _ in range(9)]
    for r, (ids, run) in enumerate(parts):
        for k, arr in zip(out, (run.sent_s, run.admitted_s, run.first_token_s, run.finish_s)):
            out[k][ids] = arr
        pre[ids] = run.preemptions
        replica[ids] = r
        for j, arr in enumerate((np.full(run.step_s.size, r), run.step_start_s, run.step_s, run.step_count,
                                 run.step_running, run.step_prompt_tokens, run.step_output_tokens, run.step_decode_steps,
                                 run.step_stall_s)):
            logs[j].append(arr)
    cat = [np.concatenate(x) if x else np.zeros(0) for x in logs]
    return ServingRun(scenario, s, lim, rs, tb, spec, req, replica, out["sent"], out["admitted"], out["first"],
                      out["finish"], pre, cat[0].astype(np.int64), *cat[1:], kv_blocks=blocks, kv_tokens=kv_tokens,
                      capacity_req_per_s=cap, largest_batch=largest)
