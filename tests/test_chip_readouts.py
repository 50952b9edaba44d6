"""The chip shows only numbers the model wrote: for seeded random scenarios (both phases, 1–64
GPUs, PCIe and NVLink, fitting and not, MoE, every precision; the generator of
tests/test_consistency.py), every quantity the chip paints or writes in its bar appears in a
text from model.readouts, model.readouts.flow.chip_readouts (a size may drop its trailing zeros where
room is short: model.readouts.chip.shorter_sizes), model.readouts.chip, the flow's caption
or the Estimate's notes."""
from __future__ import annotations

import pytest

from model import Scenario, estimate
from model.readouts.chip import packet_scale, packet_texts, scale_forms, shorter_sizes
from model.readouts.flow import chip_readouts, flow
from model.readouts.numbers import readouts
from test_consistency import QUANTITY, random_scenarios
from ui.chip.view import HierarchyView

N = 40


def model_texts(view) -> set[str]:
    e = view.estimate
    f = flow(e, view.catalog)
    ps = packet_scale(f, view.speed)
    texts = [t for r in readouts(e).values() for t in (r.text, r.help)]
    texts += [t for r in chip_readouts(e, f, view.hw).values() for t in (r.label, *shorter_sizes(r.text), r.help)]
    forms, tip = scale_forms(f, ps)
    texts += [*packet_texts(ps).values(), *forms, tip, f.caption, *e.notes]
    return {q for t in texts for q in QUANTITY.findall(t)}


@pytest.fixture(scope="module")
def scenarios():
    return random_scenarios(N, seed=20261201)


def test_every_quantity_the_chip_shows_is_one_the_model_wrote(shown, scenarios):
    v = shown(HierarchyView(), (1200, 700))
    checked = 0
    for s, _compare in scenarios:
        v.set_estimate(estimate(s), animate=False)
        v.settle(2)
        words = v.shown_texts() + [v.scale_label.text(), v.scale_label.toolTip(), v.token_label.text()]
        allowed = model_texts(v)
        for w in words:
            for q in QUANTITY.findall(w):
                assert q in allowed, f"{s}: the chip shows {q!r} in {w!r}, which no model text holds"
                checked += 1
    assert checked > 10 * N          # the chip shows many numbers; each one was checked


def test_the_chip_paints_its_readouts(shown):
    from model import Scenario
    e = estimate(Scenario(gpus=8, batch=256, interconnect="pcie"))
    v = shown(HierarchyView(estimate_=e), (1600, 900))
    painted = "\n".join(v.shown_texts())
    sh = chip_readouts(e, v.flow, v.hw)
    for key in ("level_hbm", "use_hbm", "use_tensor_cores", "step_weights", "step_kv", "link_busy", "memory_block"):
        assert sh[key].text in painted, key
    assert f"{sh['use_tensor_cores'].text} of step time" in painted       # busy time, not MFU
    assert f"MFU {readouts(e)['mfu'].text}" in painted


def test_the_view_settles_at_every_height(shown):
    """The bar's type follows the view, not the canvas the bar leaves: a type that shrank the
    canvas that set the type looped at a 1568×825 view (the fuzz walk's "queue never empties")."""
    from qt_events import deliver
    v = shown(HierarchyView(estimate_=estimate(Scenario())), (1568, 825))
    for h in range(760, 900, 3):
        v.resize(1568, h)
        deliver()                                         # raises when the layout never settles
        assert v._bar.geometry().bottom() == v.height() - 1
