"""Published measured inference results (assets/measured.csv) and the model's prediction of each.

Two kinds of row:
  [LIB] LLM-Inference-Bench: wall time of a whole batch, prefill included, input = output
        → predicted by end-to-end latency (in waves if the batch's KV cache does not fit).
  [T12]/[T10] TensorRT-LLM max-throughput tables, batch not reported
        → predicted as batch × output / end-to-end time at the largest batch that fits
          (capped at the engine's default in-flight batch limit).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from model.catalog import ASSETS_DIR, Catalog, default_catalog
from model.efficiency import EfficiencyTable, default_efficiency
from model.errors import AssetError
from model.estimate import decode_contexts, e2e_seconds, e2e_with_waves
from model.memory import footprint
from model.scenario import Scenario, resolve
from model.step import decode_pass, prefill_pass


@dataclass(frozen=True)
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
    metric: str                # end_to_end_latency_s | total_output_tokens_per_s
    value: float
    framework: str
    tag: str
    split: str                 # calibrate | holdout
    source: str
    notes: str

    @property
    def label(self) -> str:
        b = "max" if self.batch is None else self.batch
        return (f"{self.model} {self.precision} on {self.n_gpus}× {self.gpu}, batch {b}, "
                f"{self.input_len}/{self.output_len} ({self.framework})")

    def scenario(self) -> Scenario:
        return Scenario(gpu=self.gpu, model=self.model, precision=self.precision, kv_precision=self.kv_precision,
                        batch=self.batch or 1, gpus=self.n_gpus, interconnect="nvlink",
                        input_len=self.input_len, output_len=self.output_len)


def load_measured(path: Path | str | None = None) -> tuple[MeasuredRow, ...]:
    p = Path(path) if path else ASSETS_DIR / "measured.csv"
    try:
        with p.open(encoding="utf-8", newline="") as fh:
            raw = list(csv.DictReader(fh))
        rows = tuple(MeasuredRow(
            row_id=r["row_id"], model=r["model"], gpu=r["gpu"], n_gpus=int(r["n_gpus"]),
            precision=r["precision"], kv_precision=r["kv_precision"],
            batch=None if r["batch"] == "max" else int(r["batch"]),
            input_len=int(r["input_len"]), output_len=int(r["output_len"]), metric=r["metric"],
            value=float(r["value"]), framework=r["framework"], tag=r["tag"], split=r["split"],
            source=r["source"], notes="; ".join(x for x in (r["notes"], r["mapping_notes"]) if x),
        ) for r in raw)
    except FileNotFoundError:
        raise AssetError(f"missing data file {p}") from None
    except (KeyError, ValueError) as exc:
        raise AssetError(f"{p.name} is malformed: {exc}") from None
    return rows


@lru_cache(maxsize=1)
def default_measured() -> tuple[MeasuredRow, ...]:
    return load_measured()


def predict(row: MeasuredRow, catalog: Catalog | None = None, efficiency: EfficiencyTable | None = None) -> float:
    """The model's value for ``row.metric`` under the row's conditions."""
    table = efficiency or default_efficiency()
    rs = resolve(row.scenario(), catalog or default_catalog())
    eff = table.for_vendor(rs.hw.vendor)
    fit = footprint(rs, table.workspace_fraction).max_batch
    if row.metric == "end_to_end_latency_s":
        return e2e_with_waves(rs, row.batch or 1, fit, eff)[0]
    if row.metric == "total_output_tokens_per_s":
        if row.batch is not None:
            return row.batch * row.output_len / e2e_with_waves(rs, row.batch, fit, eff)[0]
        batch = max(1, min(fit, table.max_inflight_batch))
        return batch * row.output_len / e2e_seconds(rs, batch, eff)
    if row.metric in STEP_METRICS:
        return _step_metric(row, rs, eff)
    raise AssetError(f"measured row {row.row_id}: unknown metric {row.metric}")


STEP_METRICS = ("ms_per_output_token", "output_tokens_per_s_per_user", "ttft_ms", "prefill_tokens_per_s")


def _step_metric(row: MeasuredRow, rs, eff) -> float:
    """Per-step metrics, a minimal first prediction (i11-engines refines these):
        ms_per_output_token          = mean decode step over the output, ms
        output_tokens_per_s_per_user = 1000 / ms_per_output_token
        ttft_ms                      = prefill of the batch's prompts, ms
        prefill_tokens_per_s         = batch × input_len / prefill time"""
    batch = row.batch or 1
    if row.metric in ("ttft_ms", "prefill_tokens_per_s"):
        prefill_s = float(prefill_pass(rs, batch, row.input_len, eff).time_s)
        return prefill_s * 1e3 if row.metric == "ttft_ms" else batch * row.input_len / prefill_s
    step_ms = 1e3 * float(decode_pass(rs, batch, decode_contexts(row.input_len, row.output_len), eff).time_s.mean())
    return step_ms if row.metric == "ms_per_output_token" else 1e3 / step_ms
