"""One truth on screen: every labelled number on the Explore page is the model's readout.

For 240 seeded random scenarios (both phases, 1–64 GPUs, PCIe and NVLink, fitting and not,
MoE, every precision, with and without a comparison GPU) the controller gets the scenario,
then ui.plotting.screen_text walks every visible text of the Explore page's panels (labels,
tooltips, plot texts, per-item hover texts, painted words, gauge title/number pairs) and:

  1. wherever a readout's label (or short label) is written with a number after it
     ("Label: 12.3 ms", "Label 12.3 ms", or a gauge's title over its number), the number is
     that readout's text, exactly;
  2. every quantity with a unit on screen (12.3 ms, 141 GB, 61.7%, $54.8 …) appears in a
     text the model wrote (model.readouts, model.readouts.sentences, model.readouts.roofline): the UI
     derives no number of its own.

To extend the walk to another view (the chip, a chapter), walk its root widget with
shown_texts(); a painted view offers shown_texts(), a titled number labelled_pairs().
"""
from __future__ import annotations

import random
import re

import pytest

from model import ModelError, Scenario, estimate
from model.readouts import sentences as ex
from model.readouts import roofline as rr
from model.catalog.active import default_catalog
from model.readouts.numbers import readouts
from model.physics.scenario import GPU_COUNTS, MAX_BATCH
from ui.plotting.screen_text import shown_texts

pytestmark = pytest.mark.slow        # a long walk: make test runs it, make test-fast leaves it out

WORD_VALUES = ("memory-bound", "compute-bound", "communication-bound", "never", "fits", "does not fit")
N_SCENARIOS = 240
SEED = 20261130
QUANTITY = re.compile(r"\$\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?(?:%|\s(?:[kMGTPE]?(?:B/s|FLOP/s|FLOP/B|FLOP|tok/s|B|J)"
                      r"|µs|ms|s|min)(?![\w/]))")


def random_scenarios(n: int = N_SCENARIOS, seed: int = SEED) -> list[tuple[Scenario, str | None]]:
    """Valid scenarios covering every precision (in turn), both phases, all GPU counts."""
    cat = default_catalog()
    rng = random.Random(seed)
    gpus, models = [g.id for g in cat.gpus], [m.id for m in cat.models]
    moe = [m.id for m in cat.models if m.params.experts]
    precisions = [p.id for p in cat.precisions]
    out: list[tuple[Scenario, str | None]] = []
    while len(out) < n:
        i = len(out)
        s = Scenario(gpu=rng.choice(gpus), model=rng.choice(moe if i % 5 == 0 else models),
                     precision=precisions[i % len(precisions)], batch=int(2 ** rng.uniform(0, 13)),
                     gpus=GPU_COUNTS[i % len(GPU_COUNTS)] if i % 3 else rng.choice(GPU_COUNTS),
                     interconnect=rng.choice(("nvlink", "pcie", "nvlink", "pcie", "network")),
                     input_len=rng.randint(1, 8192), output_len=rng.randint(1, 4096),
                     phase="prefill" if i % 2 else "decode")
        try:
            estimate(s)
        except ModelError:
            continue
        out.append((s, rng.choice(gpus) if rng.random() < 0.3 else None))
    return out


def labelled_checks(text: str, rs) -> tuple[int, list[str]]:
    """Every place ``text`` writes a readout's label followed by a number: (how many, mismatches)."""
    low, n, bad = text.lower(), 0, []
    for r in rs.values():
        for lab in r.labels:
            i = low.find(lab.lower())
            while i >= 0:
                rest = text[i + len(lab):]
                val = rest[2:] if rest.startswith(": ") else rest[1:] if rest[:1] == " " else ""
                if val and (val[0].isdigit() or val[0] in "$—" or val.startswith(WORD_VALUES)):
                    n += 1
                    after = val[len(r.text):len(r.text) + 1]
                    if not val.startswith(r.text) or (after and (after.isdigit() or after in ".,")):
                        bad.append(f"{lab!r} shows {val[:24]!r}, the model says {r.text!r} [{r.key}]")
                i = low.find(lab.lower(), i + 1)
    return n, bad


def model_quantities(c) -> set[str]:
    """Every quantity the model wrote for this state (readouts, sentences, the roofline's texts)."""
    e = c.estimate
    texts: list[str] = []
    for est in (e, c.compare_estimate):
        if est is not None:
            texts += [t for r in readouts(est).values() for t in (r.text, r.help)]
    texts += [ex.explain(e), ex.badge_tooltip(e), ex.hbm_status(e), *ex.shown_notes(e)]
    hw = c.catalog.gpu(e.scenario.gpu)
    texts += [t for roof in rr.roofs(hw, e) for t in (*roof.forms, roof.tooltip)]
    texts += [rr.slope_text(hw, e), *rr.ridge_texts(e), rr.operating_point_label(e), rr.operating_point_tooltip(e)]
    texts += [k[2] for k in rr.kernel_points(e)]                       # the step's kernels' points
    if c.sweep is not None:
        texts += [rr.sweep_point_text(c.sweep, k) for k in range(len(c.sweep.batch))]
    if c.compare_gpu:
        croof = rr.comparison_roof(e, c.catalog.gpu(c.compare_gpu), c.catalog)
        if croof is not None:
            texts += [croof.label, croof.tooltip]
        if c.compare_estimate is not None and croof is not None:
            texts.append(rr.comparison_point_text(c.compare_estimate, croof.gpu_name))
    return {q for t in texts for q in QUANTITY.findall(t)}


def explore_roots(w):
    return (w.gauges, w.roofline, w.explanation.parentWidget())


def check_screen(w) -> tuple[int, set[str], list[str]]:
    """Walk the Explore page once: (labelled checks made, readout keys checked, problems)."""
    c = w.controller
    rs = readouts(c.estimate)
    by_label = {lab: r for r in rs.values() for lab in r.labels}
    allowed = model_quantities(c)
    n, keys, bad = 0, set(), []
    for root in explore_roots(w):
        for sh in shown_texts(root):
            if sh.kind == "pair":
                n += 1
                r, wrong = pair_check(sh, by_label)
                bad += wrong
                if r is not None and not wrong:
                    keys.add(r.key)
                continue
            k, wrong = labelled_checks(sh.text, rs)
            n += k
            bad += [f"{sh.where} ({sh.kind}): {x}" for x in wrong]
            keys |= {r.key for r in rs.values() if any(f"{lab.lower()}: {r.text.lower()}" in sh.text.lower()
                                                         for lab in r.labels)}
            bad += [f"{sh.where} ({sh.kind}): {q!r} is not a number the model wrote, in {sh.text[:80]!r}"
                    for q in QUANTITY.findall(sh.text) if q not in allowed]
    return n, keys, bad


def pair_check(sh, by_label):
    """A (title, number) pair on screen against the readout with that label: (readout, problems)."""
    r = by_label.get(sh.label)
    if r is None:
        return None, [f"{sh.where}: title {sh.label!r} is no readout's label"]
    if sh.text != r.text:
        return r, [f"{sh.where}: {sh.label!r} shows {sh.text!r}, the model says {r.text!r}"]
    return r, []


def show(qtbot, w, s: Scenario, compare: str | None = None) -> None:
    c = w.controller
    c.set_compare(compare)
    c.set_scenario(s)
    c.flush()
    assert c.problem == "" and c.estimate is not None


def test_the_random_scenarios_cover_what_the_issue_asks():
    cat = default_catalog()
    ss = [s for s, _ in random_scenarios()]
    es = [estimate(s) for s in ss]
    assert len(ss) >= 200
    assert {s.phase for s in ss} == {"decode", "prefill"}
    assert {1, 64} <= {s.gpus for s in ss}
    assert {"pcie", "nvlink"} <= {s.interconnect for s in ss if s.gpus > 1}
    assert any(e.link_name and "NVLink" in e.link_name for e in es)
    assert {e.fits for e in es} == {True, False}
    assert any(cat.model(s.model).params.experts for s in ss)
    assert {s.precision for s in ss} == {p.id for p in cat.precisions}


def test_every_labelled_number_on_the_explore_page_is_the_models_readout(main_window, qtbot):
    w = main_window
    total, seen, problems = 0, set(), []
    for s, compare in random_scenarios():
        show(qtbot, w, s, compare)
        n, keys, bad = check_screen(w)
        assert n >= 9, f"only {n} labelled numbers found for {s}"
        total += n
        seen |= keys
        problems += [f"{s}: {b}" for b in bad]
    assert not problems, f"{len(problems)} disagreements, e.g.\n" + "\n".join(problems[:12])
    must = {"decode_time", "prefill_time", "mean_context", "mbu", "mfu", "tensor_cores_busy", "ridge",
            "arithmetic_intensity", "achieved_flops", "e2e_latency", "weights_resident_per_gpu",
            "kv_resident_per_gpu", "hbm_capacity", "decode_memory_time", "prefill_memory_time",
            "usd_per_million_tokens", "joules_per_token", "tokens_per_s_per_user", "output_tokens_per_s"}
    assert must <= seen, f"never checked: {sorted(must - seen)}"
    assert total > 20 * N_SCENARIOS


def test_the_walk_catches_a_number_the_ui_made_up(main_window, qtbot):
    """The check itself can fail: a gauge showing its own arithmetic is reported."""
    w = main_window
    show(qtbot, w, Scenario(input_len=1000, output_len=501))
    gauge = w.gauges.gauges["ms_per_token"]
    gauge.value.setText("12.3 ms")
    w.gauges.gauges["ttft"].setToolTip("Mean context: 1,250 tokens")
    _, _, bad = check_screen(w)
    assert any("12.3 ms" in b for b in bad) and any("1,250 tokens" in b for b in bad)


def test_labels_of_different_readouts_differ():
    e = estimate(Scenario(model="mixtral-8x7b"))
    labels = [lab.lower() for r in readouts(e).values() for lab in r.labels]
    assert len(labels) == len(set(labels))
    assert MAX_BATCH >= 8192


def test_the_chips_flow_and_the_readouts_are_the_same_quantities():
    """The chip (model.readouts.flow) and the gauges (model.readouts) share busy shares, bytes and MFU."""
    from model.readouts.flow import flow
    for s, _ in random_scenarios()[:80]:
        e = estimate(s)
        r, f = readouts(e), flow(e)
        assert r["tensor_cores_busy"].value == pytest.approx(f.tensor_busy, abs=1e-9)
        assert r["link_busy"].value == pytest.approx(f.link_busy, abs=1e-9)
        assert r["mfu"].value == pytest.approx(f.mfu, abs=1e-12)
        if s.phase == "decode":
            assert r["weights_read_per_step"].value == pytest.approx(e.weight_bytes_per_step)
            assert r["kv_read_per_step"].value == pytest.approx(e.kv_bytes_per_step)


def test_every_readout_says_what_it_counts():
    import json
    from model.readouts.numbers import readouts_json
    for s, _ in random_scenarios()[:40]:
        e = estimate(s)
        for r in readouts(e).values():
            assert r.label and r.help and r.text and r.key
            assert r.text != "—" or r.value is None or r.value != r.value, r   # only NaN shows "—"
        data = json.loads(json.dumps(readouts_json(e)))
        assert data["mean_context"]["value"] == s.input_len + s.output_len / 2
