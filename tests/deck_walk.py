"""Walk every lesson state at the deck's sizes, in presenter mode, and run the drawing checker.

    walk(window, sizes=SIZES, presenting=True) -> [Finding]
"""
from __future__ import annotations

from PySide6.QtWidgets import QApplication

from deck_drawing import check_view
from model.lessons.chapters import default_chapters

SIZES = ((1920, 1080), (1280, 720), (1024, 768))


def settle_window(w, size) -> None:
    w.resize(*size)
    for _ in range(3):
        QApplication.processEvents()
    w.controller.flush()
    QApplication.processEvents()
    v = w.lessons.current_view
    v.ensure_fresh()
    v.place_labels()
    QApplication.processEvents()


def open_state(w, number: int, index: int, size) -> object:
    w.show_chapter(number, index)
    settle_window(w, size)
    return w.lessons.current_view


def walk(w, sizes=SIZES, presenting: bool = True, chapters=None) -> list:
    found = []
    for size in sizes:
        for ch in default_chapters():
            if chapters and ch.number not in chapters:
                continue
            for k in range(len(ch.states)):
                v = open_state(w, ch.number, k, size)
                found += check_view(v, presenting, size)
    return found
