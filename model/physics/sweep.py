"""The decode physics vectorised over an array of batch sizes (one numpy pass, no loop).

For each batch B (at the scenario's mean context c̄ = input + output/2):
    step time(B), tokens/s = B / step, intensity = FLOPs / bytes, attained FLOP/s per GPU,
    MBU, MFU, $ per 1M tokens, and whether B sequences fit in HBM.
Same equations as model.physics.step.decode_pass; see model/physics/estimate.py for the definitions.
"""
from __future__ import annotations

import numpy as np

from model.catalog.parts import Catalog
from model.catalog.engines import EfficiencyTable
from model.catalog.active import default_efficiency
from model.physics.memory import footprint
from model.errors import ScenarioError
from model.physics.scenario import MAX_BATCH, ResolvedScenario, Scenario, resolve
from model.physics.step import decode_pass, microbatch
from model.values import frozen


@frozen(eq=False)
class BatchSweep:
    """The estimate at each batch size of a sweep, one array per quantity (index-aligned with
    ``batch``). Compared by identity: its fields are arrays."""

    batch: np.ndarray
    decode_ms_per_token: np.ndarray
    decode_floor_ms_per_token: np.ndarray
    output_tokens_per_s: np.ndarray
    arithmetic_intensity_flops_per_byte: np.ndarray
    achieved_flops: np.ndarray          # per GPU
    mbu: np.ndarray
    mfu: np.ndarray
    usd_per_million_tokens: np.ndarray
    fits: np.ndarray                    # bool
    max_batch_that_fits: int

    def rows(self):
        """CSV-ready rows (header first)."""
        cols = ("batch", "decode_ms_per_token", "decode_floor_ms_per_token", "output_tokens_per_s",
                "arithmetic_intensity_flops_per_byte", "achieved_flops", "mbu", "mfu",
                "usd_per_million_tokens", "fits")
        yield cols
        for i in range(len(self.batch)):
            yield tuple(getattr(self, c)[i].item() for c in cols)


def default_batches(max_batch: int = 4096) -> np.ndarray:
    """Powers of two 1, 2, 4 … max_batch (1 ≤ max_batch ≤ MAX_BATCH, else ScenarioError)."""
    if isinstance(max_batch, bool) or not isinstance(max_batch, (int, np.integer)) or not 1 <= max_batch <= MAX_BATCH:
        raise ScenarioError(f"max batch must be a whole number from 1 to {MAX_BATCH:,}, got {max_batch!r}")
    return 2 ** np.arange(int(max_batch).bit_length())


def sweep_batch(scenario: Scenario, batches=None, catalog: Catalog | None = None,
                efficiency: EfficiencyTable | None = None, resolved: ResolvedScenario | None = None) -> BatchSweep:
    """The decode step at each of ``batches`` (default 1, 2, 4 … 4096). ``resolved``: the scenario
    already resolved (an Estimate's), so it is not resolved again."""
    rs = resolved if resolved is not None else resolve(scenario, catalog)
    table = efficiency or default_efficiency()
    eff = table.efficiency(rs.engine, rs.hw)
    b = np.asarray(default_batches() if batches is None else batches, dtype=float)
    if b.ndim != 1 or b.size == 0 or not np.all((b >= 1) & (b <= MAX_BATCH) & (b == np.round(b))):
        raise ScenarioError(f"batches must be whole numbers from 1 to {MAX_BATCH:,}")
    s = rs.scenario
    ctx = s.input_len + s.output_len / 2.0
    real = decode_pass(rs, b, ctx, eff)
    m, _ = microbatch(rs, b)
    share = m / rs.pp
    t = real.time_s
    gpu_bytes, gpu_flops = real.bytes * share, real.flops * share
    fp = footprint(rs, table.workspace_fraction)
    tokens = b / t
    return BatchSweep(
        batch=b, decode_ms_per_token=t * 1e3, decode_floor_ms_per_token=real.floor_s * 1e3,
        output_tokens_per_s=tokens, arithmetic_intensity_flops_per_byte=real.flops / real.bytes,
        achieved_flops=gpu_flops / t,
        mbu=np.minimum(1.0, gpu_bytes / t / rs.hw.hbm_bandwidth_bytes_per_s),
        mfu=np.minimum(1.0, gpu_flops / t / rs.peak_flops),
        usd_per_million_tokens=(s.gpus * rs.hw.usd_per_hour / 3600.0 / tokens * 1e6 if rs.hw.usd_per_hour > 0
                                else np.full_like(tokens, np.nan)),
        fits=b <= fp.max_batch, max_batch_that_fits=fp.max_batch,
    )
