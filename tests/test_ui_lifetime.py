"""What the window builds per action is kept once or given back: pens and brushes are shared
(pyqtgraph's symbol atlas keeps a picture per pen object), and a dialog opened from a menu
is one object per kind, not one more per click. benches/soak_ui.py measures the memory."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from qt_events import deliver
from ui.kit.pens import brush, pen


def test_equal_pens_and_brushes_are_one_object():
    assert pen("#0072B2", width=2, style=Qt.DashLine) is pen("#0072B2", width=2, style=Qt.DashLine)
    assert pen("#0072B2", width=2) is not pen("#0072B2", width=3)
    assert brush((213, 94, 0, 40)) is brush((213, 94, 0, 40))
    assert pen(None).style() == Qt.NoPen


def _atlas_entries(view) -> int:
    plots = getattr(view, "plots", None) or [view.plot]          # a chapter's plots, or the roofline's
    return sum(len(item.fragmentAtlas) for p in plots for item in p.scene().items()
               if isinstance(item, pg.ScatterPlotItem))


@pytest.mark.slow          # a walk over four chapters' themes and updates (~20-30 s): make test runs it, test-fast not
@pytest.mark.parametrize("chapter", [2, 3, 4, 6])
def test_theme_changes_and_updates_add_no_symbol_pictures(lessons_window, qtbot, chapter):
    w = lessons_window
    w.show_chapter(chapter, 0)

    def round_trip():
        for _ in range(2):
            w.toggle_theme()
            deliver()
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


def _alive(kind) -> int:
    """Live widgets of ``kind``. Garbage is collected first and collection held off meanwhile:
    allWidgets() wraps every widget pointer Qt lists, and a collection that frees a parentless
    widget while those wrappers are made leaves one pointing at freed memory (a segfault in 1 of
    several CI runs, always here)."""
    import gc
    from PySide6.QtWidgets import QApplication
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        return sum(isinstance(w, kind) for w in QApplication.allWidgets())
    finally:
        if was:
            gc.enable()


def test_dialogs_from_menus_are_one_at_a_time_and_gone_when_closed(main_window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QDialog
    from ui.custom.hardware_editor import HardwareEditor
    from ui.custom.model_import import ModelImportDialog
    from ui.present.record_dialog import RecordDialog
    acts = main_window.custom_actions
    config = tmp_path / "config.json"
    config.write_text("{}")
    monkeypatch.setattr(QDialog, "exec", lambda d: d.reject() or 0)      # modal: cancelled at once
    for _ in range(5):
        acts.new_hardware()                       # opened again while open: the earlier one goes
        acts.add_model(str(config))
        main_window.mode_bar.record_button.click()   # Record…: the mode bar's own button
    deliver()                                     # deferred deletes run
    assert (_alive(HardwareEditor), _alive(ModelImportDialog), _alive(RecordDialog)) == (0, 1, 0)
    acts.dialog.reject()
    deliver()
    assert _alive(ModelImportDialog) == 0


def test_a_measurement_is_one_at_a_time_and_gone_when_done(main_window, qtbot):
    from shiboken6 import isValid
    acts = main_window.custom_actions
    m = acts.measure(quick=True)
    progress = m.progress
    assert acts.measure(quick=True) is m          # a second would skew the first
    m.cancelled.set()
    m.wait(240)
    deliver()
    assert not isValid(m) and not isValid(progress)
    assert acts.status.text() == "Measuring cancelled: nothing saved"


def test_the_explore_roofline_adds_no_symbol_pictures(main_window, qtbot):
    """The roofline's trail, ridge and operating point keep their symbols' pictures through theme
    changes and batch/GPU changes (fresh pens per change grew its atlas: 168 → 715 in the soak)."""
    w, c = main_window, main_window.controller

    def round_trip():
        for _ in range(2):
            w.toggle_theme()
            deliver()
        for gpu in ("a100-sxm4-80gb", "h100-sxm5-80gb"):
            for batch in (1, 16, 4096):
                c.set(gpu=gpu, batch=batch)
                c.flush()
        w.roofline.grab()
    round_trip()
    round_trip()
    first = _atlas_entries(w.roofline)
    assert first > 0
    for _ in range(3):
        round_trip()
    assert _atlas_entries(w.roofline) == first


def test_a_scatters_clicked_points_do_not_outlive_its_new_data(main_window):
    """A click or hover makes SpotItems that hold their array in a cycle the GC cannot see; the
    window's scatters let them go when new data comes (ui/plotting/scatter.py). The Plan page's
    frontier, hovered, then given a new plan: the old points are freed."""
    import gc
    import weakref
    from PySide6.QtCore import QPointF
    chart = main_window.plan.chart
    item = chart.front_points
    item.setData(x=[0.0, 1.0, 2.0], y=[0.0, 1.0, 2.0], data=[0, 1, 2])
    assert len(item.pointsAt(QPointF(1.0, 1.0))) >= 1          # what a click asks: SpotItems made
    old = weakref.ref(item.data)
    item.setData(x=[3.0], y=[3.0], data=[0])
    gc.collect()
    assert old() is None, "the clicked points' array is still alive"
    plain = pg.ScatterPlotItem(x=[1, 2], y=[1, 2])             # any scatter, PlotDataItems' too
    plain.points()
    old = weakref.ref(plain.data)
    plain.setData(x=[5], y=[5])
    gc.collect()
    assert old() is None
