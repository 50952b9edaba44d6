"""The model against published measurements it was NOT calibrated on."""
from model.efficiency import default_efficiency
from model.measured import default_measured
from model.validate import by_split, compare


def test_calibration_and_holdout_rows_are_disjoint_and_both_present():
    rows = default_measured()
    cal = {r.row_id for r in rows if r.split == "calibrate"}
    hold = {r.row_id for r in rows if r.split == "holdout"}
    assert cal and hold and not cal & hold
    used = {rid for _, e in default_efficiency().stacks for rid in e.calibrated_on}
    assert used <= cal, "efficiency factors were fitted on held-out rows"


def test_holdout_accuracy_goal():
    s = by_split(compare())["holdout"]
    assert s.rows >= 20
    assert s.median_abs_error <= 0.20
    assert s.within_25 >= 0.60


def test_efficiency_factors_are_physical():
    for name, e in default_efficiency().stacks:
        assert 0 < e.hbm_fraction <= 1 and 0 < e.compute_fraction_decode <= 1 and 0 < e.compute_fraction_prefill <= 1
        assert e.step_overhead_s >= 0 and e.layer_overhead_s >= 0 and e.allreduce_latency_scale > 0


def test_stored_factors_are_what_the_calibration_script_fits():
    from model.calibrate import calibrate
    fitted, _ = calibrate()
    stored = dict(default_efficiency().stacks)
    for name, e in fitted.stacks:
        s = stored[name]
        assert abs(e.hbm_fraction - s.hbm_fraction) < 1e-3, name
        assert abs(e.compute_fraction_decode - s.compute_fraction_decode) < 1e-3, name
        assert abs(e.step_overhead_s - s.step_overhead_s) < 1e-6, name
        assert abs(e.layer_overhead_s - s.layer_overhead_s) < 1e-8, name
        assert e.calibrated_on == s.calibrated_on
