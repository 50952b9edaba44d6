"""Lesson 6's compute-bound batch (model.lessons.ch6_batching.compute_bound_batch) finds the same
batch as trying every batch from 1 to 65 536, over a seeded sample of scenarios: dense and
mixture-of-experts models, every precision, short and long contexts, 1 to 64 GPUs (tensor and
pipeline parallel), realistic and ideal fractions. (It checks a 1.25× grid and scans only the
intervals that may hold the crossing: lesson 6's glides.)"""
from __future__ import annotations

import random

import numpy as np
import pytest

from model import ModelError, Scenario, estimate
from model.catalog.active import default_catalog
from model.catalog.engines import IDEAL
from model.catalog.active import default_efficiency
from model.lessons.ch6_batching import _COMPUTE_BOUND, compute_bound_batch
from model.physics.scenario import GPU_COUNTS, resolve
from model.physics.step import decode_pass


def every_batch(s: Scenario, ideal: bool, max_batch: int = 65536) -> int | None:
    """The reference: all batches at once, the first whose compute time exceeds its memory time."""
    rs = resolve(s)
    eff = IDEAL if ideal else default_efficiency().efficiency(rs.scenario.engine, rs.hw)
    b = np.arange(1.0, max_batch + 1.0)
    p = decode_pass(rs, b, s.input_len + s.output_len / 2.0, eff)
    over = np.nonzero(np.asarray(p.compute_s) > np.asarray(p.memory_s))[0]
    return int(b[over[0]]) if over.size else None


def _sample(n: int, seed: int) -> list[Scenario]:
    cat = default_catalog()
    rng = random.Random(seed)
    out: list[Scenario] = []
    while len(out) < n:
        s = Scenario(gpu=rng.choice(cat.gpus).id, model=rng.choice(cat.models).id,
                     precision=rng.choice(cat.precisions).id, gpus=rng.choice(GPU_COUNTS),
                     interconnect=rng.choice(("nvlink", "pcie", "network")),
                     input_len=rng.choice((16, 128, 1024, 8192, 32768)), output_len=rng.choice((1, 128, 2048)))
        try:
            estimate(s)
        except ModelError:
            continue
        out.append(s)
    return out


SAMPLE = _sample(150, seed=13)


@pytest.mark.parametrize("ideal", [False, True])
def test_the_same_batch_as_trying_every_batch(ideal):
    _COMPUTE_BOUND.clear()
    got = [(s, compute_bound_batch(s, ideal), every_batch(s, ideal)) for s in SAMPLE]
    wrong = [(s, a, b) for s, a, b in got if a != b]
    assert not wrong, wrong[:3]
    crossings = [a for _, a, _ in got if a is not None]
    assert len(crossings) > 20 and len(crossings) < len(got)      # both kinds of answer are in the sample
    assert len({a for a in crossings}) > 10                       # and many different crossings


def test_mixture_of_experts_and_pipelines_are_in_the_sample():
    cat = default_catalog()
    assert any(cat.model(s.model).params.experts for s in SAMPLE)
    assert any(resolve(s).pp > 1 for s in SAMPLE) and any(resolve(s).tp > 1 for s in SAMPLE)


def test_a_smaller_limit_and_the_edges():
    s = Scenario(model="llama-3.1-8b", input_len=128, output_len=128)
    first = every_batch(s, False)
    assert first is not None and first > 2
    _COMPUTE_BOUND.clear()
    assert compute_bound_batch(s, max_batch=first) == first       # the crossing at the limit itself
    _COMPUTE_BOUND.clear()
    assert compute_bound_batch(s, max_batch=first - 1) is None    # one short of it
