"""The QApplication and what every Qt start needs on each platform, in one place.

    qt_startup_error()   None when Qt can start here, else one line saying what to install
    ensure_app()         the one QApplication (created once): UTF-8 locale, one number style,
                         the offscreen platform's noise dropped, the C heap kept steady
    settle(app)          let layouts, style sheets and the coalesced recompute run

The window (ui/shell/app.py), the recordings and the benches start Qt through here.
"""
from __future__ import annotations

import os
import sys

from ui.kit.folders import APP, ORG
from ui.kit.quick_start import model_before_qt


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


def display_problem(timeout_s: float = 1.0) -> str | None:
    """None when the display the window would open on answers (or none is probed), else ONE line:
    Qt's platform plugins abort the process (a plugin dump, rc 134) when $WAYLAND_DISPLAY or
    $DISPLAY names a server that is not there. Probed with one socket connection each (no Qt), only
    on Linux, only for the platforms Qt would try ($QT_QPA_PLATFORM wayland or xcb, or unset: Qt
    tries Wayland where $WAYLAND_DISPLAY is set, then X11). A stale $WAYLAND_DISPLAY beside an X
    server that answers is no problem: this process then goes to X11 at once (QT_QPA_PLATFORM=xcb),
    without Qt's note that the Wayland plugin failed."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if not sys.platform.startswith("linux") or (platform and not platform.startswith(("xcb", "wayland"))):
        return None
    wayland, display = os.environ.get("WAYLAND_DISPLAY", ""), os.environ.get("DISPLAY", "")
    if platform.startswith("wayland") or (not platform and wayland):
        if _wayland_answers(wayland, timeout_s):
            return None
        if platform or not display:
            return (f"cannot open the display: no Wayland compositor answers at {wayland or '(no $WAYLAND_DISPLAY)'!r}"
                    + ("" if platform else " and $DISPLAY is unset") + "; log in to a desktop session, unset "
                    "WAYLAND_DISPLAY to use X11, or use --screenshot out.png (QT_QPA_PLATFORM=offscreen) to render headless")
    if not display:
        return None
    problem = _x11_problem(display, timeout_s)
    if problem is None and wayland and not platform:
        os.environ["QT_QPA_PLATFORM"] = "xcb"     # the stale Wayland display: straight to X11
    return problem


def _wayland_answers(name: str, timeout_s: float) -> bool:
    """Whether a compositor listens at $WAYLAND_DISPLAY (a name under $XDG_RUNTIME_DIR, or a path)."""
    import socket
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if not name or (not name.startswith("/") and not runtime):
        return False
    path = name if name.startswith("/") else os.path.join(runtime, name)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout_s)
            sock.connect(path)
            return True
    except (OSError, ValueError):
        return False


def _x11_problem(display: str, timeout_s: float) -> str | None:
    """None when the X server $DISPLAY names answers, else one line."""
    import socket
    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit():
        return f"cannot open the display {display!r} ($DISPLAY is not host:number); set DISPLAY, or QT_QPA_PLATFORM=offscreen to render headless"
    if host in ("", "unix"):           # the local server: its abstract socket, else its socket file
        path = f"/tmp/.X11-unix/X{number}"
        targets = [(socket.AF_UNIX, "\0" + path), (socket.AF_UNIX, path)]
    else:
        targets = [(socket.AF_INET6 if ":" in host else socket.AF_INET, (host.strip("[]"), 6000 + int(number)))]
    for family, address in targets:
        try:
            with socket.socket(family, socket.SOCK_STREAM) as sock:
                sock.settimeout(timeout_s)
                sock.connect(address)
                return None
        except (OSError, ValueError):
            continue
    return (f"cannot open the display {display!r}: no X server answers there; start one, fix $DISPLAY, "
            "or use --screenshot out.png (QT_QPA_PLATFORM=offscreen) to render headless")


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
    """Hand the C heap's free memory back to the system every 10 s, and use one malloc arena.

    glibc raises its mmap threshold each time a large block is freed, so the big transient
    buffers of resizes, grabs, exports and chart pages come from the heap and stay there, free
    but kept; malloc_trim(0) returns those pages, off any frame's critical path. A worker thread
    (Measure this machine) would get an arena of its own whose freed memory the trim cannot
    return; Python's GIL serialises the allocations anyway. The soak measurements behind both
    choices: docs/speed.md ("Memory over a long session")."""
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


def settle(app, rounds: int = 4) -> None:
    """Let layouts, style sheets and the coalesced recompute settle."""
    for _ in range(rounds):
        app.processEvents()
        app.sendPostedEvents()
