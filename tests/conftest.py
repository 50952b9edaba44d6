"""Shared test setup.

Qt runs offscreen; any Qt warning, critical or fatal message during a Qt test fails that
test; QSettings (XDG_CONFIG_HOME) are redirected to a temporary folder so tests never touch the user's.
"""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Messages the offscreen platform plugin itself prints on every show(): not our window's fault.
_PLATFORM_NOISE = ("This plugin does not support",)  # propagateSizeHints(), raise(), grabbing the keyboard


@pytest.fixture(scope="session", autouse=True)
def _temporary_qt_settings(tmp_path_factory):
    try:
        from PySide6.QtCore import QSettings
    except ImportError:          # model-only environments
        yield None
        return
    path = str(tmp_path_factory.mktemp("qsettings"))
    os.environ["XDG_CONFIG_HOME"] = path           # ui/shell/settings.py keeps the .ini here
    for scope in (QSettings.UserScope, QSettings.SystemScope):
        QSettings.setPath(QSettings.IniFormat, scope, path)
        QSettings.setPath(QSettings.NativeFormat, scope, path)
    yield path


@pytest.fixture(autouse=True)
def _fail_on_qt_warnings(request):
    """Install a Qt message handler for tests that use Qt; fail on any warning."""
    uses_qt = "qtbot" in request.fixturenames or request.node.path.name.startswith("test_ui")
    if not uses_qt:
        yield
        return
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    bad: list[str] = []

    def handler(kind, _context, message):
        if kind in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
            if not any(message.startswith(n) for n in _PLATFORM_NOISE):
                bad.append(f"{kind.name}: {message}")

    previous = qInstallMessageHandler(handler)
    try:
        yield bad
    finally:
        qInstallMessageHandler(previous)
    if bad:
        pytest.fail("Qt printed warnings:\n" + "\n".join(bad[:10]), pytrace=False)


@pytest.fixture
def shown(qtbot):
    """shown(widget, (w, h)) → the widget, owned by qtbot, resized, shown, exposed and painted,
    with Qt's queue delivered (tests/qt_events.deliver: no timer fires, so what has happened by
    then never depends on the machine's speed; a main window has built its Lessons page)."""
    from qt_events import deliver

    def show(widget, size=(1600, 900)):
        qtbot.addWidget(widget)
        widget.resize(*size)
        widget.show()
        deliver()
        assert widget.windowHandle() is not None and widget.windowHandle().isExposed()
        return widget
    return show


@pytest.fixture
def main_window(shown):
    """The main window (default scenario, no settings) shown at 1600×900."""
    from model import Scenario
    from ui.shell.app import build_window
    return shown(build_window(Scenario(), st=None))


@pytest.fixture
def lessons_window(main_window):
    """The main window with the Lessons page's glides made instant."""
    main_window.lessons.glide.duration_ms = 0
    return main_window


# ---------------------------------------------------------------- one window per module
def reset_window(w) -> None:
    """Put a main window back the way a fresh one starts: no presenter, Explore, dark, normal
    text, the default scenario and no comparison, 1600×900, the chip running, glides instant
    (as ``lessons_window``), the queue delivered. What a test changes beyond that (a chapter's
    knobs, a page's Details) it puts back itself, or it takes a window of its own."""
    from model import Scenario
    from qt_events import deliver
    if w.presenter.active:
        w.presenter.leave()
    stage = w.presenter.stage
    if stage.rehearsal:
        stage.toggle_rehearsal()
    if getattr(w, "chip_focus", False):
        w.set_chip_focus(False)
    w.show_explore()
    if w.theme_name != "dark":
        w.toggle_theme()
    if w.large_text:
        w.controls.large_text.setChecked(False)
    glide = w.lessons.glide
    glide.anim.stop()
    glide.duration_ms = 0
    w.lessons.show_chapter(1, 0, animate=False)
    c = w.controller
    c.set_compare(None)
    c.set_scenario(Scenario())
    c.flush()
    if w.isFullScreen() or w.isMaximized():
        w.showNormal()
    w.resize(1600, 900)
    w.hierarchy.resume()
    if w.hierarchy.isVisible() and not w.hierarchy.ticking:
        w.hierarchy._timer.start()
    w.statusBar().clearMessage()
    deliver()


@pytest.fixture(scope="module")
def module_window(qapp):
    """One main window for a whole test module (a window costs ~1 s to build, show and close
    on a busy 2-core machine): built, shown at 1600×900 and delivered once; tests take it
    through ``shared_window``, which resets it first. Qt warnings while it is built fail the
    module's first test (its own handler), like any test's."""
    from PySide6.QtCore import qInstallMessageHandler, QtMsgType
    from model import Scenario
    from qt_events import deliver
    from ui.shell.app import build_window
    bad: list[str] = []

    def handler(kind, _context, message):
        if kind in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
            if not any(message.startswith(n) for n in _PLATFORM_NOISE):
                bad.append(f"{kind.name}: {message}")
    previous = qInstallMessageHandler(handler)
    try:
        w = build_window(Scenario(), st=None)
        w.resize(1600, 900)
        w.show()
        deliver()
    finally:
        qInstallMessageHandler(previous)
    assert not bad, "Qt printed warnings while the window was built:\n" + "\n".join(bad[:10])
    yield w
    reset_window(w)
    w.close()
    w.deleteLater()
    deliver()


@pytest.fixture
def shared_window(module_window, qtbot):
    """The module's window, reset (``reset_window``); Qt warnings fail the test (``qtbot``)."""
    reset_window(module_window)
    return module_window


@pytest.fixture
def own_data_dir(tmp_path, monkeypatch):
    """The app's data folder (your own hardware and models, ui/custom/store.py) in a temporary
    folder, the catalogue shipped-only before and after."""
    from model.catalog.active import set_default_catalog
    from ui.custom import store as custom_store
    folder = tmp_path / "appdata"
    monkeypatch.setattr(custom_store, "data_dir", lambda: folder)
    custom_store.last_problems.clear()
    set_default_catalog(None)
    yield folder
    set_default_catalog(None)
    custom_store.last_problems.clear()


@pytest.fixture(autouse=True)
def _shipped_catalogue_after_each_test():
    """A test that installs custom hardware or models (the window loads the user's saved ones)
    must not leave them in the process-wide catalogue for the tests after it."""
    yield
    from model.catalog.active import set_default_catalog
    set_default_catalog(None)
