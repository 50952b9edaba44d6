"""The chip shown large on its own, and --smoke rendering every view."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QPoint, Qt

from model import Scenario
from ui import app as uiapp

ROOT = Path(__file__).resolve().parent.parent


def test_chip_focus_hides_the_rest_and_comes_back(qtbot, shown):
    w = shown(uiapp.build_window(Scenario(batch=64), st=None))
    normal = w.hierarchy.width()
    w.toggle_chip_focus()
    qtbot.wait(20)
    assert not w.controls_scroll.isVisible() and not w.right.isVisible()
    assert w.hierarchy.width() > 1.4 * normal
    # double-clicking the chip returns to the full window
    qtbot.mouseDClick(w.hierarchy, Qt.LeftButton, pos=QPoint(40, 40))
    qtbot.wait(20)
    assert w.controls_scroll.isVisible() and w.right.isVisible()


def test_smoke_renders_every_view_and_exits_0(tmp_path):
    out = subprocess.run([sys.executable, "main.py", "--smoke"], cwd=ROOT, capture_output=True, text=True,
                         timeout=180, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip() == "", out.stderr     # no Qt noise, no warnings
