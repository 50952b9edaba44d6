"""The animated hierarchy view, headless (pytest-qt; Qt warnings fail the test via conftest)."""
import numpy as np
import pytest

from qt_events import EVENTUALLY_MS, deliver

from model import Scenario, estimate
from ui.chip.view import POOL, HierarchyView

SMALL = Scenario(gpu="h100", model="llama-3.1-8b", precision="bf16", input_len=128, output_len=128)
PCIE8 = Scenario(gpu="h100-pcie-80gb", model="llama-3.1-70b", precision="fp8", gpus=8, batch=256,
                 interconnect="pcie")
# the busiest picture found by a sweep over GPUs, models, precisions, counts, links and batches:
# high HBM use plus eight saturated PCIe links
BUSIEST = Scenario(gpu="l40s-48gb", model="llama-3.1-70b", precision="fp8", gpus=8, batch=256,
                   interconnect="pcie")


@pytest.fixture
def view(shown):
    return shown(HierarchyView(estimate_=estimate(SMALL)), (1200, 700))


def _frame(v, dt=1 / 60):
    v.advance(dt)
    v.canvas.repaint()


def test_animates(view):
    view.settle(120)
    before = view.particles.pos[view.particles.alive].copy()
    idx = np.flatnonzero(view.particles.alive)
    assert len(idx) > 20
    _frame(view)
    after = view.particles.pos[idx]
    moved = np.hypot(*(after - before).T) > 0.1
    assert moved.mean() > 0.5


def test_clock_ticks_while_shown_and_stops_when_hidden(view, qtbot):
    assert view.ticking
    f0 = view.frames
    qtbot.waitUntil(lambda: view.frames > f0 + 3, timeout=EVENTUALLY_MS)     # a real 16 ms timer: no count of
    # frames against time (a busy machine draws fewer), only that it ticks at all
    view.hide()
    assert not view.ticking
    view.show()
    assert view.ticking


def test_pause_resume_and_single_step(view):
    view.settle(60)
    view.pause()
    snap = view.particles.pos.copy()
    steps = view.steps
    for _ in range(10):
        _frame(view)
    assert np.array_equal(snap, view.particles.pos)
    assert view.steps == steps
    view.single_step()                       # exactly one decode step, still paused
    assert view.paused
    assert view.steps == steps + 1
    assert view.tokens == (steps + 1) * view.flow.batch
    assert not np.array_equal(snap, view.particles.pos)
    view.resume()
    snap = view.particles.pos.copy()
    _frame(view)
    assert not np.array_equal(snap, view.particles.pos)


def test_token_counter_ticks_once_per_decode_step(view):
    f = view.flow
    screen_s = f.step_s / view.chip_seconds_per_screen_second
    frames = int(np.ceil(screen_s * 60 * 3.5))
    view.settle(frames)
    assert view.steps == 3
    assert view.token_label.text().startswith("decode step 3")


def test_scenario_change_retargets_within_one_frame(view):
    view.settle(60)
    busy0 = view.animator.cur.busy
    caption0 = view.flow.caption
    count0 = view.particle_count
    view.set_estimate(estimate(SMALL.with_(batch=512)))
    assert view.flow.bottleneck == "compute" and view.flow.caption != caption0
    _frame(view)
    assert view.animator.cur.busy > busy0                 # easing has begun ...
    assert view.animator.cur.busy < view.flow.tensor_busy  # ... and glides rather than jumps
    assert view.particle_count > count0 * 0.5     # the flow keeps going, no restart
    view.settle(30)
    assert view.animator.cur.busy == pytest.approx(view.flow.tensor_busy)


def test_multi_gpu_draws_tiles_and_link_traffic(view):
    view.set_estimate(estimate(PCIE8), animate=False)
    view.settle(200)
    assert len(view.lay.tiles) == 8
    assert view.flow.bottleneck == "communication"
    assert (view.particles.alive & (view.particles.kind == 3)).sum() > 0
    img = view.grab()
    assert not img.isNull()


def test_particle_count_bounded_for_the_busiest_scenario(view):
    view.set_estimate(estimate(BUSIEST), animate=False)
    view.set_speed(4.0)
    counts = []
    for _ in range(600):
        view.advance(0.05)
        counts.append(view.particle_count)
    assert max(counts) <= POOL
    assert view.particles.alive.size == POOL


def test_other_vendors_and_sizes(qtbot):
    for s in (Scenario(gpu="mi300x", precision="int4", gpus=2, batch=16),
              Scenario(gpu="tpu-v5e-16gb", model="llama-3.1-8b", precision="int8"),
              Scenario(gpus=16, batch=64)):
        v = HierarchyView(estimate_=estimate(s))
        qtbot.addWidget(v)
        v.resize(800, 480)
        v.show()
        v.settle(30)
        assert not v.grab().isNull()
        if s.gpu == "mi300x":
            assert v.hw.unit_name == "CU" and v.hw.hbm_stacks == 8 and len(v.lay.memory) == 8


def test_narrow_view_shortens_rather_than_clips(qtbot, shown):
    """At the width the 1280×720 window gives it, the bar's words shorten but show whole."""
    v = shown(HierarchyView(estimate_=estimate(PCIE8)), (550, 600))
    v.settle(300)
    deliver()
    assert v._bar.width() <= 552
    for lab in (v.scale_label, v.token_label):
        assert "…" not in lab.text()
        assert lab.fontMetrics().horizontalAdvance(lab.text()) <= lab.contentsRect().width(), lab.text()
    assert v.scale_label.text().startswith("1 s")
    assert v.token_label.text().endswith("tok") or v.token_label.text().endswith("tokens")
    assert v.lay.caption_lines == 2
    v.resize(1400, 700)
    deliver()
    assert v.token_label.text().startswith("decode step")
    assert v.scale_label.text().startswith("1 s on screen")


def _corner_lightness(v) -> int:
    img = v.canvas.grab().toImage()
    return img.pixelColor(2, img.height() - 3).lightness()


def test_theme_switches_the_picture_and_keeps_animating(view):
    from ui.kit.theme import DARK, LIGHT
    view.settle(60)
    assert _corner_lightness(view) < 60                 # dark by default
    view.set_theme(LIGHT)
    assert view.theme_name == "light" and view._static is None   # the static layer is redrawn
    assert _corner_lightness(view) > 200
    assert LIGHT.bg.lower() in view._bar.styleSheet().lower()    # the control bar follows
    assert view.grab().toImage().pixelColor(2, view.height() - 3).lightness() > 200
    before = view.particles.pos[view.particles.alive].copy()
    idx = np.flatnonzero(view.particles.alive)
    _frame(view)
    assert (np.hypot(*(view.particles.pos[idx] - before).T) > 0.1).mean() > 0.5
    view.set_theme(DARK)
    assert view.theme_name == "dark"
    assert _corner_lightness(view) < 60
    assert "#0b0d10" in view._bar.styleSheet().lower()


def test_multi_gpu_draws_in_the_light_theme(view):
    from ui.kit.theme import LIGHT
    view.set_theme(LIGHT)
    view.set_estimate(estimate(PCIE8), animate=False)
    view.settle(120)
    assert len(view.lay.tiles) == 8
    assert _corner_lightness(view) > 200


def test_main_window_passes_its_theme_to_the_chip(qtbot, shown):
    from ui.shell.app import build_window
    w = shown(build_window(Scenario(), st=None), (1280, 720))
    assert w.hierarchy.theme_name == "dark"
    w.toggle_theme()
    assert w.hierarchy.theme_name == "light"
    assert _corner_lightness(w.hierarchy) > 200
    w.toggle_theme()
    assert w.hierarchy.theme_name == "dark"


def _unified_catalog():
    """A fake Apple-silicon-like part: the H100's numbers with one unified memory, no HBM stacks."""
    from dataclasses import replace
    from model.catalog.active import default_catalog
    cat = default_catalog()
    h100 = cat.gpu("h100")
    fake = replace(h100, id="fake-unified", name="Fake unified GPU", short_name="Fake", aliases=(),
                   hbm_kind="LPDDR5 unified", hbm_stacks=None, pcie=None)
    return replace(cat, gpus=cat.gpus + (fake,))


def test_unified_memory_draws_one_labelled_block_not_hbm_stacks(shown):
    from model.readouts.flow import chip_readouts, memory_name
    cat = _unified_catalog()
    e = estimate(SMALL.with_(gpu="fake-unified"), cat)
    v = shown(HierarchyView(estimate_=e, catalog=cat), (1200, 700))
    v.settle(60)
    assert v.lay.unified and len(v.lay.memory) == 1
    assert memory_name(v.hw) == "Unified memory (LPDDR5)"
    shown_ = chip_readouts(e, v.flow, v.hw)
    assert shown_["level_hbm"].label == "Unified memory (LPDDR5)"
    assert shown_["memory_block"].value == v.hw.hbm_capacity_bytes       # one block holds it all
    assert shown_["level_host"].label.startswith("CPU")
    # packets leave the block through its pipes: weights flow from it
    assert (v.particles.alive & (v.particles.kind == 0)).sum() > 10
    assert not v.grab().isNull()


def test_hidden_view_works_out_only_the_latest_estimate_when_shown(view):
    view.hide()
    layout_before, flow_before = view.lay, view._flow
    for batch in (2, 4, 8):
        view.set_estimate(estimate(SMALL.with_(batch=batch)))
    assert view._flow is flow_before and view.lay is layout_before     # nothing worked out while hidden
    view.show()
    assert view._flow is not flow_before and view.flow.batch == 8


def test_steady_frames_reuse_the_cached_picture(view):
    view.settle(60)
    view.canvas.repaint()
    static, base = view._static, view._base
    for _ in range(5):
        _frame(view)
    assert view._static is static and view._base is base        # only the packets are drawn per frame
    view.set_estimate(estimate(SMALL.with_(batch=64)))
    _frame(view)
    assert view._base is not base                               # the eased layer follows the new targets


def test_chip_labels_tensor_core_time_apart_from_mfu(view):
    from model.readouts.numbers import readouts
    sh = view.scene.shown
    r = readouts(view.estimate)
    assert sh["use_tensor_cores"].value == pytest.approx(r["tensor_cores_busy"].value)
    assert "step time" in sh["use_tensor_cores"].label and "step time" in sh["use_tensor_cores"].help.lower() \
        or "step time" in r["tensor_cores_busy"].label
    assert sh["mfu"] == r["mfu"] and "peak" in sh["mfu"].label
    from ui.chip.paint.ladder import use_text
    assert use_text(view.scene, "tensor_cores", 1000, 14).endswith("of step time")
    assert sh["step_weights"].text == r["weights_read_per_step"].text
    assert sh["step_kv"].text == r["kv_read_per_step"].text


def test_tooltips_explain_what_each_number_counts(view):
    from ui.chip.tips import tooltip_at
    sc = view.scene
    row = next(r for r in sc.lay.ladder if r.key == "tensor_cores")
    tip = tooltip_at(sc, row.box.cx, row.box.cy)
    assert "of step time" in tip and "MFU" in tip and "peak" in tip      # busy time and MFU, told apart
    stack = sc.lay.memory[0]
    assert "per block" in tooltip_at(sc, stack.cx, stack.cy)
    assert "Weights read per decode step" in tooltip_at(sc, sc.lay.legend.cx, sc.lay.legend.cy)
    assert tooltip_at(sc, 1, sc.lay.height - 1) == ""


def test_larger_text_enlarges_the_chips_type(main_window):
    h = main_window.hierarchy
    fs0 = h.lay.fs
    main_window.set_large_text(True)
    assert h._boost > 1.0 and h.lay.fs > fs0
    main_window.set_large_text(False)
    assert h._boost == 1.0 and h.lay.fs == fs0


def test_a_chip_alone_keeps_its_own_type_whatever_the_theme_scale(shown):
    from ui.kit.theme import get_theme
    v = shown(HierarchyView(estimate_=estimate(SMALL)), (1280, 720))
    fs = v.lay.fs
    v.set_theme(get_theme("light", scale=1.0))
    assert v._boost == 1.0 and v.lay.fs == fs


def test_routes_of_mixed_shapes_are_padded_by_their_last_vertex_and_speed():
    """The particle pool's routes: chip routes and the shorter link routes in one array, each
    padded by its last vertex, a one-number speed held along the route, a list of speeds per segment."""
    from ui.chip.particles import ParticleSystem
    ps = ParticleSystem(10)
    bent, link = np.array([(0, 0), (10, 0), (10, 10)]), np.array([(5, 5), (5, 0)])
    ps.set_routes([bent, link, bent], [np.array([1.0, 2.0]), np.array([3.0]), np.array([4.0])], [1.0, 2.0, 3.0])
    assert ps.verts.tolist() == [[[0, 0], [10, 0], [10, 10]], [[5, 5], [5, 0], [5, 0]], [[0, 0], [10, 0], [10, 10]]]
    assert ps.speed.tolist() == [[1, 2], [3, 3], [4, 4]]
    assert ps.length.tolist() == [20, 5, 20] and ps.lane_width.tolist() == [1, 2, 3]
