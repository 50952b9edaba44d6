"""How much a serving run may cost to simulate, and the least a load needs, known before it runs.

The simulator (model/serving/simulate.py) logs one event per scheduler step, or per jump over a
run of decode-only steps (at most JUMP_CAP steps, model/serving/jumps.py). A replica's run may log

    budget(n)   = BASE_EVENTS + EVENTS_PER_REQUEST · n                        (n: its requests)

A plain run logs about 2.6 events per request. Before anything is simulated, ``least_events``
bounds from below what the replica's requests need, from their lengths, the step's token budget
T, the KV cache and the batch limits (prompt tokens p_i = prompt − cached, outputs o_i, E tokens
gained per verified step, B the most sequences that can run at once):

    prompt steps   P ≥ Σ p_i / T                          chunked: a step carries ≤ T prompt tokens
                   P ≥ Σ p_i / max(T, p_i)                mixed / separate: whole prompts; one longer
                                                          than T runs alone
    decode steps   D ≥ max( Σ (o_i − 1)/E / B,  max_i (o_i − 1)/E )
    events         ≥ P + max(0, D − P) / JUMP_CAP         (a step with prompts may decode too)
    B              = min(max running, requests, clients, KV blocks / blocks of the shortest request)

so a load whose bound is past the budget is refused in one line at once, not after minutes
(1 000 000 prompts of 200 000 tokens at 8 192 tokens a step need ≥ 24 million steps). While it
runs, the budget stays a backstop (evictions and recomputes no bound foresees), and so does its
pace: from the 2^17th event on, every 2^16 events, a replica whose finished requests f (f ≥ 1)
put the whole run past PACE_MARGIN × the budget (events · n / f) is refused there.
"""
from __future__ import annotations

import math

import numpy as np

from model.errors import ScenarioError
from model.serving.jumps import JUMP_CAP

BASE_EVENTS = 200_000
EVENTS_PER_REQUEST = 8
PACE_FROM = 1 << 17           # events before the pace is judged
PACE_EVERY = 1 << 16          # … and how often after that
PACE_MARGIN = 4.0             # a pace this far past the budget is refused early


def budget(requests: int) -> int:
    """The events a replica's run of ``requests`` may log."""
    return BASE_EVENTS + EVENTS_PER_REQUEST * int(requests)


def least_events(prompt_tokens: np.ndarray, output_tokens: np.ndarray, lengths: np.ndarray, *, tokens_per_step: int,
                 chunked: bool, max_running: int | None, kv_blocks: int, block_tokens: int, shared_blocks: int = 0,
                 concurrency: int = 0, expected: float = 1.0) -> int:
    """A lower bound on the events a replica's run logs (module docstring). ``prompt_tokens``: to
    compute per request (prompt − cached); ``lengths``: the whole prompts (their KV blocks)."""
    n = int(prompt_tokens.size)
    if n == 0:
        return 0
    p = prompt_tokens.astype(float)
    T = float(max(1, tokens_per_step))
    prompt_steps = float(p.sum()) / T if chunked else float((p / np.maximum(T, p)).sum())
    fewest_blocks = max(1, math.ceil((float(lengths.min()) + 1.0) / block_tokens) - shared_blocks)
    b = min(max_running or n, n, max(1, (kv_blocks - shared_blocks) // fewest_blocks))
    if concurrency > 0:
        b = min(b, concurrency)
    own = np.maximum(output_tokens.astype(float) - 1.0, 0.0) / max(expected, 1.0)
    decode_steps = max(float(own.sum()) / max(b, 1), float(own.max()))
    return int(prompt_steps + max(0.0, decode_steps - prompt_steps) / JUMP_CAP)


def refuse_if_too_long(least: int, requests: int) -> None:
    """ScenarioError (one line) when ``least`` events are past the budget of ``requests``."""
    allowed = budget(requests)
    if least > allowed:
        raise ScenarioError(f"this load needs at least {least:,} scheduler steps to simulate, more than the "
                            f"{allowed:,} allowed for {requests:,} requests: use fewer requests, shorter prompts "
                            "and outputs, or a larger step (--max-tokens-per-step)")


def over_budget(events: int, finished: int, requests: int) -> str | None:
    """While a run goes on: why it must stop now (one line), or None. Past the budget; or, at a
    checkpoint, a pace that puts the whole run far past it."""
    allowed = budget(requests)
    if events > allowed:
        return (f"this load takes more than {allowed:,} scheduler steps to simulate ({finished:,} of "
                f"{requests:,} requests done): use fewer requests or shorter prompts and outputs")
    if events >= PACE_FROM and events % PACE_EVERY == 0 and finished:
        pace = events * requests / finished
        if pace > PACE_MARGIN * allowed:
            return (f"this load would take about {pace:,.3g} scheduler steps to simulate at its pace so far "
                    f"({finished:,} of {requests:,} requests done after {events:,}), more than the {allowed:,} "
                    "allowed: use fewer requests or shorter prompts and outputs")
    return None
