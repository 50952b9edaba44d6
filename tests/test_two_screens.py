"""The presenter view on two screens: tests/two_screens_cases.py, run in a subprocess whose
offscreen platform has a laptop and a projector (the main test process has one screen)."""
from __future__ import annotations

import pytest

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCREENS = {"screens": [
    {"name": "laptop", "x": 0, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96},
    {"name": "projector", "x": 1920, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96},
]}


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_presenter_view_on_two_screens(tmp_path):
    config = tmp_path / "screens.json"
    config.write_text(json.dumps(SCREENS), encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}")
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                        str(ROOT / "tests" / "two_screens_cases.py")],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "6 passed" in r.stdout.strip().splitlines()[-1], r.stdout[-2000:]
