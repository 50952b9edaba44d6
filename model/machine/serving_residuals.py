"""The simulator's held-out errors on published serving results, kept so a screen can say how far to
trust a serving number (model/readouts/serving_bands.py turns them into a band per readout).

    residual of a result = ln(predicted ÷ measured), the run simulated with engine factors fitted
                           WITHOUT anything its publisher published (validate_serving's headline)
    what                 = ttft | tpot | itl | e2e | throughput      stat = p50 | mean | p90 | p95 | p99
                           (throughput: "")
    load                 = rate | concurrency | burst

``python -m model.machine.serving_residuals`` writes assets/serving_residuals.csv (a test checks it
matches a fresh run: about a minute).
"""
from __future__ import annotations

import csv
import io
import math
from functools import lru_cache
from pathlib import Path

from model.errors import AssetError
from model.files.assets import ASSETS_DIR
from model.files.safe_io import SafeIOError, atomic_write_text, read_text
from model.machine.residuals import csv_text
from model.values import frozen

PATH = ASSETS_DIR / "serving_residuals.csv"
COLUMNS = ("row_id", "publisher", "engine", "load", "what", "stat", "log_error")
STAT_OF = {"median": "p50", "mean": "mean", "p90": "p90", "p95": "p95", "p99": "p99"}


@frozen
class ServingResidual:
    row_id: str
    publisher: str
    engine: str                 # without its version (vllm for vllm@0.6)
    load: str
    what: str
    stat: str
    log_error: float


def what_and_stat(metric: str) -> tuple[str, str]:
    """serve_ttft_median_ms → ("ttft", "p50"); the throughputs → ("throughput", "")."""
    if metric in ("serve_output_tokens_per_s", "serve_request_per_s"):
        return "throughput", ""
    _, what, stat, _ = metric.split("_")
    return what, STAT_OF[stat]


def compute_serving_residuals(progress=None) -> tuple[ServingResidual, ...]:
    """Every serving result's held-out residual (leave one publisher out: about a minute)."""
    from model.machine.validate_serving import leave_one_publisher_out
    out = []
    for c in leave_one_publisher_out(progress=progress):
        if not c.ok:
            continue
        r = c.row
        what, stat = what_and_stat(r.metric)
        out.append(ServingResidual(r.row_id, r.publisher, r.engine.partition("@")[0], r.load, what, stat,
                                   math.log(c.predicted / r.value)))
    return tuple(out)


def residuals_text(rows) -> str:
    return csv_text(COLUMNS, ((r.row_id, r.publisher, r.engine, r.load, r.what, r.stat, f"{r.log_error:.6f}")
                              for r in rows))


def parse_residuals(text: str) -> tuple[ServingResidual, ...]:
    rows = list(csv.DictReader(io.StringIO(text)))
    if rows and tuple(rows[0]) != COLUMNS:
        raise AssetError(f"serving_residuals.csv: columns {tuple(rows[0])}, expected {COLUMNS}")
    return tuple(ServingResidual(r["row_id"], r["publisher"], r["engine"], r["load"], r["what"], r["stat"],
                                 float(r["log_error"])) for r in rows)


@lru_cache(maxsize=2)
def stored_serving_residuals(path: Path | None = None) -> tuple[ServingResidual, ...]:
    """assets/serving_residuals.csv, read once (empty when it is missing: no bands, never a crash)."""
    try:
        text = read_text(path or PATH, max_bytes=20_000_000)
    except SafeIOError:
        return ()
    try:
        return parse_residuals(text)
    except (KeyError, ValueError) as exc:
        raise AssetError(f"serving_residuals.csv is malformed: {exc}") from None


def main() -> int:
    import sys
    from model.machine.validate_serving import _stderr_progress
    rows = compute_serving_residuals(_stderr_progress)
    atomic_write_text(PATH, residuals_text(rows), overwrite=True)
    print(f"wrote {PATH} ({len(rows)} results)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
