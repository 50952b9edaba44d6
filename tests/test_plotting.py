"""The plotting toolkit's pure parts (ui.plotting.coords, ui.plotting.placement, ui.kit.slider_maps):
no Qt, so no window: the one safe log, the one log–log transform, view ↔ pixels, boxes, and
where a label goes."""
from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys

import numpy as np
import pytest

from ui.plotting.coords import (LINEAR, LOG_LOG, Axes, Box, ViewPixels, clear_of_decade, column, decades, extent,
                                headroom, log10, log10_array, padded, past, row, shift, slot_range, slots,
                                wide_enough)
from ui.plotting.placement import Avoid, Spot, around, place_label, spot, spots, text_box
from ui.kit.slider_maps import LogSlider, nearest_power_of_two, percent_slider, slider_fraction

VIEW = Box(0, 0, 800, 500)


def test_the_pure_modules_import_no_qt():
    code = ("import sys, ui.plotting.coords, ui.plotting.placement, ui.kit.slider_maps; "
            "print(any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- coords
def test_the_safe_log_never_fails():
    assert log10(1000) == pytest.approx(3.0)
    assert log10(0) == -300.0 and log10(-5) == -300.0
    assert math.isnan(log10(float("nan")))
    np.testing.assert_allclose(log10_array([1e-3, 0, 10]), [-3.0, -300.0, 1.0])


def test_the_log_log_transform_goes_both_ways():
    assert LOG_LOG.point(100, 1e12) == pytest.approx((2.0, 12.0))
    assert LINEAR.point(100, 1e12) == (100.0, 1e12)
    half = Axes(log_x=True)
    assert half.point(10, 5) == (1.0, 5.0)
    for v in (0.1, 3.0, 295.0, 4096.0):
        assert LOG_LOG.data_x(LOG_LOG.x(v)) == pytest.approx(v)
        assert LOG_LOG.data_y(LOG_LOG.y(v)) == pytest.approx(v)
    np.testing.assert_allclose(LOG_LOG.xs([1, 10, 100]), [0, 1, 2])
    assert LOG_LOG.data_x(400) == math.inf                      # past the floats: no OverflowError
    assert LOG_LOG.mid_x(1, 100) == pytest.approx(1.0)          # the geometric mean on a log axis
    assert LOG_LOG.same_x(295.0, 295.0 * (1 + 1e-12)) and not LOG_LOG.same_x(295.0, 296.0)


def test_only_drawable_points_have_a_view_point():
    assert LOG_LOG.view(0, 1) is None and LOG_LOG.view(1, -1) is None and LOG_LOG.view(float("nan"), 1) is None
    assert LOG_LOG.view(None, 1) is None and LINEAR.view(0, -1) == (0.0, -1.0)
    assert LOG_LOG.view(10, 100) == pytest.approx((1.0, 2.0))


def test_view_and_pixels_round_trip_with_y_down():
    px = ViewPixels((0.0, 4.0), (-1.0, 3.0), 800, 400)
    assert px.to_px(0.0, 3.0) == (0.0, 0.0)                     # the view's top left
    assert px.to_px(4.0, -1.0) == (800.0, 400.0)
    for vx, vy in ((1.3, 0.2), (3.9, 2.5)):
        assert px.to_view(*px.to_px(vx, vy)) == pytest.approx((vx, vy))
    assert px.box_px(Box(1, 0, 2, 1)) == Box(200.0, 200.0, 400.0, 300.0)
    assert px.frame == Box(0.0, 0.0, 800, 400)


def test_boxes_overlap_and_clip_lines():
    a, b = Box(0, 0, 10, 10), Box(5, 5, 20, 20)
    assert a.overlap(b) == 25 and b.overlap(a) == 25 and a.overlap(Box(10, 0, 12, 5)) == 0
    assert Box.of(10, 10, 0, 0) == a and Box.sized(1, 2, 3, 4) == Box(1, 2, 4, 6)
    assert a.clipped_length((-5, 5), (15, 5)) == pytest.approx(10.0)        # straight through
    assert a.clipped_length((0, 0), (20, 20)) == pytest.approx(math.hypot(10, 10))
    assert a.clipped_length((-5, 20), (15, 20)) == 0.0                       # passes above
    assert a.clipped_length((2, 2), (3, 3)) == pytest.approx(math.hypot(1, 1))   # inside
    assert Box(1, 1, 2, 2).inside(a) and not b.inside(a)


def test_bars_ranges_and_offsets():
    assert column(2.0, 0.4, 7.0) == Box(1.8, 0.0, 2.2, 7.0)
    assert row(1.0, 0.5, 3.0, 4.0) == Box(3.0, 0.75, 7.0, 1.25)
    assert row(1.0, 0.5, 3.0, 4.0).centre == (5.0, 1.0)
    np.testing.assert_allclose(slots(3, -0.2), [-0.2, 0.8, 1.8])
    assert slot_range(3, 0.6) == (-0.6, 2.6) and slot_range(4, 0.95, 0.55) == (-0.95, 3.55)
    assert headroom([1.0, 4.0, 2.0], 1.25) == (0.0, 5.0)
    assert padded(1.0, 2.0, 0.1, 0.5) == (0.9, 2.5)
    assert past((3.0, 5.0), (0.0, 10.0), 0.01) == pytest.approx(5.1)
    assert wide_enough(1.2, (0.0, 10.0), 0.12) and not wide_enough(1.19, (0.0, 10.0), 0.12)
    assert extent([3, -1, 2]) == (-1.0, 3.0)
    assert shift((1.0, 2.0), dx=0.5, dy=-1.0) == (1.5, 1.0)
    assert decades(1000) == pytest.approx(3.0)


def test_a_log_range_top_is_never_right_at_a_decade():
    assert clear_of_decade(2.0, 0.5, 0.12) == pytest.approx(2.5)
    assert clear_of_decade(2.2, 0.85, 0.12) == pytest.approx(3.12)            # 3.05 would cut the 10³ tick
    assert clear_of_decade(2.0, 1.0, 0.12) == pytest.approx(3.12)


# ---------------------------------------------------------------- placement
def test_a_label_takes_its_first_spot_when_nothing_is_in_the_way():
    p = place_label((100, 250), (120, 30), VIEW, spots=spots(("right", "left"), 12))
    assert p.anchor == (0.0, 0.5) and p.pos == (112, 250) and p.cost == 0
    assert p.box == Box(112, 235, 232, 265)


def test_a_label_near_the_edge_stays_inside_the_view():
    p = place_label((780, 250), (120, 30), VIEW, spots=spots(("right", "left"), 12))
    assert p.anchor == (1.0, 0.5) and p.box.inside(VIEW)
    top = place_label((400, 5), (120, 30), VIEW, spots=spots(("above", "below"), 10))
    assert top.anchor == (0.5, 0.0) and top.box.inside(VIEW)


def test_a_label_moves_off_a_box_or_a_line_it_must_avoid():
    other = Avoid(box=Box(410, 200, 600, 260))
    p = place_label((400, 250), (120, 30), VIEW, [other], spots(("right", "left"), 12))
    assert p.anchor == (1.0, 0.5) and p.box.overlap(other.box) == 0
    line = Avoid(line=((100, 250), (400, 0)))                  # a curve rising to the right of the point
    q = place_label((100, 250), (120, 30), VIEW, [line], spots(("above-right", "below-right"), 12))
    assert q.anchor == (0.0, 0.0) and q.box.clipped_length(*line.line) == 0


def test_a_label_never_covers_its_marker():
    """Every spot around a 20 px dot, 12 px clear, keeps the text's box off the dot."""
    for (w, h), s in itertools.product(((40, 12), (200, 40)), around(12.0)):
        b = text_box((400 + s.offset[0], 250 + s.offset[1]), (w, h), s.anchor)
        nearest = (min(max(400, b.x0), b.x1), min(max(250, b.y0), b.y1))
        assert math.dist(nearest, (400, 250)) >= 10.0, (w, h, s)


def test_the_cheapest_spot_wins_and_ties_go_to_the_first():
    blocked = [Avoid(box=Box(0, 0, 800, 500), weight=1.0)]     # everything equally covered
    p = place_label((400, 250), (50, 20), VIEW, blocked, spots(("left", "right"), 10))
    assert p.anchor == (1.0, 0.5)
    half = [Avoid(box=Box(400, 0, 800, 500), weight=1.0)]      # the right half covered
    assert place_label((400, 250), (50, 20), VIEW, half, spots(("right", "left"), 10)).anchor == (1.0, 0.5)


def test_labels_stay_in_the_view_wherever_their_point_is():
    rng = random.Random(7)
    for _ in range(500):
        point = (rng.uniform(0, 800), rng.uniform(0, 500))
        size = (rng.uniform(20, 200), rng.uniform(10, 60))
        p = place_label(point, size, VIEW, spots=around(12.0))
        assert p.box.inside(VIEW.grown(-2.0)), (point, size, p)


def test_named_spots():
    assert spot("below-left", 8.0) == Spot((1.0, 0.0), (-6.0, 6.0))
    assert [s.anchor for s in around(5)][:3] == [(0.0, 0.5), (1.0, 1.0), (1.0, 0.5)]
    with pytest.raises(KeyError):
        spot("inside", 3)


# ---------------------------------------------------------------- sliders
def test_the_log_slider_maps_both_ways():
    s = LogSlider(0.1, 1e5, 600)
    assert s.value(0) == pytest.approx(0.1) and s.value(600) == pytest.approx(1e5)
    assert s.value(100) == pytest.approx(1.0)                  # one decade per 100 steps
    for pos in (0, 1, 137, 300, 599, 600):
        assert s.position(s.value(pos)) == pos
    assert s.position(1e-9) == 0 and s.position(1e9) == 600
    assert s.clamp(1e9) == 1e5 and s.clamp(0.01) == 0.1 and s.clamp(3.0) == 3.0


def test_clicks_snap_to_powers_of_two():
    assert [nearest_power_of_two(b, 4096) for b in (1, 3, 256, 300, 4096, 9000)] == [1, 4, 256, 256, 4096, 4096]
    assert nearest_power_of_two(0.01, 4096) == 1 and nearest_power_of_two(0, 4096) == 1
    assert nearest_power_of_two(math.inf, 4096) == 1 and nearest_power_of_two(math.nan, 64) == 1


def test_the_percent_slider():
    assert [percent_slider(f) for f in (0.0, 0.333, 1.0)] == [0, 33, 100]
    assert [slider_fraction(p) for p in (0, 50, 100)] == [0.0, 0.5, 1.0]

