"""What the window builds per action is kept once or given back: pens and brushes are shared
(pyqtgraph's symbol atlas keeps a picture per pen object), and a dialog opened from a menu
is one object per kind, not one more per click. benches/soak_ui.py measures the memory."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from ui.pens import brush, pen


def test_equal_pens_and_brushes_are_one_object():
    assert pen("#0072B2", width=2, style=Qt.DashLine) is pen("#0072B2", width=2, style=Qt.DashLine)
    assert pen("#0072B2", width=2) is not pen("#0072B2", width=3)
    assert brush((213, 94, 0, 40)) is brush((213, 94, 0, 40))
    assert pen(None).style() == Qt.NoPen


def _atlas_entries(view) -> int:
    return sum(len(item.fragmentAtlas) for p in view.plots for item in p.scene().items()
               if isinstance(item, pg.ScatterPlotItem))


@pytest.mark.parametrize("chapter", [2, 3, 4, 6])
def test_theme_changes_and_updates_add_no_symbol_pictures(lessons_window, qtbot, chapter):
    w = lessons_window
    w.show_chapter(chapter, 0)

    def round_trip():
        for _ in range(2):
            w.toggle_theme()
            qtbot.wait(1)
        for state in range(len(w.lessons.current_view.chapter.states)):
            w.show_chapter(chapter, state)
            w.controller.flush()
            w.lessons.current_view.ensure_fresh()
            w.lessons.current_view.grab()
    round_trip()
    round_trip()          # every state in both themes: each symbol's pictures exist now
    first = _atlas_entries(w.lessons.current_view)
    assert first > 0
    for _ in range(4):
        round_trip()
    assert _atlas_entries(w.lessons.current_view) == first

