"""The speaker view on one screen (rehearsal), its notes, next-state preview and clock, and
model.lessons.speaker_notes."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from model.errors import ModelError
from model.lessons.chapters import default_chapters
from model.lessons.speaker_notes import neighbour_state, speaker_notes, state_claim
from qt_events import EVENTUALLY_MS, deliver

CHAPTERS = default_chapters()
COUNTS = [len(c.states) for c in CHAPTERS]


# ---------------------------------------------------------------- model

def test_speaker_notes_read_each_state_and_are_empty_when_absent(tmp_path):
    def chapter(n, states):
        return {"number": n, "key": f"k{n}", "title": f"t{n}", "takeaway": "", "states": states}
    doc = {"chapters": [chapter(1, [{"caption": "a", "notes": "Say  this\n first."}, {"caption": "b"}]),
                        chapter(2, [{"caption": "c", "notes": ""}])]}
    path = tmp_path / "lessons.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert speaker_notes(1, 0, path) == "Say this first."
    assert speaker_notes(1, 1, path) == ""
    assert speaker_notes(2, 0, path) == ""
    for bad in ((0, 0), (3, 0), (1, 2), (2, -1)):
        with pytest.raises(ModelError) as exc:
            speaker_notes(*bad, path=path)
        assert "\n" not in str(exc.value)


def test_the_shipped_lessons_have_notes_and_claims_for_every_state():
    for ch in CHAPTERS:
        for i in range(len(ch.states)):
            notes = speaker_notes(ch.number, i)      # the template filled with the state's numbers
            assert notes and "{" not in notes and "…" not in notes, (ch.number, i, notes)
            assert ("{" in ch.states[i].notes) or notes == " ".join(ch.states[i].notes.split())
            claim = state_claim(ch.number, i)
            assert claim and "{" not in claim and "…" not in claim, (ch.number, i, claim)


def test_neighbour_state_walks_the_talk_in_order():
    flat = [(c.number, i) for c in CHAPTERS for i in range(len(c.states))]
    for k, (n, i) in enumerate(flat):
        assert neighbour_state(COUNTS, n, i, +1) == (flat[k + 1] if k + 1 < len(flat) else None)
        assert neighbour_state(COUNTS, n, i, -1) == (flat[k - 1] if k > 0 else None)
    with pytest.raises(ModelError):
        neighbour_state(COUNTS, 1, 99)


# ---------------------------------------------------------------- rehearsal on one screen

@pytest.fixture
def window(lessons_window):
    yield lessons_window
    lessons_window.presenter.leave()


def test_s_rehearses_with_the_speaker_view_beside_the_audience_view(window, qtbot):
    window.enter_presenter(fullscreen=False)
    stage = window.presenter.stage
    assert stage.mode == "single" and stage.speaker is None          # one screen: the audience view alone
    qtbot.keyClick(window.lessons, Qt.Key_S)
    assert stage.mode == "rehearsal"
    sp = stage.speaker
    assert sp.isVisible() and sp.window() is window                     # one window, side by side
    central = window.centralWidget().geometry()
    dock = stage.dock.geometry()
    assert dock.left() >= central.right() and not central.intersects(dock)
    qtbot.keyClick(sp.notes, Qt.Key_PageDown)                          # its keys are the presenter's
    assert (window.lessons.number, window.lessons.index) == (1, 1)
    qtbot.keyClick(window.lessons, Qt.Key_S)
    assert stage.mode == "single" and not sp.isVisible()
    assert window.presenter.active


def test_in_a_narrow_window_the_speaker_view_rehearses_under_the_audience_view(window, qtbot):
    """A window narrower than REHEARSAL_BESIDE_MIN_PX: the speaker view docks under the audience
    view, which keeps the window's whole width (beside it, a 1024-px laptop left it 655 px);
    widened again, it goes back beside it."""
    from ui.present.stage import REHEARSAL_BESIDE_MIN_PX
    window.enter_presenter(fullscreen=False)
    stage = window.presenter.stage
    stage.toggle_rehearsal()
    try:
        window.resize(1024, 768)
        deliver()
        central, dock = window.centralWidget().geometry(), stage.dock.geometry()
        assert 1024 < REHEARSAL_BESIDE_MIN_PX and window.width() == 1024
        assert dock.top() >= central.bottom() and central.width() == window.width()
        window.resize(1920, 1080)
        deliver()
        central, dock = window.centralWidget().geometry(), stage.dock.geometry()
        assert dock.left() >= central.right() and not central.intersects(dock)
    finally:
        stage.toggle_rehearsal()


def test_the_speaker_view_shows_notes_next_state_and_the_clock(window, qtbot):
    window.enter_presenter(fullscreen=False)
    window.presenter.stage.toggle_rehearsal()
    sp = window.presenter.stage.speaker
    window.show_chapter(6, 0)
    notes = speaker_notes(6, 0)
    assert sp.notes.text() == (notes or "(no notes for this step)")
    assert sp.next_state == (6, 1)
    assert sp.next_caption.text() == state_claim(6, 1)
    assert "{" not in sp.next_caption.text() and sp.next_caption.text()
    # drawn on a later turn by the previews' own timer (real): waited for, never timed
    qtbot.waitUntil(lambda: sp.thumbs.get(6, 1) is not None or bool(sp.thumbs.failed), timeout=EVENTUALLY_MS)
    assert not sp.thumbs.failed
    pm = sp.next.pixmap                      # shown as it was drawn (the same turn)
    assert pm is sp.thumbs.get(6, 1)
    assert pm.width() > 0 and abs(pm.width() / pm.height() - 16 / 9) < 0.02
    img = pm.toImage()                       # a picture of the chapter, not an empty frame
    colours = {img.pixel(x, y) for x in range(0, img.width(), 37) for y in range(0, img.height(), 29)}
    assert len(colours) > 5
    rendered = sp.thumbs.renders
    window.show_chapter(6, 1)
    window.show_chapter(6, 0)                # back: the preview comes from the cache, at once
    deliver()
    assert sp.next.pixmap is pm and sp.thumbs.get(6, 1) is pm and sp.thumbs.renders == rendered
    sp.clock.restart()
    sp.tick()
    assert sp.elapsed_label.text().startswith("00:0")
    assert sp.clock_label.text().count(":") == 1
    assert not sp.now.isVisible()            # rehearsing: the audience view is right beside it


def test_the_next_state_at_the_end_of_the_talk_is_the_end(window, qtbot):
    window.enter_presenter(fullscreen=False)
    window.presenter.stage.toggle_rehearsal()
    sp = window.presenter.stage.speaker
    window.show_chapter(len(CHAPTERS), COUNTS[-1] - 1)
    assert sp.next_state is None and sp.next.pixmap is None and "end" in sp.next.empty_text


def test_speaker_text_is_18_px_or_more_at_1080p(window, qtbot):
    window.resize(1920, 1080)
    window.enter_presenter(fullscreen=False)
    window.presenter.stage.toggle_rehearsal()
    sp = window.presenter.stage.speaker
    from PySide6.QtWidgets import QLabel, QListWidget
    for w in sp.findChildren(QLabel) + sp.findChildren(QListWidget):
        assert w.font().pixelSize() >= 18 or w.fontInfo().pixelSize() >= 18, (w.objectName(), w.fontInfo().pixelSize())


def test_a_preview_that_cannot_be_drawn_says_so_and_the_talk_goes_on(window, qtbot, monkeypatch):
    window.enter_presenter(fullscreen=False)
    window.presenter.stage.toggle_rehearsal()
    sp = window.presenter.stage.speaker

    def broken(_n, _i):
        raise RuntimeError("no chart here")
    monkeypatch.setattr(sp.thumbs, "render", broken)
    window.show_chapter(7, 0)
    qtbot.waitUntil(lambda: (7, 1) in sp.thumbs.failed, timeout=EVENTUALLY_MS)
    assert sp.next.pixmap is None and "no chart here" in sp.next.empty_text
    qtbot.keyClick(window.lessons, Qt.Key_PageDown)
    assert (window.lessons.number, window.lessons.index) == (7, 1)
