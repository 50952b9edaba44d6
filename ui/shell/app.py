"""Start the window: QApplication, theme, settings, screenshot and smoke modes.

main.py calls ``run``; nothing here computes physics (that is model/).
Settings live in an INI file under $XDG_CONFIG_HOME (or ~/.config)/MemoryWall (see
ui/shell/settings.py: checked before Qt opens it, bad stored scenarios set aside): window
geometry, theme, larger text, and the last scenario. Tests point XDG_CONFIG_HOME at a
temporary folder. Problems with either are said once in the status bar.
"""
from __future__ import annotations

import os
import sys

from ui.shell.settings import open_settings
from ui.shell.settings import load_scenario as stored_scenario
from ui.kit.qt_app import display_problem, ensure_app, qt_startup_error, settle
DEFAULT_SIZE = (1600, 900)


def _no_display() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    if os.environ.get("QT_QPA_PLATFORM"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _end_on_ctrl_c(app, window):
    """Ctrl+C in the terminal closes the window as its close button does (settings saved) and
    the app exits 130. Python runs a signal handler only between bytecodes, so a timer wakes
    the interpreter a few times a second while Qt's loop waits (no work, no paint). Returns the
    function that puts the previous handler back."""
    import signal

    from PySide6.QtCore import QTimer

    interrupted = []

    def stop(_signum, _frame) -> None:
        interrupted.append(True)
        window.close()                   # closeEvent: save_settings (the last window: the loop ends)
        app.exit(130)
    before = signal.signal(signal.SIGINT, stop)
    wake = QTimer(app)
    wake.timeout.connect(lambda: None)
    wake.start(200)

    def restore() -> bool:
        """Put the previous handler back; whether Ctrl+C ended the loop."""
        wake.stop()
        wake.deleteLater()
        signal.signal(signal.SIGINT, before)
        return bool(interrupted)
    return restore


def settings():
    """The app's QSettings, or None when they cannot be kept (ui/shell/settings.open_settings)."""
    return open_settings()[0]


def load_scenario(st):
    """The last scenario from settings, or None (a bad one is set aside)."""
    return stored_scenario(st)[0]


def _bool(v) -> bool:
    return v is True or str(v).lower() in ("1", "true", "yes")


def _set_icon(app) -> None:
    """The app icon (QtSvg, six sizes): the main window sets it after its first paint (build_window)."""
    if not app.windowIcon().isNull():
        return
    icon = app_icon()
    if icon is not None:
        app.setWindowIcon(icon)


def app_icon():
    """The app icon rendered from assets/icon.svg (QtSvg), or None if it cannot be drawn."""
    try:
        from PySide6.QtCore import Qt
        from PySide6.QtGui import QIcon, QPainter, QPixmap
        from PySide6.QtSvg import QSvgRenderer
        from model.files.assets import ASSETS_DIR
    except ImportError:
        return None
    renderer = QSvgRenderer(str(ASSETS_DIR / "icon.svg"))
    if not renderer.isValid():
        return None
    icon = QIcon()
    for size in (16, 32, 48, 64, 128, 256):
        pm = QPixmap(size, size)
        pm.fill(Qt.transparent)
        painter = QPainter(pm)
        renderer.render(painter)
        painter.end()
        icon.addPixmap(pm)
    return icon


def build_window(scenario=None, *, theme: str | None = None, large_text: bool = False, st=None):
    """Create (not show) the main window. ``st``: a QSettings or None (nothing saved)."""
    import pyqtgraph as pg
    pg.setConfigOptions(antialias=True, useOpenGL=False)
    from ui.plotting.scatter import let_go_of_spots
    let_go_of_spots()                  # a scatter's points do not outlive its setData (ui/plotting/scatter.py)
    from ui.state.controller import Controller
    from ui.shell.main_window import MainWindow
    ensure_app()
    sections, note = {}, None
    if st is not None:
        from ui.custom.store import load_saved
        from ui.shell.settings import load_sections
        load_saved()        # your own hardware and models, before a scenario needs them
        theme = theme or str(st.value("view/theme") or "dark")
        large_text = large_text or _bool(st.value("view/large_text", False))
        sections, note = load_sections(st)
    controller = Controller(scenario, **sections)
    window = MainWindow(controller, theme=theme or "dark", large_text=large_text, settings=st)
    if note:                # a stored Serve setup or Plan settings dropped
        window.statusBar().showMessage(note)
    app = ensure_app()
    window.later(lambda: _set_icon(app))     # not needed for the first frame
    return window


def render_png(window, path: str, size: tuple[int, int]) -> bool:
    from PySide6.QtCore import Qt
    app = ensure_app()
    window.setAttribute(Qt.WA_DontShowOnScreen, os.environ.get("QT_QPA_PLATFORM") != "offscreen")
    window.resize(*size)
    window.show()
    settle(app)
    window.controller.flush()
    window.resize(*size)
    settle(app)
    hierarchy = getattr(window, "hierarchy", None)
    if hierarchy is not None:       # let the animated flow reach its steady state
        hierarchy.settle(300)
    if getattr(window, "lessons_visible", lambda: False)():  # a chapter's own animated hierarchy, too
        lessons = window.lessons
        lessons.current_view.ensure_fresh()
        chapter_hierarchy = getattr(lessons.current_view, "hierarchy", None)
        if hasattr(chapter_hierarchy, "settle"):
            chapter_hierarchy.settle(300)
    if getattr(window, "serve_visible", lambda: False)():   # the queue a few seconds into the run
        window.serve.settle(240)
        settle(app)
    if getattr(window, "plan_visible", lambda: False)():    # the plan made before the picture
        window.plan.settle()
        settle(app)
    return _save_grab(window, path)


def _save_grab(widget, path: str) -> bool:
    """A screenshot written atomically (model/files/safe_io.py: unique temporary file, fsync,
    rename; --screenshot names its output, so it may replace it); False and one line on stderr
    when it cannot be written."""
    from model.errors import ModelError
    from model.files.safe_io import atomic_write_bytes
    from ui.chapters.exports import image_bytes
    try:
        fmt = {".jpg": "JPEG", ".jpeg": "JPEG", ".bmp": "BMP"}.get(os.path.splitext(path)[1].lower(), "PNG")
        atomic_write_bytes(path, image_bytes(widget.grab(), fmt), overwrite=True)   # the format the name says
    except ModelError as exc:
        print(f"error: could not write the screenshot: {exc}", file=sys.stderr)
        return False
    return True


def render_hierarchy_png(scenario, path: str, size: tuple[int, int], frames: int = 300,
                         theme: str = "dark") -> bool:
    """The animated hierarchy alone: run ``frames`` frames deterministically so the flow settles."""
    from PySide6.QtCore import Qt
    from ui.kit import theme as th
    from ui.state.controller import Controller
    from ui.chip.view import HierarchyView
    app = ensure_app()
    controller = Controller(scenario)
    view = HierarchyView(controller.estimate)
    view.set_theme(th.get_theme(theme))
    view.setAttribute(Qt.WA_DontShowOnScreen, os.environ.get("QT_QPA_PLATFORM") != "offscreen")
    view.resize(*size)
    view.show()
    settle(app)
    view.settle(frames)
    ok = _save_grab(view, path)
    view.close()
    return ok


def run(scenario=None, *, screenshot: str | None = None, size: tuple[int, int] | None = None,
        view: str = "main", chapter: int | None = None, presenter: bool = False, smoke: bool = False,
        theme: str | None = None, large_text: bool = False, first_paint: bool = False,
        page: str | None = None, serving=None, planning=None) -> int:
    """Start the app. screenshot: render offscreen at ``size`` (default 1600x900) after layout settles,
    write PNG, return 0. smoke: build the window, render each main view once, return 0 (non-zero with
    one line on stderr on error). scenario None: restore the last scenario from QSettings (or defaults).
    chapter N (1-8): open the Lessons page at chapter N's first prepared state. presenter: start in
    presenter mode (full screen on a display; at ``size`` for a screenshot). first_paint (benches): show
    the main window, paint it once, print FIRST-PAINT, finish building, print BUILT, return 0."""
    headless = bool(screenshot) or smoke or first_paint
    if _no_display():
        if headless:
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        else:
            print("No display found ($DISPLAY and $WAYLAND_DISPLAY are unset): use --screenshot out.png to render "
                  "headless, or set QT_QPA_PLATFORM=offscreen", file=sys.stderr)
            return 2
    unreachable = None if headless else display_problem()
    if unreachable:
        print(unreachable, file=sys.stderr)
        return 2
    err = qt_startup_error()
    if err:
        print(err, file=sys.stderr)
        return 2
    app = ensure_app()
    if headless:        # headless renders never write the user's settings
        st, _ = open_settings(create=False)
        stored, _ = stored_scenario(st, set_aside=False)
    else:
        st, note = open_settings()
        _load_own_files(st)          # your own hardware and models first: a saved scenario may use them
        stored, note2 = stored_scenario(st)
        notes = [n for n in (note, note2) if n]
    explicit, scenario = scenario, (stored if scenario is None else scenario)
    try:
        if first_paint:
            return _first_paint(scenario, size or DEFAULT_SIZE)
        if headless:
            return _headless(scenario, st, screenshot=screenshot, size=size, view=view, chapter=chapter,
                             presenter=presenter, smoke=smoke, theme=theme, large_text=large_text,
                             explicit=explicit, page=page, serving=serving, planning=planning)
        window = build_window(scenario, theme=theme, large_text=large_text, st=st)
    except Exception as exc:  # one line for the user, not a traceback
        print(f"the window failed to start: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if not window.restore_geometry():
        window.resize(*(size or DEFAULT_SIZE))
    window.show()
    if notes:
        print("memory-wall: " + "; ".join(notes), file=sys.stderr)
        window.statusBar().showMessage(" · ".join(notes))
    if view == "hierarchy":
        window.set_chip_focus(True)
    window.open_serving(serving)
    window.open_planning(planning)
    _open_lessons(window, chapter, presenter, fullscreen=True, scenario=explicit, page=page)
    restore = _end_on_ctrl_c(app, window)
    try:
        rc = app.exec()
    finally:
        if restore():
            rc = 130
    if rc == 130:
        print("memory-wall: interrupted (Ctrl+C); the window closed, settings saved", file=sys.stderr)
    return rc


def _load_own_files(st) -> None:
    """Clean what a killed save left in the app's folders, then load your own hardware and models
    (before the stored scenario is read, so one on your own hardware survives a restart)."""
    if st is None:
        return
    from pathlib import Path
    from ui.custom.store import clean_temporaries, load_saved
    clean_temporaries([Path(st.fileName()).parent])
    load_saved()


def _headless(scenario, st, *, screenshot, size, view, chapter, presenter, smoke, theme, large_text,
              explicit=None, page=None, serving=None, planning=None) -> int:
    theme = theme or (str(st.value("view/theme") or "dark") if st is not None else "dark")
    window = build_window(scenario, theme=theme, large_text=large_text, st=None)
    window.open_serving(serving)
    window.open_planning(planning)
    _open_lessons(window, chapter, presenter, fullscreen=False, scenario=explicit, page=page)
    if smoke:
        return _smoke(window, size or DEFAULT_SIZE)
    if view == "hierarchy":
        ok = render_hierarchy_png(window.controller.valid_scenario, screenshot, size or (1200, 700),
                                  theme=window.theme_name)
    else:
        ok = render_png(window, screenshot, size or DEFAULT_SIZE)
    window.close()
    if not ok:          # _save_grab has said why, in one line
        return 1
    return 0


def _first_paint(scenario, size) -> int:
    """What a user waits for: the main window built, shown and painted once ("FIRST-PAINT" and
    the CPU seconds this process has used); then what that paint left for later ("BUILT", CPU
    seconds). benches/bench_packaging.py times both lines."""
    import time
    from PySide6.QtCore import QTimer
    app = ensure_app()
    window = build_window(scenario, st=None)
    window.resize(*size)
    window.show()
    window.repaint()
    app.processEvents()
    print(f"FIRST-PAINT {time.process_time():.3f}", flush=True)
    ok = not window.grab().isNull()             # it renders (a second paint: after the line)
    if not window.built:
        window.when_built(app.quit)
        QTimer.singleShot(30_000, app.quit)      # never hang a bench
        app.exec()
    print(f"BUILT {time.process_time():.3f}" if window.built else "NOT BUILT", flush=True)
    return 0 if ok and window.built else 1


def _smoke(window, size) -> int:
    """Render the Explore page, the chip alone, and every lesson once; 0, or 1 with one line."""
    import tempfile
    from model.lessons.chapters import default_chapters
    with tempfile.TemporaryDirectory() as tmp:
        steps = [("the main window", lambda: None), ("the chip alone", lambda: window.set_chip_focus(True)),
                 ("the main window again", lambda: window.set_chip_focus(False))]
        steps += [(f"lesson {c.number}", lambda n=c.number: window.show_chapter(n)) for c in default_chapters()]
        steps.append(("the Serve page", window.show_serve))
        steps.append(("the Plan page", window.show_plan))
        for i, (name, show) in enumerate(steps):
            try:
                show()
                ok = render_png(window, os.path.join(tmp, f"smoke{i}.png"), size)
            except Exception as exc:  # one line, not a traceback
                print(f"smoke test failed on {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
                return 1
            if not ok or window.controller.estimate is None:
                print(f"smoke test failed: {name} did not render", file=sys.stderr)
                return 1
    window.close()
    return 0


def _open_lessons(window, chapter: int | None, presenter: bool, fullscreen: bool, scenario=None,
                  page: str | None = None) -> None:
    """Open chapter N (or the page asked for); a scenario the user gave (a file, flags) stays, as Open… keeps it."""
    if page == "serve":
        window.show_serve()
    elif page == "plan":
        window.show_plan()
    elif page == "lessons" and chapter is None:
        window.show_lessons()
    if chapter is not None:
        window.show_chapter(int(chapter))
        if scenario is not None:
            window.controller.set_scenario(scenario)
    if presenter:
        window.enter_presenter(fullscreen=fullscreen)
