"""Presenter mode: keys (and a clicker's Page Up/Down) walk every chapter and prepared state,
transitions glide, R returns to the prepared state, B blanks, Esc leaves; scenario files
round-trip and a broken file changes nothing."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from model import Scenario
from model.lessons.chapters import default_chapters
from model.files.scenario_file import load_scenario_with_chapter
from qt_events import drive
from ui.shell.app import run
from ui.state.glide import glide_params, glide_scenario

CHAPTERS = default_chapters()
TOTAL_STATES = sum(len(c.states) for c in CHAPTERS)


@pytest.fixture
def window(shared_window):
    """One window for the module, reset before each test (tests/conftest.py)."""
    return shared_window


def where(w):
    return w.lessons.number, w.lessons.index


def assert_at_prepared_state(w, number, index):
    state = CHAPTERS[number - 1].states[index]
    w.controller.flush()
    v = w.lessons.current_view
    assert where(w) == (number, index)
    assert w.controller.scenario == state.scenario
    assert v.params == dict(state.params)
    assert v.caption_label.template == state.caption and "{" not in v.caption
    v.ensure_fresh()
    assert v.error_text == ""


def test_f5_enters_presenter_mode_with_large_type_and_esc_leaves(window, qtbot):
    small = window.theme.scale
    qtbot.keyClick(window.controls, Qt.Key_F5)
    assert window.presenter.active and window.presenting
    assert window.lessons_visible()
    assert not window.controls_scroll.isVisible() and not window.mode_bar.isVisible()
    assert window.theme.scale > small
    qtbot.keyClick(window, Qt.Key_C)                   # the speaker can bring the controls back
    assert window.controls_scroll.isVisible()
    qtbot.keyClick(window, Qt.Key_Escape)
    assert not window.presenter.active
    assert window.controls_scroll.isVisible() and window.mode_bar.isVisible()
    assert window.theme.scale == small
    assert not window.isFullScreen()


def test_keys_walk_every_chapter_and_state_and_back(window, qtbot):
    window.enter_presenter(fullscreen=False)
    window.show_chapter(1, 0)
    assert_at_prepared_state(window, 1, 0)
    seen = [where(window)]
    keys = [Qt.Key_PageDown, Qt.Key_Right, Qt.Key_Space, Qt.Key_Down]
    for k in range(TOTAL_STATES - 1):
        qtbot.keyClick(window.lessons, keys[k % len(keys)])
        assert_at_prepared_state(window, *where(window))
        seen.append(where(window))
    assert seen == [(c.number, i) for c in CHAPTERS for i in range(len(c.states))]
    qtbot.keyClick(window.lessons, Qt.Key_PageDown)    # at the end: stays
    assert where(window) == seen[-1]
    for _ in range(TOTAL_STATES - 1):
        qtbot.keyClick(window.lessons, Qt.Key_PageUp if _ % 2 else Qt.Key_Left)
    assert_at_prepared_state(window, 1, 0)
    qtbot.keyClick(window.lessons, Qt.Key_7)            # number keys jump to a chapter
    assert_at_prepared_state(window, 7, 0)
    qtbot.keyClick(window.lessons, Qt.Key_End)
    assert where(window) == seen[-1]


def test_a_clicker_works_even_when_a_slider_has_focus(window, qtbot):
    window.enter_presenter(fullscreen=False)
    window.show_chapter(2, 0)
    v = window.lessons.current_view
    v.warps_slider.setFocus()
    qtbot.keyClick(v.warps_slider, Qt.Key_PageDown)
    assert where(window) == (2, 1)
    qtbot.keyClick(v.warps_slider, Qt.Key_Right)
    assert where(window) == (2, 2)
    assert v.warps_slider.value() == CHAPTERS[1].states[2].param("warps")


def test_live_changes_then_r_returns_to_the_prepared_state(window, qtbot):
    window.enter_presenter(fullscreen=False)
    window.show_chapter(6, 1)
    window.controller.set(batch=8, gpu="a100-sxm4-80gb")
    window.controller.flush()
    assert window.controller.scenario.batch == 8
    qtbot.keyClick(window.lessons, Qt.Key_R)
    assert_at_prepared_state(window, 6, 1)
    window.lessons.current_view.set_params(foo=1)
    qtbot.keyClick(window.lessons, Qt.Key_Home)
    assert_at_prepared_state(window, 6, 1)


def test_b_blanks_and_any_key_returns(window, qtbot):
    window.enter_presenter(fullscreen=False)
    window.show_chapter(4, 2)
    qtbot.keyClick(window.lessons, Qt.Key_B)
    assert window.presenter.blanked
    img = window.grab().toImage()
    c = img.pixelColor(img.width() // 2, img.height() // 2)
    assert (c.red(), c.green(), c.blue()) == (0, 0, 0)
    qtbot.keyClick(window.lessons, Qt.Key_X)
    assert not window.presenter.blanked
    assert where(window) == (4, 2)                       # the key that un-blanks does nothing else
    qtbot.keyClick(window.lessons, Qt.Key_B)
    qtbot.keyClick(window.lessons, Qt.Key_PageDown)
    assert not window.presenter.blanked and where(window) == (4, 2)


def test_outside_presenter_mode_a_focused_slider_keeps_its_arrows(window, qtbot):
    window.show_chapter(2, 0)
    v = window.lessons.current_view
    v.warps_slider.setFocus()
    qtbot.keyClick(v.warps_slider, Qt.Key_Right)
    assert where(window) == (2, 0)
    assert v._timer.isActive()                          # the page redraws on the next turn …
    v.ensure_fresh()                                    # … (what that 0 ms timer runs, run here)
    assert v.result.warps == 2
    qtbot.keyClick(v.warps_slider, Qt.Key_PageDown)     # a clicker still steps
    assert where(window) == (2, 1)


def test_transitions_glide_and_land_exactly(window, qtbot):
    """The glide's clock is driven by hand (tests/qt_events.drive): which batches it passes through
    and how many recomputes it makes are the same on any machine."""
    window.show_chapter(6, 0)
    window.controller.flush()
    window.lessons.glide.duration_ms = 300
    batches = []
    window.controller.changed.connect(lambda snap: batches.append(snap.requested.batch))
    window.lessons.step(+1)                              # batch 1 → 64
    assert window.lessons.glide.running
    turns = drive(window.lessons.glide.anim, per_turn=2)   # two animation frames per event-loop turn
    assert not window.lessons.glide.running
    window.controller.flush()
    assert window.controller.scenario == CHAPTERS[5].states[1].scenario
    assert any(1 < b < 64 for b in batches), batches     # it passed through the batches in between
    assert batches == sorted(batches)                    # monotone, no jumps back
    assert len(batches) == turns > 5                     # coalesced: one recompute per turn, not per frame
    # discrete fields switch at once; chapter knobs glide too
    window.show_chapter(4, 0)
    window.lessons.glide.duration_ms = 300
    v = window.lessons.current_view
    seen = []
    orig = v.set_params

    def spy(**kw):
        seen.append(kw.get("intensity"))
        orig(**kw)
    v.set_params = spy
    window.lessons.step(+1)                              # intensity 1 → 30
    assert window.lessons.glide.running
    drive(window.lessons.glide.anim)
    assert not window.lessons.glide.running
    assert any(1 < x < 30 for x in seen if x is not None)
    assert v.params["intensity"] == 30.0


def test_glide_helpers():
    a = Scenario(batch=1, input_len=128, gpu="h100")
    b = Scenario(batch=64, input_len=8192, gpu="a100")
    mid = glide_scenario(a, b, 0.5)
    assert mid.batch == 8 and mid.input_len == 1024 and mid.gpu == "a100"
    assert glide_scenario(a, b, 1.0) == b
    assert glide_params({"intensity": 1.0, "line": "amd"}, {"intensity": 100.0, "line": "nvidia"}, 0.5) == \
        {"intensity": pytest.approx(10.0), "line": "nvidia"}
    assert glide_params({"warps": 1}, {"warps": 16}, 0.5)["warps"] in (8, 9)


def test_scenario_files_round_trip(window, tmp_path):
    window.show_lessons()
    window.show_chapter(7, 1)
    window.controller.set(batch=4)
    window.controller.flush()
    path = tmp_path / "talk.json"
    assert window.save_scenario_to(str(path))
    saved = window.controller.scenario
    s, chapter = load_scenario_with_chapter(path)
    assert s == saved and chapter == 7
    window.show_chapter(2, 0)
    window.show_explore()
    assert window.open_scenario(str(path))
    window.controller.flush()
    assert window.controller.scenario == saved
    assert window.lessons_visible() and window.lessons.number == 7
    assert "opened" in window.lessons.status.text()


@pytest.mark.parametrize("content", ["{not json", json.dumps({"something": "else"}),
                                     json.dumps({"memory_wall_scenario": 1, "scenario": {"gpu": "nope-9000"}}),
                                     json.dumps({"memory_wall_scenario": 1, "scenario": {}, "chapter": 12}),
                                     None])
def test_a_broken_or_foreign_file_shows_one_line_and_changes_nothing(window, tmp_path, content):
    window.show_chapter(5, 1)
    window.controller.flush()
    before, where_before = window.controller.scenario, where(window)
    path = tmp_path / "broken.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert not window.open_scenario(str(path))
    window.controller.flush()
    assert window.controller.scenario == before and where(window) == where_before
    msg = window.lessons.status.text()
    assert msg and "\n" not in msg
    assert "font-weight" in window.lessons.status.styleSheet()     # shown as an error


def test_ctrl_s_and_ctrl_o_are_wired(window):
    from PySide6.QtGui import QKeySequence
    shortcuts = {a.shortcut().toString() for a in window.actions()}
    assert QKeySequence(QKeySequence.Save).toString() in shortcuts
    assert QKeySequence(QKeySequence.Open).toString() in shortcuts


@pytest.mark.parametrize("chapter,presenter", [(6, True), (3, False)])
def test_command_line_chapter_screenshot(qtbot, tmp_path, chapter, presenter):
    out = tmp_path / "shot.png"
    assert run(None, screenshot=str(out), size=(1280, 720), chapter=chapter, presenter=presenter) == 0
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1280, 720)


@pytest.mark.parametrize("focus", ["batch_spin", "batch_slider", "gpu"])
def test_f5_from_a_focused_control_on_explore(window, qtbot, focus):
    """On the Explore page the presenter does not filter every event of the app (a control
    change would pass ~240 of them through Python); F5 still reaches it from any control."""
    window.show_explore()
    assert not window.presenter._app_wide
    widget = getattr(window.controls, focus)
    target = widget.lineEdit() if hasattr(widget, "lineEdit") and widget.lineEdit() else widget
    target.setFocus()
    qtbot.keyClick(target, Qt.Key_F5)
    assert window.presenter.active and window.lessons_visible()
    assert window.presenter._app_wide                  # presenting: every key, even a focused slider's
    qtbot.keyClick(window, Qt.Key_Escape)
    assert not window.presenter.active
    assert window.presenter._app_wide                  # still on the Lessons page: its keys stay
    window.show_explore()
    assert not window.presenter._app_wide
