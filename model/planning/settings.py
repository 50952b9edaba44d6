"""What the Plan page is asked: the GPUs on hand, the targets, the rate and two switches.

    available       "kind:count, …" (ids or aliases of the catalogue; model/planning/space.parse_available)
    ttft_p90_ms     TTFT p90 target (None: none)          0 < t ≤ 600 000 ms
    tpot_p90_ms     TPOT p90 target (None: none)          0 < t ≤ 10 000 ms
    rate_per_s      requests per second (None: one replica at full load)   0 < r ≤ 100 000
    speculative     sweep speculative decoding on as well as off
    disaggregated   sweep prefill/decode pools (xPyD) too

The limits are the Serve knobs' for the same quantities (model/serving/knobs.KNOBS: a plan's
point loads into Serve as it is). The window's Plan knobs take their ranges from ``LIMITS``, and a
scenario file's "planning" object is read by ``PlanSettings.from_dict`` against the same ones
(ScenarioError, one line naming the field and the limit). 0 means "none" for the targets and the
rate, as on the knobs.
"""
from __future__ import annotations

import math
from dataclasses import fields
from typing import Any, Mapping

from model.catalog.parts import Catalog
from model.errors import ScenarioError
from model.files.limits import check_text, least
from model.physics.scenario import Scenario
from model.planning.space import PlanRequest, parse_available
from model.serving.knobs import KNOBS
from model.values import frozen

DEFAULT_AVAILABLE = "h100:8,h200:8,mi300x:8"
# The TPOT targets presenter mode steps through on the Plan page (→ tighter: the target line moves
# right, to more tokens/s per user; ← looser), in ms
TPOT_STEPS_MS = (5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 75.0, 100.0, 150.0, 200.0)
MAX_AVAILABLE_CHARS = 200
LIMITS = {name: KNOBS[name] for name in ("ttft_p90_ms", "tpot_p90_ms", "rate_per_s")}   # the Serve knobs' own


@frozen
class PlanSettings:
    """The Plan page's knobs, as one value (the controller keeps it; scenario files carry it)."""

    available: str = DEFAULT_AVAILABLE
    ttft_p90_ms: float | None = 500.0
    tpot_p90_ms: float | None = 25.0
    rate_per_s: float | None = None
    speculative: bool = True
    disaggregated: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The settings as a scenario file's "planning" object."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Any) -> "PlanSettings":
        """A scenario file's "planning" object, every value checked (ScenarioError, one line)."""
        if not isinstance(data, Mapping):
            raise ScenarioError("planning settings must be a JSON object")
        known = [f.name for f in fields(cls)]
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise ScenarioError(f"unknown planning field '{unknown[0]}' (known: {', '.join(known)})")
        return check(cls(**dict(data)))

    def request(self, scenario: Scenario, catalog: Catalog | None = None) -> PlanRequest:
        """The planning question for ``scenario``'s model and lengths with these settings."""
        return PlanRequest(scenario.model, scenario.input_len, scenario.output_len,
                           parse_available(self.available, catalog), self.ttft_p90_ms, self.tpot_p90_ms,
                           self.rate_per_s, speculative=self.speculative)


def _limit(name: str, value: Any) -> float | None:
    """None for "none" (null or 0); else a finite number in (0, the knob's maximum]."""
    k = LIMITS[name]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ScenarioError(f"{k.label} must be a number or null, got {value!r}")
    if not k.lo <= value <= k.hi:
        raise ScenarioError(f"{k.label} is {value:,.6g}; the window's knob takes {k.lo:,.6g} (none) to {k.hi:,.6g}")
    lo, why = least("rate_per_s" if name == "rate_per_s" else "target_ms")
    if 0 < value < lo:
        raise ScenarioError(f"{k.label} is {value:.3g}; it must be 0 (none) or at least {lo:g} ({why})")
    return float(value) or None


def check(s: PlanSettings) -> PlanSettings:
    """``s`` with every value checked and normalised; ScenarioError (one line) otherwise."""
    why = check_text(s.available, max_chars=MAX_AVAILABLE_CHARS, required=True)
    if why:
        raise ScenarioError(f"GPUs available {why}")
    for name in ("speculative", "disaggregated"):
        if not isinstance(getattr(s, name), bool):
            raise ScenarioError(f"{name} must be true or false, got {getattr(s, name)!r}")
    return PlanSettings(s.available.strip(), _limit("ttft_p90_ms", s.ttft_p90_ms), _limit("tpot_p90_ms", s.tpot_p90_ms),
                        _limit("rate_per_s", s.rate_per_s), s.speculative, s.disaggregated)


def stepped_tpot(now_ms: float | None, direction: int) -> float:
    """The next TPOT target from ``now_ms`` (None: none yet, the default's): ``direction`` > 0
    tighter (shorter), < 0 looser, stopping at the ends of TPOT_STEPS_MS."""
    now = now_ms or PlanSettings().tpot_p90_ms
    if direction > 0:
        return max((t for t in TPOT_STEPS_MS if t < now - 1e-9), default=TPOT_STEPS_MS[0])
    return min((t for t in TPOT_STEPS_MS if t > now + 1e-9), default=TPOT_STEPS_MS[-1])
