"""Slides and the window's Record… dialog: every chapter's chart at 1920×1080, PNG and SVG,
light and dark; a recording made from the window."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtGui import QImage

from model.lessons.chapters import default_chapters
from ui.present.slides import SLIDE_SIZE, save_slide

CHAPTERS = default_chapters()


@pytest.mark.slow          # a walk over every chapter in both themes (~20-25 s): make test runs it, test-fast not
@pytest.mark.parametrize("number", [c.number for c in CHAPTERS])
def test_every_chapter_exports_a_slide_in_both_themes(shared_window, tmp_path, number):
    w = shared_window
    w.show_chapter(number, len(CHAPTERS[number - 1].states) - 1)
    before = (w.controller.scenario, dict(w.lessons.current_view.params), w.theme_name)
    lightness = {}
    for theme in ("dark", "light"):
        png, svg = tmp_path / f"{theme}.png", tmp_path / f"{theme}.svg"
        assert save_slide(w, "PNG", theme, str(png)), w.lessons.status.text()
        assert save_slide(w, "SVG", theme, str(svg)), w.lessons.status.text()
        img = QImage(str(png))
        assert (img.width(), img.height()) == SLIDE_SIZE
        lightness[theme] = img.pixelColor(3, img.height() // 2).lightness()
        head = svg.read_text(encoding="utf-8")[:600]
        assert re.search(r'viewBox="0 0 1920 1080"', head), head
        with Image.open(png) as im:
            assert len(im.convert("RGB").getcolors(maxcolors=1 << 20)) > 50   # a chart, not an empty page
    assert lightness["light"] > 200 > 60 > lightness["dark"]
    assert (w.controller.scenario, dict(w.lessons.current_view.params), w.theme_name) == before   # screen untouched


def _drain(fifo) -> threading.Thread:
    """A reader that empties the FIFO, so a writer that wrongly opens it fails the test instead of hanging."""
    def read_all():
        with open(fifo, "rb") as fh:
            while fh.read(65536):
                pass
    t = threading.Thread(target=read_all, daemon=True)
    t.start()
    return t


def test_a_slide_into_a_fifo_folder_or_read_only_file_is_one_line_never_a_hang(shared_window, tmp_path):
    w = shared_window
    w.show_chapter(4, 0)
    fifo = tmp_path / "x.json"
    os.mkfifo(fifo)
    drain = _drain(fifo)
    read_only = tmp_path / "ro.svg"
    read_only.write_text("mine")
    read_only.chmod(0o444)
    for kind in ("SVG", "PNG"):
        for path, needle in ((fifo, "not a regular file"), (tmp_path, "folder"), (read_only, "read-only"),
                             (tmp_path / "nope" / "s.svg", "does not exist")):
            assert not save_slide(w, kind, "dark", str(path))
            text = w.lessons.status.text()
            assert needle in text and "\n" not in text, text
    assert read_only.read_text() == "mine"
    os.close(os.open(fifo, os.O_WRONLY))    # lets the reader finish (waits for its thread to open the FIFO)
    drain.join(5)


def test_the_window_offers_slides_and_record(shared_window):
    w = shared_window
    names = {a.objectName() for a in w.lessons.export_button.menu().actions()}
    assert {f"slide_{k}_{t}" for k in ("png", "svg") for t in ("dark", "light")} <= names
    lay = w.mode_bar.layout()       # (indexOf, not itemAt: a wrapped QLayoutItem outlives its C++ object)
    assert 0 <= lay.indexOf(w.mode_bar.record_button) < lay.indexOf(w.mode_bar.present_button)


def test_record_from_the_window(shared_window, tmp_path):
    from ui.present.record_dialog import RecordDialog
    w = shared_window
    w.show_chapter(4, 0)
    d = RecordDialog(w)
    assert d.what.currentData() == 4                                  # this chapter, by default
    d.what.setCurrentIndex(0)                                         # the chip
    d.seconds.setValue(1.0)
    d.fps.setValue(10)
    d.size_box.setCurrentIndex(d.size_box.findText("640×360"))
    out = tmp_path / "chip.gif"
    assert d.record_to(str(out))
    with Image.open(out) as im:
        assert im.size == (640, 360) and im.n_frames == 10
    assert "10 frames" in w.lessons.status.text()
    assert not d.record_to(str(tmp_path / "missing" / "x.gif"))      # one line, no crash
    assert "does not exist" in w.lessons.status.text()
    d.close()


def test_the_mode_bar_builds_its_own_record_button():
    """Before the presenter exists (and without the record dialog's module until a click)."""
    code = ("import sys; from model import Scenario; from ui.shell.app import build_window\n"
            "from ui.shell.pages import ModeBar\n"
            "w = build_window(Scenario(), st=None)\n"
            "lay = w.mode_bar.layout()\n"
            "assert 0 <= lay.indexOf(w.mode_bar.record_button) < lay.indexOf(w.mode_bar.present_button)\n"
            "assert 'ui.present.record_dialog' not in sys.modules\n"
            "class Stub:\n"
            "    def __getattr__(self, name): return lambda *a: None\n"
            "bar = ModeBar(Stub())\n"
            "assert bar.record_button.text().startswith('Record') and bar.layout().indexOf(bar.record_button) >= 0\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent,
                         capture_output=True, text=True, timeout=120, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
