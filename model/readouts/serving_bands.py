"""How far to trust a serving number: its band, from published serving results alike.

    band   = ± (e^q − 1),  q = the 68th percentile of |ln(predicted ÷ measured)| over the held-out
             serving results alike (model/machine/serving_residuals.py: each simulated with engine
             factors fitted without anything its publisher published)
    alike  = the same engine, the same kind of load (rate, clients, burst), the same quantity (TTFT,
             TPOT, ITL, end to end, throughput) and the same statistic (p50, mean, p90, p95, p99);
             with fewer than MIN_ALIKE such results the group widens step by step and says so:
             engine + load + quantity → engine + quantity → load + quantity → quantity → the tails
             or the middles of every quantity → every published serving result
Goodput has no published results: it takes the throughput's band, and says so.
"""
from __future__ import annotations

from typing import Callable

from model.machine.serving_residuals import ServingResidual, stored_serving_residuals
from model.readouts.evidence import MIN_ALIKE, QUANTILE, Band, band_of

WHAT_WORDS = {"ttft": "TTFT", "tpot": "TPOT", "itl": "ITL", "e2e": "end to end", "throughput": "throughput"}
LOAD_WORDS = {"rate": "a request rate", "concurrency": "closed-loop clients", "burst": "a burst",
              "trace": "a trace"}
TAILS = ("p90", "p95", "p99")
# readout key (model/readouts/serving.py) → (quantity, statistic)
KEYS = {f"{w}_{s}": (w, s) for w in ("ttft", "tpot", "itl", "e2e") for s in ("mean", "p50", "p90", "p99")}
KEYS.update({"request_throughput": ("throughput", ""), "output_throughput": ("throughput", ""),
             "goodput": ("throughput", "")})


def _stat_words(stat: str) -> str:
    return stat or ""


def alike_steps(engine: str, engine_name: str, load: str, what: str, stat: str) -> list[tuple[str, Callable]]:
    """(words, which residuals) from the closest group to the widest."""
    w = WHAT_WORDS[what] + (f" {stat}" if stat else "")
    ld = LOAD_WORDS.get(load, load)
    tail = stat in TAILS
    return [
        (f"{engine_name}, {ld}, {w}",
         lambda r: r.engine == engine and r.load == load and r.what == what and r.stat == stat),
        (f"{engine_name}, {WHAT_WORDS[what]} {'tails' if tail else 'middles'}",
         lambda r: r.engine == engine and r.what == what and (r.stat in TAILS) == tail),
        (f"any engine, {ld}, {w}", lambda r: r.load == load and r.what == what and r.stat == stat),
        (f"any engine, {w}", lambda r: r.what == what and r.stat == stat),
        (f"any engine, any latency's {'tails' if tail else 'middles'}" if what != "throughput" else "any throughput",
         lambda r: (r.what == "throughput") == (what == "throughput") and (r.stat in TAILS) == tail),
        ("every published serving result", lambda r: True),
    ]


def serving_band(engine: str, engine_name: str, load: str, key: str,
                 residuals: tuple[ServingResidual, ...] | None = None) -> Band | None:
    """The band of serving readout ``key`` for a run of ``engine`` (without its version) under
    ``load``; None for a readout that is not a prediction (a count, a setting)."""
    if key not in KEYS or engine == "ideal":
        return None
    what, stat = KEYS[key]
    rows = stored_serving_residuals() if residuals is None else residuals
    if not rows:
        return None
    steps = alike_steps(engine, engine_name, load, what, stat)
    for i, (alike, keep) in enumerate(steps):
        group = [r for r in rows if keep(r)]
        if len(group) >= MIN_ALIKE or i == len(steps) - 1:
            if not group:
                return None
            return Band(band_of(group, QUANTILE), len(group), alike + (" (goodput: its throughput's band)"
                                                                        if key == "goodput" else ""), i > 0)
    return None


def band_derivation(b: Band, text: str) -> str:
    """The band in words a reader can redo: what it is the percentile of, over which results."""
    few = f"fewer than {MIN_ALIKE} results were closer alike, so a wider group stands in; " if b.widened else ""
    return (f"{text} {b.text}: {few}{round(100 * QUANTILE)}% of {b.runs} published serving results alike "
            f"({b.alike}), each simulated with factors fitted without anything its publisher published, "
            f"were within it: ± (e^q − 1) (past ± 100%: ×/÷ e^q), q the {round(100 * QUANTILE)}th percentile of "
            f"|ln(predicted ÷ measured)|")


def engine_name(base: str) -> str:
    """An engine's name for a band's words ("vLLM"; "ideal" for the ideal engine, which has no factors)."""
    from model.catalog.active import default_efficiency
    from model.physics.estimate import engine_label
    return engine_label(default_efficiency(), base)


def band_suffix(engine_id: str, load: str, key: str) -> str:
    """" ± x%" for readout ``key`` of a run of ``engine_id`` (with or without its version) under
    ``load``; "" when it has no band."""
    base = engine_id.partition("@")[0]
    b = serving_band(base, engine_name(base), load, key)
    return f" {b.text}" if b is not None else ""
