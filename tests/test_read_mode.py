"""Read mode, the glossary and the exercises (issue 40): every number the model's, every term
linked to an entry that exists, every answer the model's (a changed GPU changes it), and the
checker's grades."""
from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest

from model import Scenario, estimate
from model.catalog.active import default_catalog
from model.lessons.chapters import default_chapters
from model.lessons.exercises import EXERCISES, check, exercises_for, grade, read_guess, solve
from model.lessons.glossary import BY_KEY, TERMS, entry, glossary
from model.lessons.read import read_page, spans
from model.lessons.read_html import glossary_body, page_html
from model.readouts.derivations import all_readouts

CHAPTERS = default_chapters()


def _changed(hw):
    """The same part with other numbers: 1.5× the bandwidth, half the FLOP/s, twice the HBM latency
    and capacity."""
    levels = tuple(replace(lv, bandwidth_bytes_per_s=lv.bandwidth_bytes_per_s * 1.5, latency_s=lv.latency_s * 2)
                   if lv.key == "hbm" else lv for lv in hw.levels)
    return replace(hw, hbm_bandwidth_bytes_per_s=hw.hbm_bandwidth_bytes_per_s * 1.5,
                   peak_flops=tuple((k, v * 0.5) for k, v in hw.peak_flops), levels=levels,
                   hbm_capacity_bytes=hw.hbm_capacity_bytes * 2)


@pytest.mark.parametrize("ch", CHAPTERS, ids=lambda c: f"lesson{c.number}")
def test_every_state_reads_with_live_numbers_and_linked_terms(ch):
    for i, st in enumerate(ch.states):
        e = estimate(st.scenario)
        page = read_page(ch, i, e, dict(st.params))
        assert page.ideas and all(idea.derivation for idea in page.ideas), (ch.number, i)
        text = " ".join(s.text for idea in page.ideas for s in idea.paragraph)
        assert "{" not in text and "—" not in text, text          # every template name filled
        assert set(page.terms) <= set(BY_KEY) and len(page.terms) == len(set(page.terms))
        html = page_html(page, "glossary.html")
        for key in page.terms:
            assert f'href="glossary.html#{key}"' in html
        assert len(page.exercises) >= 2 and page.try_next


def test_read_numbers_are_the_readouts_and_follow_the_scenario():
    ch = CHAPTERS[4]                              # lesson 5: the decode floor
    st = ch.states[0]
    pages = []
    for gpu in ("h100-sxm5-80gb", "h200-sxm-141gb"):
        e = estimate(st.scenario.with_(gpu=gpu))
        page = read_page(ch, 0, e, dict(st.params))
        floor = all_readouts(e)["decode_floor"].text
        assert floor in "".join(s.text for s in page.ideas[0].paragraph)
        assert any(f"Floor {floor} = " in line for line in page.ideas[0].derivation)
        pages.append(page)
    assert pages[0].ideas[0] != pages[1].ideas[0]


def test_spans_link_each_term_once():
    seen: set[str] = set()
    out = spans("MBU is low; MBU again, then the KV cache and HBM.", seen)
    assert [s.term for s in out if s.term] == ["mbu", "kv-cache", "hbm"]
    assert "".join(s.text for s in out) == "MBU is low; MBU again, then the KV cache and HBM."
    assert spans("MBU once more", seen) == (spans("MBU once more", set())[0].__class__("MBU once more"),)


def test_glossary_has_every_asked_term_with_an_anchor_and_a_value():
    asked = {"overhead", "achieved-fraction", "mbu", "mfu", "arithmetic-intensity", "ridge-point", "critical-batch",
             "kv-cache", "ttft", "tpot", "itl", "goodput", "frontier", "w8a8", "prefill", "decode",
             "tensor-parallelism", "hbm"}
    assert asked <= set(BY_KEY)
    e = estimate(Scenario(model="llama-3.1-8b", batch=8))
    entries = glossary(e)
    body = glossary_body(entries)
    for g in entries:
        assert f'id="{g.term.key}"' in body
        assert g.value and g.equation and g.term.definition
        assert re.search(r"\d", g.value) or g.value.endswith("-bound"), g      # this scenario's number (or bound)
    assert len(set(re.findall(r'id="([^"]+)"', body))) == len(TERMS)


def test_glossary_values_come_from_the_model():
    cat = default_catalog()
    hw = cat.gpu("h100-sxm5-80gb")
    s = Scenario(model="llama-3.1-8b", batch=8)
    base, other = estimate(s, cat), estimate(s, cat.with_hardware(_changed(hw)))
    for key in ("hbm", "ridge-point", "mbu", "decode-floor", "goodput"):
        assert entry(base, key).value != entry(other, key).value, key


def test_exercises_two_per_lesson_and_answers_from_the_model():
    cat = default_catalog()
    for n in range(1, len(CHAPTERS) + 1):
        assert len(exercises_for(n)) >= 2
    for ex in EXERCISES:
        a = solve(ex, cat)
        assert math.isfinite(a.value) and a.value > 0 and a.derivation, ex.key
        changed = cat.with_hardware(_changed(cat.gpu(ex.scenario.gpu)))
        b = solve(ex, changed)
        assert not math.isclose(a.value, b.value, rel_tol=1e-6), (ex.key, a.value, b.value)


def test_checker_grades_right_near_far():
    ex = next(x for x in EXERCISES if x.key == "ch5-floor-70b")
    ans = solve(ex).value
    right = check(ex, f"{ans * 1.05:.4g} ms")
    near = check(ex, f"{ans * 0.7:.4g}")
    far = check(ex, f"{ans / 10:.4g}")
    assert (right.grade, near.grade, far.grade) == ("right", "near", "far")
    assert right.words.startswith("Right") and "low" in near.words and "too low" in far.words
    assert ex.unit in right.answer.text and right.answer.derivation
    assert abs(near.relative_error + 0.3) < 0.01
    bad = check(ex, "no idea")
    assert bad.grade == "unreadable" and math.isnan(bad.relative_error)
    assert read_guess("1,024 sequences") == 1024.0 and read_guess("3.2e1") == 32.0
    assert grade(2.0, 1.0)[0] == "near" and grade(2.1, 1.0)[0] == "far" and grade(0.0, 0.0)[0] == "right"


def test_a_part_without_hbm_is_not_said_to_have_it():
    ch = CHAPTERS[2]                               # lesson 3, its RTX 4090 state
    i = next(k for k, st in enumerate(ch.states) if st.scenario.gpu.startswith("rtx-4090"))
    page = read_page(ch, i, estimate(ch.states[i].scenario), dict(ch.states[i].params))
    text = " ".join(s.text for idea in page.ideas for s in idea.paragraph)
    assert "GDDR6X" in text and "HBM" not in text
