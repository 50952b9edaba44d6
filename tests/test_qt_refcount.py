"""Guard against a PySide6 that corrupts None's reference count.

PySide6 6.12.0 on CPython 3.11 drops a reference to None on every Qt call that returns
nothing; after a few thousand calls the interpreter aborts with
"Fatal Python error: none_dealloc". pyproject.toml pins <6.12; this test catches an
upgrade to a broken version. It runs in a subprocess (an abort would kill pytest) and
offscreen, with no OpenGL.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

CALLS = 50_000

SCRIPT = textwrap.dedent(f"""
    import sys
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication([])
    label = QLabel()
    timer = QTimer()
    image = QImage(64, 64, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    before = sys.getrefcount(None)
    n = {CALLS} // 3
    for i in range(n):
        label.setText("x")            # returns None
        timer.setInterval(i % 100)     # returns None
        painter.drawLine(0, 0, i % 64, 63)  # returns None
    painter.end()
    after = sys.getrefcount(None)
    print(before, after)
""")


def test_many_void_qt_calls_do_not_corrupt_none():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, (
        f"exit {proc.returncode}: {proc.stderr.strip()[-500:]} -- this PySide6 corrupts None's refcount "
        "(6.12.0 on Python 3.11 does); keep PySide6-Essentials <6.12")
    before, after = (int(x) for x in proc.stdout.split())
    # None is immortal-ish: a leak of one reference per call would show up as a drop of ~50 000
    assert after > before - 1000, f"refcount of None fell from {before} to {after}"
