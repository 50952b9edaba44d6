"""Each chapter's claims hold in the model, in every prepared state."""
import numpy as np
import pytest

from model import estimate
from model.catalog.active import default_catalog
from model.errors import AssetError, ScenarioError
from model.lessons.ch1_generations import AMD_LINE, NVIDIA_LINE, generations
from model.lessons.chapters import default_chapters, load_chapters
from model.lessons.ch2_gpu_shape import hbm_latency_cycles, latency_hiding
from model.lessons.ch3_hierarchy import memory_ladder
from model.lessons.ch7_precision import precision_table
from model.lessons.ch4_roofline import roofline_point
from model.lessons.ch8_multi_gpu import scaling

CHAPTERS = {c.number: c for c in default_chapters()}


def test_eight_chapters_each_with_states_that_resolve():
    assert sorted(CHAPTERS) == list(range(1, 9))
    for c in CHAPTERS.values():
        assert c.title and c.takeaway and len(c.states) >= 2
        for st in c.states:
            assert st.caption
            estimate(st.scenario)  # every prepared scenario is legal


def test_1_compute_outgrew_bandwidth_on_both_lines():
    nv = generations(NVIDIA_LINE)
    h100 = next(g for g in nv if g.gpu_id == "h100-sxm5-80gb")
    assert 7.5 <= h100.flops_vs_first <= 8.5 and 3.6 <= h100.bandwidth_vs_first <= 3.8
    assert nv[-1].flops_vs_first > nv[-1].bandwidth_vs_first
    amd = generations(AMD_LINE)
    assert amd[-1].flops_vs_first > amd[-1].bandwidth_vs_first
    assert nv[0].ridge_flops_per_byte < h100.ridge_flops_per_byte


def test_2_more_warps_hide_latency_and_divergence_halves_lanes():
    lat = hbm_latency_cycles(default_catalog().gpu("h100"))
    assert 500 < lat < 800
    busy = [latency_hiding(w, latency_cycles=lat).issue_busy for w in (1, 4, 16)]
    assert busy[0] < 0.1 < busy[1] < busy[2] == pytest.approx(1.0)
    for w in (1, 4, 8, 16):
        x = latency_hiding(w, latency_cycles=lat)
        assert (x.timeline == 1).any(axis=0).mean() == pytest.approx(x.issue_busy, abs=0.02)
    assert latency_hiding(16, 1.0, latency_cycles=lat).lane_use == pytest.approx(0.5)
    with pytest.raises(ScenarioError):
        latency_hiding(0)


@pytest.mark.parametrize("gpu", ["h100", "mi300x", "4090"])
def test_3_each_step_down_the_ladder_is_slower(gpu):
    steps = memory_ladder(default_catalog().gpu(gpu))
    assert [s.level.key for s in steps] == ["registers", "smem", "l2", "hbm", "host"]
    for s in steps[1:]:
        if s.bandwidth_factor is not None:
            assert s.bandwidth_factor < 1


def test_4_faster_compute_buys_nothing_left_of_the_ridge():
    h100 = default_catalog().gpu("h100")
    left, right = roofline_point(h100, "bf16", 30), roofline_point(h100, "bf16", 2000)
    assert left.bound == "memory" and left.attainable_with_double_compute == left.attainable_flops
    assert right.bound == "compute" and right.attainable_with_double_compute == pytest.approx(2 * right.attainable_flops)
    assert 290 <= left.ridge_flops_per_byte <= 300


def test_5_decode_floor_and_fit():
    s1, s2, s3 = (st.scenario for st in CHAPTERS[5].states)
    e1, e2, e3 = estimate(s1), estimate(s2), estimate(s3)
    assert 41 <= e1.decode_floor_ms_per_token <= 43 and not e1.fits and e1.bound == "memory"
    assert e2.decode_floor_ms_per_token == pytest.approx(e1.decode_floor_ms_per_token * 3.35 / 4.8, rel=0.02)
    assert 7 <= e1.decode_floor_ms_per_token / e3.decode_floor_ms_per_token <= 10 and e3.fits


def test_6_batching_climbs_to_compute_bound_unless_the_kv_cache_dominates():
    es = [estimate(st.scenario) for st in CHAPTERS[6].states]
    assert es[0].bound == "memory" and es[2].bound == "compute"
    assert es[2].scenario.batch > es[2].critical_batch
    assert es[1].decode_ms_per_token < 1.5 * es[0].decode_ms_per_token
    assert es[1].output_tokens_per_s > 40 * es[0].output_tokens_per_s
    assert es[3].critical_batch is None


def test_7_precision_halves_bytes_and_fits_on_fewer_gpus():
    rows = {r.precision_id: r for r in precision_table(CHAPTERS[7].states[0].scenario)}
    assert rows["fp32"].weight_bytes_total == pytest.approx(2 * rows["bf16"].weight_bytes_total)
    assert rows["bf16"].floor_ms_per_token == pytest.approx(2 * rows["int8"].floor_ms_per_token, rel=0.02)
    assert rows["fp32"].gpus_to_fit > rows["bf16"].gpus_to_fit > rows["int8"].gpus_to_fit
    b200 = {r.precision_id: r for r in precision_table(CHAPTERS[7].states[1].scenario)}
    assert b200["fp4"].gpus_to_fit == 1 and not b200["fp4"].emulated
    v100 = {r.precision_id: r for r in precision_table(CHAPTERS[7].states[2].scenario)}
    assert v100["fp8"].emulated


def test_8_interconnect_limits_scaling():
    s_nv, s_pcie = (st.scenario for st in CHAPTERS[8].states[:2])
    assert estimate(s_pcie).bound == "communication" and estimate(s_nv).bound != "communication"
    s_pp = s_nv.with_(gpus=32, batch=1)
    assert estimate(s_pp).decode_ms_per_token >= estimate(s_pp.with_(gpus=8)).decode_ms_per_token
    for curve in scaling(s_nv):
        ok = ~np.isnan(curve.speedup)
        assert np.all(curve.speedup[ok] < curve.gpus[ok] + 1e-9)
    nv, pcie, net = scaling(s_nv)
    assert nv.speedup[3] > pcie.speedup[3] > net.speedup[3]   # at 8 GPUs


def test_broken_lessons_file(tmp_path):
    p = tmp_path / "lessons.json"
    p.write_text('{"chapters": [{"number": 2, "key": "x", "title": "t", "takeaway": "t", "states": []}]}')
    with pytest.raises(AssetError, match="numbered"):
        load_chapters(p)


# ---------------------------------------------------------------- claims and notes against the model
import re  # noqa: E402

from model.lessons.facts import Facts, KeyNumber  # noqa: E402
from model.lessons.ch3_hierarchy import ladder_facts
from model.lessons.ch2_gpu_shape import warp_curve
from model.lessons.speaker_notes import speaker_notes  # noqa: E402
from model.lessons.ch6_batching import batching_curves, batching_facts, bend_batch, compute_bound_batch
from model.lessons.deck import chapter_facts
from model.lessons.ch5_decode import decode_breakdown
from model.lessons.ch8_multi_gpu import gpu_bars, multi_gpu_measured

STATES = [(c.number, i) for c in default_chapters() for i in range(len(c.states))]
NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\w)")


def facts_of(number, index):
    st = CHAPTERS[number].states[index]
    return chapter_facts(number, estimate(st.scenario), dict(st.params)), st


@pytest.mark.parametrize("number,index", STATES)
def test_every_claim_is_filled_from_the_model_and_every_note_number_is_the_models(number, index):
    f, st = facts_of(number, index)
    claim = f.fill(st.caption)
    assert "{" not in claim and "}" not in claim, claim
    assert f.key.text and f.key.text != "—" and f.key.label
    notes = speaker_notes(number, index)
    assert "{" not in notes and "}" not in notes and "…" not in notes, notes
    assert 2 <= len(re.findall(r"[.!?](?:\s|$)", notes)) <= 5, notes   # 2-4 sentences (+ the question)
    said = " ".join([claim, f.key.text, f.key.label, *f.values.values(), *f.details,
                     str(st.scenario.batch), str(st.scenario.gpus), f"{st.scenario.input_len:,}",
                     f"{st.scenario.output_len:,}"])
    known = set(NUMBER.findall(said)) | {"1", "2", "4", "8", "16", "32", "2×", "10"}
    for n in NUMBER.findall(notes):
        assert n in known, f"note number {n} of chapter {number} state {index} is not the model's: {notes}"


def test_fill_keeps_unknown_names_visible():
    assert Facts(KeyNumber("1", "x"), {"a": "3×"}).fill("{a} and {b}") == "3× and {b}"


def test_3_the_ten_times_rule_is_latency_on_average_not_every_step():
    f = ladder_facts(default_catalog().gpu("h100"))
    lo, hi = (float(f.values[k].rstrip("×")) for k in ("bw_step_min", "bw_step_max"))
    assert lo < 5 < hi                               # one step is 2.9×, another 12×: not "10× each"
    assert 7 < float(f.values["lat_geo"].rstrip("×")) < 12   # the rule of thumb: latency, on average


def test_2_the_warp_curve_saturates_at_the_warps_needed():
    c = warp_curve(636)
    assert c.issue_busy[c.warps_needed - 1] == pytest.approx(1.0)
    assert c.issue_busy[c.warps_needed - 2] < 1.0
    assert np.all(warp_curve(636, 1.0).lane_use <= 0.5 + 1e-12)


@pytest.mark.parametrize("index", range(3))
def test_5_the_realistic_time_is_the_sum_of_its_parts(index):
    e = estimate(CHAPTERS[5].states[index].scenario)
    b = decode_breakdown(e)
    parts = b.weights_ms + b.kv_ms + b.extra_compute_ms + b.comm_ms + b.overhead_ms
    assert parts == pytest.approx(e.decode_ms_per_token, rel=1e-9)
    assert b.floor_weights_ms + b.floor_kv_ms == pytest.approx(e.decode_floor_ms_per_token)
    assert b.floor_ms < b.total_ms and b.compute_ms < b.weights_ms   # memory-bound: the maths hides


def test_5_first_state_does_not_fit_and_the_claim_says_so_once():
    f, st = facts_of(5, 0)
    claim = f.fill(st.caption)
    assert not estimate(st.scenario).fits and claim.count("not fit") == 1


def test_6_realistic_turns_compute_bound_before_the_ideal_critical_batch():
    s = CHAPTERS[6].states[2].scenario
    real, ideal = compute_bound_batch(s), compute_bound_batch(s, ideal=True)
    assert real < s.batch and real < ideal
    assert ideal == pytest.approx(estimate(s).critical_batch, abs=1.0)
    assert estimate(s.with_(batch=real - 1)).bound == "memory" and estimate(s.with_(batch=real)).bound == "compute"
    bend = bend_batch(s)                  # the curve bends where its big kernels turn, before the summed step
    assert bend <= real and f"batch {bend}" in CHAPTERS[6].states[2].caption.replace("{real_cb}", str(bend))


def test_6_the_marked_threshold_is_where_the_realistic_curve_bends():
    """The line the chart draws for the realistic model sits where the curve's log-log slope drops the
    most (tokens/s against the batch, every batch from 2 to 4 096): not 20 batches to one side. Where
    the bend lies past the batch whose KV cache fits, the chart draws no line (no batch runs there) and
    the curve is not held to it."""
    import numpy as np
    from model.lessons.ch6_batching import batching_chart
    for st in CHAPTERS[6].states:
        s = st.scenario
        bend = bend_batch(s, max_batch=4096)
        if bend is not None and bend > estimate(s).max_batch_that_fits:
            assert "real" not in batching_chart(estimate(s)).compute_bound, s
            continue
        c = batching_curves(s, tuple(range(1, 4097)))
        t, b = np.log(np.asarray(c.tokens_per_s, dtype=float)), np.log(np.asarray(c.batch, dtype=float))
        slope = np.diff(t) / np.diff(b)
        drop = slope[:-1] - slope[1:]
        if bend is None:
            assert drop.max() < 0.1, (s, drop.max())
            continue
        at = int(np.argmax(drop)) + 2                   # the batch between the two segments
        assert abs(at - bend) <= max(2, 0.03 * bend), (s, at, bend)
    long = CHAPTERS[6].states[3].scenario
    assert compute_bound_batch(long) is None and estimate(long).max_batch_that_fits < 64


def test_6_the_published_state_matches_its_run():
    f, st = facts_of(6, 4)
    assert "meas_tps" in f.values and f.key.text.startswith(f.values["meas_tps"])
    assert batching_facts(estimate(CHAPTERS[6].states[0].scenario)).values.get("meas_tps") is None


def test_7_claims_halving_hold_and_measured_pair_is_the_chart_scenario():
    f, _ = facts_of(7, 0)
    gb = {k: float(f.values[f"{k}_gb"].split()[0]) for k in ("bf16", "fp8")}
    assert gb["fp8"] == pytest.approx(gb["bf16"] / 2, rel=0.01)
    f3, st3 = facts_of(7, 3)
    assert 1.0 < float(f3.values["meas_x"].rstrip("×")) < 2.0 and st3.scenario.model == "llama-3.1-8b"


def test_8_speedup_below_ideal_and_what_does_not_shrink():
    for index in (0, 1):
        s = CHAPTERS[8].states[index].scenario
        bars = gpu_bars(s)
        assert [b.gpus for b in bars] == [1, 2, 4, 8]
        assert all(b.speedup < b.gpus or b.gpus == 1 for b in bars)
        assert bars[-1].work_ms < bars[0].work_ms / 7           # the GPU work splits …
        assert bars[-1].comm_ms + bars[-1].overhead_ms > bars[0].comm_ms + bars[0].overhead_ms  # … the rest does not
    pcie = estimate(CHAPTERS[8].states[1].scenario)
    assert pcie.bound == "communication"
    meas = multi_gpu_measured(CHAPTERS[8].states[2].scenario)
    assert sorted(meas) == [1, 2, 4, 8] and 1 < meas[8][0] < 8


def _timeline_cycle_by_cycle(w: int, c: int, lat: int, span: int) -> np.ndarray:
    """The scheduler simulated one cycle at a time (the plain statement of model.lessons'
    round-robin rule), to check the interval-by-interval version against."""
    total = 3 * (c + lat) + span
    timeline = np.zeros((w, span), dtype=np.int8)
    ready_at, left, nxt, start = np.zeros(w, dtype=np.int64), np.full(w, c), 0, total - span
    for t in range(total):
        ready = ready_at <= t
        pick = -1
        if ready.any():
            order = (np.arange(w) + nxt) % w
            pick = int(order[ready[order]][0])
            left[pick] -= 1
            if left[pick] == 0:
                ready_at[pick], left[pick], nxt = t + 1 + lat, c, (pick + 1) % w
        if t >= start:
            timeline[ready, t - start] = 2
            if pick >= 0:
                timeline[pick, t - start] = 1
    return timeline


@pytest.mark.parametrize("w,c,lat,span", [(1, 48, 600, 648), (3, 7, 50, 57), (8, 48, 600, 648), (13, 100, 777, 200),
                                          (16, 1, 1, 2), (32, 48, 700, 748), (64, 48, 600, 648), (5, 48, 0, 48)])
def test_the_scheduler_timeline_is_the_cycle_by_cycle_one(w, c, lat, span):
    from model.lessons.ch2_gpu_shape import scheduler_timeline
    got = scheduler_timeline(w, c, lat, span)
    assert np.array_equal(got, _timeline_cycle_by_cycle(w, c, lat, span))
    assert not got.flags.writeable                # remembered: nobody may change it


def test_the_compute_bound_batch_is_remembered_but_follows_an_edited_gpu():
    """Lesson 6 asks at every glide frame; the answer does not depend on the batch, and an edited
    GPU under the same id (or another catalogue) gets its own answer, not the remembered one."""
    import dataclasses

    from model import Scenario
    from model.catalog.active import shipped_catalog
    from model.lessons.ch6_batching import compute_bound_batch
    s = Scenario(gpu="a100-sxm4-80gb", model="llama-3.1-70b")
    first = compute_bound_batch(s)
    assert first is not None
    assert compute_bound_batch(s.with_(batch=64)) == first
    cat = shipped_catalog()
    hw = cat.gpu("a100-sxm4-80gb")
    slower = dataclasses.replace(hw, peak_flops=tuple((d, f / 4) for d, f in hw.peak_flops))
    edited = compute_bound_batch(s, catalog=cat.with_hardware(slower))
    assert edited is not None and edited < first          # a quarter of the FLOP/s turns compute-bound sooner
    assert compute_bound_batch(s) == first                # and the shipped GPU still answers as before


def test_lesson_8_says_a_step_as_its_parts_in_one_wording_everywhere():
    """The step line of the key number's derivation, the details and the chart's hover name one
    bar's sum (time = GPU work + all-reduces + overhead) in the same words (ch8_multi_gpu.bar_sum)."""
    from model import Scenario
    from model.lessons.ch8_multi_gpu import bar_sum, gpu_bars, multi_gpu_chart, multi_gpu_facts
    s = Scenario(model="llama-3.1-70b", precision="fp8", gpus=4)
    e = estimate(s)
    now = next(b for b in gpu_bars(s) if b.gpus == 4)
    said = bar_sum(now)
    facts = multi_gpu_facts(e)
    assert f"A step on 4 GPUs: {said}" in facts.why
    assert any(d.startswith(f"4 GPUs: {said};") for d in facts.details)
    chart = multi_gpu_chart(e)
    assert any(t.tip.startswith(f"4 GPUs: {said};") for t in chart.totals)


def test_5_one_run_has_one_memory_need_on_every_gpu():
    """Lesson 5's first two states run the same job on an H100 and an H200: the run's own need (weights
    and KV cache) is one number in both; only the workspace the engine keeps back follows the GPU."""
    import re
    a, b = (facts_of(5, i)[0] for i in (0, 1))
    need = [next(re.search(r"The run needs ([\d.]+ [kMGT]?B)", d).group(1) for d in f.details if "The run needs" in d)
            for f in (a, b)]
    assert need[0] == need[1], need


def test_8_the_all_reduce_latency_is_said_to_stay_and_the_bytes_to_grow():
    """Lesson 8's MI300X state: all-reduces that stay the same on 2, 4 and 8 GPUs are said to be latency
    (calls × a fixed time each), not a ring that grows with N."""
    f, _st = facts_of(8, 2)
    line = next(d for d in f.details if d.startswith("All-reduces "))
    assert "the same on 2, 4 or 8 GPUs" in line and "only the bytes grow with N" in line
