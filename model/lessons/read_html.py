"""Read mode and the glossary as HTML: the same page for the window (a QTextBrowser shows it)
and for ``main.py lessons --html`` (a file per lesson). Only markup here: every word and number
comes from model/lessons/read.py and model/lessons/glossary.py.

    page_html(page, glossary_href, image_src, font_px, nav)   one lesson
    glossary_html(entries, font_px, back)                     the glossary, an anchor per term
    index_html(titles, font_px)                               the export's index
"""
from __future__ import annotations

from html import escape

from typing import Mapping

from model.lessons.exercises import Answer
from model.lessons.glossary import GlossaryEntry
from model.lessons.read import ReadPage, Span

GLOSSARY_FILE = "glossary.html"
ANSWER_WORD = "The model's answer"


def lesson_file(number: int) -> str:
    return f"lesson{number}.html"


def _style(font_px: int) -> str:
    return (f"<style>body {{ font-family: sans-serif; font-size: {font_px}px; max-width: 60em; margin: 1em auto; "
            f"padding: 0 1em; line-height: 1.4; }} h1 {{ font-size: {int(font_px * 1.5)}px; }} "
            f"h2 {{ font-size: {int(font_px * 1.2)}px; margin-bottom: 0.2em; }} "
            f".claim {{ font-size: {int(font_px * 1.25)}px; font-weight: bold; }} "
            f".der {{ font-family: monospace; font-size: {font_px}px; color: #444; margin-left: 1em; }} "
            f"img {{ max-width: 100%; }} a.term {{ text-decoration: underline; }} "
            f".value {{ font-weight: bold; }}</style>")


def spans_html(spans: tuple[Span, ...], glossary_href: str) -> str:
    return "".join(f'<a class="term" href="{glossary_href}#{s.term}">{escape(s.text)}</a>' if s.term else escape(s.text)
                   for s in spans)


def page_html(page: ReadPage, glossary_href: str = "", image_src: str = "", font_px: int = 18,
              nav: tuple[tuple[str, str], ...] = (), exercises: bool = True, standalone: bool = True,
              answers: Mapping[str, Answer] | None = None) -> str:
    """One lesson's read mode: claim, what it is about, one derivation per idea, the chart (when
    ``image_src``), what to try next and the exercises' questions. ``glossary_href`` "" links to
    anchors of the same document (the window's browser resolves them itself). Not ``standalone``:
    the body only, without the title and the claim (the window shows them above the chart)."""
    answers = answers or {}
    parts = [f"<h1>{page.number} · {escape(page.title)}</h1>",
             f'<p class="claim">{spans_html(page.claim, glossary_href)}</p>'] if standalone else []
    parts += [f"<p>{spans_html(page.intro, glossary_href)}</p>",
             f'<p class="value">{escape(page.key_number)}</p>']
    if image_src:
        parts.append(f'<p><img src="{escape(image_src, quote=True)}" alt="The chart of lesson {page.number}"></p>')
    for idea in page.ideas:
        parts.append(f"<h2>{escape(idea.heading)}</h2><p>{spans_html(idea.paragraph, glossary_href)}</p>")
        parts.extend(f'<p class="der">{escape(line)}</p>' for line in idea.derivation if line)
    parts.append("<h2>What to try next</h2><ul>" + "".join(f"<li>{escape(t)}</li>" for t in page.try_next) + "</ul>")
    if exercises and page.exercises:
        parts.append("<h2>Predict, then see</h2><ol>" + "".join(_exercise(x, answers.get(x.key)) for x in page.exercises)
                     + "</ol>")
    if nav:
        parts.append("<p>" + " · ".join(f'<a href="{escape(h, quote=True)}">{escape(t)}</a>' for t, h in nav) + "</p>")
    body = "\n".join(parts)
    if not standalone:
        return body
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{page.number} · '
            f'{escape(page.title)}</title>{_style(font_px)}</head><body>\n{body}\n</body></html>\n')


def _exercise(x, answer: Answer | None) -> str:
    """A question; with the model's answer folded under it (a page read alone: predict, then open)."""
    if answer is None:
        return f'<li id="{x.key}">{escape(x.question)}</li>'
    lines = "".join(f'<p class="der">{escape(line)}</p>' for line in answer.derivation)
    return (f'<li id="{x.key}">{escape(x.question)}<details><summary>{ANSWER_WORD}</summary>'
            f'<p class="value">{escape(answer.text)}</p>{lines}</details></li>')


def glossary_body(entries: tuple[GlossaryEntry, ...], intro: str = "") -> str:
    """Every term: an anchor, its definition, its equation, this scenario's value and arithmetic."""
    out = ["<h1>Glossary</h1>", *((f"<p>{escape(intro)}</p>",) if intro else ())]
    for g in entries:
        out.append(f'<h2 id="{g.term.key}"><a name="{g.term.key}"></a>{escape(g.term.name)}</h2><p>{escape(g.term.definition)}</p>'
                   f'<p class="der">{escape(g.equation)}</p><p class="value">{escape(g.value)}</p>')
        if g.arithmetic:
            out.append(f'<p class="der">{escape(g.arithmetic)}</p>')
        if g.source:
            out.append(f"<p><i>{escape(g.source)}</i></p>")
    return "\n".join(out)


def glossary_html(entries: tuple[GlossaryEntry, ...], font_px: int = 18, back: str = "index.html",
                  scenario_line: str = "") -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Glossary</title>{_style(font_px)}'
            f'</head><body>\n<p><a href="{escape(back, quote=True)}">Index</a></p>'
            + f"\n{glossary_body(entries, scenario_line)}\n</body></html>\n")


def index_html(titles: tuple[tuple[int, str, str], ...], font_px: int = 18) -> str:
    """The export's first page: each lesson (number, title, claim) and the glossary."""
    items = "".join(f'<li><a href="{lesson_file(n)}">{n} · {escape(t)}</a> — {escape(c)}</li>' for n, t, c in titles)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Memory Wall — the lessons</title>'
            f'{_style(font_px)}</head><body>\n<h1>Memory Wall — the lessons</h1><ol>{items}</ol>'
            f'<p><a href="{GLOSSARY_FILE}">Glossary</a></p>\n</body></html>\n')
