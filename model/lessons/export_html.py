"""The lessons as a folder of web pages (``main.py lessons --html DIR``): a page per lesson in its
first prepared state (read mode's text, its chart as an embedded PNG, links to its neighbours),
an index, and the glossary with this scenario's values. Pure text: the caller draws the charts
(ui/present/slides.chart_png) and writes the files (cli/lessons.py).

    export_pages(charts, catalog) -> {file name: HTML}
    MARKER                           the file that says a folder is one this export wrote
"""
from __future__ import annotations

import base64
from typing import Mapping

from model.catalog.parts import Catalog
from model.lessons.chapters import default_chapters
from model.lessons.deck import chapter_facts
from model.lessons.exercises import solve
from model.lessons.glossary import glossary
from model.lessons.read import read_page
from model.lessons.read_html import GLOSSARY_FILE, glossary_html, index_html, lesson_file, page_html
from model.physics.estimate import estimate
from model.physics.scenario import Scenario

MARKER = ".memory-wall-lessons"
MARKER_TEXT = "Written by memory-wall lessons --html: its pages may be written again here.\n"
INDEX_FILE = "index.html"
NAV = {"index": "Index", "glossary": "Glossary", "previous": "← {n} · {title}", "next": "{n} · {title} →"}


def glossary_scenario_line(e) -> str:
    s = e.scenario
    return (f"The values below are this scenario's: {e.model_name} in {e.precision_name} on {s.gpus} × "
            f"{e.gpu_name}, batch {s.batch:,}, {s.input_len:,} tokens in and {s.output_len:,} out.")


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def export_pages(charts: Mapping[int, bytes], catalog: Catalog | None = None,
                 glossary_for: Scenario | None = None) -> dict[str, str]:
    """Every page's HTML by file name; ``charts``: each lesson's chart as PNG bytes (a lesson
    without one is written without its picture)."""
    chapters = default_chapters()
    out: dict[str, str] = {}
    titles = []
    for ch in chapters:
        st = ch.states[0]
        e = estimate(st.scenario, catalog)
        params = dict(st.params)
        page = read_page(ch, 0, e, params, catalog)
        nav = [(NAV["index"], INDEX_FILE)]
        if ch.number > 1:
            prev = chapters[ch.number - 2]
            nav.append((NAV["previous"].format(n=prev.number, title=prev.title), lesson_file(prev.number)))
        if ch.number < len(chapters):
            nxt = chapters[ch.number]
            nav.append((NAV["next"].format(n=nxt.number, title=nxt.title), lesson_file(nxt.number)))
        nav.append((NAV["glossary"], GLOSSARY_FILE))
        png = charts.get(ch.number)
        answers = {x.key: solve(x, catalog) for x in page.exercises}
        out[lesson_file(ch.number)] = page_html(page, GLOSSARY_FILE, data_uri(png) if png else "", nav=tuple(nav),
                                                answers=answers)
        titles.append((ch.number, ch.title, chapter_facts(ch.number, e, params, catalog).claim(st.caption)))
    g = estimate(glossary_for or Scenario(), catalog)
    out[GLOSSARY_FILE] = glossary_html(glossary(g), back=INDEX_FILE, scenario_line=glossary_scenario_line(g))
    out[INDEX_FILE] = index_html(tuple(titles))
    return out
