"""Every serving number carries a band from the held-out errors of published serving results alike."""
import math

import numpy as np
import pytest

import model  # noqa: F401
from model.machine.serving_residuals import (compute_serving_residuals, residuals_text, stored_serving_residuals,
                                             what_and_stat)
from model.physics.scenario import Scenario
from model.readouts.evidence import MIN_ALIKE
from model.readouts.serving import bands, serving_json, serving_table
from model.readouts.serving_bands import serving_band
from model.serving.results import summarize
from model.serving.run import serve
from model.serving.setup import ServingSetup


def test_a_band_is_the_held_out_percentile_of_its_alike_group_recomputed_from_the_rows():
    rows = stored_serving_residuals()
    assert len(rows) > 400
    checked = 0
    for engine, load in {(r.engine, r.load) for r in rows}:
        for key, (what, stat) in (("ttft_p50", ("ttft", "p50")), ("tpot_p50", ("tpot", "p50")),
                                  ("output_throughput", ("throughput", ""))):
            group = [r.log_error for r in rows if (r.engine, r.load, r.what, r.stat) == (engine, load, what, stat)]
            b = serving_band(engine, engine, load, key)
            assert b is not None
            if len(group) >= MIN_ALIKE:
                assert not b.widened and b.runs == len(group)
                assert b.fraction == pytest.approx(math.exp(np.quantile(np.abs(group), 0.68)) - 1.0)
                checked += 1
            else:
                assert b.widened and b.runs >= MIN_ALIKE
    assert checked >= 5


def test_few_alike_widen_and_say_so():
    b = serving_band("mlc-llm", "MLC LLM", "burst", "ttft_p99")        # no MLC serving result at all
    assert b.widened and "TTFT" in b.alike and b.runs >= MIN_ALIKE
    assert serving_band("vllm", "vLLM", "rate", "preemptions") is None  # a count, not a prediction


def test_serve_prints_a_band_beside_every_predicted_number():
    run = serve(Scenario(), ServingSetup(load="rate", rate_per_s=4, requests=200))
    sm = summarize(run)
    table = dict(serving_table(run, sm))
    for label in ("TTFT p50", "TTFT p90", "TTFT p99", "TPOT p50", "TPOT p90", "ITL p99", "End to end p90",
                  "Requests per second", "Output tokens per second"):
        assert "± " in table[label] or "×/÷ " in table[label], label
    assert "± " not in table["Preemptions"] and "×/÷" not in table["Preemptions"]
    js = serving_json(run, sm)["readouts"]
    assert js["ttft_p99"]["band"]["results"] >= MIN_ALIKE and "percentile" in js["ttft_p99"]["band"]["derivation"]
    assert js["preemptions"]["band"] is None
    assert set(bands(run)) >= {"ttft_p50", "tpot_p90", "e2e_p99", "output_throughput"}


def test_what_and_stat_of_every_metric():
    assert what_and_stat("serve_ttft_median_ms") == ("ttft", "p50")
    assert what_and_stat("serve_itl_p95_ms") == ("itl", "p95")
    assert what_and_stat("serve_request_per_s") == ("throughput", "")


@pytest.mark.slow
def test_the_stored_serving_residuals_are_a_fresh_run():
    """assets/serving_residuals.csv is what `python -m model.machine.serving_residuals` writes today."""
    from model.machine.serving_residuals import PATH
    assert PATH.read_text(encoding="utf-8") == residuals_text(compute_serving_residuals())


@pytest.mark.slow
def test_the_serving_validation_page_is_today_s():
    """docs/serving_validation.md is what `python -m model.machine.validate_serving --markdown` writes."""
    from model.machine.validate_serving import markdown, report
    from model.files.assets import ASSETS_DIR
    page = ASSETS_DIR.parent / "docs" / "serving_validation.md"
    assert page.read_text(encoding="utf-8") == markdown(report())


def test_the_ideal_engine_has_bands_of_its_own_name_and_no_error():
    """serve --engine ideal ended in "engine 'ideal' has no factors" while naming the engine for its bands
    (and the window's soak met it on the Serve page)."""
    from model.serving.run import serve
    run = serve(Scenario(engine="ideal"), ServingSetup(requests=40))
    assert serving_table(run, summarize(run))
