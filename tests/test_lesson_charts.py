"""The lessons' chart values (model.lessons.deck.chapter_chart): every prepared state has one,
its words are whole (no template holes, no NaN), and it is built from the numbers the
chapter's Facts name, so the chart and the claim never disagree. No Qt."""
from __future__ import annotations

import math
import re

import pytest

from model import estimate
from model.lessons.chapters import default_chapters
from model.lessons.chart import Bar, Mark, chart_texts
from model.lessons.deck import chapter_chart, chapter_facts, chapter_heading, chart_name
from model.lessons.facts import times
from model.readouts.format import si
from model.readouts.numbers import readouts

CHAPTERS = default_chapters()
STATES = [(ch.number, i) for ch in CHAPTERS for i in range(len(ch.states))]


def state_chart(number: int, index: int):
    st = CHAPTERS[number - 1].states[index]
    e = estimate(st.scenario)
    params = dict(st.params)
    return e, chapter_facts(number, e, params), chapter_chart(number, e, params)


@pytest.mark.parametrize("number,index", STATES)
def test_every_state_has_a_chart_with_whole_words(number, index):
    _e, _facts, chart = state_chart(number, index)
    words = chart_texts(chart)
    assert chart.title in words and chart.tooltip in words and len(words) > 5
    for w in words:
        assert "{" not in w and "nan" not in w.lower() and "None" not in w, (number, w)


def test_chart_texts_walks_fields_tuples_and_mappings():
    b = Bar(0, 1.0, "one", "tip one")
    assert chart_texts((b, {"k": Mark(1, 2, "two")}, ["three", ""])) == ("one", "tip one", "two", "three")
    assert b.end == 1.0 and Bar(1, 2.0, start=3.0).end == 5.0


def test_the_charts_use_the_facts_numbers():
    _e, f, c = state_chart(1, 0)
    assert c.flops[-1].label.startswith(f.values["flops_x"]) and c.bandwidth[-1].label.startswith(f.values["bw_x"])
    _e, f, c = state_chart(1, 2)
    assert any(b.label == f.values["ridge_top"] for b in c.ridge)
    _e, f, c = state_chart(2, 2)
    assert c.now.label.endswith(f.values["busy"]) and c.needed.label.startswith(f.values["needed"])
    _e, f, c = state_chart(3, 0)
    assert f.values["mem_bw"] in {m.label for m in c.bandwidth.marks}
    for index in range(4):
        _e, f, c = state_chart(4, index)
        assert f.values["attainable"] in c.dot.label and f.values["intensity"] in c.dot.label and c.ridge.label == f"ridge {f.values['ridge']}"
    e, f, c = state_chart(5, 0)
    assert c.row_texts[2].startswith(f"Floor {f.values['floor']}") and f.values["bw"] in c.row_texts[2]
    e, f, c = state_chart(6, 1)
    assert readouts(e)["output_tokens_per_s"].text in c.now.tip and f.values["batch"] in c.now.tip
    e, f, c = state_chart(7, 0)
    assert all(b.label.startswith(f.values[f"{r.precision_id}_gb"]) for b, r in zip(c.bars, c.rows))
    e, f, c = state_chart(8, 0)
    now = next(b for b in c.totals if b.kind == "current")
    assert f.values["speedup"] in now.label


def test_the_roofline_chart_does_the_arithmetic_the_view_did():
    for index in range(4):
        _e, f, c = state_chart(4, index)
        assert c.ridge2.x == pytest.approx(2 * c.ridge.x) and c.ridge2.y == pytest.approx(2 * c.ridge.y)
        assert float(c.roof2.max()) == pytest.approx(2 * float(c.roof.max()))
        assert c.double.y == c.point.attainable_with_double_compute
        gain = c.point.attainable_with_double_compute / c.point.attainable_flops
        assert c.point.double_compute_gain == gain and times(gain) == f.values["gain"]
        (roof, words), (roof2, words2) = c.legend          # the roofs are named in the key above the plot
        assert (roof, roof2) == ("roof", "roof2") and f.values["peak"] in words
        assert si(float(c.roof2.max()), "FLOP/s") in words2
        assert c.lowest_flops == pytest.approx(float(c.roof.min())) and c.intensity[0] == pytest.approx(0.1)


def test_stacked_segments_add_up():
    e, _f, c = state_chart(5, 0)
    realistic = sorted((s for s in c.segments if s.slot == 1), key=lambda s: s.start)
    assert math.isclose(realistic[-1].end, e.decode_ms_per_token, rel_tol=1e-9)
    assert all(math.isclose(a.end, b.start) for a, b in zip(realistic, realistic[1:]))
    e, _f, c = state_chart(8, 1)
    for w, m, o, t in zip(c.work, c.comm, c.overhead, c.totals):
        assert m.start == w.end and math.isclose(o.end, t.length, rel_tol=1e-9)


def test_headings_name_the_chapter():
    ch = CHAPTERS[3]
    assert chapter_heading(ch) == f"4 · {ch.title}" and chart_name(ch) == f"Chart, lesson 4: {ch.title}"


def test_the_bars_add_up_to_the_step_in_any_scenario():
    """Lessons 5 and 8 split the step into parts that add up to it, also where the GEMMs are
    compute-bound and attention memory-bound (each kernel bound by its own resource)."""
    from test_consistency import random_scenarios
    from model.errors import ModelError
    checked = 0
    for s, _ in random_scenarios(60, 4242):
        try:
            e = estimate(s)
            five, eight = chapter_chart(5, e, {}), chapter_chart(8, e, {})
        except ModelError:
            continue
        realistic = [seg for seg in five.segments if seg.slot == 1]
        assert math.isclose(max(seg.end for seg in realistic), e.decode_ms_per_token, rel_tol=1e-9), s
        for w, m, o, t in zip(eight.work, eight.comm, eight.overhead, eight.totals):
            assert math.isclose(o.end, t.length, rel_tol=1e-9) and w.length >= 0, s
        checked += 1
    assert checked > 30


def test_lessons_one_to_four_derive_their_key_number_with_this_states_numbers():
    """The side panel of a datasheet lesson (model.lessons.explain.key_why) is its key number's own
    arithmetic with the state's numbers, then what it assumes, not the chapter's general equation."""
    from model.lessons.explain import key_why
    for ch in default_chapters()[:4]:
        for index in range(len(ch.states)):
            e, f, _c = state_chart(ch.number, index)
            why = key_why(ch.number, e, f, dict(ch.states[index].params))
            number = f.key.text.split()[0]
            assert why == f.why and any(f"= {number}" in line for line in why[:-1]), (ch.number, index, why)
            assert why[-1].startswith("Assumes: "), (ch.number, index, why)


@pytest.mark.parametrize("number", [5, 7])
def test_lessons_five_and_seven_derive_their_key_number_and_every_byte_count_they_name(number):
    """Lesson 7 showed "20.8 ms … (70.6 GB of weights)" over a derivation of 69.5 GB only, and a
    key of 39.7 GB over a line that came to 39.1 GB; lesson 5 "41.7 ms … 139 GB ÷ 3.35 TB/s" (41.5 ms):
    now the key number is the result of one of its lines, and the weights a caption names (held)
    appear beside the bytes a token reads."""
    from model.lessons.explain import key_why
    ch = default_chapters()[number - 1]
    for index in range(len(ch.states)):
        e, f, _c = state_chart(number, index)
        why = key_why(number, e, f, dict(ch.states[index].params))
        assert any(line.split(" = ")[0].endswith(f.key.text) or line.startswith(f"{f.key.text} = ")
                   for line in why), (index, f.key, why)
        held = re.findall(r"\(([\d.]+ GB) of weights\)", f.key.label)
        assert all(any(h in line for line in why) for h in held), (index, f.key, why)
        assert why[-1].startswith("Assumes: "), (index, why)


def test_lesson_eights_side_panel_derives_its_speed_up():
    """Lesson 8's key is a speed-up (3.74×) but its panel derived only the all-reduce time (4.85 ms):
    now the speed-up is the result of one line, and the step's three parts add to the step."""
    from model.lessons.explain import key_why
    ch = default_chapters()[7]
    for index in range(len(ch.states)):
        e, f, _c = state_chart(8, index)
        why = key_why(8, e, f, dict(ch.states[index].params))
        assert any(line.startswith(f"{f.key.text} = ") for line in why), (index, f.key, why)
        step = next(line for line in why if line.startswith("A step on "))
        total, *parts = (float(x) for x in re.findall(r"([\d.]+) ms", step))
        assert total == pytest.approx(sum(parts), abs=0.06), step          # each shown to 3 figures
