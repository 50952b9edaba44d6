"""One truth on screen, in the lessons: every chapter's visible numbers are the model's.

For 240 seeded random scenarios (30 per chapter, the same generator as the Explore walk in
tests/test_consistency.py) the window opens a chapter at a random prepared state, then the
controller gets the random scenario (chapters 2–8 follow the live scenario: 2–4 through its
GPU, 5–8 through its Estimate; chapter 1 is the fixed line of generations), the Details
toggle is opened, and ui.plotting.screen_text walks the chapter view (claim, key number and its
label, chart titles, notes, plot texts, per-marker hover texts, details, tooltips):

  1. wherever a readout's label is written with a number after it, the number is that
     readout's text (model.readouts), exactly;
  2. the claim is the state's caption template filled by the model's Facts
     (model.lessons.deck.chapter_facts(...).fill(caption)), with nothing left unfilled;
  3. the key number and its label are the Facts' key number; the details are the Facts'
     detail lines (then the chapter's extra lines, e.g. published runs);
  4. every word the chart draws (its title row, plot labels, per-marker hover texts, the
     plots' own tooltips) is one of the strings of the model's chart value
     (model.lessons.deck.chapter_chart), exactly: the view formats nothing itself.
"""
from __future__ import annotations

import html
import random
import re

import pytest
from PySide6.QtWidgets import QApplication, QLabel

from model.errors import ModelError
from model.lessons.chart import chart_texts
from model.lessons.deck import chapter_chart, chapter_facts
from model.lessons.chapters import default_chapters
from model.readouts.numbers import readouts
from test_consistency import labelled_checks, pair_check, random_scenarios
from ui.plotting.screen_text import Shown, plain, shown_texts

pytestmark = pytest.mark.slow        # a long walk: make test runs it, make test-fast leaves it out

CHAPTERS = default_chapters()
PER_CHAPTER = 30
SEED = 20261201


def chapter_cases() -> list[tuple[int, int, object]]:
    """(chapter, state index, scenario): PER_CHAPTER random cases per chapter."""
    rng = random.Random(SEED)
    scenarios = [s for s, _ in random_scenarios(PER_CHAPTER * len(CHAPTERS), SEED)]
    return [(n, rng.randrange(len(CHAPTERS[n - 1].states)), scenarios[(n - 1) * PER_CHAPTER + k])
            for n in range(1, len(CHAPTERS) + 1) for k in range(PER_CHAPTER)]


def open_case(w, number: int, index: int, scenario):
    """Open the chapter at its prepared state, then switch to the random scenario; the view, fresh."""
    w.show_chapter(number, index)
    c = w.controller
    c.set_compare(None)
    c.set_scenario(scenario)
    c.flush()
    v = w.lessons.current_view
    v.ensure_fresh()
    v.details_button.setChecked(True)
    QApplication.processEvents()
    return v


def chart_drawn(v) -> list:
    """What the chart widget draws: its title row, plot labels, hover texts and plot tooltips, and
    the ticks a chapter names itself (a category axis' names, lesson 2's percentages)."""
    drawn = [sh for sh in shown_texts(v.chart) if sh.kind in ("plot", "hover") or sh.where == "chartTitle"
             or (sh.kind == "tooltip" and sh.where == "PlotWidget")]
    for p in v.plots:
        if not p.isVisible():
            continue
        for name in ("left", "bottom"):
            levels = getattr(p.getPlotItem().getAxis(name), "_tickLevels", None) or []
            drawn += [Shown(f"{name} axis", "tick", str(text)) for level in levels for _value, text in level]
    return drawn


def chart_problems(v) -> list[str]:
    """Each text the chart draws that is not a string of the model's chart value (rule 4 above)."""
    c = v.controller
    words = set(chart_texts(chapter_chart(v.chapter.number, c.estimate, v.params, c.catalog)))
    return [f"{sh.where} ({sh.kind}) {sh.text[:80]!r} is not a text of the model's chart"
            for sh in chart_drawn(v) if sh.text not in words]


def check_chapter(v) -> tuple[int, list[str]]:
    """Walk one chapter view: (labelled numbers checked, problems)."""
    c = v.controller
    e = c.estimate
    rs = readouts(e)
    by_label = {lab: r for r in rs.values() for lab in r.labels}
    bad: list[str] = []
    try:
        facts = chapter_facts(v.chapter.number, e, v.params, c.catalog)
    except ModelError as exc:       # the model says why it has no numbers: the chapter says that, and no stale number
        if (str(exc).splitlines()[0] not in v.error_text or v.key_label.text() != "—" or v.details_label.text()
                or v.chart.isVisible()):
            bad.append(f"the model says {exc}; the chapter shows {v.error_text!r}, key {v.key_label.text()!r}, "
                       f"chart shown: {v.chart.isVisible()}")
        if v.caption_label.text() != re.sub(r"\{[^}]*\}", "…", v.state.caption):
            bad.append(f"claim {v.caption_label.text()!r} has numbers the model did not give")
        return 0, bad
    if v.error_text:
        bad.append(f"the chapter could not draw: {v.error_text}")
    claim = facts.claim(v.state.caption)
    if v.caption_label.text() != claim:
        bad.append(f"claim {v.caption_label.text()!r}, the model's {claim!r}")
    if "{" in claim or "…" in v.caption_label.text():
        bad.append(f"claim left a value unfilled: {claim!r}")
    if not facts.missing(v.state.caption) and claim != facts.fill(v.state.caption):
        bad.append(f"claim {claim!r} is not the template filled by the model")
    if (v.key_label.text(), plain(v.key_caption.text())) != (facts.key.text, facts.key.label):
        bad.append(f"key number {v.key_label.text()!r} ({v.key_caption.text()!r}), the model's {facts.key}")
    details = plain("<br>".join(html.escape(d) for d in (*facts.details, *v.extra_details())))
    if plain(v.details_label.text()) != details:
        bad.append(f"details {plain(v.details_label.text())[:80]!r}, the model's {details[:80]!r}")
    bad += chart_problems(v)
    n = 0
    for sh in shown_texts(v):
        if sh.kind == "pair":
            n += 1
            bad += pair_check(sh, by_label)[1]
            continue
        k, wrong = labelled_checks(sh.text, rs)
        n += k
        bad += [f"{sh.where} ({sh.kind}): {x}" for x in wrong]
    return n, bad


def test_the_chapter_cases_cover_every_chapter_and_many_states():
    cases = chapter_cases()
    assert len(cases) >= 200
    assert {n for n, _, _ in cases} == set(range(1, len(CHAPTERS) + 1))
    assert len({(n, i) for n, i, _ in cases}) >= 2 * len(CHAPTERS)
    assert {s.phase for n, _, s in cases if n >= 5} == {"decode", "prefill"}


def test_every_number_in_every_chapter_is_the_models(lessons_window):
    w = lessons_window
    w.show_lessons()
    problems, checked, walked, charted = [], 0, 0, 0
    for number, index, s in chapter_cases():
        v = open_case(w, number, index, s)
        walked += len(shown_texts(v))
        charted += len(chart_drawn(v))
        n, bad = check_chapter(v)
        checked += n
        problems += [f"chapter {number} state {index + 1}, {s}: {b}" for b in bad]
    assert not problems, f"{len(problems)} disagreements, e.g.\n" + "\n".join(problems[:12])
    assert walked > 10 * len(chapter_cases())
    assert checked > 0, "no labelled readout was ever written in a chapter"
    assert charted > 10 * len(chapter_cases()), "the charts' texts were hardly ever checked"


def test_the_chapter_walk_catches_a_wrong_number(lessons_window):
    """The check itself can fail: a wrong key number, claim, or labelled readout is reported."""
    w = lessons_window
    w.show_lessons()
    number, index, s = next(c for c in chapter_cases() if c[0] == 5)
    v = open_case(w, number, index, s)
    assert check_chapter(v)[1] == []
    e = w.controller.estimate
    r = readouts(e)["decode_time"]
    v.key_label.setText("12.3 ms")
    QLabel.setText(v.caption_label, "Decode is 99× faster")     # the label's own text, not the model's
    note = v.note_label(f"{r.label}: 0.001 ms")
    v.side_lay.addWidget(note)
    note.show()
    v.row_labels[1].setText("Realistic 1.23 ms = weights 1.00 ms")     # a chart text the view wrote itself
    v.plot.tips.point(1.0, 1.0, "a hover text of its own: 42 ms")
    v.names.setTicks([[(0, "maths 9 ms")]])                             # a tick it named itself
    _, bad = check_chapter(v)
    assert any("key number '12.3 ms'" in b for b in bad)
    assert any(b.startswith("claim 'Decode is 99× faster'") for b in bad)
    assert any("0.001 ms" in b and "decode_time" in b for b in bad)
    assert any("'Realistic 1.23 ms" in b and "not a text of the model's chart" in b for b in bad)
    assert any("42 ms" in b and "(hover)" in b for b in bad)
    assert any("'maths 9 ms'" in b and "(tick)" in b for b in bad)
