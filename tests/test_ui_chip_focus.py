"""The chip shown large on its own, and --smoke rendering every view."""
from __future__ import annotations

import pytest

import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QPoint, Qt

from model import Scenario
from qt_events import deliver
from ui.shell import app as uiapp

ROOT = Path(__file__).resolve().parent.parent


def test_chip_focus_hides_the_rest_and_comes_back(qtbot, shown):
    w = shown(uiapp.build_window(Scenario(batch=64), st=None))
    normal = w.hierarchy.width()
    w.toggle_chip_focus()
    deliver()
    assert not w.controls_scroll.isVisible() and not w.right.isVisible()
    assert w.hierarchy.width() > 1.4 * normal
    _assert_parts_apart_and_inside(w.hierarchy.lay)     # the pure layout at the chip-focus size
    # double-clicking the chip returns to the full window
    qtbot.mouseDClick(w.hierarchy, Qt.LeftButton, pos=QPoint(40, 40))
    deliver()
    assert w.controls_scroll.isVisible() and w.right.isVisible()


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_smoke_renders_every_view_and_exits_0(tmp_path):
    out = subprocess.run([sys.executable, "main.py", "--smoke"], cwd=ROOT, capture_output=True, text=True,
                         timeout=180, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip() == "", out.stderr     # no Qt noise, no warnings


def _assert_parts_apart_and_inside(lay):
    import itertools
    from ui.chip.layout import Rect
    view = Rect(0, 0, lay.width, lay.height)
    parts = lay.parts()
    for (a, ra), (b, rb) in itertools.combinations(parts.items(), 2):
        assert not ra.intersects(rb), (a, b)
    assert all(r.inside(view) for r in parts.values())
