"""The window's serving knobs: the range each one offers, and the setup the window starts on.

The simulator takes more (model/serving/setup.py: a million requests or clients, a rate of 10⁶/s,
16 drafts: the command line's reach); the window's Serve knobs stop lower, where a run stays interactive
and a knob can still show the value. The knobs take their ranges from ``KNOBS``, and a setup
that comes from elsewhere (a scenario file, the command line, a plan's point) passes
``within_knobs``: a value beyond a knob's range is refused in one line that names the field and
the limit, never clamped or shown as something it is not.

    field           knob                    range
    requests        Requests                10 … 20 000
    rate_per_s      Rate (req/s)            0 (auto) … 100 000
    concurrency     Clients                 0 (none) … 4 096   (a concurrency load needs ≥ 1)
    replicas        Replicas                1 … 64  (the simulator's; a plan's point may have that many)
    spec_k          Speculative k           0 (off) … 8
    prefix_hit      Prefix cache hit        0 … 1 (0 … 100 %)
    spec_accept     Acceptance α            0 … 1
    ttft_p90_ms     TTFT p90 target         none, or up to 600 000 ms
    tpot_p90_ms     TPOT p90 target         none, or up to 10 000 ms
"""
from __future__ import annotations

from typing import Any

from model.errors import ScenarioError
from model.serving.setup import ServingSetup
from model.values import frozen


@frozen
class Knob:
    """One knob's range, in the setup's own units."""

    label: str
    lo: float
    hi: float


KNOBS: dict[str, Knob] = {
    "requests": Knob("requests", 10, 20_000),
    "rate_per_s": Knob("rate (requests/s)", 0.0, 100_000.0),
    "concurrency": Knob("clients (concurrency)", 0, 4096),
    "replicas": Knob("replicas", 1, 64),
    "spec_k": Knob("speculative draft length", 0, 8),
    "prefix_hit": Knob("prefix hit rate", 0.0, 1.0),
    "spec_accept": Knob("speculative acceptance rate", 0.0, 1.0),
    "ttft_p90_ms": Knob("TTFT p90 target (ms)", 0.0, 600_000.0),
    "tpot_p90_ms": Knob("TPOT p90 target (ms)", 0.0, 10_000.0),
}
DEFAULT = ServingSetup(requests=600)          # what the window starts on, and Reset serving returns to


def within_knobs(s: ServingSetup) -> ServingSetup:
    """``s`` when every knobbed value lies in its knob's range; ScenarioError (one line) otherwise."""
    for name, k in KNOBS.items():
        v = getattr(s, name)
        if v is not None and not k.lo <= v <= k.hi:
            raise ScenarioError(f"{k.label} is {v:,.6g}; the window's knob takes {k.lo:,.6g} to {k.hi:,.6g}")
    return s


def window_setup(data: Any) -> ServingSetup:
    """A scenario file's "serving" object as the window takes it: checked by the simulator's rules
    (ServingSetup.from_dict), then against the knobs' ranges."""
    try:
        return within_knobs(ServingSetup.from_dict(data))
    except TypeError as exc:          # a value of a kind no field takes
        raise ScenarioError(" ".join(str(exc).split())) from None
