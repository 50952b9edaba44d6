"""Between the plan and the rest of the app: the Explore scenario as a point on the plan's axes
(and its path over the batch caps), and a plan's point as an Explore scenario and a Serve setup.

    the current point   the Explore scenario's GPU, GPU count (one tensor-parallel replica),
                        precision, KV precision and engine at its batch as the batch cap, with
                        the chunk its engine takes by default (assets/serving.json) and no
                        speculation: the same steady state as every plan point
    the path            the same setup at every batch cap of the sweep (batching moves it along)
    a point loaded      Explore: its GPU, GPUs per replica, precision, KV precision, engine, batch
                        = its batch cap (disaggregated: the decode pool's replica; expert parallel
                        over two nodes: Explore's own split of 16 GPUs, two pipeline stages of
                        8, as Explore has no expert parallelism); Serve: max
                        running = the batch cap, tokens per step = the chunk, its speculation,
                        the replicas, the targets
"""
from __future__ import annotations

import numpy as np

from model.catalog.parts import Catalog
from model.errors import ModelError, ScenarioError
from model.physics.scenario import Scenario, resolve
from model.planning.disagg import DisaggPoints
from model.planning.plan import Plan, point_setup
from model.planning.space import Group, PlanRequest, axis, check_request
from model.planning.steady import GroupPoints, group_points
from model.serving.limits import engine_limits
from model.serving.setup import ServingSetup
from model.values import frozen


@frozen(eq=False)
class CurrentPath:
    """The Explore scenario's setup over the batch caps (spec off), and where its own batch sits."""

    points: GroupPoints
    index: int              # the Explore batch's point in ``points``
    problem: str = ""


def current_path(request: PlanRequest, scenario: Scenario, catalog: Catalog | None = None) -> CurrentPath | None:
    """The Explore scenario on the plan's axes (None, with nothing said, when it cannot serve)."""
    try:
        rs = resolve(scenario, catalog)
        if rs.pp != 1:
            return None
        r = check_request(PlanRequest(request.model, request.input_len, request.output_len,
                                      ((rs.hw.id, rs.tp),), speculative=False), catalog)
        chunk = float(engine_limits(rs.engine, rs.hw).max_tokens_per_step)
        caps = np.unique(np.concatenate((np.asarray(axis("batch_caps"), dtype=float), [float(scenario.batch)])))
        g = Group(rs.hw.id, rs.tp, "tp", rs.precision.id, rs.kv.id, rs.engine, rs.tp)
        gp = group_points(g, r, catalog, caps=caps, chunks=[chunk])
    except ModelError:
        return None
    at = int(np.flatnonzero(gp.batch == float(scenario.batch))[0])
    return CurrentPath(gp, at)


def point_scenario(plan: Plan, i: int) -> tuple[Scenario, ServingSetup]:
    """Point ``i`` of ``plan`` as an Explore scenario and a Serve setup (ScenarioError, one line,
    for an index the plan does not have)."""
    t, r = plan.table, plan.request
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= int(i) < len(t):
        raise ScenarioError(f"this plan has no point {i!r} (its points are 0 to {len(t) - 1:,})")
    i = int(i)
    gp = t.points_of(i)
    replica = gp.decode if isinstance(gp, DisaggPoints) else gp
    g = replica.group
    s = Scenario(gpu=g.gpu, model=r.model, precision=g.precision, kv_precision=g.kv_precision,
                 gpus=g.gpus, input_len=r.input_len, output_len=r.output_len, engine=g.engine,
                 batch=int(t["batch"][i]))
    setup = point_setup(t, i, r) if not isinstance(gp, DisaggPoints) else \
        point_setup(t, i, r).with_(replicas=int(t["decode_instances"][i] * t["replicas"][i]))
    return s, setup.with_(requests=600)
