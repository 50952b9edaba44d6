"""Every number and sentence a plan shows (the Plan page and ``main.py plan``).

The numbers are model/planning's: speed per user = 1/TPOT (tokens/s), throughput per GPU =
output tokens/s ÷ GPUs, TTFT/TPOT p90 from the serving simulator on the frontier's points,
$ per hour = GPUs × the catalogue's $/GPU-hour, $ per Mtok at the point's throughput.
"""
from __future__ import annotations

import csv
import io
import math

import numpy as np

from model.planning.plan import Plan, Served
from model.planning.space import axis, planning_table
from model.readouts.format import sig3
from model.readouts.serving_bands import band_suffix
from model.values import frozen

BUSY = "Planning… (the chart shows the last plan until it is done)"
FRONTIER_HEADER = ("setup", "batch cap", "chunk", "spec", "tok/s/user", "tok/s/GPU", "TTFT ms", "TPOT ms",
                   "TTFT p90 ms", "TPOT p90 ms", "GPUs", "$/hour", "$/Mtok", "kWh/Mtok")


def _n(x: float) -> str:
    return sig3(x) if x is not None and math.isfinite(x) else "—"


def setup_text(p: Plan, i: int) -> str:
    """Point ``i``'s setup in words: GPUs and split, precision, engine, knobs, replicas."""
    t = p.table
    k = int(t["spec_k"][i])
    spec = f", speculative k={k} α={t['spec_accept'][i]:g}" if k else ""
    reps = int(t["replicas"][i])
    copies = f" ×{reps} replicas" if reps > 1 else ""
    return f"{t.label(i)}{copies}, batch cap {int(t['batch'][i])}, chunk {int(t['chunk'][i])}{spec}"


def frontier_rows(p: Plan) -> list[tuple[str, ...]]:
    """The frontier as table rows (fastest per user first), header first."""
    t = p.table
    served = {s.index: s for s in p.served}
    rows = [FRONTIER_HEADER]
    for i in p.frontier:
        s = served.get(int(i))
        k = int(t["spec_k"][i])
        rows.append((t.label(i), str(int(t["batch"][i])), str(int(t["chunk"][i])), f"k={k}" if k else "off",
                     _n(t["tokens_per_s_per_user"][i]), _n(t["tokens_per_s_per_gpu"][i]), _n(t["ttft_s"][i] * 1e3),
                     _n(t["tpot_s"][i] * 1e3), _n(s.ttft_p90_ms) if s else "—", _n(s.tpot_p90_ms) if s else "—",
                     str(int(t["gpus"][i])), f"{t['usd_per_hour'][i]:.2f}", f"{t['usd_per_mtok'][i]:.3f}",
                     _n(t["kwh_per_mtok"][i])))
    return rows


def misses_text(s: Served) -> str:
    """'TTFT p90 812 ms, 62% over the target' (every target it misses) or why it could not run."""
    if s.error:
        return s.error
    return "; ".join(f"{name} {_n(v)} ms, {_n(over)}% over the target" for name, v, over in s.misses)


def served_line(p: Plan, s: Served) -> str:
    """One setup as the simulator served it, with its cost; its p90s with their bands (a request
    rate's published serving results alike: model/readouts/serving_bands.py)."""
    t = p.table
    i = s.index
    n = int(t["gpus"][i])
    engine = t.points_of(i).resolved.engine
    return (f"{setup_text(p, i)}: {n} GPU{'' if n == 1 else 's'}, ${t['usd_per_hour'][i]:.2f}/hour, "
            f"${s.usd_per_mtok:.3f}/Mtok served (${t['usd_per_mtok'][i]:.3f} at full load), "
            f"{_n(t['kwh_per_mtok'][i])} kWh/Mtok at TDP; TTFT p90 {_n(s.ttft_p90_ms)} ms"
            f"{band_suffix(engine, 'rate', 'ttft_p90')}, TPOT p90 {_n(s.tpot_p90_ms)} ms"
            f"{band_suffix(engine, 'rate', 'tpot_p90')}")


def sources_text(p: Plan, i: int) -> str:
    """Where setup ``i``'s price and speculative acceptance come from (hardware.json, planning.json)."""
    t = p.table
    rs = t.points_of(i).resolved
    price = dict(rs.hw.sources).get("price", "") or "assets/hardware.json"
    out = f"Price ${t['usd_per_hour'][i] / max(1, int(t['gpus'][i])):.2f}/GPU-hour: {price}."
    if int(t["spec_k"][i]):
        key = "spec_mtp" if t["spec_accept"][i] == axis("spec_mtp")["accept"] else "spec_ngram"
        out += f" α = {t['spec_accept'][i]:g}: {planning_table()[key]['source']}."
    return out


def targets_text(p: Plan) -> str:
    r = p.request
    bits = []
    if r.ttft_p90_ms is not None:
        bits.append(f"TTFT p90 ≤ {r.ttft_p90_ms:g} ms")
    if r.tpot_p90_ms is not None:
        bits.append(f"TPOT p90 ≤ {r.tpot_p90_ms:g} ms")
    if r.rate_per_s:
        bits.append(f"{r.rate_per_s:g} requests/s")
    return ", ".join(bits) or "no targets"


def cheapest_lines(p: Plan) -> list[str]:
    """The cheapest setups that meet the targets, then the runners-up and why they fail."""
    out = [f"cheapest meeting {targets_text(p)} in the serving simulator:"]
    out += [f"  {n}. {served_line(p, s)}" for n, s in enumerate(p.cheapest, 1)] or ["  none"]
    if p.runners_up:
        out.append("cheaper setups that fail in the simulator:")
        out += [f"  {setup_text(p, s.index)}: {misses_text(s)}" for s in p.runners_up]
    return out


def closest_line(p: Plan) -> str:
    """One line for a target no setup meets, naming the closest one."""
    c = p.closest
    if c is None:
        return f"no setup can run {p.request.model} on the GPUs given"
    return f"no setup meets {targets_text(p)}; closest: {setup_text(p, c.index)} ({misses_text(c)})"


def summary_line(p: Plan, seconds: float | None = None) -> str:
    t = p.table
    took = f" in {seconds:.2f} s" if seconds is not None else ""
    return (f"{t.swept:,} configurations swept{took}, {len(t):,} feasible, {len(p.frontier)} on the frontier "
            f"({len(t.dropped)} replica shapes cannot run)")


def _pct(x: float) -> str:
    return f"{x * 100:+.0f}%" if x is not None and math.isfinite(x) else "—"


def measured_lines(p: Plan) -> list[str]:
    """Published runs that match the plan, beside the same runs simulated and the predicted frontier."""
    if not p.measured:
        return ["measured: no published serving run matches this model, these GPUs and lengths "
                "(assets/measured.csv rows with a load)"]
    out = ["measured (published runs of this scenario; simulated under the same load; the predicted frontier "
           "at the same speed per user):"]
    for m, gap, gap_user in p.measured:
        out.append(f"  {m.source_id} {m.load} {m.load_value:g} on {m.gpus} GPUs: {_n(m.tokens_per_s_per_gpu)} tok/s/GPU "
                   f"at {_n(m.tokens_per_s_per_user)} tok/s/user; simulated {_n(m.predicted_tokens_per_s_per_gpu)} at "
                   f"{_n(m.predicted_tokens_per_s_per_user)} ({_pct(m.predicted_tokens_per_s_per_gpu / m.tokens_per_s_per_gpu - 1)}, "
                   f"{_pct(m.predicted_tokens_per_s_per_user / m.tokens_per_s_per_user - 1)}); own setup's frontier: "
                   f"{_pct(gap)} tok/s/GPU at that speed, {_pct(gap_user)} tok/s/user at that throughput")
    return out


def plan_json(p: Plan) -> dict:
    t = p.table

    def point(i: int, s: Served | None) -> dict:
        d = {"setup": setup_text(p, i), **{k: float(t[k][i]) for k in (
            "tokens_per_s_per_user", "tokens_per_s_per_gpu", "ttft_s", "tpot_s", "batch", "chunk", "spec_k",
            "usd_per_hour", "usd_per_mtok", "kwh_per_mtok", "gpus", "replicas")}}
        if s is not None:
            d.update(ttft_p90_ms=_clean(s.ttft_p90_ms), tpot_p90_ms=_clean(s.tpot_p90_ms),
                     served_usd_per_mtok=_clean(s.usd_per_mtok), meets=s.meets, misses=misses_text(s))
        return d
    served = {s.index: s for s in p.served}
    return {"request": {"model": p.request.model, "input_len": p.request.input_len,
                        "output_len": p.request.output_len, "gpus_available": dict(p.request.gpus_available),
                        "ttft_p90_ms": p.request.ttft_p90_ms, "tpot_p90_ms": p.request.tpot_p90_ms,
                        "rate_per_s": p.request.rate_per_s},
            "swept": t.swept, "feasible": len(t),
            "frontier": [point(int(i), served.get(int(i))) for i in p.frontier],
            "cheapest": [point(s.index, s) for s in p.cheapest],
            "runners_up": [point(s.index, s) for s in p.runners_up],
            "closest": point(p.closest.index, p.closest) if p.closest else None,
            "measured": [{"source": m.source_id, "load": m.load, "load_value": m.load_value, "gpus": m.gpus,
                          "tokens_per_s_per_gpu": m.tokens_per_s_per_gpu, "tokens_per_s_per_user": m.tokens_per_s_per_user,
                          "simulated_tokens_per_s_per_gpu": _clean(m.predicted_tokens_per_s_per_gpu),
                          "simulated_tokens_per_s_per_user": _clean(m.predicted_tokens_per_s_per_user),
                          "frontier_gap_tokens_per_s_per_gpu": _clean(gap),
                          "frontier_gap_tokens_per_s_per_user": _clean(gap_user)} for m, gap, gap_user in p.measured]}


def _clean(x: float):
    return None if x is None or not math.isfinite(x) else float(x)


def frontier_csv(p: Plan) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for row in frontier_rows(p):
        w.writerow(row)
    return buf.getvalue()


CLOUD_POINTS = 3000
KEY_WORDS = (("frontier", "the frontier"), ("cloud", "every configuration"), ("current", "this scenario"),
             ("path", "its path over the batch caps"), ("cheapest", "the cheapest that meets the targets"),
             ("target", "the TPOT target"), ("measured", "published runs of this scenario"))


@frozen(eq=False)
class PlanChart:
    """What the Plan page's chart draws (data units: tokens/s per user across, tokens/s/GPU up)."""

    cloud_x: np.ndarray            # a sample of every feasible configuration
    cloud_y: np.ndarray
    frontier_x: np.ndarray         # the frontier, fastest per user first
    frontier_y: np.ndarray
    frontier_tips: tuple[str, ...]
    frontier_index: np.ndarray     # the plan's point index of each frontier point
    served_x: np.ndarray           # the frontier's points as the simulator served them
    served_y: np.ndarray
    measured_x: np.ndarray         # published runs of this scenario
    measured_y: np.ndarray
    measured_tips: tuple[str, ...]
    path_x: np.ndarray             # the Explore setup over the batch caps
    path_y: np.ndarray
    current: tuple[float, float] | None
    current_text: str
    target_x: float | None         # speed per user the TPOT target asks for: 1000 / TPOT p90 (ms)
    target_text: str
    cheapest: tuple[float, float] | None
    cheapest_text: str
    title: str
    x_span: tuple[float, float]    # what the axes show (data units): every point and the target line
    y_span: tuple[float, float]
    keys: tuple[tuple[str, str], ...] = ()     # (what, its words) for each kind of thing drawn: the chart's key
    legend: str = "Click a frontier point to load it into Explore and Serve."    # then where the prices come from
    x_label: str = "Speed per user (output tokens/s per user = 1/TPOT, log)"
    y_label: str = "Output tokens/s per GPU (log)"


def plan_chart(p: Plan, path=None) -> PlanChart:
    """The chart of ``p`` with the Explore setup's ``path`` (model.planning.explore.CurrentPath)."""
    t = p.table
    n = len(t)
    step = max(1, n // CLOUD_POINTS)
    idx = np.arange(0, n, step)
    f = p.frontier
    served = [s for s in p.served if math.isfinite(s.tokens_per_s_per_user)]
    r = p.request
    target_x = 1e3 / r.tpot_p90_ms if r.tpot_p90_ms else None
    target_text = (f"TPOT p90 ≤ {r.tpot_p90_ms:g} ms: at least {_n(target_x)} tokens/s per user"
                   + (f"; TTFT p90 ≤ {r.ttft_p90_ms:g} ms" if r.ttft_p90_ms else "")) if target_x else ""
    best = p.cheapest[0] if p.cheapest else None
    if best is not None:
        cheapest = (float(t["tokens_per_s_per_user"][best.index]), float(t["tokens_per_s_per_gpu"][best.index]))
        where = "where the steady state puts it"
        if math.isfinite(best.tokens_per_s_per_user) and math.isfinite(best.tokens_per_s_per_gpu):
            cheapest = (float(best.tokens_per_s_per_user), float(best.tokens_per_s_per_gpu))
            where = "where the simulator served it"
        cheapest_text = (f"Cheapest meeting {targets_text(p)}: {served_line(p, best)}. Ring: {where}, "
                         f"{_n(cheapest[0])} tokens/s per user on average (the p90 TPOT is the slow tail)")
    else:
        cheapest, cheapest_text = None, (closest_line(p) if (r.ttft_p90_ms or r.tpot_p90_ms) else "")
    if path is not None:
        gp, at = path.points, path.index
        ok = gp.feasible
        px, py = gp.tokens_per_s_per_user[ok], gp.tokens_per_s_per_gpu[ok]
        current = (float(gp.tokens_per_s_per_user[at]), float(gp.tokens_per_s_per_gpu[at])) if ok[at] else None
        current_text = (f"This scenario ({gp.group.label()}, batch {int(gp.batch[at])}): "
                        f"{_n(gp.tokens_per_s_per_user[at])} tokens/s per user, {_n(gp.tokens_per_s_per_gpu[at])} "
                        f"tokens/s/GPU, TTFT {_n(gp.ttft_s[at] * 1e3)} ms" if ok[at] else
                        f"This scenario ({gp.group.label()}, batch {int(gp.batch[at])}): its KV cache or "
                        "its prompts do not keep up at this batch")
    else:
        px = py = np.zeros(0)
        current, current_text = None, "This scenario cannot be served as one replica (pipeline stages or no KV room)"
    ms = [m for m, _, _ in p.measured]
    xs = np.concatenate((t["tokens_per_s_per_user"][idx], px, [m.tokens_per_s_per_user for m in ms],
                         [target_x] if target_x else []))
    ys = np.concatenate((t["tokens_per_s_per_gpu"][idx], py, [m.tokens_per_s_per_gpu for m in ms]))
    xs, ys = xs[xs > 0], ys[ys > 0]
    x_span = (float(xs.min()) / 1.25, float(xs.max()) * 1.25) if xs.size else (1.0, 1e3)
    y_span = (float(ys.min()) / 1.3, float(ys.max()) * 1.5) if ys.size else (1.0, 1e4)
    legend = PlanChart.legend
    if best is not None:
        legend += f" {sources_text(p, best.index)}"
    shown = {"frontier": bool(len(f)), "cloud": bool(idx.size), "current": current is not None, "path": bool(px.size),
             "cheapest": cheapest is not None, "target": target_x is not None, "measured": bool(ms)}
    keys = tuple((k, words) for k, words in KEY_WORDS if shown[k])
    return PlanChart(
        legend=legend, keys=keys,
        cloud_x=t["tokens_per_s_per_user"][idx], cloud_y=t["tokens_per_s_per_gpu"][idx],
        frontier_x=t["tokens_per_s_per_user"][f], frontier_y=t["tokens_per_s_per_gpu"][f],
        frontier_tips=tuple(f"{setup_text(p, int(i))}: {_n(t['tokens_per_s_per_user'][i])} tok/s per user, "
                            f"{_n(t['tokens_per_s_per_gpu'][i])} tok/s/GPU, ${t['usd_per_mtok'][i]:.3f}/Mtok" for i in f),
        frontier_index=np.asarray(f),
        served_x=np.array([s.tokens_per_s_per_user for s in served]),
        served_y=np.array([s.tokens_per_s_per_gpu for s in served]),
        measured_x=np.array([m.tokens_per_s_per_user for m in ms]), measured_y=np.array([m.tokens_per_s_per_gpu for m in ms]),
        measured_tips=tuple(f"measured: {m.label}" for m in ms),
        path_x=px, path_y=py, current=current, current_text=current_text,
        target_x=target_x, target_text=target_text, cheapest=cheapest, cheapest_text=cheapest_text,
        title=(f"{r.model}, {r.input_len:,} in / {r.output_len:,} out on "
               + ", ".join(f"{n}× {g}" for g, n in r.gpus_available)
               + f": {t.swept:,} configurations, {len(f)} on the frontier"), x_span=x_span, y_span=y_span)
