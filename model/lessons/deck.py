"""Which facts and which chart each lesson shows: chapter number → its module (model/lessons/chN_*.py).

    chapter_facts(n, e, params)   the claim's values, the key number, the detail lines
    chapter_chart(n, e, params)   the chart's values with their words (model/lessons/chart.py)
"""
from __future__ import annotations

from functools import lru_cache

from model.catalog.active import default_catalog
from model.catalog.parts import Catalog
from model.lessons.ch1_generations import generation_chart, generation_facts
from model.lessons.ch2_gpu_shape import warp_chart, warp_facts
from model.lessons.ch3_hierarchy import ladder_chart, ladder_facts
from model.lessons.ch4_roofline import roofline_chart, roofline_facts
from model.lessons.ch5_decode import decode_chart, decode_facts
from model.lessons.ch6_batching import batching_chart, batching_facts
from model.lessons.ch7_precision import precision_chart, precision_facts
from model.lessons.ch8_multi_gpu import multi_gpu_chart, multi_gpu_facts
from model.lessons.chapters import Chapter
from model.errors import ModelError
from model.lessons.facts import Facts
from model.physics.estimate import Estimate, estimate


def chapter_facts(number: int, e: Estimate, params: dict, catalog: Catalog | None = None) -> Facts:
    """The facts of lesson ``number`` for the Estimate on screen and the chapter's knobs."""
    cat = catalog or default_catalog()
    hw = cat.gpu(e.scenario.gpu)
    if number == 1:
        return generation_facts(params.get("line", "nvidia"), params.get("show", ""), cat, bool(params.get("fp4")))
    if number == 2:
        return warp_facts(hw, int(params.get("warps", 1)), float(params.get("divergence", 0.0)))
    if number == 3:
        return ladder_facts(hw)
    if number == 4:
        return roofline_facts(hw, e.compute_dtype, float(params.get("intensity", 1.0)), str(params.get("key", "")))
    if number == 5:
        return decode_facts(e, cat)
    if number == 6:
        return batching_facts(e, cat, params.get("key", ""))
    if number == 7:
        return precision_facts(e, cat, params.get("key", ""))
    return multi_gpu_facts(e, cat)


def chapter_chart(number: int, e: Estimate, params: dict, catalog: Catalog | None = None):
    """The chart of lesson ``number``: every value it plots and every word it writes."""
    cat = catalog or default_catalog()
    if number == 1:
        return generation_chart(params.get("line", "nvidia"), params.get("show", ""), cat)
    hw = cat.gpu(e.scenario.gpu)
    if number == 2:
        return warp_chart(hw, int(params.get("warps", 1)), float(params.get("divergence", 0.0)))
    if number == 3:
        return ladder_chart(hw)
    if number == 4:
        return roofline_chart(hw, e.compute_dtype, float(params.get("intensity", 1.0)), e.emulated)
    if number == 5:
        return decode_chart(e)
    if number == 6:
        return batching_chart(e, cat, frontier=params.get("key") == "frontier")
    if number == 7:
        return precision_chart(e, cat)
    return multi_gpu_chart(e, cat)


@lru_cache(maxsize=16)
def axis_extent(number: int, scenarios: tuple) -> tuple[float, float]:
    """(smallest, largest) value lesson ``number``'s value axis shows over its prepared scenarios
    (ms of a decode step for 5 and 8, GB for 7, the ladder's largest factor for 3, tokens/s for 6;
    (0, 0) for the others), so the axis holds still while the speaker steps: the chart's own
    values join it, and a live change that needs more room gets it."""
    lows, tops = [], []
    for s in scenarios:
        try:
            e = estimate(s)
        except ModelError:
            continue
        c = chapter_chart(number, e, {})
        if number in (5, 8):
            tops.append(c.total_ms if number == 5 else max(b.end for b in c.totals))
        elif number == 7:
            tops.append(max([b.length for b in c.bars] + [c.capacity_gb]))
        elif number == 3:
            tops.append(c.top)
        elif number == 6:
            lows.append(min([*c.curves.tokens_per_s, *(m.y for m in c.measured_marks)]))
            tops.append(max(c.curves.ideal_tokens_per_s))
    return min(lows, default=0.0), max(tops, default=0.0)


def chapter_heading(chapter: Chapter) -> str:
    """The line above a lesson's claim: "4 · Arithmetic intensity and the roofline"."""
    return f"{chapter.number} · {chapter.title}"


def chart_name(chapter: Chapter) -> str:
    """A lesson chart's accessible name."""
    return f"Chart, lesson {chapter.number}: {chapter.title}"
