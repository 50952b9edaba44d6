"""Issue 27, speed: a GPU not shown before pastes its chip's words, drawn ahead while the window
was idle, over its frame (ui/chip/patches.py, ChipPictures.warm_words). What is drawn, and
that it is the same picture, is checked; no timings (benches/bench_ui_latency.py has them)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPixmap

from model.catalog.active import default_catalog
from model.physics.estimate import estimates_on
from model.readouts.flow import flows_on
from test_drawn_ahead import _warm_now
from test_repaint import _change, chip_on
from ui.chip import pictures
from ui.chip.patches import paste, patch_bytes, tile_rects, word_patches
from ui.chip.pictures import ChipPictures


@settings(max_examples=200, deadline=None)
@given(mask=arrays(bool, st.tuples(st.integers(1, 70), st.integers(1, 70)), elements=st.booleans()),
       tile=st.sampled_from([1, 4, 16]))
def test_the_rectangles_cover_exactly_the_tiles_that_differ(mask, tile):
    """Every pixel that differs lies in a rectangle; every tile in a rectangle has one that
    differs; no two rectangles overlap; all lie inside the picture."""
    h, w = mask.shape
    covered = np.zeros((h, w), int)
    for x, y, rw, rh in tile_rects(mask, tile):
        assert x % tile == 0 and y % tile == 0 and rw > 0 and rh > 0 and x + rw <= w and y + rh <= h
        covered[y:y + rh, x:x + rw] += 1
        for ty in range(y, y + rh, tile):
            for tx in range(x, x + rw, tile):
                assert mask[ty:ty + tile, tx:tx + tile].any()
    assert covered.max(initial=0) <= 1
    assert (covered[mask] == 1).all()


def _pictures(dpr: float, w: int = 300, h: int = 200) -> tuple[QPixmap, QPixmap]:
    """A frame (boxes) and the same frame with words over it, at ``dpr``."""
    frame = QPixmap(int(w * dpr), int(h * dpr))
    frame.setDevicePixelRatio(dpr)
    frame.fill(QColor("#202428"))
    p = QPainter(frame)
    p.setRenderHint(QPainter.Antialiasing, True)
    p.setPen(QColor("#8090a0"))
    p.drawRoundedRect(QRectF(10.5, 12.25, 180, 120), 6, 6)
    p.end()
    words = QPixmap(frame)
    p = QPainter(words)
    p.setRenderHint(QPainter.TextAntialiasing, True)
    f = QFont()
    f.setPixelSize(13)
    p.setFont(f)
    p.setPen(QColor("#f0e442"))
    p.drawText(QRectF(20, 20, 160, 20), int(Qt.AlignLeft | Qt.AlignVCenter), "3.35 TB/s HBM3")
    p.drawText(QRectF(150, 150, 140, 40), int(Qt.AlignRight), "989 TFLOP/s")
    p.end()
    return frame, words


def test_pasting_the_pieces_over_the_frame_gives_the_picture_at_every_device_pixel_ratio(qapp):
    for dpr in (1.0, 1.25, 1.5, 2.0):
        frame, words = _pictures(dpr)
        pieces = word_patches(words, frame)
        assert pieces and patch_bytes(pieces) < words.width() * words.height() * 4 / 2
        assert paste(frame, pieces).toImage() == words.toImage(), dpr
        assert paste(frame, ()).toImage() == frame.toImage()


def _renders(monkeypatch) -> list:
    drawn = []
    render = ChipPictures._render
    monkeypatch.setattr(ChipPictures, "_render", lambda self, *a, **k: drawn.append(a) or render(self, *a, **k))
    return drawn


def test_a_gpu_not_shown_before_pastes_the_words_drawn_ahead_the_same_picture(shared_window, qtbot, monkeypatch):
    """Once idle, the words of the menu's other chips in this scenario are drawn ahead; choosing
    any of them draws no words, and shows the picture drawing them would have given."""
    w = shared_window
    v = chip_on(w, "h100-sxm5-80gb")
    v._statics.clear()
    v._ahead.clear()
    _warm_now(v)
    assert len(v._ahead) >= 20
    assert sum(kept[2] for kept in v._ahead.values()) <= pictures.PATCH_BYTES_KEPT
    drawn = _renders(monkeypatch)
    for gpu in ("l40s-48gb", "b200-180gb", "v100-sxm2-32gb", "tpu-v5p-95gb", "m1-max-64gb", "mi300x-192gb"):
        _change(w, gpu=gpu)
        w.repaint()
        assert v.hw.id == gpu and not drawn, f"{gpu}: its words were drawn on the change"
        fresh = v._render(v.canvas.width(), v.canvas.height(), v.canvas.devicePixelRatioF(), fresh=True)
        drawn.clear()
        assert v._static.toImage() == fresh.toImage(), gpu


def test_words_drawn_for_another_scenario_are_never_pasted(shared_window, qtbot, monkeypatch):
    """The words drawn ahead at one batch are not those of another: a GPU chosen after a batch
    change (before the window was idle again) has its words drawn, at the new batch."""
    w = shared_window
    v = chip_on(w, "h100-sxm5-80gb")
    v._statics.clear()
    v._ahead.clear()
    _warm_now(v)
    _change(w, batch=64)
    drawn = _renders(monkeypatch)
    _change(w, gpu="l40s-48gb")
    w.repaint()
    assert drawn and v.scene.est.scenario.batch == 64


def test_the_words_drawn_ahead_keep_to_their_room_and_a_pass_never_drops_its_own(shared_window, qtbot,
                                                                                  monkeypatch):
    """With room for a few GPUs' words, a pass draws that many and stops (it does not let go of
    the ones it drew to draw more); the next scenario's pass lets the older ones go."""
    w = shared_window
    v = chip_on(w, "h100-sxm5-80gb")
    v._ahead.clear()
    monkeypatch.setattr(pictures, "PATCH_BYTES_KEPT", 3 * 700_000)
    _warm_now(v)
    first = dict(v._ahead)
    assert 1 <= len(first) < 10
    assert sum(kept[2] for kept in first.values()) <= pictures.PATCH_BYTES_KEPT
    _change(w, batch=16)
    _warm_now(v)
    assert v._ahead and not set(v._ahead) & set(first)
    assert all(key[4].batch == 16 for key in v._ahead)


def test_a_pass_after_a_change_draws_the_words_of_every_menu_gpu(shared_window, qtbot):
    """After a change that gives some chips another shape (a batch that no longer fits on small
    parts), the pass makes room among the frames of earlier passes and draws every GPU's words."""
    w = shared_window
    v = chip_on(w, "h100-sxm5-80gb")
    v._ahead.clear()
    _warm_now(v)
    _change(w, batch=256)
    _warm_now(v)
    scenario = w.controller.snapshot.estimate.scenario
    runs = [e.scenario.gpu for e in estimates_on(scenario, [g.id for g in default_catalog().gpus])
            if e.scenario.gpu != scenario.gpu]
    mine = sorted(key[4].gpu for key in v._ahead if key[4].batch == 256)
    assert mine == sorted(runs)


def test_a_chip_whose_frame_finds_no_room_is_passed_over_and_the_pass_goes_on(shared_window, qtbot, monkeypatch):
    """With room for three frames, the pass draws the words of every GPU whose chip has one of
    the frames kept, also those after a GPU it had to pass over."""
    w = shared_window
    v = chip_on(w, "h100-sxm5-80gb")
    v._ahead.clear()
    v._frames = {v._frame[0]: v._frame[1]}
    monkeypatch.setattr(pictures, "FRAMES_KEPT", 4)
    _warm_now(v)
    assert len(v._frames) == 3
    snap = w.controller.snapshot
    dpr = v.canvas.devicePixelRatioF()
    kept = [e.scenario.gpu for _g, e, f, hw in flows_on(snap.estimate.scenario, [g.id for g in snap.catalog.gpus])
            if e.scenario.gpu != "h100-sxm5-80gb"
            and (v._shape(f, hw)[0], v._pal.name, *v._shape(f, hw)[1:3], dpr) in v._frames]
    assert len(kept) > 2 and sorted(key[4].gpu for key in v._ahead) == sorted(kept)
