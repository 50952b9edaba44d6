"""Published measured inference results (assets/measured.csv) and the model's prediction of each.

Every row names its source (``source_id``), engine and conditions; it is predicted under
those conditions with its own engine's factors. Metrics, with B the row's batch (for
``max`` rows: the largest batch that fits, capped at the engine's in-flight limit):

    end_to_end_latency_s        prefill(B) + Σ decode steps (in waves if B's KV cache does not fit)
    total_output_tokens_per_s   B × output / end-to-end(B)
    ms_per_output_token         mean decode step at B (TPOT, ITL)
    output_tokens_per_s_per_user  1 / mean decode step at B
    ttft_ms                     prefill of B prompts
    prefill_tokens_per_s        B × input / prefill(B)

Each prediction is a weighted sum T of pass times, reported as T × k or k / T: the
``RowPlan`` holds the factor-free terms so the calibration can apply any factors to all rows
at once; ``predict`` applies the stored ones.
"""
from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

import numpy as np

from model.files.assets import ASSETS_DIR, read_asset_json
from model.catalog.parts import Catalog, Hardware
from model.catalog.active import default_catalog
from model.catalog.engines import VERSION_SEP, Efficiency, EfficiencyTable
from model.catalog.active import default_efficiency
from model.errors import AssetError, ModelError
from model.physics.estimate import decode_contexts
from model.physics.memory import footprint
from model.physics.scenario import Scenario, resolve
from model.physics.cost import PassTerms, pass_cost
from model.physics.step import decode_terms, prefill_terms
from model.values import frozen

UNITS = {"end_to_end_latency_s": "s", "total_output_tokens_per_s": "tok/s", "ms_per_output_token": "ms/tok",
         "output_tokens_per_s_per_user": "tok/s/user", "ttft_ms": "ms TTFT", "prefill_tokens_per_s": "prefill tok/s"}
METRICS = ("end_to_end_latency_s", "total_output_tokens_per_s", "ms_per_output_token",
           "output_tokens_per_s_per_user", "ttft_ms", "prefill_tokens_per_s")


@frozen
class MeasuredRow:
    row_id: str
    model: str
    gpu: str
    n_gpus: int
    precision: str
    kv_precision: str
    batch: int | None          # None: "max" (in-flight, not reported)
    input_len: int
    output_len: int
    metric: str                # one of METRICS
    value: float
    framework: str
    tag: str
    split: str
    source: str
    notes: str
    source_id: str = ""
    engine: str = ""           # an engine id (derived from ``framework`` when the column is empty)
    engine_version: str = ""
    tp: int | None = None
    pp: int | None = None
    publisher: str = ""        # who published the source (assets/publishers.json): held out together

    @property
    def base_engine(self) -> str:
        """The engine without its version suffix (vllm for vllm@0.6)."""
        return self.engine.partition(VERSION_SEP)[0]

    @property
    def label(self) -> str:
        b = "max" if self.batch is None else self.batch
        return (f"{self.model} {self.precision} on {self.n_gpus}× {self.gpu}, batch {b}, "
                f"{self.input_len}/{self.output_len} ({self.framework})")

    def scenario(self) -> Scenario:
        return Scenario(gpu=self.gpu, model=self.model, precision=self.precision, kv_precision=self.kv_precision,
                        batch=self.batch or 1, gpus=self.n_gpus, interconnect="nvlink",
                        input_len=self.input_len, output_len=self.output_len, engine=self.engine or "auto")


def engine_of(framework: str, table: EfficiencyTable) -> str:
    """The engine id a published framework name refers to ('' when none matches)."""
    text = framework.lower()
    for e in table.engines:
        if any(m in text for m in e.framework_match):
            return e.id
    return ""


def _opt_int(text: str | None) -> int | None:
    return int(text) if text not in (None, "") else None


def publisher_of(source_id: str, publishers: dict[str, str]) -> str:
    """The publisher of a source: assets/publishers.json, else the part of its id before the first '-'."""
    return publishers.get(source_id) or source_id.split("-")[0]


def load_publishers(path: Path | str | None = None) -> dict[str, str]:
    """source_id → publisher, from assets/publishers.json."""
    p = Path(path) if path else ASSETS_DIR / "publishers.json"
    doc = read_asset_json(p)
    try:
        return {sid: str(name) for name, ids in doc["publishers"].items() for sid in ids}
    except (KeyError, TypeError, AttributeError) as exc:
        raise AssetError(f"{p.name} is malformed: {exc}") from None


def _row(r: dict, table: EfficiencyTable, publishers: dict[str, str] | None = None) -> MeasuredRow:
    engine = (r.get("engine") or "").strip()
    engine = table.canonical(engine) if engine else engine_of(r["framework"], table)
    if engine and VERSION_SEP not in engine:
        engine = table.with_version(engine, r.get("engine_version") or "")
    return MeasuredRow(
        row_id=r["row_id"], model=r["model"], gpu=r["gpu"], n_gpus=int(r["n_gpus"]),
        precision=r["precision"], kv_precision=r["kv_precision"],
        batch=None if r["batch"] == "max" else int(r["batch"]),
        input_len=int(r["input_len"]), output_len=int(r["output_len"]), metric=r["metric"],
        value=float(r["value"]), framework=r["framework"], tag=r.get("tag", ""), split=r.get("split", ""),
        source=r["source"], notes="; ".join(x for x in (r.get("notes"), r.get("mapping_notes")) if x),
        source_id=(r.get("source_id") or r.get("tag") or r["source"]).strip(), engine=engine,
        engine_version=r.get("engine_version") or "", tp=_opt_int(r.get("tp")), pp=_opt_int(r.get("pp")),
        publisher=publisher_of((r.get("source_id") or r.get("tag") or r["source"]).strip(), publishers or {}),
    )


def is_serving_row(r: dict) -> bool:
    """A published serving run (a ``load`` column): model/machine/validate_serving.py predicts it with the
    request-level simulator; the step-level fit and validation here leave it alone."""
    return bool((r.get("load") or "").strip())


def load_measured(path: Path | str | None = None) -> tuple[MeasuredRow, ...]:
    p = Path(path) if path else ASSETS_DIR / "measured.csv"
    table = default_efficiency()
    publishers = load_publishers()
    try:
        with p.open(encoding="utf-8", newline="") as fh:
            rows = tuple(_row(r, table, publishers) for r in csv.DictReader(fh) if not is_serving_row(r))
    except FileNotFoundError:
        raise AssetError(f"missing data file {p}") from None
    except (KeyError, ValueError, TypeError, ModelError) as exc:
        raise AssetError(f"{p.name} is malformed: {exc}") from None
    for r in rows:
        if r.metric not in METRICS:
            raise AssetError(f"{p.name}: row {r.row_id} has unknown metric '{r.metric}'")
        if not r.engine:
            raise AssetError(f"{p.name}: row {r.row_id}: no engine matches framework '{r.framework}'")
    return rows


@lru_cache(maxsize=1)
def default_measured() -> tuple[MeasuredRow, ...]:
    return load_measured()


@frozen
class RowPlan:
    """A row's prediction before any engine factor: value = k·T (or k/T when ``inverse``),
    T = Σ weight × time of each pass."""

    row: MeasuredRow
    hw: Hardware
    engine: str                                   # concrete engine id
    passes: tuple[tuple[PassTerms, bool, np.ndarray], ...]   # (terms, is prefill, weights)
    k: float
    inverse: bool


def _run(rs, batch: int, waves: float, with_prefill: bool, decode_weight: float, prefill_weight: float = 1.0):
    """Passes of ``waves`` runs of a batch: a prefill and the decode steps at 16 midpoints."""
    s = rs.scenario
    ctx = decode_contexts(s.input_len, s.output_len)
    out = []
    if with_prefill:
        out.append((prefill_terms(rs, batch, s.input_len), True, np.array([waves * prefill_weight])))
    if decode_weight:
        out.append((decode_terms(rs, batch, ctx), False, np.full(ctx.shape, waves * decode_weight / len(ctx))))
    return out


def interleaved_prefill_share(batch: int, output_len: int, continuous: bool = True) -> float:
    """Prefill passes (of the whole batch) that stall each decode step under continuous batching.

    With B requests in flight, each decoding O tokens, B/O requests finish per step and as many
    new ones are admitted; their prompts are prefilled between (or chunked into) the running
    requests' decode steps. A request's time per output token therefore carries the other
    requests' prefills: ITL = t_decode(B) + t_prefill(B, L) · (B − 1)/B / O. A single stream
    (B = 1) sees only its own prefill, which its TTFT counts, not its ITL; nor does a static
    batch (``continuous`` False: Transformers' generate(), gpt-fast), prefilled once up front."""
    if batch <= 1 or not continuous:
        return 0.0
    return (batch - 1) / batch / max(output_len, 1)


def plan(row: MeasuredRow, catalog: Catalog | None = None, table: EfficiencyTable | None = None) -> RowPlan:
    table = table or default_efficiency()
    rs = resolve(row.scenario(), catalog or default_catalog())
    fit = footprint(rs, table.workspace_fraction).max_batch
    s = rs.scenario
    batch = row.batch if row.batch is not None else max(1, min(fit, table.max_inflight_batch))
    run_b = min(batch, fit) if fit >= 1 else batch
    m = row.metric
    if m == "end_to_end_latency_s":
        if fit < 1 or batch <= fit:
            passes = _run(rs, batch, 1, True, s.output_len)
        else:
            full, rest = divmod(batch, fit)
            passes = _run(rs, fit, full, True, s.output_len) + (_run(rs, rest, 1, True, s.output_len) if rest else [])
        return RowPlan(row, rs.hw, rs.engine, tuple(passes), 1.0, False)
    if m == "total_output_tokens_per_s":
        return RowPlan(row, rs.hw, rs.engine, tuple(_run(rs, run_b, 1, True, s.output_len)),
                       run_b * s.output_len, True)
    if m in ("ms_per_output_token", "output_tokens_per_s_per_user"):
        inverse = m == "output_tokens_per_s_per_user"
        share = interleaved_prefill_share(run_b, s.output_len, table.continuous_batching(rs.engine))
        return RowPlan(row, rs.hw, rs.engine, tuple(_run(rs, run_b, 1, share > 0, 1.0, share)),
                       1.0 if inverse else 1e3, inverse)
    if m in ("ttft_ms", "prefill_tokens_per_s"):
        inverse = m == "prefill_tokens_per_s"
        return RowPlan(row, rs.hw, rs.engine, tuple(_run(rs, run_b, 1, True, 0.0)),
                       run_b * s.input_len if inverse else 1e3, inverse)
    raise AssetError(f"measured row {row.row_id}: unknown metric {m}")


def evaluate(p: RowPlan, eff: Efficiency) -> float:
    """The plan's value under one set of factors (already scaled to the part's bandwidth)."""
    total = 0.0
    for terms, is_prefill, weights in p.passes:
        frac = eff.compute_fraction_prefill if is_prefill else eff.compute_fraction_decode
        total += float(np.sum(weights * pass_cost(terms, eff, frac).time_s))
    return p.k / total if p.inverse else p.k * total


def predict(row: MeasuredRow, catalog: Catalog | None = None, efficiency: EfficiencyTable | None = None,
            engine: str | None = None) -> float:
    """The model's value for ``row.metric`` under the row's conditions, with the row's engine
    (or ``engine``, e.g. ``ideal`` for the roofline floor)."""
    table = efficiency or default_efficiency()
    p = plan(row, catalog, table)
    return evaluate(p, table.efficiency(engine or p.engine, p.hw))
