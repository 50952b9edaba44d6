"""Start-up order: the first paint shows the real Explore page and waits for nothing
it does not show; the rest (the Lessons page, the app icon) is built right after it, or at
once when a key or a button asks for it. Speed itself is measured in benches/, not here."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QPoint, QRect, Qt

from model.readouts.sentences import explain
from model import Scenario
from model.files.safe_io import json_depth
from qt_events import deliver
from ui.shell.app import build_window

ROOT = Path(__file__).resolve().parent.parent

# Modules the first screen does not need: none of them may load before the first paint.
NOT_BEFORE_THE_FIRST_PAINT = ("ui.lessons.page", "ui.chapters", "model.lessons", "ui.present.speaker_view",
                              "ui.custom.hardware_editor", "ui.custom.measure_dialog", "ui.custom.model_import",
                              "model.machine")
# The chip's packets take their random numbers on their first spawn: building the window does not
# need numpy.random (a busy machine may run the chip's first tick before the first paint, though).

PROBE = r"""
import json, sys
sys.path.insert(0, %r)
from PySide6.QtCore import QEvent, QObject
from ui.shell.app import build_window
from ui.kit.qt_app import ensure_app
later = %r
out = {}

class AtFirstPaint(QObject):       # what is loaded when the window paints its first frame
    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Paint and "at_paint" not in out:
            out.update(at_paint=[m for m in later if m in sys.modules], lessons_at_paint=w.lessons_built(),
                       icon_at_paint=not app.windowIcon().isNull())
        return False

app = ensure_app()
w = build_window(None, st=None)
out["to_build"] = [m for m in later + ("numpy.random",) if m in sys.modules]
probe = AtFirstPaint()
w.installEventFilter(probe)
w.resize(1600, 900); w.show(); w.repaint(); app.processEvents()
assert "at_paint" in out, "no paint"
w.when_built(app.quit)
app.exec()
menu = w.lessons.export_button.menu()
out.update(lessons_built=w.lessons_built(), icon=not app.windowIcon().isNull(),
           slide_entries=sorted(a.objectName() for a in menu.actions() if a.objectName().startswith("slide_")))
print(json.dumps(out))
"""


def test_the_first_paint_loads_nothing_it_does_not_show(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", PROBE % (str(ROOT), NOT_BEFORE_THE_FIRST_PAINT)], env=env,
                         cwd=str(ROOT), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["to_build"] == [], "loaded to build the window"
    assert got["at_paint"] == [], "loaded before the first paint"
    assert not got["lessons_at_paint"] and not got["icon_at_paint"]
    assert got["lessons_built"] and got["icon"], "the window never finished building after its first paint"
    assert got["slide_entries"] == ["slide_png_dark", "slide_png_light", "slide_svg_dark", "slide_svg_light"]


def test_the_first_painted_frame_is_the_whole_explore_page(qtbot):
    """What the first paint put on screen equals the settled window everywhere but the animated chip."""
    w = build_window(Scenario(), st=None)
    qtbot.addWidget(w)
    w.resize(1600, 900)
    w.show()
    w.repaint()
    from PySide6.QtWidgets import QApplication
    QApplication.processEvents()
    assert not w.built and not w.lessons_built()
    first = w.screen().grabWindow(w.winId()).toImage()
    deliver()                                 # every later step: each posts the next, no timer
    assert w.built
    w.repaint()
    QApplication.processEvents()
    settled = w.screen().grabWindow(w.winId()).toImage()
    assert first.size() == settled.size() and first.width() >= 1600
    chip = QRect(w.hierarchy.mapTo(w, QPoint(0, 0)), w.hierarchy.size())
    differ = [(x, y) for y in range(0, first.height(), 3) for x in range(0, first.width(), 3)
              if first.pixel(x, y) != settled.pixel(x, y) and not chip.contains(x, y)]
    assert differ == []
    assert w.findChild(type(w.gauges)) is w.gauges and w.explanation.text() == explain(w.controller.estimate)


def test_keys_and_buttons_build_the_lessons_page_when_they_need_it(qtbot):
    """Before the deferred build runs (a window never painted), F5, the Lessons button and a
    chapter request each get the page at once."""
    for ask in ("f5", "button", "chapter"):
        w = build_window(Scenario(), st=None)
        qtbot.addWidget(w)
        assert not w.lessons_built() and not w.lessons_visible()
        if ask == "f5":
            qtbot.keyClick(w.controls, Qt.Key_F5)
            assert w.presenter.active
        elif ask == "button":
            w.mode_bar.lessons_button.click()
        else:
            w.show_chapter(4, 1)
            assert (w.lessons.number, w.lessons.index) == (4, 1)
        assert w.lessons_built() and w.lessons_visible(), ask
        w.presenter.leave()


def test_a_lessons_page_built_late_takes_the_window_as_it_is_then(qtbot):
    w = build_window(Scenario(), st=None)
    qtbot.addWidget(w)
    w.toggle_theme()                      # light, before the page exists
    w.set_large_text(True)
    assert not w.lessons_built()
    lessons = w.lessons
    assert lessons.theme == w.theme and lessons.theme.name == "light" and lessons.theme.scale == w.theme.scale
    assert w.pages.indexOf(lessons) == 1 and not w.lessons_visible()
    w.toggle_theme()                      # and follows later changes like every panel
    assert lessons.theme == w.theme


def test_later_steps_run_in_order_after_the_first_paint_and_when_built_after_them(qtbot):
    w = build_window(Scenario(), st=None)
    qtbot.addWidget(w)
    ran: list[str] = []
    w.later(lambda: ran.append("a"))
    w.later(lambda: ran.append("b"))
    w.when_built(lambda: ran.append("built"))
    assert ran == []
    w.resize(1280, 720)
    w.show()
    deliver()
    assert w.built and ran == ["a", "b", "built"]
    w.later(lambda: ran.append("c"))     # once built: at once
    w.when_built(lambda: ran.append("built again"))
    assert ran[-2:] == ["c", "built again"]


def _depth(v) -> int:
    if isinstance(v, list):
        return 1 + max((_depth(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((_depth(x) for x in v.values()), default=0)
    return 0


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\[]{}\n é'),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(alphabet='k"\\[{'), kids,
                                                                              max_size=4), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_json_depth_counts_brackets_outside_strings_only(value):
    """safe_io's quote counting (start-up: the catalogue loads through it) skips quoted
    brackets, escaped quotes and escaped backslashes exactly as a parser does."""
    assert json_depth(json.dumps(value)) == _depth(value)
    assert json_depth(json.dumps(value, ensure_ascii=False, indent=1)) == _depth(value)


def test_what_is_built_after_the_first_paint_repaints_nothing_on_screen(qtbot, qapp):
    """The Lessons page joins the window hidden (no default 640×480 rectangle repainted over the
    chip) and the icon changes no pixel: the steps after the first paint cost no frame."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QWidget

    from ui.shell.app import _set_icon

    w = build_window(Scenario(), st=None)
    qtbot.addWidget(w)
    w._later.clear()                          # this test runs the steps itself, on an idle window
    painted: list[str] = []

    class Paints(QObject):
        def eventFilter(self, obj, ev) -> bool:     # noqa: N802 (Qt name)
            if ev.type() == QEvent.Paint and isinstance(obj, QWidget) and obj.window() is w:
                painted.append(type(obj).__name__)
            return False

    w.resize(1600, 900)
    w.show()
    w.hierarchy.pause()                       # no animation frames in between
    w.hierarchy._timer.stop()
    deliver()                                 # the first paint and every later step
    assert w.built
    paints = Paints()
    qapp.installEventFilter(paints)
    try:
        deliver()
        assert painted == [], "not idle yet"
        qapp.setWindowIcon(QIcon())
        assert not w.lessons_built()
        w.lessons
        _set_icon(qapp)
        deliver()
        assert w.lessons_built() and not qapp.windowIcon().isNull()
        assert painted == []
    finally:
        qapp.removeEventFilter(paints)
