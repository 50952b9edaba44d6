"""The main window: every control reaches the model, and the gauges show exactly its numbers."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRectF, Qt

from model.readouts.sentences import explain
from model import Scenario, estimate
from model.readouts.format import duration, percent, si, sig3
from qt_events import deliver
from ui.explore.controls import batch_to_slider, slider_to_batch


@pytest.fixture
def window(shared_window):
    """One window for the module, reset before each test (tests/conftest.py)."""
    return shared_window


def expected_texts(e):
    return {
        "ms_per_token": duration(e.decode_ms_per_token / 1e3),
        "tps_user": si(e.tokens_per_s_per_user, "tok/s"),
        "tps_group": si(e.output_tokens_per_s, "tok/s"),
        "ttft": duration(e.prefill_ms / 1e3),
        "mbu": percent(e.mbu),
        "mfu": percent(e.mfu),
        "usd": f"${sig3(e.usd_per_million_tokens)}",
        "joules": si(e.joules_per_token, "J"),
        "e2e": duration(e.e2e_latency_s),
    }


def assert_shows(w, scenario):
    e = estimate(scenario)
    assert w.controller.estimate == e
    for key, text in expected_texts(e).items():
        assert w.gauges.value_text(key) == text, key
    assert w.gauges.gauges["ms_per_token"].sub.text().endswith(f"floor {duration(e.decode_floor_ms_per_token / 1e3)}")
    assert w.gauges.badge.text() == f"{e.bound.upper()}-BOUND"
    assert w.explanation.text() == explain(e)
    return e


def act(qtbot, w, fn):
    """Do one user action; exactly one snapshot (controller.changed) must follow, once everything the action
    posted is delivered (tests/qt_events.deliver)."""
    seen = []
    w.controller.changed.connect(seen.append)
    try:
        fn()
        deliver()
    finally:
        w.controller.changed.disconnect(seen.append)
    assert len(seen) == 1
    return seen[0]


def test_defaults_fit_and_run(window):
    """Explore opens on a scenario that fits and runs (8B BF16 on one H100), memory-bound."""
    e = assert_shows(window, Scenario())
    assert e.fits and window.gauges.hbm.fits is True
    assert "DOES NOT FIT" not in window.gauges.hbm.status_text
    assert e.bound == "memory" and 4 < e.decode_floor_ms_per_token < 6


def test_gpu_combo_by_typing(qtbot, window):
    le = window.controls.gpu.lineEdit()
    le.selectAll()
    qtbot.keyClicks(le, "H200")
    act(qtbot, window, lambda: qtbot.keyClick(le, Qt.Key_Return))
    assert_shows(window, Scenario(gpu="h200-sxm-141gb"))


def test_search_boxes_are_editable_lists_without_popup_arrows(qtbot, window):
    """Each search box types and drops down a list, and carries none of the hidden scroll
    arrows of a popup-style list (setEditable would build two per box, polished at start)."""
    from PySide6.QtWidgets import QWidget
    from ui.explore.controls import SearchCombo
    boxes = window.controls.findChildren(SearchCombo)
    assert len(boxes) >= 6
    for box in boxes:
        assert box.isEditable() and box.lineEdit() is not None
        kinds = {w.metaObject().className() for w in box.findChildren(QWidget)}
        assert not any("Scroller" in k for k in kinds), kinds
    box = window.controls.gpu
    box.showPopup()
    assert box.view().isVisible() and box.view().model().rowCount() > 10
    box.hidePopup()


@pytest.mark.parametrize("combo,value,field", [
    ("model", "llama-3.1-70b", "model"),
    ("precision", "fp8", "precision"),
    ("kv", "int8", "kv_precision"),
    ("gpu", "mi300x-192gb", "gpu"),
])
def test_combos(qtbot, window, combo, value, field):
    box = getattr(window.controls, combo)
    row = next(r for r in range(box.count()) if box.model().item(r).data(Qt.UserRole + 1) == value)
    act(qtbot, window, lambda: (box.setCurrentIndex(row), box.activated.emit(row)))
    assert_shows(window, Scenario(**{field: value}))


def test_batch_slider_and_number(qtbot, window):
    c = window.controls
    act(qtbot, window, lambda: c.batch_slider.setValue(batch_to_slider(64)))
    assert c.batch_spin.value() == 64
    assert_shows(window, Scenario(batch=64))
    act(qtbot, window, lambda: c.batch_spin.setValue(300))
    assert c.batch_slider.value() == batch_to_slider(300)
    assert_shows(window, Scenario(batch=300))


def test_slider_is_logarithmic():
    assert slider_to_batch(0) == 1 and slider_to_batch(batch_to_slider(4096)) == 4096
    assert slider_to_batch(batch_to_slider(128)) == 128


@pytest.mark.parametrize("attr,value,field", [
    ("gpus", 8, "gpus"), ("interconnect", "pcie", "interconnect"), ("phase", "prefill", "phase"),
])
def test_segmented(qtbot, window, attr, value, field):
    seg = getattr(window.controls, attr)
    act(qtbot, window, lambda: qtbot.mouseClick(seg.buttons[value], Qt.LeftButton))
    assert_shows(window, Scenario(**{field: value}))


def test_lengths(qtbot, window):
    act(qtbot, window, lambda: window.controls.input_len.setValue(8000))
    assert_shows(window, Scenario(input_len=8000))
    act(qtbot, window, lambda: window.controls.output_len.setValue(256))
    assert_shows(window, Scenario(input_len=8000, output_len=256))


def test_rapid_drag_is_coalesced(qtbot, window):
    s = window.controls.batch_slider

    def drag():
        for pos in range(0, batch_to_slider(1024), 7):
            s.setValue(pos)
    e = act(qtbot, window, drag).estimate
    assert e.scenario.batch == window.controls.batch_spin.value()


def test_reset_all(qtbot, window):
    c = window.controls
    act(qtbot, window, lambda: (c.batch_slider.setValue(batch_to_slider(32)),
                                qtbot.mouseClick(c.gpus.buttons[4], Qt.LeftButton),
                                qtbot.mouseClick(c.phase.buttons["prefill"], Qt.LeftButton)))
    assert window.controller.scenario.batch == 32
    act(qtbot, window, lambda: qtbot.mouseClick(c.reset_button, Qt.LeftButton))
    assert window.controller.scenario == Scenario()
    assert c.batch_spin.value() == 1 and c.gpus.value() == 1 and c.phase.value() == "decode"
    assert c.gpu.current_id() == Scenario().gpu and c.gpu.lineEdit().text() == "H100 SXM"
    assert_shows(window, Scenario())


def test_impossible_split_shows_reason_and_recovers(qtbot, window):
    c = window.controller
    act(qtbot, window, lambda: c.set(model="llama-3.1-8b"))
    before = c.estimate
    c.set(interconnect="network", gpus=64)          # 32 heads cannot split over 64 GPUs
    deliver()
    assert "heads" in c.problem
    assert window.problem.isVisibleTo(window) and "heads" in window.problem.text()
    assert c.estimate == before                       # the last good numbers stay
    assert window.controls.gpus.value() == 64         # the controls show what the user asked for
    act(qtbot, window, lambda: qtbot.mouseClick(window.controls.gpus.buttons[8], Qt.LeftButton))
    assert not c.problem and not window.problem.isVisibleTo(window)
    assert_shows(window, Scenario(model="llama-3.1-8b", interconnect="network", gpus=8))


def test_kv_cache_that_does_not_fit(qtbot, window):
    act(qtbot, window, lambda: window.controller.set(model="llama-3.1-8b", batch=4096, input_len=8192))
    e = assert_shows(window, Scenario(model="llama-3.1-8b", batch=4096, input_len=8192))
    assert not e.fits and e.kv_cache_bytes_per_gpu > e.hbm_capacity_bytes / 2
    assert window.gauges.hbm.fits is False
    assert "does not fit" in window.gauges.notes.text()
    act(qtbot, window, lambda: window.controller.set(batch=1))
    assert window.gauges.hbm.fits is True


def test_compare_gpu(qtbot, window):
    box = window.controls.compare
    row = next(r for r in range(box.count()) if box.model().item(r).data(Qt.UserRole + 1) == "b200-180gb")
    act(qtbot, window, lambda: (box.setCurrentIndex(row), box.activated.emit(row)))
    assert window.controller.compare_estimate is not None
    assert window.roofline.compare_label.isVisible()
    x, y = window.roofline.compare_roof.getData()
    assert len(x) == 2
    act(qtbot, window, lambda: qtbot.mouseClick(window.controls.reset_button, Qt.LeftButton))
    assert window.controller.compare_gpu is None and not window.roofline.compare_label.isVisible()


def test_tooltips_everywhere(qtbot, window):
    for g in window.gauges.gauges.values():
        assert g.toolTip() and any(ch.isdigit() for ch in g.toolTip())
    assert "BOUND" in window.gauges.badge.text() and window.gauges.badge.toolTip()
    hb = window.gauges.hbm
    assert "Weights" in hb.segment_at(5) and "GB" in hb.segment_at(5)
    rp, e = window.roofline, window.controller.estimate
    tip = rp.tooltip_at(rp.scene_pos(e.arithmetic_intensity_flops_per_byte, e.achieved_flops))
    assert tip.startswith("Operating point") and sig3(e.arithmetic_intensity_flops_per_byte) in tip
    tip = rp.tooltip_at(rp.scene_pos(e.ridge_flops_per_byte, e.peak_flops))
    assert "Ridge" in tip
    sw = window.controller.sweep
    tip = rp.tooltip_at(rp.scene_pos(sw.arithmetic_intensity_flops_per_byte[5], sw.achieved_flops[5]))
    assert tip.startswith("batch 32")
    x = e.ridge_flops_per_byte * 3
    assert "tensor-core peak" in rp.tooltip_at(rp.scene_pos(x, e.peak_flops))
    assert "HBM bandwidth" in rp.tooltip_at(rp.scene_pos(1e-1 * 3, 3e-1 * e.peak_bandwidth_bytes_per_s))


def test_the_roofline_names_its_hollow_dots_only_when_a_batch_does_not_fit(qtbot, window):
    """The trail's hollow dots are batches whose KV cache does not fit (model.readouts.roofline):
    the key at the top left says so while there are any, and only then."""
    from model.readouts.roofline import KERNEL_LEGEND, UNFIT_LEGEND
    c, legend = window.controller, window.roofline.kernel_legend
    assert not all(c.sweep.fits)                      # 8B on an H100 at 1,024 + 1,024: the largest batches do not
    assert legend.toPlainText().splitlines() == [KERNEL_LEGEND, UNFIT_LEGEND]
    c.set(gpu="b200-180gb", model="llama-3.2-3b", input_len=128, output_len=128)
    c.flush()
    deliver()
    assert all(c.sweep.fits) and legend.toPlainText().splitlines() == [KERNEL_LEGEND]


def test_themes_and_large_text(qtbot, window):
    size = window.gauges.gauges["ms_per_token"].value.font().pixelSize()
    window.controls.large_text.setChecked(True)
    deliver()
    assert window.gauges.gauges["ms_per_token"].value.font().pixelSize() > size
    qtbot.mouseClick(window.controls.theme_button, Qt.LeftButton)
    assert window.theme_name == "light"
    assert window.grab().toImage().pixelColor(QPoint(3, 3)).lightness() > 200
    qtbot.mouseClick(window.controls.theme_button, Qt.LeftButton)
    assert window.theme_name == "dark"
    assert window.grab().toImage().pixelColor(QPoint(3, 3)).lightness() < 40


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_gauge_numbers_fit_at_both_sizes(qtbot, window, size):
    window.resize(*size)
    deliver()
    for g in window.gauges.gauges.values():
        fm = g.value.fontMetrics()
        assert fm.horizontalAdvance(g.value.text()) <= g.value.width(), g.key
    assert window.explanation.height() >= window.explanation.heightForWidth(window.explanation.width()) - 1


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_roofline_labels_inside_and_apart(qtbot, window, size):
    """The operating-point label stays inside the plot (even with the point near its right edge)
    and no two labels overlap."""
    window.controller.set_scenario(Scenario(gpu="h100-pcie-80gb", model="llama-3.1-70b", precision="fp8",
                                            gpus=8, batch=256, interconnect="pcie", input_len=256,
                                            output_len=256))
    window.controller.flush()
    window.resize(*size)
    deliver()
    rp = window.roofline
    view = QRectF(0, 0, rp.vb.width(), rp.vb.height())
    op = rp.op_label_rect()
    assert view.contains(op), (op, view)
    window.grab()                               # paint: the items' scene rects are now current
    assert rp.vb.sceneBoundingRect().contains(rp.op_label.sceneBoundingRect())
    rects = list(rp.label_rects().items())
    for i, (a, ra) in enumerate(rects):
        for b, rb in rects[i + 1:]:
            if a.startswith("B=") and b.startswith("B="):
                continue
            assert not ra.intersected(rb).isValid() or ra.intersected(rb).isEmpty(), (a, b)


def test_the_operating_point_label_covers_no_batch_dot(window, qtbot):
    """Its place is chosen clear of the trail's dots (they were once looked for at log10 of their
    log10 coordinates: 4 of these 132 scenarios put the label over a dot)."""
    from PySide6.QtCore import QRectF
    r, c = window.roofline, window.controller
    covered = []
    for gpu in ("h100-sxm5-80gb", "a100-sxm4-80gb", "l40s-48gb", "mi300x-192gb"):
        for model in ("llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b"):
            for b in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
                c.set(gpu=gpu, model=model, batch=b)
                c.flush()
                label = r.op_label_rect()
                xs, ys = r.trail_dots.getData()
                dots = [QRectF(px - 4, py - 4, 8, 8)
                        for px, py in (r._to_px(float(x), float(y)) for x, y in zip(xs, ys))]
                if any(label.intersects(d) for d in dots):
                    covered.append((gpu, model, b))
    assert covered == []


def test_a_gauge_not_yet_laid_out_shows_its_full_title(qtbot):
    """Before its first layout a gauge has no width to fit to: it shows its readout's full label
    (and measures nothing); once sized it takes the longest form that fits."""
    from model.readouts.numbers import readouts
    from ui.state.controller import Controller
    from ui.explore.gauges import GaugePanel
    c = Controller()
    panel = GaugePanel(c.snapshot)
    qtbot.addWidget(panel)
    gauge = panel.gauges["ms_per_token"]
    assert gauge.title.text() == readouts(c.estimate)["decode_time"].labels[0]
    panel.resize(900, 300)
    panel.show()
    deliver()
    assert gauge.title.text() in readouts(c.estimate)["decode_time"].labels
