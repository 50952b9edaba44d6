"""The eight lesson chapters: every prepared state draws the model's numbers, measured rows
sit beside the model, each chart exports as PNG, SVG and CSV, and an error in one chapter
stays in that chapter."""
from __future__ import annotations

import csv
import html
import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QHelpEvent, QImage
from PySide6.QtWidgets import QApplication, QToolTip

from model import estimate
from model.catalog.active import default_catalog
from model.readouts.format import sig3
from model.lessons.ch1_generations import LESSON_PARTS, LINES
from model.lessons.ch3_hierarchy import ladder_points
from model.lessons.ch2_gpu_shape import warp_curve
from model.lessons.ch6_batching import batching_curves, bend_batch, compute_bound_batch
from model.lessons.deck import chapter_facts
from model.lessons.ch5_decode import decode_breakdown
from model.lessons.ch8_multi_gpu import gpu_bars
from model.lessons.chapters import default_chapters
from model.lessons.ch1_generations import generations
from model.lessons.ch2_gpu_shape import hbm_latency_cycles, latency_hiding
from model.lessons.measured import matching_measurements
from model.lessons.ch7_precision import precision_table
from model.lessons.ch4_roofline import roofline_point
from model.physics.sweep import sweep_batch
from model.lessons.measured import error_text
from ui.chapters.ch6_batching import BATCHES, batch_at
from ui.plotting.screen_text import plain
from test_consistency_chapters import chart_drawn, chart_problems

CHAPTERS = default_chapters()
ALL_STATES = [(ch.number, i) for ch in CHAPTERS for i in range(len(ch.states))]


WINDOW_SIZE = (1600, 900)


@pytest.fixture(scope="module")
def shared_window(qapp):
    """One main window for the module (building one took ~0.8 s, for each of 51 cases): the
    default scenario, no settings, shown at 1600×900, the Lessons page's glides instant. Every
    test opens the prepared state it checks (its scenario and params); Qt warnings while it is
    built fail the module as they would a test."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    from PySide6.QtTest import QTest
    from model import Scenario
    from ui.shell.app import build_window
    bad: list[str] = []

    def handler(kind, _context, message):
        if kind in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg) \
                and not message.startswith("This plugin does not support"):
            bad.append(message)
    previous = qInstallMessageHandler(handler)
    try:
        w = build_window(Scenario(), st=None)
        w.resize(*WINDOW_SIZE)
        w.show()
        assert QTest.qWaitForWindowExposed(w)
        w.lessons.glide.duration_ms = 0
    finally:
        qInstallMessageHandler(previous)
    assert not bad, f"Qt printed warnings building the window: {bad[:5]}"
    yield w
    w.close()
    w.deleteLater()
    QApplication.processEvents()


@pytest.fixture
def window(shared_window, qtbot):
    """The module's window on the Lessons page at its size (a test that resizes it is undone here);
    ``qtbot`` keeps the per-test check that Qt prints no warning."""
    w = shared_window
    QToolTip.hideText()
    if (w.width(), w.height()) != WINDOW_SIZE:
        w.resize(*WINDOW_SIZE)
        QApplication.processEvents()
    w.show_lessons()
    return w


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
        if state.param("show") == "ridge":
            close(v.ridge_bars.opts["height"], [p.ridge_flops_per_byte for p in generations(LINES[line])])
        else:
            pts = generations(LESSON_PARTS[line])
            close(v.flops_bars.opts["height"], [p.flops_vs_first for p in pts])
            close(v.bw_bars.opts["height"], [p.bandwidth_vs_first for p in pts])
    elif number == 2:
        lat = hbm_latency_cycles(cat.gpu(s.gpu))
        r = latency_hiding(state.param("warps"), state.param("divergence"), latency_cycles=lat)
        assert v.result.issue_busy == r.issue_busy and v.result.lane_use == r.lane_use
        assert v.warps_slider.value() == state.param("warps")
        close(v.busy_line.yData, 100 * warp_curve(lat).issue_busy)
        close(v.dot.yData, [100 * (r.lane_use if state.param("divergence") else r.issue_busy)])
    elif number == 3:
        pts = ladder_points(cat.gpu(s.gpu))
        close(v.lines["bandwidth"]["line"].yData, [p.bandwidth_x for p in pts])
        close(v.lines["latency"]["line"].yData, [p.latency_x for p in pts])
    elif number == 4:
        pt = roofline_point(cat.gpu(s.gpu), e.compute_dtype, state.param("intensity"))
        close(v.dot.xData, [pt.intensity_flops_per_byte])
        close(v.dot.yData, [pt.attainable_flops])
        close(v.double.yData, [pt.attainable_with_double_compute])
        assert v.point.bound == pt.bound
    elif number == 5:
        b = decode_breakdown(e)
        assert v.breakdown == b
        ends = {}
        for k, bar in v.bars.items():
            for x0, y, wd in zip(bar.opts["x0"], bar.opts["y"], bar.opts["width"]):
                ends[y] = max(ends.get(y, 0.0), x0 + wd)
        close([ends[2], ends[1], ends[0]], [b.floor_ms, e.decode_ms_per_token, b.compute_ms])
    elif number == 6:
        c = batching_curves(s, BATCHES)
        close(v.real.yData, c.tokens_per_s)
        close(v.ideal.yData, c.ideal_tokens_per_s)
        close(v.now.xData, [s.batch])
        bend = bend_batch(s)                # drawn only where a batch that large fits
        assert v.marks["real"] == (bend if bend and bend <= estimate(s).max_batch_that_fits else None)
        assert v.marks["ideal"] == compute_bound_batch(s, ideal=True)
    elif number == 7:
        rows = precision_table(s)
        close(v.bars.opts["width"], [r.weight_bytes_total / 1e9 for r in rows])
    elif number == 8:
        bars = gpu_bars(s)
        close(v.work_bars.opts["width"], [b.work_ms for b in bars])
        close(v.comm_bars.opts["width"], [b.comm_ms for b in bars])
        close([lab.pos().x() for lab in v.end_labels[:len(bars)]],
              [b.total_ms + v.plot.getPlotItem().vb.viewRange()[0][1] * 0.01 for b in bars])


@pytest.mark.parametrize("number,index", ALL_STATES)
def test_every_prepared_state_draws_the_models_numbers(window, number, index):
    v = open_state(window, number, index)
    state = CHAPTERS[number - 1].states[index]
    facts = chapter_facts(number, window.controller.estimate, dict(state.params))
    assert v.caption == facts.fill(state.caption) and "{" not in v.caption
    assert v.key_label.text() == facts.key.text and plain(v.key_caption.text()) == facts.key.label
    assert v.chart.accessibleDescription().startswith(v.caption) and facts.key.text in v.chart.accessibleDescription()
    assert v.takeaway == facts.claim(state.takeaway) and "{" not in v.takeaway     # the state's caption, filled
    assert window.lessons.strip.current == (number, index)
    check_model_numbers(window, v, number, state)
    assert len(chart_drawn(v)) > 3 and chart_problems(v) == []      # every word the chart draws is the model's


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
    qtbot.waitUntil(lambda: list(v.now.xData) == [32.0], timeout=2000)
    assert v.key_label.text() == chapter_facts(6, window.controller.estimate, {}).key.text


def test_measured_rows_sit_beside_the_model_only_in_their_scenario(window):
    # chapter 8, last state: llama-2-70b FP16 on MI300X at batch 1, speed-up = latency(1 GPU) / latency(N)
    v = open_state(window, 8, 2)
    comps = sorted((c for c in matching_measurements("llama-2-70b", "mi300x", "fp16", "end_to_end_latency_s")
                    if c.row.batch == 1), key=lambda c: c.row.n_gpus)
    one = comps[0]
    assert one.row.n_gpus == 1
    assert {n: m for n, m in v.measured.items()} == {c.row.n_gpus: (one.row.value / c.row.value,
                                                                    one.predicted / c.predicted) for c in comps}
    assert f"measured {sig3(one.row.value / comps[-1].row.value)}×" in v.end_labels[3].textItem.toPlainText()
    assert open_state(window, 8, 0).measured == {}               # an H100 FP8 chart shows no MI300X stars
    # chapter 6: only the state that switches to the published run (8B FP16, 1,024/1,024) has a star
    v = open_state(window, 6, 4)
    rows = [c for c in matching_measurements("llama-3.1-8b", "h100", "fp16", "end_to_end_latency_s")
            if c.row.batch == 1 and c.row.n_gpus == 1 and c.row.input_len == 1024]
    assert rows
    close(v.meas.yData, [c.row.batch * c.row.output_len / c.row.value for c in rows])
    close(v.pred.yData, [c.row.batch * c.row.output_len / c.predicted for c in rows])
    assert any(f"{m.error:+.0%}" in v.key_caption.text() for m in v.measured)   # disagreement shown
    for index in range(4):
        assert len(open_state(window, 6, index).meas.xData or []) == 0
    # chapter 7: the fp16-vs-fp8 pair for llama-3.1-8b on H100, in its own state
    v = open_state(window, 7, 3)
    a = next(c for c in rows)
    b = next(c for c in matching_measurements("llama-3.1-8b", "h100", "fp8", "end_to_end_latency_s")
             if c.row.batch == 1 and c.row.n_gpus == 1)
    assert v.key_label.text() == f"{sig3(a.row.value / b.row.value)}×"


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
        close(floats("flops_vs_first"), [p.flops_vs_first for p in generations(LESSON_PARTS["nvidia"])])
    elif number == 2:
        lat = hbm_latency_cycles(cat.gpu(s.gpu))
        close(floats("scheduler_issue_busy"), warp_curve(lat).issue_busy)
    elif number == 3:
        close(floats("bandwidth_bytes_per_s"), [p.bandwidth_bytes_per_s for p in ladder_points(cat.gpu(s.gpu))])
    elif number == 4:
        pt = roofline_point(cat.gpu(s.gpu), e.compute_dtype, CHAPTERS[3].states[0].param("intensity"))
        close(floats("attainable_flops")[:1], [pt.attainable_flops])
    elif number == 5:
        vals = {r[0]: r for r in body}
        close([float(vals["total"][1]), float(vals["total"][2])], [e.decode_floor_ms_per_token, e.decode_ms_per_token])
    elif number == 6:
        model_rows = [r for r in body if r[0] == "model"]
        close(floats("tokens_per_s", model_rows), sweep_batch(s, BATCHES).output_tokens_per_s)
    elif number == 7:
        close(floats("floor_ms_per_token"), [r.floor_ms_per_token for r in precision_table(s)])
    elif number == 8:
        close(floats("speedup"), [b.speedup for b in gpu_bars(s)])


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

@pytest.mark.parametrize("number", range(1, 9))
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
    v = open_state(window, 6, 4)
    assert v.measured
    plot = v.plot
    for m in v.measured:
        row = m.row
        pos = plot.tips.scene_pos(row.batch, m.measured)
        text = plot.tips.text_at(pos)
        assert row.source in text and row.framework in text
        assert f"batch {row.batch:,}" in text and f"{row.input_len:,} input / {row.output_len:,} output" in text
        assert f"{row.n_gpus} GPU" in text and error_text(m.error) in text
        assert f"Measured {m.measured:,.0f} tokens/s" in text
        # nearest within HOVER_PX, in screen space: a few pixels to the side (not up or down: the model's
        # prediction of the run and the curve's point at the same batch sit a few pixels above and below
        # the star when the model is close, and up or down would be nearer to them)
        assert plot.tips.text_at(pos + QPointF(4, 0)) == text
        ptext = plot.tips.text_at(plot.tips.scene_pos(row.batch, m.predicted))
        assert ptext.startswith("○") and f"{m.predicted:,.0f}" in ptext and row.source in ptext
    m = v.measured[0]
    pix = plot.mapFromScene(plot.tips.scene_pos(m.row.batch, m.measured))
    qtbot.mouseMove(plot.viewport(), pix)
    qtbot.waitUntil(lambda: plot.tips.shown != "", timeout=2000)
    assert m.row.source in plot.tips.shown
    assert QToolTip.text() == plot.tips.shown
    QToolTip.hideText()
    QApplication.sendEvent(plot.viewport(), QHelpEvent(QEvent.ToolTip, pix, plot.viewport().mapToGlobal(pix)))
    assert m.row.source in QToolTip.text() and QToolTip.text() != plot.toolTip()
    QToolTip.hideText()


def test_clicking_the_batching_plots_sets_the_batch(window, qtbot):
    assert [batch_at(math.log10(b)) for b in (1, 3, 256, 300, 4096, 9000)] == [1, 4, 256, 256, 4096, 4096]
    assert batch_at(-2.0) == 1
    v = open_state(window, 6, 0)
    p = v.plot
    for target in (256, 8):
        vb = p.getPlotItem().vb
        (_x0, _x1), (y0, y1) = vb.viewRange()
        pix = p.mapFromScene(vb.mapViewToScene(QPointF(math.log10(target), 0.5 * (y0 + y1))))
        qtbot.mouseClick(p.viewport(), Qt.LeftButton, pos=pix)
        window.controller.flush()
        assert window.controller.scenario.batch == target
        v.ensure_fresh()
        qtbot.waitUntil(lambda: list(v.now.xData) == [float(target)], timeout=2000)
    # a click outside the axes (on the tick labels) changes nothing
    qtbot.mouseClick(p.viewport(), Qt.LeftButton, pos=p.mapFromScene(p.getPlotItem().getAxis("left")
                                                                    .sceneBoundingRect().center()))
    window.controller.flush()
    assert window.controller.scenario.batch == 8


def _lines_at(text: str, width_px: float) -> list[str]:
    """``text`` laid out by Qt's own line breaking at ``width_px``: the lines' texts."""
    from PySide6.QtGui import QFont, QTextLayout
    lay = QTextLayout(text, QFont("DejaVu Sans", 14))
    lay.beginLayout()
    lines = []
    while True:
        line = lay.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width_px)
        lines.append(text[line.textStart():line.textStart() + line.textLength()])
    lay.endLayout()
    return lines


def test_a_unit_is_never_broken_at_its_slash_nor_parted_from_its_number(qapp):
    """The derivations on the lessons' side panel broke "3.35 TB/s" into "TB/" and "s" (seen on
    lesson 4's ridge), and "125" from "TFLOP/s" (lesson 1)."""
    from ui.kit.fit_text import keep_units
    from ui.plotting.screen_text import plain
    text = "ridge = 989 TFLOP/s ÷ 3.35 TB/s = 295 FLOP/byte; FLOP/s: 989 TFLOP/s ÷ 125 TFLOP/s = 7.92×"
    raw_breaks = set()
    for width in range(60, 400, 3):
        raw_breaks |= {ln.rstrip()[-1] for ln in _lines_at(text, width)[:-1]}
        for ln in _lines_at(keep_units(text), width)[:-1]:
            end = ln.rstrip()
            assert not end.endswith("/") and not end.endswith("/\u2060"), (width, ln)
            assert not re.search(r"\d$", end), (width, ln)                   # a number left without its unit
    assert "/" in raw_breaks                        # without it Qt does break there: the test can fail
    assert plain(keep_units(text)) == text          # the reader sees the same characters


def test_a_charts_key_wraps_between_its_entries_only(qapp):
    """Lesson 6's key broke "■ KV" from "cache does not fit" on a short slide, lesson 8's "■ per-"
    from "step software overhead": every line of a wrapped key now starts with a swatch."""
    from PySide6.QtGui import QTextDocument, QTextOption
    from ui.plotting.keys import SWATCHES, key_html
    entries = [("#fff", "this scenario: batch 1,024", "dot"), ("#0f0", "realistic", "line"),
               ("#aaa", "at peak numbers (floor)", "dashed"), ("#f80", "KV cache does not fit", "square"),
               ("#999", "per-step software overhead", "square")]
    doc = QTextDocument()
    opt = doc.defaultTextOption()
    opt.setWrapMode(QTextOption.WordWrap)              # as a word-wrapped QLabel lays its text out
    doc.setDefaultTextOption(opt)
    doc.setHtml(key_html(entries))
    marks = {html.unescape(v)[0] for v in SWATCHES.values()}
    wrapped = 0
    for width in range(200, 900, 7):
        doc.setTextWidth(width)
        doc.size()                            # lays it out
        block = doc.firstBlock()
        lay, text = block.layout(), block.text()
        starts = [text[lay.lineAt(k).textStart():].lstrip()[:1] for k in range(lay.lineCount())]
        wrapped += len(starts) > 1
        assert all(s in marks for s in starts), (width, [text[lay.lineAt(k).textStart():lay.lineAt(k).textStart()
                                                              + lay.lineAt(k).textLength()] for k in range(lay.lineCount())])
    assert wrapped > 10                       # narrow enough to wrap, or the test could not fail
