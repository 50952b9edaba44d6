"""The eight lesson chapters: every prepared state draws the model's numbers, measured rows
sit beside the model, each chart exports as PNG, SVG and CSV, and an error in one chapter
stays in that chapter."""
from __future__ import annotations

import csv
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QHelpEvent, QImage
from PySide6.QtWidgets import QApplication, QToolTip

from model import estimate
from model.catalog import default_catalog
from model.format import duration, sig3
from model.lessons import (AMD_LINE, NVIDIA_LINE, default_chapters, generations, hbm_latency_cycles, latency_hiding,
                           matching_measurements, memory_ladder, precision_table, roofline_point, scaling)
from model.sweep import sweep_batch
from ui.chapters.base import error_text
from ui.chapters.ch6_batching import BATCHES, batch_at

CHAPTERS = default_chapters()
ALL_STATES = [(ch.number, i) for ch in CHAPTERS for i in range(len(ch.states))]


@pytest.fixture
def window(lessons_window):
    lessons_window.show_lessons()
    return lessons_window


def open_state(w, number, index):
    w.show_chapter(number, index)
    w.controller.flush()
    v = w.lessons.current_view
    v.ensure_fresh()
    assert v.error_text == "", v.error_text
    return v


def close(a, b, rel=1e-9):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rel, equal_nan=True)


def check_model_numbers(w, v, number: int, state) -> None:
    """The chart's plotted arrays and labels equal the model functions' outputs."""
    cat = default_catalog()
    e = w.controller.estimate
    s = e.scenario
    assert s == estimate(state.scenario).scenario
    if number == 1:
        line = state.param("line", "nvidia")
        pts = generations(NVIDIA_LINE if line == "nvidia" else AMD_LINE)
        close(v.flops_bars.opts["height"], [p.flops_vs_first for p in pts])
        close(v.bw_bars.opts["height"], [p.bandwidth_vs_first for p in pts])
        close(v.ridge_bars.opts["height"], [p.ridge_flops_per_byte for p in pts])
    elif number == 2:
        r = latency_hiding(state.param("warps"), state.param("divergence"),
                           latency_cycles=hbm_latency_cycles(cat.gpu(s.gpu)))
        assert np.array_equal(v.result.timeline, r.timeline)
        assert v.result.issue_busy == r.issue_busy and v.result.lane_use == r.lane_use
        assert v.warps_slider.value() == state.param("warps")
        assert v.image.image.shape[:2] == r.timeline.shape
    elif number == 3:
        ladder = memory_ladder(cat.gpu(s.gpu))
        bw = [st.level.bandwidth_bytes_per_s for st in ladder]
        c = v.cols["bandwidth"]
        shown = sorted(np.concatenate([c["filled"].xData, c["hollow"].xData]))
        close(shown, sorted(x for x in bw if x))
        derived = [st.level.bandwidth_bytes_per_s for st in ladder if "bandwidth_GBps" in st.level.derived]
        close(sorted(c["hollow"].xData), sorted(derived))
    elif number == 4:
        pt = roofline_point(cat.gpu(s.gpu), e.compute_dtype, state.param("intensity"))
        close(v.dot.xData, [pt.intensity_flops_per_byte])
        close(v.dot.yData, [pt.attainable_flops])
        close(v.double.yData, [pt.attainable_with_double_compute])
        assert v.point.bound == pt.bound
    elif number == 5:
        assert v.floor_value.text() == duration(e.decode_floor_ms_per_token / 1e3)
        assert ("DOES NOT FIT" in v.hbm.status_text) == (not e.fits)
    elif number == 6:
        sw = sweep_batch(s, BATCHES)
        close(v.rows[0]["curve"].yData, sw.decode_ms_per_token)
        close(v.rows[1]["curve"].yData, sw.output_tokens_per_s)
        close(v.rows[2]["curve"].yData, sw.usd_per_million_tokens)
        close(v.rows[0]["now"].xData, [s.batch])
        if e.critical_batch and e.critical_batch <= BATCHES[-1]:
            assert v.rows[0]["crit"].isVisible() or not v.isVisible()
            assert math.isclose(10 ** v.rows[0]["crit"].value(), e.critical_batch, rel_tol=1e-9)
        assert math.isclose(10 ** v.rows[0]["kvl"].value(), max(sw.max_batch_that_fits, 1), rel_tol=1e-9)
    elif number == 7:
        rows = precision_table(s)
        close(v.fp_bars.opts["width"], [r.weight_bytes_total / 1e9 for r in rows])
        close(v.ms_bars.opts["width"], [r.floor_ms_per_token for r in rows])
        close(v.real.xData, [r.ms_per_token for r in rows])
    elif number == 8:
        for c in scaling(s):
            ok = np.isfinite(c.speedup)
            close(v.lines[c.interconnect].yData, c.speedup[ok])
            close(v.lines[c.interconnect].xData, c.gpus[ok])
        close(v.ideal.yData, v.ideal.xData)


@pytest.mark.parametrize("number,index", ALL_STATES)
def test_every_prepared_state_draws_the_models_numbers(window, number, index):
    v = open_state(window, number, index)
    state = CHAPTERS[number - 1].states[index]
    assert v.caption == state.caption
    assert v.takeaway == CHAPTERS[number - 1].takeaway
    assert window.lessons.strip.current == (number, index)
    check_model_numbers(window, v, number, state)


def test_live_controls_redraw_from_the_model(window, qtbot):
    v = open_state(window, 2, 0)
    v.warps_slider.setValue(8)
    qtbot.waitUntil(lambda: v.result.warps == 8, timeout=2000)
    hw = default_catalog().gpu(window.controller.estimate.scenario.gpu)
    assert v.result.issue_busy == latency_hiding(8, 0.0, latency_cycles=hbm_latency_cycles(hw)).issue_busy
    v = open_state(window, 4, 0)
    v.handle.setValue(math.log10(500.0))          # drag the line to 500 FLOP/byte
    qtbot.waitUntil(lambda: abs(v.point.intensity_flops_per_byte - 500.0) < 1e-6, timeout=2000)
    assert v.point.bound == "compute"
    # a control in the main panel reaches the chapter too
    v = open_state(window, 6, 0)
    window.controller.set(batch=32)
    window.controller.flush()
    qtbot.waitUntil(lambda: list(v.rows[0]["now"].xData) == [32.0], timeout=2000)


def test_measured_rows_sit_beside_the_model(window):
    # chapter 8: llama-2-70b on MI300X at batch 1, speed-up = latency(1 GPU) / latency(N)
    v = open_state(window, 8, 0)
    comps = [c for c in matching_measurements("llama-2-70b", "mi300x", None, "end_to_end_latency_s")
             if c.row.batch == 1]
    one = next(c for c in comps if c.row.n_gpus == 1)
    comps.sort(key=lambda c: c.row.n_gpus)
    close(v.meas.xData, [c.row.n_gpus for c in comps])
    close(v.meas.yData, [one.row.value / c.row.value for c in comps])
    close(v.pred.yData, [one.predicted / c.predicted for c in comps])
    assert "measured" in v.meas_note.text()
    # chapter 6: llama-3.1-8b on H100 at 16 bits, batch 1: per step ≈ latency / output tokens
    v = open_state(window, 6, 0)
    rows = [c for c in matching_measurements("llama-3.1-8b", "h100", "fp16", "end_to_end_latency_s")
            if c.row.batch is not None]
    assert rows
    close(sorted(v.rows[0]["meas"].yData), sorted(c.row.value * 1e3 / c.row.output_len for c in rows))
    close(sorted(v.rows[0]["pred"].yData), sorted(c.predicted * 1e3 / c.row.output_len for c in rows))
    # disagreement is shown, not hidden
    assert any(f"{c.error:+.0%}" in v.meas_note.text() for c in rows)
    # chapter 7: the fp16-vs-fp8 pair for llama-3.1-8b on H100
    v = open_state(window, 7, 0)
    text = v.meas_note.text()
    assert "FP16" in text and "FP8" in text and "llama-3.1-8b" in text


@pytest.mark.parametrize("number", range(1, 9))
def test_exports_png_svg_csv(window, tmp_path, number):
    v = open_state(window, number, 0)
    png, svg, data = tmp_path / "c.png", tmp_path / "c.svg", tmp_path / "c.csv"
    assert v.export_png(str(png))
    img = QImage(str(png))
    assert not img.isNull()
    ratio = v.chart.devicePixelRatioF()
    assert (img.width(), img.height()) == (round(v.chart.width() * ratio), round(v.chart.height() * ratio))
    assert v.export_svg(str(svg))
    root = ET.parse(str(svg)).getroot()
    assert root.tag.endswith("svg")
    assert v.export_csv(str(data))
    with open(data, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    assert body and all(len(r) == len(header) for r in body)
    check_csv_numbers(window, number, header, body)


def check_csv_numbers(w, number, header, body):
    e = w.controller.estimate
    s = e.scenario
    cat = default_catalog()
    col = {h: i for i, h in enumerate(header)}

    def floats(name, rows=body):
        return [float(r[col[name]]) if r[col[name]] != "" else float("nan") for r in rows]

    if number == 1:
        close(floats("flops_vs_first"), [p.flops_vs_first for p in generations(NVIDIA_LINE)])
    elif number == 2:
        st = CHAPTERS[1].states[0]
        r = latency_hiding(st.param("warps"), st.param("divergence"), latency_cycles=hbm_latency_cycles(cat.gpu(s.gpu)))
        assert len(body) == r.warps
        close(floats("scheduler_issue_busy"), [r.issue_busy] * r.warps)
    elif number == 3:
        close(floats("bandwidth_bytes_per_s"), [st.level.bandwidth_bytes_per_s or float("nan")
                                                for st in memory_ladder(cat.gpu(s.gpu))])
    elif number == 4:
        pt = roofline_point(cat.gpu(s.gpu), e.compute_dtype, CHAPTERS[3].states[0].param("intensity"))
        close(floats("attainable_flops")[:1], [pt.attainable_flops])
    elif number == 5:
        vals = {r[0]: r[1] for r in body}
        close([float(vals["decode_floor_ms_per_token"])], [e.decode_floor_ms_per_token])
    elif number == 6:
        model_rows = [r for r in body if r[0] == "model"]
        close(floats("decode_ms_per_token", model_rows), sweep_batch(s, BATCHES).decode_ms_per_token)
    elif number == 7:
        model_rows = [r for r in body if r[0] == "model"]
        close(floats("floor_ms_per_token", model_rows), [r.floor_ms_per_token for r in precision_table(s)])
    elif number == 8:
        model_rows = [r for r in body if r[0] == "model"]
        close(floats("speedup", model_rows), np.concatenate([c.speedup for c in scaling(s)]))


def test_an_error_in_one_chapter_never_takes_the_show_down(window, monkeypatch):
    from ui.chapters.ch3_hierarchy import HierarchyChapter

    def boom(self, e):
        raise ValueError("a broken ladder\nsecond line")
    monkeypatch.setattr(HierarchyChapter, "update_view", boom)
    window.show_chapter(3, 0)
    window.controller.flush()
    v = window.lessons.current_view
    v.refresh()
    assert v.error_label.isVisible()
    assert v.error_text == "This chapter could not draw: ValueError: a broken ladder"
    window.lessons.step(+1)                       # the show goes on
    window.lessons.show_chapter(4, 0)
    assert open_state(window, 4, 0).error_text == ""


def test_lessons_lay_out_without_clipping_at_small_and_large_sizes(window, qtbot):
    for size in ((1280, 720), (1920, 1080)):
        window.resize(*size)
        for number in range(1, 9):
            v = open_state(window, number, 0)
            qtbot.wait(1)
            assert v.chart.width() > 300 and v.chart.height() > 200, (size, number)
            assert v.geometry().right() <= window.width()
            for lab in (v.title_label, v.caption_label, v.takeaway_label):
                assert lab.height() >= lab.heightForWidth(lab.width()) - 1 or not lab.wordWrap()


# ---------------------------------------------------------------- hover tooltips and clicks

@pytest.mark.parametrize("number", [1, 2, 3, 4, 6, 7, 8])
def test_every_chart_marker_has_its_own_tooltip_with_numbers(window, number):
    v = open_state(window, number, 0)
    assert any(p.tips.points or p.tips.rects for p in v.plots)
    for p in v.plots:
        tips = p.tips
        for vx, vy, _text in tips.points:                 # view coordinates (log10 of data on a log axis)
            text = tips.text_at(tips.vb.mapViewToScene(QPointF(vx, vy)))
            assert text and any(ch.isdigit() for ch in text), (number, vx, vy)
        for x0, y0, x1, y1, text in tips.rects:           # bars: their middle
            mid = tips.vb.mapViewToScene(QPointF(0.5 * (x0 + x1), 0.5 * (y0 + y1)))
            assert tips.text_at(mid) and any(ch.isdigit() for ch in tips.text_at(mid))
        # away from every marker (over the left axis's labels) the whole-plot tooltip is the fallback
        away = p.getPlotItem().getAxis("left").sceneBoundingRect().center()
        assert tips.text_at(away) == ""
        assert tips.tip_at(away) == p.toolTip()


def test_a_published_marker_tooltip_names_its_source_conditions_and_error(window, qtbot):
    v = open_state(window, 6, 0)
    assert v.measured
    plot = v.rows[0]["plot"]
    for m in v.measured:
        row = m["row"]
        pos = plot.tips.scene_pos(m["batch"], m["measured_ms"])
        text = plot.tips.text_at(pos)
        assert row.source in text and row.framework in text
        assert f"batch {row.batch:,}" in text and f"{row.input_len:,} input / {row.output_len:,} output" in text
        assert f"{row.n_gpus} GPU" in text
        assert f"measured {sig3(m['measured_s'])} s, model {sig3(m['predicted_s'])} s" in text
        assert error_text(m["error"]) in text
        assert f"{sig3(m['measured_ms'])} ms per step" in text
        # a few pixels off still finds it (nearest within HOVER_PX, in screen space on log axes)
        assert plot.tips.text_at(pos + QPointF(4, 3)) == text
        # the ○ beside it is the model's prediction of the same run
        ptext = plot.tips.text_at(plot.tips.scene_pos(m["batch"], m["model_ms"]))
        assert ptext.startswith("○") and sig3(m["model_ms"]) in ptext and row.source in ptext
    # a real mouse move over the star shows that text as the tooltip
    m = v.measured[0]
    pix = plot.mapFromScene(plot.tips.scene_pos(m["batch"], m["measured_ms"]))
    qtbot.mouseMove(plot.viewport(), pix)
    qtbot.waitUntil(lambda: plot.tips.shown != "", timeout=2000)
    assert m["row"].source in plot.tips.shown
    assert QToolTip.text() == plot.tips.shown
    QToolTip.hideText()
    # resting there (Qt's ToolTip event) keeps the marker's text, not the whole-plot summary
    QApplication.sendEvent(plot.viewport(), QHelpEvent(QEvent.ToolTip, pix, plot.viewport().mapToGlobal(pix)))
    assert m["row"].source in QToolTip.text() and QToolTip.text() != plot.toolTip()
    QToolTip.hideText()

    # chapter 8: the multi-GPU stars say both latencies and the speed-ups
    v = open_state(window, 8, 0)
    for m in v.measured:
        text = v.plot.tips.text_at(v.plot.tips.scene_pos(m["n_gpus"], m["measured_speedup"]))
        assert m["row"].source in text and m["row"].framework in text
        assert f"measured {sig3(m['measured_speedup'])}×, model {sig3(m['model_speedup'])}×" in text
        assert error_text(m["error"]) in text


def test_clicking_the_batching_plots_sets_the_batch(window, qtbot):
    assert [batch_at(math.log10(b)) for b in (1, 3, 256, 300, 4096, 9000)] == [1, 4, 256, 256, 4096, 4096]
    assert batch_at(-2.0) == 1
    v = open_state(window, 6, 0)
    for row, target in ((v.rows[0], 256), (v.rows[2], 8)):
        p = row["plot"]
        vb = p.getPlotItem().vb
        (_x0, _x1), (y0, y1) = vb.viewRange()
        pix = p.mapFromScene(vb.mapViewToScene(QPointF(math.log10(target), 0.5 * (y0 + y1))))
        qtbot.mouseClick(p.viewport(), Qt.LeftButton, pos=pix)
        window.controller.flush()
        assert window.controller.scenario.batch == target
        v.ensure_fresh()
        qtbot.waitUntil(lambda: list(v.rows[0]["now"].xData) == [float(target)], timeout=2000)
    # a click outside the axes (on the tick labels) changes nothing
    p = v.rows[1]["plot"]
    qtbot.mouseClick(p.viewport(), Qt.LeftButton, pos=p.mapFromScene(p.getPlotItem().getAxis("left")
                                                                    .sceneBoundingRect().center()))
    window.controller.flush()
    assert window.controller.scenario.batch == 8
