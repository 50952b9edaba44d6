"""One regression test per disagreement found between two panels (each failed on the code before it)."""
from __future__ import annotations

import pytest

from model import Scenario, estimate
from model.readouts.flow import flow
from model.readouts.numbers import readouts
from model.readouts.sentences import fit_note
from qt_events import deliver
from ui.explore.controls import slider_to_batch


def show(w, s: Scenario, compare: str | None = None):
    c = w.controller
    c.set_compare(compare)
    c.set_scenario(s)
    c.flush()
    assert c.problem == ""
    return c.estimate


def test_a_saved_batch_of_8192_shows_8192_in_the_controls(shared_window):
    e = show(shared_window, Scenario(model="llama-3.1-8b", batch=8192))
    ctl = shared_window.controls
    assert e.scenario.batch == 8192
    assert ctl.batch_spin.value() == 8192
    assert slider_to_batch(ctl.batch_slider.value()) == 8192
    assert shared_window.gauges.gauges["tps_group"].sub.text().startswith("batch 8192 ")


def test_the_comparison_roof_is_drawn_at_the_precision_the_comparison_runs_at(shared_window):
    e = show(shared_window, Scenario(model="llama-3.1-8b", precision="fp8"), compare="a100-sxm4-80gb")
    ce = shared_window.controller.compare_estimate
    a100 = shared_window.controller.catalog.gpu("a100-sxm4-80gb")
    assert e.compute_dtype == "fp8" and ce.compute_dtype != "fp8"          # A100 has no FP8 path
    _, log_y = shared_window.roofline.compare_roof.getData()                  # log axes: log10 of FLOP/s
    assert 10 ** log_y[0] == pytest.approx(ce.peak_flops) and ce.peak_flops == a100.peak(ce.compute_dtype)
    assert ce.peak_flops < max(v for _, v in a100.peak_flops)               # not its INT4 roof
    assert any(f"{ce.compute_dtype.upper()} (emulated) peak" in t for t in shared_window.roofline.tips.texts)


def test_the_mean_context_is_input_plus_half_the_output_everywhere(shared_window):
    show(shared_window, Scenario(input_len=1000, output_len=501))
    r = readouts(shared_window.controller.estimate)
    assert r["mean_context"].value == 1250.5 and r["mean_context"].text == "1,250.5 tokens"
    tip = shared_window.gauges.gauges["ms_per_token"].toolTip()
    assert "Mean context: 1,250.5 tokens" in tip
    assert "1,250 tokens" not in tip


def test_the_badge_tooltip_talks_about_the_phase_the_badge_names(shared_window):
    e = show(shared_window, Scenario(model="llama-3.1-8b", batch=4, phase="prefill"))
    r = readouts(e)
    badge = shared_window.gauges.badge
    assert badge.text() == f"{e.bound.upper()}-BOUND"
    tip = badge.toolTip()
    assert f"this prefill step: {e.bound}" in tip
    assert r["prefill_memory_time"].labelled in tip and r["prefill_compute_time"].labelled in tip
    assert "decode" not in tip.lower()


def test_moe_weights_read_per_token_are_not_the_weights_resident(shared_window):
    e = show(shared_window, Scenario(model="mixtral-8x7b"))
    r = readouts(e)
    read, resident = r["weights_read_per_step"], r["weights_resident_per_gpu"]
    assert read.value < 0.5 * resident.value and read.label != resident.label
    assert "experts" in read.help and "more than a decode step reads" in resident.help.lower()
    footer = shared_window.explanation.text()
    assert "reads all" not in footer
    assert read.text in footer and resident.text in footer
    assert f"weights {resident.text}" in shared_window.gauges.hbm_text.text()


def test_the_does_not_fit_note_says_what_does_not_fit(shared_window):
    e = show(shared_window, Scenario(gpu="v100-sxm2-32gb", model="llama-2-7b", precision="fp32"))
    r = readouts(e)
    note = fit_note(e)
    assert r["weights_resident_per_gpu"].value < r["hbm_capacity"].value      # the weights alone do fit
    assert "alone" not in note
    for key in ("weights_resident_per_gpu", "workspace_per_gpu", "hbm_room_for_kv", "kv_per_sequence",
                "hbm_capacity"):
        assert r[key].text in note, key
    assert r["kv_per_sequence"].value > r["hbm_room_for_kv"].value
    assert note in shared_window.gauges.notes.text()


def test_search_boxes_drop_leftover_typed_text_when_focus_leaves(shared_window, qtbot):
    combo = shared_window.controls.precision
    combo.setFocus()
    deliver()
    assert combo.lineEdit().hasFocus()
    combo.lineEdit().selectAll()
    qtbot.keyClicks(combo.lineEdit(), "BF")                 # matches: the completer's popup opens
    shared_window.controls.batch_spin.setFocus()
    deliver()
    shared_window.controller.flush()
    assert shared_window.controller.scenario.precision == "bf16"
    assert combo.lineEdit().text() == "BF16"
    assert not combo.completer().popup().isVisible()


def test_tensor_cores_busy_and_mfu_are_two_quantities_with_two_labels(shared_window):
    e = show(shared_window, Scenario(model="llama-3.1-8b", batch=999))
    r = readouts(e)
    busy, mfu = r["tensor_cores_busy"], r["mfu"]
    assert busy.value > 2 * mfu.value                       # 59% of the step vs 16% of peak
    assert abs(busy.value - flow(e).tensor_busy) < 1e-9     # the chip's "busy" is this readout
    gauge = shared_window.gauges.gauges["mfu"]
    assert "busy" not in gauge.title.text().lower()
    assert gauge.title.text() in mfu.labels and gauge.value.text() == mfu.text
    assert busy.labelled in gauge.toolTip() and "busy" not in mfu.label.lower()


def test_the_estimate_table_and_json_carry_the_readouts():
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "main.py", "estimate", "--model", "mixtral-8x7b", "--json"],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    e = estimate(Scenario(model="mixtral-8x7b"))
    assert data["readouts"]["weights_read_per_step"]["text"] == readouts(e)["weights_read_per_step"].text
    assert data["weight_bytes_per_gpu"] == e.weight_bytes_per_gpu          # the old keys stay
