"""Start the window: QApplication, theme, settings, screenshot and smoke modes.

main.py calls ``run``; nothing here computes physics (that is model/).
Settings live in an INI file under $XDG_CONFIG_HOME (or ~/.config)/MemoryWall (see
ui/app_settings.py: checked before Qt opens it, bad stored scenarios set aside): window
geometry, theme, larger text, and the last scenario. Tests point XDG_CONFIG_HOME at a
temporary folder. Problems with either are said once in the status bar.
"""
from __future__ import annotations

import os
import sys

from ui.app_settings import APP, ORG, open_settings
from ui.app_settings import load_scenario as stored_scenario
from ui.quick_start import model_before_qt
DEFAULT_SIZE = (1600, 900)


def qt_startup_error() -> str | None:
    """None when Qt can start here, else ONE line saying what to do."""
    model_before_qt()
    try:
        import PySide6  # noqa: F401
    except ImportError:
        return "Qt could not start: PySide6 is not installed. Install it with: pip install 'PySide6-Essentials>=6.10,<6.12'"
    try:
        from PySide6 import QtGui, QtWidgets  # noqa: F401
    except (ImportError, OSError) as exc:
        text = str(exc)
        lib = text.split(":")[0].strip() if ".so" in text else ""
        pkg = {"libGL.so.1": "libgl1", "libEGL.so.1": "libegl1", "libfontconfig.so.1": "libfontconfig1",
               "libxkbcommon.so.0": "libxkbcommon0", "libdbus-1.so.3": "libdbus-1-3",
               "libglib-2.0.so.0": "libglib2.0-0", "libgthread-2.0.so.0": "libglib2.0-0"}.get(lib)
        if pkg:
            return f"Qt could not start: {lib} is missing. Install it with: sudo apt-get install {pkg}"
        return f"Qt could not start ({text}). On Debian/Ubuntu: sudo apt-get install libgl1 libegl1 libfontconfig1 libxkbcommon0 libdbus-1-3 libglib2.0-0"
    try:
        import pyqtgraph  # noqa: F401
    except ImportError:
        return "Qt could not start: pyqtgraph is not installed. Install it with: pip install 'pyqtgraph>=0.13'"
    except (OSError, RuntimeError) as exc:
        return f"Qt could not start: pyqtgraph failed to load ({exc})"
    return None


def _no_display() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    if os.environ.get("QT_QPA_PLATFORM"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def settings():
    """The app's QSettings, or None when they cannot be kept (ui/app_settings.open_settings)."""
    return open_settings()[0]


def load_scenario(st):
    """The last scenario from settings, or None (a bad one is set aside)."""
    return stored_scenario(st)[0]


def _bool(v) -> bool:
    return v is True or str(v).lower() in ("1", "true", "yes")


# The offscreen platform (screenshots, --smoke, CI) says this about every window; it is not a problem.
PLATFORM_NOISE = ("This plugin does not support",)


def _quiet_platform_noise() -> None:
    """Drop the offscreen platform's notes about window features it lacks; pass the rest on."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(_mode, _context, message: str) -> None:
        if not message.startswith(PLATFORM_NOISE):
            sys.stderr.write(message + "\n")
    qInstallMessageHandler(handler)


def _utf8_locale() -> None:
    """Qt wants a UTF-8 C library locale and warns (four lines) at start without one: when the
    user's (say LC_ALL=de_DE.UTF-8, not installed) is not UTF-8, use C.UTF-8 for this process."""
    import locale
    try:
        locale.setlocale(locale.LC_ALL, "")
        utf8 = locale.nl_langinfo(locale.CODESET).upper().replace("-", "") == "UTF8"
    except (locale.Error, AttributeError):
        utf8 = False
    if not utf8:
        os.environ["LC_ALL"] = "C.UTF-8"
        try:
            locale.setlocale(locale.LC_ALL, "C.UTF-8")
        except locale.Error:
            pass


def one_number_locale() -> None:
    """Every number in one style, the model's (model/readouts/format.py: 32,768 and 1.5): Qt's widgets
    (spin boxes, axes) would otherwise follow the system locale (32.768 under German)."""
    from PySide6.QtCore import QLocale
    loc = QLocale(QLocale.English, QLocale.UnitedStates)
    if QLocale() != loc:
        QLocale.setDefault(loc)


TRIM_EVERY_MS = 10_000
M_ARENA_MAX = -8                  # glibc's mallopt parameter number


def steady_heap(app) -> None:
    """Hand the C heap's free memory back to the system every 10 s (benches/soak_ui.py).

    glibc raises its mmap threshold each time a large block is freed (up to 32 MB), so the big
    transient buffers of resizes, grabs, exports and chart pages then come from the heap and
    stay there, free but kept: 45 MB after the first 1 000 fuzz actions, 77 MB after 2 000,
    while live memory stays at 60 MB. malloc_trim(0) returns those pages (a few ms, off any
    frame's critical path). A fixed low threshold would too, but costs a fresh mmap and its
    page faults on every large buffer: 17 ms instead of 2 ms per 1100×800 pixmap here.

    One malloc arena: a worker thread (Measure this machine) otherwise gets an arena of its own,
    whose freed memory stays resident in pieces the trim cannot return: soak seed 2, RSS after
    5 000 actions 227 MB with glibc's default arenas, 195 MB with one (MALLOC_ARENA_MAX=1), the
    live heap the same. Python's GIL serialises the allocations anyway."""
    import ctypes
    from PySide6.QtCore import QTimer
    try:
        libc = ctypes.CDLL("libc.so.6")     # (ctypes.util.find_library would start a process)
        trim = libc.malloc_trim
        libc.mallopt(M_ARENA_MAX, 1)
    except (OSError, AttributeError):
        return                        # not glibc: nothing to do
    timer = QTimer(app)
    timer.setInterval(TRIM_EVERY_MS)
    timer.timeout.connect(lambda: trim(0))
    timer.start()


def ensure_app():
    model_before_qt()
    from PySide6.QtWidgets import QApplication
    one_number_locale()
    app = QApplication.instance()
    if app is None:
        if sys.platform.startswith("linux"):
            _utf8_locale()
        if os.environ.get("QT_QPA_PLATFORM") == "offscreen":
            _quiet_platform_noise()
        app = QApplication([sys.argv[0] if sys.argv else "memory-wall"])
        app.setOrganizationName(ORG)
        app.setApplicationName(APP)
        app.setApplicationDisplayName("Memory Wall")
        if sys.platform.startswith("linux"):
            steady_heap(app)
        app.setDesktopFileName("memory-wall")   # matches the .desktop entry, so the menu icon is the window's
    return app


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
    from ui.controller import Controller
    from ui.main_window import MainWindow
    ensure_app()
    if st is not None:
        from ui.custom_store import load_saved
        load_saved()        # your own hardware and models (issue 12), before a scenario needs them
        theme = theme or str(st.value("view/theme") or "dark")
        large_text = large_text or _bool(st.value("view/large_text", False))
    controller = Controller(scenario)
    window = MainWindow(controller, theme=theme or "dark", large_text=large_text, settings=st)
    app = ensure_app()
    window.later(lambda: _set_icon(app))     # not needed for the first frame
    return window


def settle(app, rounds: int = 4) -> None:
    """Let layouts, style sheets and the coalesced recompute settle."""
    for _ in range(rounds):
        app.processEvents()
        app.sendPostedEvents()


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
    return window.grab().save(path)


def render_hierarchy_png(scenario, path: str, size: tuple[int, int], frames: int = 300,
                         theme: str = "dark") -> bool:
    """The animated hierarchy alone: run ``frames`` frames deterministically so the flow settles."""
    from PySide6.QtCore import Qt
    from ui import theme as th
    from ui.controller import Controller
    from ui.hierarchy_view import HierarchyView
    app = ensure_app()
    controller = Controller(scenario)
    view = HierarchyView(controller)
    view.set_theme(th.get_theme(theme))
    view.setAttribute(Qt.WA_DontShowOnScreen, os.environ.get("QT_QPA_PLATFORM") != "offscreen")
    view.resize(*size)
    view.show()
    settle(app)
    view.settle(frames)
    ok = view.grab().save(path)
    view.close()
    return ok


def run(scenario=None, *, screenshot: str | None = None, size: tuple[int, int] | None = None,
        view: str = "main", chapter: int | None = None, presenter: bool = False, smoke: bool = False,
        theme: str | None = None, large_text: bool = False, first_paint: bool = False) -> int:
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
        stored, note2 = stored_scenario(st)
        notes = [n for n in (note, note2) if n]
    explicit, scenario = scenario, (stored if scenario is None else scenario)
    try:
        if first_paint:
            return _first_paint(scenario, size or DEFAULT_SIZE)
        if headless:
            return _headless(scenario, st, screenshot=screenshot, size=size, view=view, chapter=chapter,
                             presenter=presenter, smoke=smoke, theme=theme, large_text=large_text,
                             explicit=explicit)
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
    _open_lessons(window, chapter, presenter, fullscreen=True, scenario=explicit)
    return app.exec()


def _headless(scenario, st, *, screenshot, size, view, chapter, presenter, smoke, theme, large_text,
              explicit=None) -> int:
    theme = theme or (str(st.value("view/theme") or "dark") if st is not None else "dark")
    window = build_window(scenario, theme=theme, large_text=large_text, st=None)
    _open_lessons(window, chapter, presenter, fullscreen=False, scenario=explicit)
    if smoke:
        return _smoke(window, size or DEFAULT_SIZE)
    if view == "hierarchy":
        ok = render_hierarchy_png(window.controller.valid_scenario, screenshot, size or (1200, 700),
                                  theme=window.theme_name)
    else:
        ok = render_png(window, screenshot, size or DEFAULT_SIZE)
    window.close()
    if not ok:
        print(f"could not write the screenshot to {screenshot}", file=sys.stderr)
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


def _open_lessons(window, chapter: int | None, presenter: bool, fullscreen: bool, scenario=None) -> None:
    """Open chapter N; a scenario the user gave (a file, flags) stays, as Open… keeps it."""
    if chapter is not None:
        window.show_chapter(int(chapter))
        if scenario is not None:
            window.controller.set_scenario(scenario)
    if presenter:
        window.enter_presenter(fullscreen=fullscreen)
