"""Shared test setup.

Qt runs offscreen; any Qt warning, critical or fatal message during a Qt test fails that
test; QSettings are redirected to a temporary folder so tests never touch the user's.
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
def lessons_window(qtbot):
    """A shown main window at 1600×900 with the Lessons page's glides made instant."""
    from model import Scenario
    from ui.app import build_window
    w = build_window(Scenario(), st=None)
    qtbot.addWidget(w)
    w.lessons.glide.duration_ms = 0
    w.resize(1600, 900)
    w.show()
    qtbot.waitExposed(w)
    return w
