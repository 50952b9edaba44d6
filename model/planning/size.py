"""How large a plan is, counted before anything is built, and the most a plan may sweep.

    replica shapes  S = the groups (model/planning/space.groups): each needs its own step table
    configurations  N = S_tp+ep · caps · chunks · spec options                     (aggregated)
                      + Σ over (precision, KV precision, engine) of m² · x² · caps · chunks · spec
                        (disaggregated: every ordered pair of its m tensor-parallel shapes, x
                        prefill and x decode instances)
    size            = N + SHAPE_WEIGHT · S        (a step table costs ~1.5 ms and ~150 KiB to keep,
                                                   the time of ~1 000 configurations)
    memory          ≈ S · SHAPE_BYTES + N · CONFIGURATION_BYTES

A plan whose size is past MAX_SIZE is refused in one line that says how to narrow it, before any
step table or array is made (the command line may raise the limit: --max-configurations). The
counts are upper bounds: shapes that cannot run are dropped later. Repeats (a precision or engine
named twice, aliases of one) are collapsed by ``groups`` before they are counted.
"""
from __future__ import annotations

from collections import Counter

from model.errors import ScenarioError
from model.planning.space import Group, PlanRequest, axis

MAX_SIZE = 2_000_000             # the default request with disaggregated pools is ~1.1 million
SHAPE_WEIGHT = 1_000
SHAPE_BYTES = 160_000            # a kept shape: its resolved scenario, step table and points (measured)
CONFIGURATION_BYTES = 220        # a configuration's columns and what building them holds (measured)


class PlanTooLarge(ScenarioError):
    """A plan past the limit; ``configurations``, ``shapes``: what it would have swept."""

    def __init__(self, message: str, configurations: int, shapes: int):
        super().__init__(message)
        self.configurations, self.shapes = configurations, shapes


def count(r: PlanRequest, shapes: list[Group], disaggregated: bool) -> int:
    """The configurations ``shapes`` give (the module docstring), none of them built."""
    per_shape = len(axis("batch_caps")) * len(axis("chunk_tokens")) * (2 if r.speculative else 1)
    n = len(shapes) * per_shape
    if disaggregated:
        xs = len(axis("disaggregated_instances"))
        classes = Counter((g.precision, g.kv_precision, g.engine) for g in shapes if g.mode == "tp")
        n += sum(m * m for m in classes.values()) * xs * xs * per_shape
    return n


def check_size(r: PlanRequest, shapes: list[Group], disaggregated: bool, limit: int | None = None) -> int:
    """The plan's configurations; PlanTooLarge (one line) when its size is past ``limit``."""
    limit = MAX_SIZE if limit is None else int(limit)
    n = count(r, shapes, disaggregated)
    if n + SHAPE_WEIGHT * len(shapes) > limit:
        gb = (len(shapes) * SHAPE_BYTES + n * CONFIGURATION_BYTES) / 1e9
        kinds = len({g.gpu for g in shapes})
        ways = ["fewer GPU kinds" if kinds > 1 else "", "fewer precisions or engines",
                "no disaggregated pools" if disaggregated else "", "no speculative decoding" if r.speculative else ""]
        raise PlanTooLarge(f"this plan would sweep {n:,} configurations of {len(shapes):,} replica shapes (about "
                           f"{gb:.2g} GB), more than a plan may ({limit:,}, a replica shape counting as "
                           f"{SHAPE_WEIGHT:,}): narrow it: " + _or([w for w in ways if w]), n, len(shapes))
    return n


def _or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
