"""The held-out errors of the model on published runs, kept so a screen can say how far to trust a number.

    residual of a row   = ln(predicted ÷ measured), predicted by factors fitted WITHOUT anything its
                          publisher published (model/machine/validate.leave_one_publisher_out, the
                          headline of the validation)
    regime              = decode (time per output token, tokens/s per user) | prefill (time to first
                          token, prompt tokens/s) | e2e (a whole request or batch) — and batch 1 or batched
    platform class      = NVIDIA data-centre GPUs · AMD Instinct GPUs (ROCm) · consumer GPUs ·
                          Apple silicon · other accelerators (Gaudi, TPU)

``python -m model.machine.residuals`` writes assets/residuals.csv (a test checks it matches a fresh
run); model/readouts/evidence.py turns it into an error band per kind of prediction.
"""
from __future__ import annotations

import csv
import io
import math
from functools import lru_cache
from pathlib import Path

from model.catalog.active import default_catalog
from model.catalog.parts import Hardware
from model.errors import AssetError, ModelError
from model.files.assets import ASSETS_DIR
from model.files.safe_io import SafeIOError, atomic_write_text, read_text
from model.values import frozen

PATH = ASSETS_DIR / "residuals.csv"
REGIMES = {"ms_per_output_token": "decode", "output_tokens_per_s_per_user": "decode", "ttft_ms": "prefill",
           "prefill_tokens_per_s": "prefill", "end_to_end_latency_s": "e2e", "total_output_tokens_per_s": "e2e"}
COLUMNS = ("row_id", "source_id", "engine", "gpu", "platform_class", "regime", "batch1", "log_error")


@frozen
class Residual:
    row_id: str
    source_id: str
    engine: str
    gpu: str
    platform_class: str
    regime: str
    batch1: bool
    log_error: float            # ln(predicted ÷ measured), held out


def platform_class(hw: Hardware) -> str:
    """Which kind of machine a part is, for grouping errors: what differs between them is physics
    the factors do not see (drivers, clocks under load, host overhead)."""
    vendor, name = hw.vendor.lower(), hw.name.lower()
    if vendor.startswith("apple"):
        return "Apple silicon"
    if vendor.startswith(("nvidia", "amd")):
        if any(w in name for w in ("geforce", "rtx", "radeon")) or hw.hbm_kind.lower().startswith("gddr"):
            return "consumer GPUs"
        return "AMD Instinct GPUs" if vendor.startswith("amd") else "NVIDIA data-centre GPUs"
    return "other accelerators"


def compute_residuals() -> tuple[Residual, ...]:
    """Every measured row's held-out residual (leave-one-publisher-out: a minute or two)."""
    from model.machine.validate import leave_one_publisher_out    # only when writing: the fits take a while
    cat = default_catalog()
    out = []
    for c in leave_one_publisher_out():
        r = c.row
        try:
            hw = cat.gpu(r.gpu)
        except ModelError:
            continue
        out.append(Residual(r.row_id, r.source_id, r.engine, hw.id, platform_class(hw), REGIMES.get(r.metric, "e2e"),
                            r.batch == 1, math.log(c.predicted / r.value)))
    return tuple(out)


def csv_text(columns, lines) -> str:
    """A header and rows as CSV text (the residual files: one writer, one line ending)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    w.writerows(lines)
    return buf.getvalue()


def residuals_text(rows) -> str:
    return csv_text(COLUMNS, ((r.row_id, r.source_id, r.engine, r.gpu, r.platform_class, r.regime, int(r.batch1),
                               f"{r.log_error:.6f}") for r in rows))


def write_residuals(path: Path = PATH) -> int:
    rows = compute_residuals()
    atomic_write_text(path, residuals_text(rows), overwrite=True)     # the project's own file, regenerated
    return len(rows)


@lru_cache(maxsize=1)
def stored_residuals(path: Path = PATH) -> tuple[Residual, ...]:
    """assets/residuals.csv as written by ``write_residuals``."""
    try:
        text = read_text(path, max_bytes=5_000_000)
    except SafeIOError as exc:
        raise AssetError(f"residuals: {exc}") from None
    try:
        return tuple(Residual(r["row_id"], r["source_id"], r["engine"], r["gpu"], r["platform_class"], r["regime"],
                              r["batch1"] == "1", float(r["log_error"])) for r in csv.DictReader(io.StringIO(text)))
    except (KeyError, ValueError) as exc:
        raise AssetError(f"{path.name} is malformed: {exc}") from None


if __name__ == "__main__":
    print(f"wrote {PATH} ({write_residuals()} rows)")
