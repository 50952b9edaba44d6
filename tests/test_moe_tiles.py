"""The routed experts' grouped GEMMs pad each expert's tokens to the kernel's tile (expert_rows)."""
import math

import numpy as np
import pytest

from model.catalog.active import default_catalog
from model.catalog.architecture import _padded


def _params(model_id: str = "deepseek-v3"):
    return default_catalog().model(model_id).params


def test_one_row_tile_is_tokens_times_experts_per_token_exactly():
    p = _params()
    for b in (1, 7, 256, 4096):
        assert p.expert_rows(b, 1) == pytest.approx(b * p.experts_per_token, rel=1e-12)


def test_a_lone_token_costs_a_whole_tile_per_expert_it_reaches():
    p = _params()
    # one token reaches K experts, each computed as 128 rows; the Poisson count of an expert's
    # tokens lets two of a token's K picks fall on one expert, E·t·(1 − e^(−K/E)): 1.5% under K·t
    e, k = p.experts, p.experts_per_token
    assert p.expert_rows(1, 128) == pytest.approx(e * 128 * -math.expm1(-k / e), rel=1e-3)
    assert p.expert_rows(1, 128) == pytest.approx(k * 128, rel=0.02)


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_padding_never_lowers_the_rows_and_grows_with_the_tile():
    p = _params()
    b = np.array([1, 4, 32, 256, 2048, 16384], dtype=float)
    plain = p.expert_rows(b, 1)
    r64, r128 = p.expert_rows(b, 64), p.expert_rows(b, 128)
    assert np.all(r64 >= plain * (1 - 1e-9)) and np.all(r128 >= r64 * (1 - 1e-9))


@pytest.mark.parametrize("lam", [0.3, 2.0, 17.0, 400.0])
def test_the_padded_mean_is_the_poisson_sum(lam):
    """E[⌈n/t⌉·t], n ~ Poisson(λ), summed directly, against the interpolated table."""
    t = 128
    n = np.arange(0, int(lam + 20 * math.sqrt(lam) + 4 * t))
    p = np.exp(n * math.log(lam) - lam - np.array([math.lgamma(x + 1.0) for x in n]))
    direct = float(np.sum(p * np.ceil(n / t) * t))
    assert float(_padded(np.array(lam), t)) == pytest.approx(direct, rel=2e-3)


def test_many_tokens_per_expert_pay_half_a_tile_on_average():
    assert float(_padded(np.array(50_000.0), 128)) == pytest.approx(50_000 + 64, rel=1e-3)
    assert float(_padded(np.array(2e6), 128)) == pytest.approx(2e6 + 64, rel=1e-9)


def test_the_tiles_are_read_from_the_precisions_file():
    """assets/precisions.json: DeepGEMM's block FP8 pads to 128 rows, per-tensor FP8 takes any count."""
    cat = default_catalog()
    assert cat.precision("fp8-block").moe_tile_rows == 128
    assert cat.precision("fp8").moe_tile_rows == 1


def _tile_of(**kw):
    from model import Scenario
    from model.physics.scenario import resolve
    from model.physics.step import moe_tile
    return moe_tile(resolve(Scenario(**kw)))


def test_the_tile_is_paid_only_where_the_part_multiplies_in_the_format():
    # DeepGEMM's block FP8 on Hopper: 128-row tiles
    assert _tile_of(model="deepseek-v3", gpu="h200-sxm-141gb", gpus=8, precision="fp8-block") == 128
    # no FP4 tensor cores on an A100: the experts are unpacked into a wider type, any count of rows
    assert _tile_of(model="mixtral-8x7b", gpu="a100-sxm4-80gb", precision="mxfp4") == 1
    # a dense model has no experts to pad
    assert _tile_of(model="llama-3.1-8b", gpu="h100-sxm5-80gb", precision="fp8-block") == 1
