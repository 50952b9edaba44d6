"""A chapter's chart for slides: 16:9 at 1920×1080, PNG or SVG, light or dark.

The chart is drawn off screen (ui.present.offscreen) on its own controller, from the scenario and
knobs the speaker has on screen now, in the chosen theme at presenter type size, then saved
by the chapter's own export_png / export_svg, so a slide is exactly the chart people saw,
only larger and in the deck's colours. The on-screen view is not touched.

Also adds the slide entries to the lessons' Export menu when the Lessons page is built
(``add_slide_entries``); the mode bar builds its own Record… button (ui/shell/pages.py).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QWidget

from model.files.safe_io import check_writable_target
from ui.kit import theme as th

SLIDE_SIZE = (1920, 1080)
THEME_NAMES = ("dark", "light")


def export_slide(view, kind: str, theme_name: str, path: str, size: tuple[int, int] = SLIDE_SIZE,
                 overwrite: bool = False) -> bool:
    """Save ``view``'s chart (a ChapterView) at ``size`` as PNG or SVG in a theme."""
    from ui.present.offscreen import OffscreenChapter
    if kind.upper() not in ("PNG", "SVG"):
        raise ValueError(f"a slide is PNG or SVG, not {kind}")
    theme = th.presenter_theme(theme_name, size[1])
    oc = OffscreenChapter(view.chapter.number, theme, size)
    try:
        controller = view.controller
        scenario = controller.valid_scenario if controller.problem else controller.scenario
        oc.show_live(scenario, dict(view.params), view.state_index)
        chart_only(oc.view)
        oc.host.image()                               # lay it out at slide size …
        oc.view.refresh()                             # … and place the labels for that size
        if (oc.view.chart.width(), oc.view.chart.height()) != tuple(size):
            raise RuntimeError(f"the chart came out {oc.view.chart.width()}×{oc.view.chart.height()}")
        export = oc.view.export_png if kind.upper() == "PNG" else oc.view.export_svg
        return bool(export(str(path), overwrite))
    finally:
        oc.close()


def chart_png(number: int, index: int, theme_name: str = "light", size: tuple[int, int] = (1280, 720)) -> bytes:
    """Lesson ``number``'s chart in its prepared state ``index`` as PNG bytes, drawn off screen
    (``main.py lessons --html`` puts it in the lesson's page)."""
    from ui.chapters.exports import image_bytes
    from ui.present.offscreen import OffscreenChapter
    oc = OffscreenChapter(number, th.presenter_theme(theme_name, size[1]), size)
    try:
        oc.show_state(index)
        chart_only(oc.view)
        oc.host.image()                               # lay it out at this size …
        oc.view.refresh()                             # … and place the labels for it
        return image_bytes(oc.view.chart.grab())
    finally:
        oc.close()


def chart_only(view) -> None:
    """Hide everything in a chapter view but its chart, so the chart fills the view."""
    view.layout().setContentsMargins(0, 0, 0, 0)
    view.chart.layout().setContentsMargins(32, 20, 32, 16)      # a slide's edge, inside the chart
    for child in view.findChildren(QWidget, options=Qt.FindDirectChildrenOnly):
        if child is not view.chart and not child.isAncestorOf(view.chart):
            child.hide()


def add_slide_entries(window, lessons) -> None:
    """Slide entries in the lessons' Export menu (when the Lessons page is built)."""
    button = getattr(lessons, "export_button", None)
    menu = button.menu() if button is not None else None
    if menu is not None:
        menu.addSection("For slides, 1920×1080")
        for kind in ("PNG", "SVG"):
            for theme_name in THEME_NAMES:
                act = QAction(f"Slide as {kind}, {theme_name}…", menu)
                act.setObjectName(f"slide_{kind.lower()}_{theme_name}")
                act.triggered.connect(lambda _=False, k=kind, t=theme_name: _slide_dialog(window, k, t))
                menu.addAction(act)


def save_slide(window, kind: str, theme_name: str, path: str, overwrite: bool = False) -> bool:
    """Export the current chapter's slide and say so in the lessons' status line (an existing
    file only with ``overwrite``: the save dialog asked)."""
    from model.errors import ModelError
    lessons = window.lessons
    try:
        check_writable_target(path, overwrite)        # before the slide is drawn
        ok = export_slide(lessons.current_view, kind, theme_name, path, overwrite=overwrite)
    except ModelError as exc:         # refused or not written: its one line
        lessons.message(str(exc).splitlines()[0], error=True)
        return False
    except Exception as exc:          # an export failure is a message, never a crash
        lessons.message(f"could not export the slide: {type(exc).__name__}: {exc}", error=True)
        return False
    lessons.message(f"exported {path} (1920×1080, {theme_name})" if ok else f"could not write {path}", error=not ok)
    return ok


def _slide_dialog(window, kind: str, theme_name: str) -> None:
    n = window.lessons.number
    ext = kind.lower()
    path, _ = QFileDialog.getSaveFileName(window, f"Chapter {n} as a {theme_name} slide", f"chapter{n}-slide-{theme_name}.{ext}",
                                          f"{kind} files (*.{ext})")
    if path:
        save_slide(window, kind, theme_name, path, overwrite=True)     # the save dialog asked
