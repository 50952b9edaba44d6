"""The chip view's pure layout (ui.chip.layout imports no Qt): no two parts overlap, every part
lies inside the view, inner parts inside their parents, at the window sizes the app meets."""
import itertools
import subprocess
import sys

import pytest

from model.readouts.chip import ROUTE_LEVELS
from ui.chip.layout import LADDER_KEYS, Rect, chip_layout, chip_routes

SIZES = [(1280, 720), (1920, 1080), (3840, 2160),
         (550, 600), (700, 620), (1200, 700),   # the chip inside the 1280×720 / 1600×900 / 1920×1080 windows
         (1840, 1000), (520, 340)]              # the chip alone (chip focus) and the view's minimum
SHAPES = [dict(units=132, stacks=5), dict(units=304, stacks=8), dict(units=16, stacks=2),
          dict(units=40, stacks=4, unified=True)]


def _cases():
    for (w, h), shape, tiles, lines, fits in itertools.product(SIZES, SHAPES, (0, 2, 8), (1, 2), (True, False)):
        yield (w, h), dict(shape, boost={0: 1.0, 2: 1.35, 8: 1.69}[tiles]), tiles, lines, fits   # presenter type


@pytest.mark.parametrize("size", SIZES)
def test_no_part_overlaps_another_and_all_lie_inside_the_view(size):
    for (w, h), shape, tiles, lines, fits in _cases():
        if (w, h) != size:
            continue
        lay = chip_layout(w, h, tiles=tiles, caption_lines=lines, fits=fits, **shape)
        view = Rect(0, 0, w, h)
        parts = lay.parts()
        for (a, ra), (b, rb) in itertools.combinations(parts.items(), 2):
            assert not ra.intersects(rb), (size, shape, tiles, lines, fits, a, ra, b, rb)
        for name, r in parts.items():
            assert r.inside(view), (size, name, r)
            assert r.w > 0 and r.h > 0, (size, name, r)


@pytest.mark.parametrize("size", SIZES)
def test_inner_parts_sit_inside_their_parents_and_apart(size):
    w, h = size
    for shape, tiles in itertools.product(SHAPES, (0, 8)):
        lay = chip_layout(w, h, tiles=tiles, **shape)
        for r in (*lay.sms, lay.l2, *lay.memory, lay.package_title):
            assert r.inside(lay.package), (size, shape, r)
        for a, b in itertools.combinations((*lay.sms, lay.l2, *lay.memory), 2):
            assert not a.intersects(b), (size, shape, a, b)
        if tiles:
            c = lay.cluster
            for r in (*c.tiles, c.switch, c.foot, c.title):
                assert r.inside(c.box), (size, r)
            assert len(c.tiles) == tiles
            assert not any(a.intersects(b) for a, b in itertools.combinations(c.tiles, 2))
        else:
            assert lay.cluster is None and lay.tiles == ()
        rows = [r.key for r in lay.ladder]
        assert rows == list(LADDER_KEYS)
        for row in lay.ladder:               # the use bar and its words share a line, side by side
            assert row.bar.right < row.use.left and row.use.inside(row.box)


def test_unified_memory_is_one_block_across_the_package():
    lay = chip_layout(1920, 1080, units=40, stacks=4, unified=True)
    assert lay.unified and len(lay.memory) == 1
    block = lay.memory[0]
    assert block.w == pytest.approx(lay.l2.w)          # as wide as L2: one memory, not stacks
    assert len(lay.memory_pipes_x) >= 2 and all(block.left < x < block.right for x in lay.memory_pipes_x)
    hbm = chip_layout(1920, 1080, units=132, stacks=5)
    assert not hbm.unified and len(hbm.memory) == 5 and hbm.memory_pipes_x == tuple(r.cx for r in hbm.memory)


def test_type_and_columns_grow_with_the_view():
    small, big = chip_layout(1280, 720, units=132, stacks=5), chip_layout(3840, 2160, units=132, stacks=5)
    assert big.fs > small.fs and big.legend.w > small.legend.w and big.memory[0].w > small.memory[0].w
    two = chip_layout(1280, 720, units=132, stacks=5, caption_lines=2, fits=False)
    assert two.header.h > small.header.h and two.package.top > small.package.top


def test_routes_run_from_every_memory_pipe_to_every_sm_and_through_the_levels():
    lay = chip_layout(1200, 700, units=132, stacks=5, tiles=4)
    chip, lanes, links, link_lanes = chip_routes(lay)
    assert len(chip) == len(lay.memory_pipes_x) * len(lay.sms) == len(lanes)
    assert len(links) == 2 * 4 == len(link_lanes)
    for poly in chip:
        assert len(poly) == len(ROUTE_LEVELS) + 1
        assert poly[0][1] > poly[-1][1]               # upward: memory at the bottom, tensor cores on top
        assert lay.package.left <= poly[:, 0].min() and poly[:, 0].max() <= lay.package.right


def test_layout_module_imports_no_qt():
    code = "import sys, ui.chip.layout; print(any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
