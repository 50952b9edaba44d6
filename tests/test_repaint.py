"""Issue 13, speed: what a control change redoes. No timings here (those are in
benches/bench_ui_latency.py); these check the structure that keeps a change within a frame:
nothing moves, the numbers are new in the first paint, the plot paints once, and the chip
redraws its frame only for a new layout.

What is counted is counted by events, not by time: Qt's queue is delivered until it is empty
(tests/qt_events.deliver) and no timer fires in between, so the chip's animation frames and a
chapter page warmed 400 ms after a visit (ui/lessons/page.py) cannot land in a count however busy
the machine is."""
from PySide6.QtCore import QEvent, QObject

from model.readouts import roofline as rr
from qt_events import deliver
from ui.explore.controls import batch_to_slider

BATCHES = (2, 16, 32, 128, 256, 512, 1024, 4096, 1)   # across the fit limit and the footer's line count


def _geometry(w) -> dict:
    parts = {"roofline": w.roofline, "chip": w.hierarchy.canvas, "gauges": w.gauges, "controls": w.controls,
             "footer": w.explanation}
    return {k: (v.mapTo(w, v.rect().topLeft()).toTuple(), v.size().toTuple()) for k, v in parts.items()}


def _change(w, **changes) -> None:
    """One change, as a control makes it; then everything it posted, delivered: one estimate."""
    c = w.controller
    seen = []
    c.changed.connect(seen.append)
    try:
        if "batch" in changes:
            w.controls.batch_slider.setValue(batch_to_slider(changes["batch"]))
        else:
            c.set(**changes)
        deliver()
    finally:
        c.changed.disconnect(seen.append)
    assert len(seen) == 1, f"{changes}: {len(seen)} estimates"


def _still(w) -> None:
    """No animation frames in between: the chip paused and its clock stopped, the queue empty."""
    w.hierarchy.pause()
    w.hierarchy._timer.stop()
    deliver()


def chip_on(w, gpu: str):
    """The window at 1600×900, the chip still, showing ``gpu`` and repainted: its chip view."""
    w.resize(1600, 900)
    _still(w)
    _change(w, gpu=gpu)
    w.repaint()
    return w.hierarchy


def test_a_batch_change_moves_no_panel(shared_window, qtbot):
    """A sentence that needs a second line or a warning that appears keeps to its reserved room:
    dragging the batch re-lays out nothing (a re-layout resizes the plot and the chip: a frame lost)."""
    w = shared_window
    w.resize(1600, 900)
    deliver()
    before = _geometry(w)
    notes, lines = set(), set()
    for b in BATCHES:
        _change(w, batch=b)
        assert _geometry(w) == before, f"batch {b} moved a panel"
        notes.add(bool(w.gauges.notes.text()))
        lines.add(w.explanation.heightForWidth(w.explanation.width()))
    assert notes == {True, False}             # the walk did show and clear a warning


class _Paints(QObject):
    """Records each paint of the plot and the chip with what it showed: the operating point's
    label (plot) and the estimate of the chip's scene."""

    def __init__(self, w):
        super().__init__()
        self.w = w
        self.log: list[tuple[str, object]] = []

    def eventFilter(self, obj, ev) -> bool:
        if ev.type() == QEvent.Paint:
            if obj is self.w.roofline.plot.viewport():
                self.log.append(("plot", self.w.roofline.op_label.toPlainText()))
            elif obj is self.w.hierarchy.canvas:
                self.log.append(("chip", self.w.hierarchy.scene.est))
        return False


def test_the_first_paint_after_a_change_shows_it_and_the_plot_paints_once(shared_window, qtbot, qapp):
    """The recompute runs ahead of Qt's repaint, and the plot's changes reach its view in that
    same repaint: the first frame after a change already shows the new numbers."""
    w = shared_window
    _still(w)
    paints = _Paints(w)
    qapp.installEventFilter(paints)
    try:
        for change in ({"batch": 8}, {"gpu": "a100-sxm4-80gb"}, {"precision": "fp8"}, {"gpus": 4}):
            paints.log.clear()
            _change(w, **change)
            e = w.controller.estimate
            kinds = [k for k, _ in paints.log]
            assert kinds.count("plot") == 1 and kinds.count("chip") == 1, f"{change}: {kinds}"
            shown = dict(paints.log)
            assert shown["plot"] == rr.operating_point_label(e), change
            assert shown["chip"] is e, change
    finally:
        qapp.removeEventFilter(paints)


class _WindowPaints(QObject):
    def __init__(self, w):
        super().__init__()
        self.w, self.count = w, 0

    def eventFilter(self, obj, ev) -> bool:
        if ev.type() == QEvent.Paint and obj is self.w:
            self.count += 1
        return False


def test_a_change_repaints_the_window_once(shared_window, qtbot, qapp):
    """One change, one repaint of the window. Two things asked for a second: a rich-text label
    (the HBM line under the gauges) laid out its new text in the paint, and that layout asked
    for another paint; and the layouts a change asked for (the badge's new width) ran after the
    plot's view had already repainted the window; and the HBM line, given a new width by its
    title's new words (HBM → GDDR6 per GPU), laid its document out again in the paint."""
    w = shared_window
    _still(w)
    paints = _WindowPaints(w)
    qapp.installEventFilter(paints)
    try:
        for change in ({"gpu": "a100-sxm4-80gb"}, {"gpu": "mi300x-192gb"}, {"model": "llama-3.1-70b"},
                       {"precision": "fp8"}, {"gpus": 4}, {"gpus": 1}, {"gpu": "h100-sxm5-80gb"},
                       {"batch": 512}, {"batch": 8}, {"gpu": "l40s-48gb"}, {"gpu": "mi300x-192gb"}):
            paints.count = 0
            badge = w.gauges.badge.text()
            _change(w, **change)
            assert paints.count == 1, f"{change}: {paints.count} repaints (badge {badge} → {w.gauges.badge.text()})"
    finally:
        qapp.removeEventFilter(paints)


def test_the_chip_draws_its_frame_once_per_layout(shared_window, qtbot):
    w = shared_window
    v = w.hierarchy
    deliver()
    frame = v._frame[1]
    _change(w, batch=64)
    v.canvas.repaint()
    assert v._frame[1] is frame               # the same boxes: only the words are redrawn
    _change(w, gpu="mi300x-192gb")
    v.canvas.repaint()
    assert v._frame[1] is not frame           # another chip, another layout
    texts = v.shown_texts()                   # the frame's words are still among what it shows
    assert "RF" in texts or "SMEM" in texts


def test_a_wrapped_rich_label_measures_other_widths_as_qlabel_does(shared_window, qtbot):
    """ui.kit.steady_label answers a layout's question about a width the label does not have from a
    document of its own (QLabel would re-lay its text out and ask for a paint): the same height,
    framed or not, with a style sheet's padding or not, for the window's and a chapter's labels."""
    from PySide6.QtWidgets import QLabel

    from ui.kit.steady_label import WrapLabel
    w = shared_window
    w.show_chapter(1)                         # laid out at the page's width (the Explore page keeps its own)
    deliver()
    labels = [lab for lab in w.findChildren(WrapLabel) if lab.width() > 1]
    assert {lab.objectName() for lab in labels} >= {"notes", "chapterTakeaway"}
    texts = ["<span style='color:#D55E00; font-weight:600'>⚠ does not fit at batch 512: at most 301 "
             "sequences fit</span><br><span>⚠ a second note, long enough to wrap onto a second line</span>",
             "<b>bold</b> words and more words " * 6, "short"]
    compared = 0
    for lab in labels:
        kept = lab.text()
        for text in texts:
            lab.setText(text)
            if not lab._rich():
                continue
            for width in (120, 230, 400, 673, 900):
                assert lab._scratch_height(width) == QLabel.heightForWidth(lab, width), (lab.objectName(), width, text)
                compared += 1
        lab.setText(kept)
    assert compared >= 30


def test_a_chapter_switch_repaints_the_window_once(shared_window, qtbot, qapp):
    """A stacked widget that shows another page leaves a repaint for each of its widgets for
    later, and the chapter strip changed after the page's chart had repainted the window: each
    was a second repaint of the whole page (~5 ms at 1920×1080). (A page built ahead of its visit
    is tests/test_chapter_warming.py's: here no timer fires, so none is built while counting.)"""
    w = shared_window
    w.resize(1920, 1080)
    _still(w)
    for n in (1, 2, 3):
        w.show_chapter(n)                     # built and visited once
        deliver()
    paints = _WindowPaints(w)
    qapp.installEventFilter(paints)
    try:
        for n in (2, 3, 1, 3):
            paints.count = 0
            w.show_chapter(n)
            deliver()
            assert paints.count == 1, f"chapter {n}: {paints.count} repaints"
            assert w.lessons.strip.current == (n, 0)
    finally:
        qapp.removeEventFilter(paints)


def test_going_back_to_a_gpu_reuses_its_pictures_pixel_for_pixel(shared_window, qtbot):
    """Tick numbers depend on the range only, the chip's picture on its scene (layout, estimate,
    readouts) only: going back to a GPU replays the pictures drawn for it (no ticks, boxes or
    words worked out again), and they show exactly what freshly drawn ones show."""
    w = shared_window
    w.resize(1600, 900)
    _still(w)
    axes = [w.roofline.plot.getPlotItem().getAxis(n) for n in ("left", "bottom")]
    v = w.hierarchy
    _change(w, gpu="l4-24gb")                       # (the window settled at this size)
    w.repaint()
    _change(w, gpu="h100-sxm5-80gb")
    w.repaint()
    first = [ax.picture for ax in axes]
    static = v._static
    shown = w.roofline.plot.grab().toImage()
    _change(w, gpu="l4-24gb")                       # another range (a peak ~4× lower) and another chip
    w.repaint()
    assert any(ax.picture is not p for ax, p in zip(axes, first)) and v._static is not static
    _change(w, gpu="h100-sxm5-80gb")
    w.repaint()
    assert all(ax.picture is p for ax, p in zip(axes, first))
    assert v._static is static
    assert w.roofline.plot.grab().toImage() == shown
    for ax in axes:                                 # drawn afresh: the same pixels
        ax._pictures.clear()
        ax.picture = None
    assert w.roofline.plot.grab().toImage() == shown
    kept = static.toImage()
    v._frames.clear()
    v._statics.clear()
    v._frame = v._static = None
    v.canvas.repaint()
    assert v._static is not static and v._static.toImage() == kept


def test_parts_of_about_one_peak_share_the_roofline_range_and_its_ticks(shared_window, qtbot):
    """The plot's top is ≥ 4× the highest roof, on quarter-decade steps: H100 SXM (1.98 PFLOP/s FP8) and
    MI300X (2.61) land on one step, so changing between them (or to either for the first time) keeps
    the axes' ticks, while the roofs, their labels and the chip change."""
    w = shared_window
    w.resize(1600, 900)
    _still(w)
    axes = [w.roofline.plot.getPlotItem().getAxis(n) for n in ("left", "bottom")]
    _change(w, gpu="h100-sxm5-80gb")
    w.repaint()
    first, span = [ax.picture for ax in axes], w.roofline._y_span
    _change(w, gpu="mi300x-192gb")
    w.repaint()
    assert w.roofline._y_span == span and all(ax.picture is p for ax, p in zip(axes, first))
    top = max(r.peak_flops for r in rr.roofs(w.controller.snapshot.hardware, w.controller.snapshot.estimate))
    assert 4.0 * top <= 10 ** span[1] < 4.0 * top * 10 ** 0.25 * 1.0000001
    assert abs(span[1] * 4 - round(span[1] * 4 - 0.5) - 0.5) < 1e-9      # between decades: no label on the edge


def test_chips_alike_in_shape_share_one_layout_and_frame_picture(shared_window, qtbot):
    """The chip draws at most MAX_SMS SMs: A100 (108) and H100 SXM (132), both five HBM stacks, have
    one layout and one frame picture (boxes, SMs, stacks), so a first visit to either after the other
    draws only its words; the words are each GPU's own."""
    from ui.chip.layout import MAX_SMS
    w = shared_window
    v = chip_on(w, "a100-sxm4-80gb")
    lay, frame, static = v.lay, v._frame[1], v._static
    assert v.hw.units > MAX_SMS
    _change(w, gpu="h100-sxm5-80gb")
    w.repaint()
    assert v.hw.units > MAX_SMS and v.hw.units != 108
    assert v.lay is lay and v._frame[1] is frame
    assert v._static is not static and v._static.toImage() != static.toImage()


def test_the_chip_keeps_pictures_of_its_present_size_only(shared_window, qtbot):
    """Pictures kept for going back (ui/chip/view.py) are of the canvas' size: a resize lets the
    others go (each ~2 MB at 1600×900, four times that on a 2560×1440 stage), so memory does not
    grow with every size the window has had."""
    w = shared_window
    v = w.hierarchy
    for size in ((1600, 900), (1280, 720)):
        w.resize(*size)
        _still(w)
        for gpu in ("mi300x-192gb", "h100-sxm5-80gb"):
            _change(w, gpu=gpu)
            w.repaint()
    now = (v.canvas.width(), v.canvas.height())
    assert v._frames and v._statics
    assert {k[2:4] for k in v._frames} == {now} and {k[:2] for k, _pm in v._statics} == {now}
    w.resize(1600, 900)
    _still(w)


def test_a_change_is_the_chips_next_animation_frame(shared_window, qtbot):
    """While the chip animates, a change's paint is also its next frame (the tick due meanwhile
    would paint the chip again right after): the change advances the animation once."""
    w = shared_window
    v = w.hierarchy
    v.resume()
    v._timer.start()
    deliver()
    try:
        for change in ({"batch": 32}, {"gpu": "a100-sxm4-80gb"}, {"precision": "fp8"}):
            frames = v.frames
            _change(w, **change)
            assert v.frames == frames + 1, change
            assert not v._restart_clock and v.ticking     # its next frame a full frame after this paint
    finally:
        _still(w)
