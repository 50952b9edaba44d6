"""Fit each engine's factors on the measured rows (assets/measured.csv).

    python -m model.machine.calibrate            # fit on every row, print, write assets/engines.json
    python -m model.machine.calibrate --dry-run  # fit and print only

One group of ten factors per (engine[@version], platform) with measured rows. The fit minimises

    Σ_rows ρ(ln(predicted / measured)) + Σ_groups Σ_factors ((θ − θ_parent) / τ)²

where ρ is a soft-L1 loss (δ = 0.15: a row 3× off counts about as much as a few rows 15%
off), θ is a factor in logit units (fractions, so they stay in (0, 1)) or natural-log units
(overheads, scales: they stay positive), θ_parent is the engine's physically motivated
prior (for CUDA), the engine's CUDA fit (for other platforms) or the newest version's fit on
the same platform (for an older version: vllm@0.6 shrinks toward vllm), and τ is
``prior_strength`` in assets/engines.json. So an engine with many rows is fitted by its
rows; one with few rows stays near its prior; one with none *is* its prior. No factor is
ever set per row.

Minimiser: Levenberg–Marquardt with a finite-difference Jacobian. A row depends only on
its own group's factors, so one perturbation per factor (nine in all) gives the whole
Jacobian; every row's passes are evaluated at once as numpy arrays (model.physics.cost.pass_cost).
A fit of a few hundred rows takes well under a second.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import fields, replace
from typing import Callable

import numpy as np

from model.files.assets import ASSETS_DIR
from model.catalog.engines import Efficiency, EfficiencyTable
from model.catalog.active import default_efficiency
from model.files.assets import factors_as_json
from model.files.safe_io import atomic_write_text
from model.machine.measured import RowPlan, default_measured, plan
from model.physics.cost import GEMM_KERNELS, PassTerms, pass_cost
from model.values import frozen

PARAMS = ("hbm_fraction", "compute_fraction_decode", "compute_fraction_prefill", "kv_read_fraction",
          "step_overhead_s", "layer_overhead_s", "allreduce_latency_scale", "dequant_ops_per_weight",
          "request_overhead_s", "host_layer_s")
FRACTIONS = 4                           # the first four are fractions (logit), the rest log
LO = np.array([-4.0, -4.0, -4.0, -4.0, np.log(1e-7), np.log(1e-8), np.log(0.1), np.log(0.01), np.log(1e-6),
               np.log(1e-8)])
HI = np.array([6.9, 6.9, 6.9, 6.9, np.log(0.05), np.log(1e-3), np.log(20.0), np.log(100.0), np.log(0.2),
               np.log(5e-3)])
DELTA = 0.15
PER_KERNEL = ("gemm_bytes", "gemm_flops", "gemm_dequant")   # PassTerms fields with a leading kernel axis
POOLED_WIDTH = 3.0                      # the pooled factors' prior is this much wider than an engine's


def to_theta(e: Efficiency) -> np.ndarray:
    v = np.array([getattr(e, p) for p in PARAMS], dtype=float)
    v[:FRACTIONS] = np.log(v[:FRACTIONS] / (1.0 - np.minimum(v[:FRACTIONS], 0.999)))
    v[FRACTIONS:] = np.log(np.maximum(v[FRACTIONS:], 1e-12))
    return np.clip(v, LO, HI)


def from_theta(t: np.ndarray) -> dict:
    """Factor values (each an array over the leading axes of ``t``)."""
    t = np.asarray(t, dtype=float)
    vals = [1.0 / (1.0 + np.exp(-t[..., i])) if i < FRACTIONS else np.exp(t[..., i]) for i in range(len(PARAMS))]
    return dict(zip(PARAMS, vals))


@frozen
class Design:
    """Every pass of every row, flattened: the fit evaluates all of them at once."""

    terms: PassTerms            # fields are 1-D arrays over the flattened passes
    prefill: np.ndarray         # bool per pass
    weight: np.ndarray
    row: np.ndarray             # row index per pass
    group: np.ndarray           # group index per pass
    sustained: np.ndarray       # STREAM / datasheet bandwidth of the row's part, per pass
    eager: np.ndarray           # 1 per pass whose engine issues every kernel from the host
    eager_prefill: np.ndarray   # 1 per pass whose engine's graphs hold decode steps only (prompts run eager)
    k: np.ndarray               # per row
    inverse: np.ndarray         # per row
    log_measured: np.ndarray    # per row
    row_group: np.ndarray       # per row
    groups: tuple[tuple[str, str], ...]
    active: np.ndarray          # per row: 1 if the fit uses it, 0 if held out


def design(plans: list[RowPlan], table: EfficiencyTable) -> Design:
    """Groups: every (engine, platform) with rows, every engine on CUDA (rows or not), and the
    newest version's group of every older version with rows (its anchor)."""
    used = {(table.fit_group(p.engine), table.platform(p.hw)) for p in plans}
    newest = {(table.split(e)[0], plat) for e, plat in used}
    groups = tuple(sorted(used | newest | {(e.id, "cuda") for e in table.engines}))
    gidx = {g: i for i, g in enumerate(groups)}
    cols: dict[str, list] = {f.name: [] for f in fields(PassTerms)}
    pre, wts, rows, grp, sus, eag, eagp = [], [], [], [], [], [], []
    for i, p in enumerate(plans):
        g = gidx[(table.fit_group(p.engine), table.platform(p.hw))]
        for terms, is_prefill, w in p.passes:
            n = w.shape
            for f in cols:
                v = np.asarray(getattr(terms, f), dtype=float)
                if f in PER_KERNEL:                 # (kernel, …): one row per weight kernel
                    if not v.ndim:                  # a plain 0.0 (nothing unpacked): 0 for every kernel
                        v = np.full(len(GEMM_KERNELS), float(v))
                    v = v.reshape(v.shape[:1] + (1,) * (len(n) + 1 - v.ndim) + v.shape[1:])
                    cols[f].append(np.broadcast_to(v, v.shape[:1] + n).reshape(v.shape[0], -1))
                else:
                    cols[f].append(np.broadcast_to(v, n).ravel())
            pre.append(np.full(n, is_prefill)); wts.append(w); rows.append(np.full(n, i)); grp.append(np.full(n, g))
            sus.append(np.full(n, table.sustained_fraction(p.hw)))
            eag.append(np.full(n, 1.0 if table.eager(p.engine, table.platform(p.hw)) else 0.0))
            eagp.append(np.full(n, 1.0 if table.eager_prefill(p.engine, table.platform(p.hw)) else 0.0))
    cat = np.concatenate
    return Design(PassTerms(**{f: cat(v, axis=1 if f in PER_KERNEL else 0) for f, v in cols.items()}),
                  cat(pre), cat(wts), cat(rows), cat(grp),
                  cat(sus), cat(eag), cat(eagp), np.array([p.k for p in plans]), np.array([p.inverse for p in plans]),
                  np.log([p.row.value for p in plans]),
                  np.array([gidx[(table.fit_group(p.engine), table.platform(p.hw))] for p in plans]),
                  groups, np.ones(len(plans)))


def predict_design(d: Design, theta: np.ndarray) -> np.ndarray:
    """Every row's prediction for factors ``theta`` (groups × factors)."""
    v = {name: vals[d.group] for name, vals in from_theta(theta).items()}
    v["hbm_fraction"] = v["hbm_fraction"] * d.sustained
    eff = Efficiency(**v, eager=d.eager, eager_prefill=d.eager_prefill)
    frac = np.where(d.prefill, eff.compute_fraction_prefill, eff.compute_fraction_decode)
    time = pass_cost(d.terms, eff, frac).time_s
    total = np.bincount(d.row, weights=d.weight * time, minlength=len(d.k))
    return np.where(d.inverse, d.k / total, d.k * total)


def _soft_l1(r: np.ndarray) -> np.ndarray:
    """Residual whose square is the soft-L1 loss 2δ²(√(1 + (r/δ)²) − 1)."""
    return np.sign(r) * np.sqrt(2.0 * DELTA ** 2 * (np.sqrt(1.0 + (r / DELTA) ** 2) - 1.0))


@frozen
class Pooling:
    """Who each row of θ shrinks toward: anchor = A·θ + offset, penalty (θ − anchor)/(τ·width).
    Rows of θ: one per group, then the pooled (all-engine) row, then one offset row per
    platform other than CUDA. A CUDA group's anchor is pooled + w·(its prior − the mean
    prior); a group on another platform is the same engine's CUDA group (on a graph-mode
    platform, for an engine without CUDA graphs: the graph engines' mean) + that platform's
    offset (learned from every engine run there, shrunk to 0); the pooled row's anchor is
    the mean prior, POOLED_WIDTH times wider."""

    anchor: np.ndarray          # rows × rows: A
    offset: np.ndarray          # rows × factors
    width: np.ndarray           # per row
    tau: np.ndarray             # per factor

    def start(self) -> np.ndarray:
        """θ where every penalty is zero."""
        theta = self.offset.copy()
        for _ in range(3):                       # anchors chain at most three deep
            theta = self.anchor @ theta + self.offset
        return theta

    def jacobian(self) -> np.ndarray:
        """d penalty / d θ (flattened row-major), constant."""
        m = (np.eye(len(self.anchor)) - self.anchor) / self.width[:, None]
        return np.kron(m, np.diag(1.0 / self.tau))


def pooling(groups, table: EfficiencyTable) -> Pooling:
    priors = {e.id: to_theta(e.prior) for e in table.engines}
    mean = np.mean(list(priors.values()), axis=0)
    index = {g: i for i, g in enumerate(groups)}
    platforms = sorted({plat for _, plat in groups} - {"cuda"})
    pooled = len(groups)
    rows = pooled + 1 + len(platforms)
    anchor, offset, width = np.zeros((rows, rows)), np.zeros((rows, len(PARAMS))), np.ones(rows)
    for i, (e, plat) in enumerate(groups):
        base, version = table.split(e)
        if version:                                  # an older version: toward the newest, same platform
            anchor[i, index[(base, plat)]] = 1.0
        elif plat == "cuda":
            anchor[i, pooled] = 1.0
            offset[i] = table.prior_offset_weight * (priors[e] - mean)
        else:
            for k, w in _cuda_parents(e, plat, table):
                anchor[i, index[(k, "cuda")]] = w
            anchor[i, pooled + 1 + platforms.index(plat)] = 1.0
    offset[pooled], width[pooled] = mean, POOLED_WIDTH
    return Pooling(anchor, offset, width, prior_widths(table))


def _cuda_parents(engine: str, platform: str, table: EfficiencyTable) -> list[tuple[str, float]]:
    """Whose CUDA fit an engine's group on another platform starts from: its own, except that
    on a platform that runs every framework as a compiled graph (Gaudi's HPU graphs, TPU's XLA)
    an engine without CUDA graphs starts from the mean of the graph-capturing engines."""
    if platform in table.graph_platforms and not table.engine(engine).cuda_graphs:
        graphs = [e.id for e in table.engines if e.cuda_graphs]
        return [(g, 1.0 / len(graphs)) for g in graphs]
    return [(engine, 1.0)]


def prior_widths(table: EfficiencyTable) -> np.ndarray:
    """τ per factor (logit units for fractions, natural-log units for the rest)."""
    return np.array([dict(table.prior_strength)[p] for p in PARAMS])


def _penalty(theta, pool: Pooling) -> np.ndarray:
    return ((theta - pool.anchor @ theta - pool.offset) / pool.width[:, None] / pool.tau).ravel()


def _residuals(d: Design, theta, pool: Pooling) -> np.ndarray:
    r = _soft_l1(np.log(predict_design(d, theta)) - d.log_measured) * d.active
    return np.concatenate([r, _penalty(theta, pool)])


def _jacobian(d: Design, theta, pool: Pooling, r0, h=1e-5) -> np.ndarray:
    rows_theta, n = theta.shape
    nr = len(d.k)
    jac = np.zeros((nr + rows_theta * n, rows_theta * n))
    base = r0[:nr]
    for j in range(n):
        bumped = theta.copy()
        bumped[:, j] += h
        dr = (_soft_l1(np.log(predict_design(d, bumped)) - d.log_measured) * d.active - base) / h
        jac[np.arange(nr), d.row_group * n + j] = dr
    jac[nr:] = pool.jacobian()
    return jac


# Where the minimiser starts besides the anchors: the per-step and per-layer overheads trade
# against each other (both a fixed time per step; only the spread of layer counts, 32–126, tells
# them apart), so the loss has a basin for each; the fit starts in both and keeps the lower.
STARTS = ({}, {"layer_overhead_s": np.log(10.0), "step_overhead_s": -np.log(4.0)})


def fit(plans: list[RowPlan], table: EfficiencyTable | None = None, iterations: int = 60,
        shared: Design | None = None, active: np.ndarray | None = None,
        theta_for: Callable[[Design, EfficiencyTable, int], np.ndarray] | None = None) -> dict:
    """(engine, platform) → fitted Efficiency, for the groups of ``design``. ``shared``: the
    design of ``plans`` built once (leave-one-out reuses it); ``active``: which rows count;
    ``theta_for``: what finds θ (default ``fit_theta``; model/machine/fit_cache.py keeps them)."""
    table = table or default_efficiency()
    d = shared if shared is not None else design(plans, table)
    if active is not None:
        d = replace(d, active=np.asarray(active, dtype=float))
    return _as_fits(d, (theta_for or fit_theta)(d, table, iterations), plans, table)


def fit_theta(d: Design, table: EfficiencyTable, iterations: int = 60) -> np.ndarray:
    """The fitted θ (groups, the pooled row, platform offsets × factors) for design ``d``."""
    pool = pooling(d.groups, table)
    best = None
    for shift in STARTS:
        theta = pool.start()
        for name, by in shift.items():
            theta[:len(d.groups) + 1, PARAMS.index(name)] += by      # groups and the pooled row
        theta, cost = _minimise(d, np.clip(theta, LO, HI), pool, iterations)
        if best is None or cost < best[1]:
            best = (theta, cost)
    return best[0]


def _minimise(d: Design, theta: np.ndarray, pool: Pooling, iterations: int) -> tuple[np.ndarray, float]:
    """Levenberg–Marquardt from ``theta``: (θ, cost) at convergence."""
    r = _residuals(d, theta, pool)
    cost, mu = float(r @ r), 1e-2
    lo, hi = np.tile(LO, (len(theta), 1)), np.tile(HI, (len(theta), 1))
    lo[len(d.groups) + 1:], hi[len(d.groups) + 1:] = -10.0, 10.0       # platform offsets are differences
    for _ in range(iterations):
        jac = _jacobian(d, theta, pool, r)
        jtj, g = np.einsum("ij,ik->jk", jac, jac), np.einsum("ij,i->j", jac, r)   # no BLAS threads: small
        improved = False
        for _ in range(8):
            step = _solve_spd(jtj + mu * (np.diag(np.diag(jtj)) + np.eye(len(g))), -g)
            trial = np.clip(theta + step.reshape(theta.shape), lo, hi)
            rt = _residuals(d, trial, pool)
            if float(rt @ rt) < cost:
                improved = cost - float(rt @ rt) > 1e-10 * cost
                theta, r, cost, mu = trial, rt, float(rt @ rt), max(mu / 3.0, 1e-9)
                break
            mu *= 4.0
        if not improved:
            break
    return theta, cost


def _solve_spd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve a·x = b for a symmetric positive-definite ``a`` by Gaussian elimination in plain
    numpy element-wise operations: at this size (a few hundred) LAPACK's threads cost far more
    than the arithmetic on a busy two-core machine."""
    a, b = a.copy(), b.astype(float).copy()
    n = len(b)
    for k in range(n):
        f = a[k + 1:, k] / a[k, k]
        a[k + 1:, k:] -= f[:, None] * a[k, k:]
        b[k + 1:] -= f * b[k]
    x = np.zeros(n)
    for k in range(n - 1, -1, -1):
        x[k] = (b[k] - a[k, k + 1:] @ x[k + 1:]) / a[k, k]
    return x


def _as_fits(d: Design, theta: np.ndarray, plans: list[RowPlan], table: EfficiencyTable) -> dict:
    """Fitted factors per group with rows, per engine on CUDA, and per engine on every other
    platform with rows (its CUDA fit + the platform offset) so that a held-out combination
    falls back to what the other engines on that platform taught."""
    g = len(d.groups)
    index = {grp: i for i, grp in enumerate(d.groups)}
    platforms = sorted({plat for _, plat in d.groups} - {"cuda"})
    rows_theta = list(theta[:g])
    groups = list(d.groups)
    for plat in platforms:
        for e in table.engines:
            if (e.id, plat) not in index:
                groups.append((e.id, plat))
                parent = sum(w * theta[index[(k, "cuda")]] for k, w in _cuda_parents(e.id, plat, table))
                rows_theta.append(parent + theta[g + 1 + platforms.index(plat)])
    values = from_theta(np.array(rows_theta))
    out = {}
    for i, (eng, plat) in enumerate(groups):
        rows = tuple(p.row.row_id for p, gi, on in zip(plans, d.row_group, d.active) if gi == i and on) if i < g else ()
        out[(eng, plat)] = Efficiency(**{k: float(v[i]) for k, v in values.items()}, calibrated_on=rows,
                                      stack=f"{eng}/{plat}")
    return out


def all_plans(rows=None, table: EfficiencyTable | None = None, catalog=None) -> list[RowPlan]:
    return [plan(r, catalog, table) for r in (rows or default_measured())]


def calibrate(plans: list[RowPlan] | None = None) -> EfficiencyTable:
    """The engine table with factors fitted on every measured row."""
    table = default_efficiency()
    return table.with_fits(fit(plans or all_plans(table=table), table))


def write(table: EfficiencyTable) -> None:
    path = ASSETS_DIR / "engines.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    for e in table.engines:
        doc["engines"][e.id]["fitted"] = {plat: {"factors": factors_as_json(f), "fitted_on": list(f.calibrated_on)}
                                         for plat, f in e.fitted}
    atomic_write_text(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n", overwrite=True)   # the project's own asset, refitted


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    table = calibrate()
    for e in table.engines:
        for plat, f in e.fitted:
            print(f"{e.id + '/' + plat:22s} bw {f.hbm_fraction:.3f}  compute dec {f.compute_fraction_decode:.3f} "
                  f"pre {f.compute_fraction_prefill:.3f}  step {f.step_overhead_s * 1e3:.2f} ms  "
                  f"layer {f.layer_overhead_s * 1e6:.1f} us  allreduce x{f.allreduce_latency_scale:.2f}  "
                  f"dequant {f.dequant_ops_per_weight:.2f}  request {f.request_overhead_s * 1e3:.1f} ms  "
                  f"host {f.host_layer_s * 1e6:.1f} us  rows {len(f.calibrated_on)}")
    if not args.dry_run:
        write(table)
        print(f"wrote {ASSETS_DIR / 'engines.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
