"""Which facts each lesson shows: chapter number → its facts module (model/lessons/chN_*.py)."""
from __future__ import annotations

from model.catalog.active import default_catalog
from model.catalog.parts import Catalog
from model.lessons.ch1_generations import generation_facts
from model.lessons.ch2_gpu_shape import warp_facts
from model.lessons.ch3_hierarchy import ladder_facts
from model.lessons.ch4_roofline import roofline_facts
from model.lessons.ch5_decode import decode_facts
from model.lessons.ch6_batching import batching_facts
from model.lessons.ch7_precision import precision_facts
from model.lessons.ch8_multi_gpu import multi_gpu_facts
from model.lessons.facts import Facts
from model.physics.estimate import Estimate


def chapter_facts(number: int, e: Estimate, params: dict, catalog: Catalog | None = None) -> Facts:
    """The facts of lesson ``number`` for the Estimate on screen and the chapter's knobs."""
    cat = catalog or default_catalog()
    hw = cat.gpu(e.scenario.gpu)
    if number == 1:
        return generation_facts(params.get("line", "nvidia"), params.get("show", ""), cat)
    if number == 2:
        return warp_facts(hw, int(params.get("warps", 1)), float(params.get("divergence", 0.0)))
    if number == 3:
        return ladder_facts(hw)
    if number == 4:
        return roofline_facts(hw, e.compute_dtype, float(params.get("intensity", 1.0)))
    if number == 5:
        return decode_facts(e, cat)
    if number == 6:
        return batching_facts(e, cat, params.get("key", ""))
    if number == 7:
        return precision_facts(e, cat, params.get("key", ""))
    return multi_gpu_facts(e, cat)
