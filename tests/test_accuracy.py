"""The model against published measurements: the stored fit, and leave-one-source-out."""
import math

import pytest

from model.machine.calibrate import PARAMS, all_plans, calibrate, fit
from model.catalog.active import default_efficiency
from model.machine.measured import METRICS, default_measured
from model.machine.validate import BREAKDOWNS, by, leave_one_source_out, report, summarize


def test_every_row_names_its_source_engine_and_a_known_metric():
    table = default_efficiency()
    rows = default_measured()
    assert len({r.row_id for r in rows}) == len(rows)
    for r in rows:
        assert r.source_id and r.source and r.metric in METRICS and r.value > 0
        assert table.canonical(r.engine) == r.engine


def test_stored_factors_are_what_the_calibration_fits():
    fitted = calibrate()
    stored = default_efficiency()
    for e in fitted.engines:
        mine = dict(stored.engine(e.id).fitted)
        assert {p for p, _ in e.fitted} == set(mine), e.id
        for plat, f in e.fitted:
            s = mine[plat]
            for p in PARAMS:
                a, b = getattr(f, p), getattr(s, p)
                assert a == pytest.approx(b, rel=2e-3, abs=1e-7), f"{e.id}/{plat} {p}"
            assert f.calibrated_on == s.calibrated_on


def test_each_fit_uses_only_its_own_engine_and_platform_rows():
    table = default_efficiency()
    by_id = {r.row_id: r for r in default_measured()}
    from model.catalog.active import default_catalog
    cat = default_catalog()
    for e in table.engines:
        for plat, f in e.fitted:
            for rid in f.calibrated_on:
                r = by_id[rid]
                assert r.engine == e.id and table.platform(cat.gpu(r.gpu)) == plat


def test_a_held_out_source_is_not_in_its_fit():
    plans = all_plans()
    source = plans[0].row.source_id
    held = {p.row.row_id for p in plans if p.row.source_id == source}
    fits = fit([p for p in plans if p.row.source_id != source])
    used = {rid for f in fits.values() for rid in f.calibrated_on}
    assert held and not held & used


def test_leave_one_source_out_summary_is_computed():
    cs = leave_one_source_out()
    rows = default_measured()
    assert [c.row.row_id for c in cs] == [r.row_id for r in rows]
    assert all(math.isfinite(c.predicted) and c.predicted > 0 for c in cs)
    s = summarize(cs)
    assert s.rows == len(rows) and 0 <= s.median_abs_error and 0 <= s.within_25 <= 1
    for key, f in BREAKDOWNS.items():
        groups = by(cs, f)
        assert sum(g.rows for g in groups.values()) == len(rows), key


def test_report_has_the_headline_and_every_breakdown():
    rows = tuple(r for r in default_measured() if r.source_id in {default_measured()[0].source_id,
                                                                    default_measured()[-1].source_id})
    d = report(rows).as_dict()
    assert d["headline"] == "leave-one-source-out"
    assert {"loso", "in_sample", "floor"} <= d["summary"].keys()
    assert {"loso_by_engine", "loso_by_gpu", "loso_by_source"} <= d.keys()
    assert len(d["rows"]) == len(rows)
    assert all(r["floor"] > 0 for r in d["rows"])
