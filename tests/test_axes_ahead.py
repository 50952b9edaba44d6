"""Issue 27, speed: the roofline's axis pictures for the GPU menu's parts are made while the
window is idle (ui/explore/roofline_ahead.py, SIAxis.keep_picture_for), so a GPU not shown before works
out no ticks on its change. What is worked out, and that it is the same picture, is checked; no
timings (benches/bench_ui_latency.py has them)."""
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QPainter, QPicture

from model import Scenario, estimate
from model.catalog.active import default_catalog
from model.physics.estimate import estimates_on
from model.physics.sweep import default_batches, sweep_batch
from model.readouts import roofline as rr
from test_drawn_ahead import idle_pass
from test_repaint import _change, chip_on
from ui.state.controller import SWEEP_MAX_BATCH
from ui.explore.roofline_ahead import snapshot_range, view_range


def _fresh(axis) -> bytes:
    """The picture the axis draws for its range now, worked out again (as pyqtgraph's paint does)."""
    picture = QPicture()
    p = QPainter(picture)
    if axis.style["tickFont"]:
        p.setFont(axis.style["tickFont"])
    axis.drawPicture(p, *axis.generateDrawSpecs(p))
    p.end()
    return bytes(picture.data())


def _made_ahead(r) -> None:
    """The roofline's pass of work ahead."""
    idle_pass(r._ahead)


def test_estimates_on_leaves_out_a_part_that_cannot_run_the_scenario():
    got = list(estimates_on(Scenario(), ["h100-sxm5-80gb", "no-such-gpu", "l4-24gb"], default_catalog()))
    assert [e.scenario.gpu for e in got] == ["h100-sxm5-80gb", "l4-24gb"]


def test_the_range_of_a_snapshot_is_the_plots_own(shared_window, qtbot):
    """What the warmer works out for a GPU is the range the plot then shows for it."""
    w = shared_window
    chip_on(w, "l40s-48gb")
    snap = w.controller.snapshot
    e = estimate(snap.estimate.scenario, snap.catalog)
    sw = sweep_batch(e.scenario, default_batches(SWEEP_MAX_BATCH), resolved=e.resolved)
    x0, x1, y0, y1 = snapshot_range(e, sw, None, snap.catalog)
    (vx0, vx1), (vy0, vy1) = w.roofline.vb.viewRange()
    assert (10 ** vx0, 10 ** vx1, 10 ** vy0, 10 ** vy1) == pytest.approx((x0, x1, y0, y1), rel=1e-12)
    assert view_range(e, None, rr.roofs(e.resolved.hw, e), None, rr.kernel_points(e))[1] <= x1


def test_a_gpu_not_shown_before_works_out_no_ticks_and_draws_the_same_axes(shared_window, qtbot, monkeypatch):
    w = shared_window
    r = w.roofline
    chip_on(w, "h100-sxm5-80gb")
    axes = [r.plot.getPlotItem().getAxis(k) for k in ("bottom", "left")]
    for axis in axes:
        axis._pictures.clear()
    _made_ahead(r)
    assert len(axes[0]._pictures) >= 1 and len(axes[1]._pictures) >= 3   # (peaks differ more than ridges)
    worked = []
    specs = pg.AxisItem.generateDrawSpecs
    monkeypatch.setattr(pg.AxisItem, "generateDrawSpecs", lambda self, p: worked.append(self) or specs(self, p))
    ranges = set()
    for gpu in ("l40s-48gb", "b200-180gb", "v100-sxm2-32gb", "m1-max-64gb", "gaudi2-96gb", "mi250x-128gb"):
        _change(w, gpu=gpu)
        w.repaint()
        assert not worked, f"{gpu}: its ticks were worked out on the change"
        ranges.add(tuple(tuple(a.range) for a in axes))
        for axis in axes:
            assert bytes(axis.picture.data()) == _fresh(axis), gpu
        worked.clear()
    assert len(ranges) >= 3                     # (parts with ranges of their own, not one range six times)


def test_a_picture_made_ahead_moves_nothing_the_axis_shows(shared_window, qtbot):
    w = shared_window
    chip_on(w, "h100-sxm5-80gb")
    axis = w.roofline.plot.getPlotItem().getAxis("left")
    shown = (list(axis.range), axis.picture, axis.textWidth, axis.geometry())
    lo, hi = axis.range
    assert axis.keep_picture_for(lo - 2.0, hi + 1.0) is True
    assert axis.keep_picture_for(lo - 2.0, hi + 1.0) is False           # kept already
    assert (list(axis.range), axis.picture, axis.textWidth, axis.geometry()) == shown
    assert axis.keep_picture_for(lo - 40.0, hi + 40.0) is None           # 1e-30 …: its numbers need a wider axis
    assert (list(axis.range), axis.picture, axis.textWidth, axis.geometry()) == shown
