"""main.py lessons --html DIR (issue 40): a page per lesson, an index and the glossary; every link
resolves, every glossary anchor a lesson links exists, each chart is embedded; a folder of
someone else's files is refused, a bad path exits 2 with one line, a folder we wrote is written
again."""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from cli.lessons import check_folder
from cli import UsageError
from model.lessons.exercises import exercises_for, solve
from model.lessons.export_html import MARKER, export_pages
from model.lessons.glossary import TERMS

ROOT = Path(__file__).resolve().parent.parent
PNG = b"\x89PNG\r\n\x1a\n fake"


def _main(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "main.py", *argv], cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=300)


def _links(html: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', html)


def test_pages_link_to_each_other_and_to_glossary_anchors_that_exist():
    pages = export_pages({n: PNG for n in range(1, 9)})
    assert {"index.html", "glossary.html", *(f"lesson{n}.html" for n in range(1, 9))} == set(pages)
    anchors = {name: set(re.findall(r'id="([^"]+)"', text)) for name, text in pages.items()}
    assert {t.key for t in TERMS} <= anchors["glossary.html"]
    linked_terms = 0
    for name, text in pages.items():
        for href in _links(text):
            target = urlsplit(href)
            assert not target.scheme and not target.netloc, href          # self-contained: nothing fetched
            doc = target.path or name
            assert doc in pages, (name, href)
            if target.fragment:
                assert target.fragment in anchors[doc], (name, href)
                linked_terms += doc == "glossary.html"
    assert linked_terms >= 8 * 3
    for n in range(1, 9):
        assert 'src="data:image/png;base64,' in pages[f"lesson{n}.html"]
        for x in exercises_for(n):                      # each question, the model's answer folded under it
            assert f'<li id="{x.key}">' in pages[f"lesson{n}.html"]
            assert f'<p class="value">{html.escape(solve(x).text)}</p>' in pages[f"lesson{n}.html"]
        assert f'href="lesson{n}.html"' in pages["index.html"]


def test_the_folder_rules(tmp_path):
    assert check_folder(str(tmp_path / "new")).is_dir()                  # made
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="did not write"):
        check_folder(str(theirs))
    (theirs / MARKER).write_text("")
    assert check_folder(str(theirs)) == theirs                           # ours: written again
    a_file = tmp_path / "file.html"
    a_file.write_text("x")
    with pytest.raises(UsageError, match="is a file"):
        check_folder(str(a_file))
    with pytest.raises(UsageError, match="does not exist"):
        check_folder(str(tmp_path / "missing" / "out"))


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_the_command_writes_the_pages_and_refuses_bad_paths(tmp_path):
    out = tmp_path / "site"
    run = _main("lessons", "--html", str(out))
    assert run.returncode == 0, run.stderr
    names = {p.name for p in out.iterdir()}
    assert {"index.html", "glossary.html", MARKER, *(f"lesson{n}.html" for n in range(1, 9))} == names
    page = (out / "lesson5.html").read_text(encoding="utf-8")
    assert 'src="data:image/png;base64,iVBOR' in page and "decode floor" in page.lower()
    again = _main("lessons", "--html", str(out))                         # a folder we wrote: written again
    assert again.returncode == 0, again.stderr
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "keep.txt").write_text("mine")
    for bad in (str(theirs), str(tmp_path / "no" / "such"), str(theirs / "keep.txt")):
        run = _main("lessons", "--html", bad)
        assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, (bad, run.stderr)
        assert run.stderr.startswith("main.py lessons: ")
    assert (theirs / "keep.txt").read_text() == "mine" and {p.name for p in theirs.iterdir()} == {"keep.txt"}
