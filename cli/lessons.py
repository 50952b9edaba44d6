"""main.py lessons: the eight lessons from the command line.

    main.py lessons                      each lesson's number, title and claim
    main.py lessons --html DIR [--theme light|dark]
                                         a web page per lesson (read mode's text, its chart as an
                                         embedded PNG drawn off screen), an index and the glossary,
                                         linked to each other (model/lessons/export_html.py)
DIR may be new, empty, or a folder this command wrote before (it holds model/lessons/export_html.MARKER);
any other folder with files in it is refused, so nobody's files are replaced. A DIR that is a file,
under a missing folder, or not writable exits 2 with one line.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from cli.args import UsageError


def add_lessons_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("lessons", help="the lessons: their claims, or --html DIR: a web page per lesson, an index "
                                       "and the glossary")
    p.add_argument("--html", metavar="DIR", help="write the lessons as linked web pages into DIR (new, empty, or "
                                                 "written by this command before)")
    p.add_argument("--theme", choices=("light", "dark"), default="light", help="the charts' colours (default light)")
    return p


def check_folder(path: str) -> Path:
    """The export's folder, made if new; UsageError (one line) for one that must not be written."""
    from model.lessons.export_html import MARKER
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise UsageError(f"--html {path}: is a file, not a folder")
    if p.is_dir():
        if any(p.iterdir()) and not (p / MARKER).is_file():
            raise UsageError(f"--html {path}: the folder has files this command did not write; "
                             f"name a new or empty folder")
        if not os.access(p, os.W_OK | os.X_OK):
            raise UsageError(f"--html {path}: the folder is not writable")
        return p
    if not p.parent.is_dir():
        raise UsageError(f"--html {path}: its folder {p.parent} does not exist")
    try:
        p.mkdir()
    except OSError as exc:
        raise UsageError(f"--html {path}: cannot make the folder ({exc.strerror or exc})") from None
    return p


def charts(theme: str) -> dict[int, bytes]:
    """Each lesson's chart in its first prepared state, drawn off screen (no window opens)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from model.lessons.chapters import default_chapters
    from ui.kit.qt_app import ensure_app
    from ui.present.slides import chart_png
    ensure_app()
    return {ch.number: chart_png(ch.number, 0, theme) for ch in default_chapters()}


def cmd_lessons(args) -> int:
    from model.lessons.chapters import default_chapters
    if not args.html:
        from model import estimate
        from model.lessons.deck import chapter_facts
        for ch in default_chapters():
            st = ch.states[0]
            claim = chapter_facts(ch.number, estimate(st.scenario), dict(st.params)).claim(st.caption)
            print(f"{ch.number}  {ch.title}: {claim}")
        return 0
    from model.files.safe_io import atomic_write_text
    from model.lessons.export_html import MARKER, MARKER_TEXT, export_pages
    folder = check_folder(args.html)
    pages = export_pages(charts(args.theme))
    atomic_write_text(folder / MARKER, MARKER_TEXT, overwrite=True)
    for name, text in pages.items():
        atomic_write_text(folder / name, text, overwrite=True)
    print(f"wrote {len(pages)} pages to {folder}: open {folder / 'index.html'}")
    return 0
