"""Slides and the window's Record… dialog: every chapter's chart at 1920×1080, PNG and SVG,
light and dark; a recording made from the window."""
from __future__ import annotations

import re

import pytest
from PIL import Image
from PySide6.QtGui import QImage

from model.lessons import default_chapters
from ui.slide_export import SLIDE_SIZE, save_slide

CHAPTERS = default_chapters()


@pytest.mark.parametrize("number", [c.number for c in CHAPTERS])
def test_every_chapter_exports_a_slide_in_both_themes(lessons_window, tmp_path, number):
    w = lessons_window
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


def test_the_window_offers_slides_and_record(lessons_window):
    w = lessons_window
    names = {a.objectName() for a in w.lessons.export_button.menu().actions()}
    assert {f"slide_{k}_{t}" for k in ("png", "svg") for t in ("dark", "light")} <= names
    lay = w.mode_bar.layout()       # (indexOf, not itemAt: a wrapped QLayoutItem outlives its C++ object)
    assert 0 <= lay.indexOf(w.record_button) < lay.indexOf(w.mode_bar.present_button)


def test_record_from_the_window(lessons_window, tmp_path):
    from ui.record_dialog import RecordDialog
    w = lessons_window
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
