"""The Serve page: it follows the scenario, runs only while shown, draws only readouts, keeps the clock."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from model.readouts.serving import serving_readouts
from model.readouts.serving_page import clock, distributions, tiles
from model.serving.setup import ServingSetup


def _serve(window, qtbot, setup=None):
    window.show_serve()
    page = window.serve
    if setup is not None:
        page.set_setup(setup)
    qtbot.waitUntil(lambda: page.run is not None and not page._queued, timeout=10_000)
    return page


def test_the_serve_page_runs_the_snapshots_scenario(main_window, qtbot):
    page = _serve(main_window, qtbot, ServingSetup(requests=200))
    assert page.run.scenario == main_window.controller.valid_scenario
    assert main_window.mode_bar.serve_button.isChecked()
    assert not main_window.findChild(QWidget, "footer").isVisible()
    main_window.controller.set(output_len=64)
    main_window.controller.flush()
    qtbot.waitUntil(lambda: page.run.scenario.output_len == 64, timeout=10_000)


def test_a_hidden_page_computes_nothing_until_it_shows(main_window, qtbot):
    page = _serve(main_window, qtbot, ServingSetup(requests=100))
    n = page.computations
    main_window.show_explore()
    assert not page.queue.ticking
    for length in (200, 300, 400):
        main_window.controller.set(output_len=length)
        main_window.controller.flush()
    qtbot.wait(50)
    assert page.computations == n                    # hidden: nothing run
    main_window.show_serve()
    qtbot.waitUntil(lambda: page.computations == n + 1, timeout=10_000)
    assert page.run.scenario.output_len == 400 and page.queue.ticking


def test_every_number_on_the_page_is_a_readout(main_window, qtbot):
    page = _serve(main_window, qtbot, ServingSetup(requests=300, ttft_p90_ms=500, tpot_p90_ms=50))
    r = serving_readouts(page.run, page.summary)
    texts = {x.text for x in r.values()}
    for val, t in zip(page.tile_values, tiles(page.run, page.summary)):
        assert val.text() == t.text and t.text in texts
    ttft, tpot = distributions(page.run, page.summary)
    assert ttft.marks[1][2] == r["ttft_p90"].text and tpot.marks[1][2] == r["tpot_p90"].text
    assert f"p90 {r['ttft_p90'].text}" in page.ttft_chart.texts()
    assert page.sentence.text().startswith(r["load"].text)
    assert clock(page.run).text in page.shown_texts()


def test_the_knobs_change_the_run(main_window, qtbot):
    page = _serve(main_window, qtbot, ServingSetup(requests=200))
    before = page.summary.request_throughput_per_s
    page.controls.load.setCurrentIndex(1)            # clients
    qtbot.waitUntil(lambda: page.run.setup.load == "concurrency", timeout=10_000)
    page.controls.spec_k.setValue(3)
    page.controls.spec_a.setValue(0.8)
    qtbot.waitUntil(lambda: page.run.setup.spec_k == 3 and page.run.setup.spec_accept == pytest.approx(0.8),
                    timeout=10_000)
    assert page.summary.request_throughput_per_s != before
    page.controls.reset()
    qtbot.waitUntil(lambda: page.run.setup.load == "rate" and page.run.setup.spec_k == 0, timeout=10_000)


def test_an_impossible_target_says_why_and_keeps_the_last_run(main_window, qtbot):
    page = _serve(main_window, qtbot, ServingSetup(requests=150))
    good = page.run
    page.controls.tpot.setValue(1)
    qtbot.waitUntil(lambda: page.problem.isVisible(), timeout=10_000)
    assert "never be met" in page.problem.text() and page.run is good


def test_the_queue_keeps_the_chips_clock(main_window, qtbot):
    page = _serve(main_window, qtbot, ServingSetup(requests=200))
    q = page.queue
    t0 = q.t_sim
    q.advance(10.0)                                   # a long stall counts as 50 ms at most
    assert q.t_sim - t0 == pytest.approx(0.05 * q.clock.sim_s_per_screen_s)
    page.toggle_pause()
    t1 = q.t_sim
    q.advance(0.02)
    assert q.t_sim == t1
    page.toggle_pause()
    q.settle(10 ** 5)                                 # loops back to the start, never past the run
    assert q._t0 <= q.t_sim <= q._t0 + q.clock.loop_s * 1.2 + 1


def test_presenter_keys_on_the_serve_page(main_window, qtbot):
    page = _serve(main_window, qtbot, ServingSetup(load="concurrency", concurrency=16, requests=100))
    main_window.enter_presenter(fullscreen=False)
    assert main_window.serve_visible() and not main_window.controls_scroll.isVisible()
    p = main_window.presenter
    p.handle_key(Qt.Key_Right)
    qtbot.waitUntil(lambda: page.run.setup.concurrency == 24, timeout=10_000)
    p.handle_key(Qt.Key_Space)
    assert page.queue.paused
    p.handle_key(Qt.Key_Escape)
    assert not p.active and main_window.serve_visible()


def test_the_page_fits_at_1024x768(main_window, qtbot):
    page = _serve(main_window, qtbot, ServingSetup(requests=200, ttft_p90_ms=500, tpot_p90_ms=50))
    main_window.resize(1024, 768)
    qtbot.wait(50)
    for lab, val in zip(page.tile_labels, page.tile_values):
        assert val.fontMetrics().horizontalAdvance(val.text()) <= val.parentWidget().width()
    ctrls = page.controls
    assert ctrls.geometry().bottom() < page.queue.geometry().top()
    assert page.queue.height() >= page.queue.minimumHeight()


def test_saving_keeps_the_serving_setup(main_window, qtbot, tmp_path):
    page = _serve(main_window, qtbot, ServingSetup(load="concurrency", concurrency=8, requests=120))
    path = tmp_path / "talk.json"
    assert main_window.save_scenario_to(str(path))
    page.controls.reset()
    qtbot.waitUntil(lambda: page.run.setup.load == "rate", timeout=10_000)
    main_window.show_explore()
    assert main_window.open_scenario(str(path))
    assert main_window.serve_visible()
    qtbot.waitUntil(lambda: page.run.setup.concurrency == 8, timeout=10_000)
    assert page.controls.load.currentData() == "concurrency"


def test_record_the_serve_page(tmp_path):
    from model import Scenario
    from ui.present.recording import record
    rec = record(str(tmp_path / "serve.gif"), page="serve", scenario=Scenario(), seconds=0.5, size=(480, 270),
                 fps=10, serving=ServingSetup(requests=100))
    assert rec.frames == 5 and rec.what == "the Serve page" and rec.bytes > 0


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_the_smoke_run_renders_the_serve_page():
    import pathlib
    import subprocess
    import sys
    root = pathlib.Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "main.py", "--smoke"], cwd=root, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr


def test_the_knobs_ask_the_controller_and_mirror_its_setup(main_window, qtbot):
    from model.serving.knobs import KNOBS
    page = _serve(main_window, qtbot, ServingSetup(requests=200))
    c = main_window.controller
    ctrls = page.controls
    for w, name, scale in ((ctrls.requests, "requests", 1), (ctrls.replicas, "replicas", 1), (ctrls.spec_k, "spec_k", 1),
                           (ctrls.prefix, "prefix_hit", 100), (ctrls.ttft, "ttft_p90_ms", 1),
                           (ctrls.tpot, "tpot_p90_ms", 1)):
        assert (w.minimum(), w.maximum()) == (KNOBS[name].lo * scale, KNOBS[name].hi * scale), name
    assert ctrls.value.maximum() == KNOBS["rate_per_s"].hi
    ctrls.replicas.setValue(3)
    c.flush()
    assert c.serving.replicas == 3 and c.snapshot.serving.replicas == 3 and page.setup.replicas == 3
    c.set_serving(ServingSetup(load="concurrency", concurrency=32, requests=400))
    c.flush()
    assert ctrls.load.currentData() == "concurrency" and ctrls.value.value() == 32 and ctrls.requests.value() == 400
    qtbot.waitUntil(lambda: page.run.setup.concurrency == 32, timeout=10_000)


def test_a_frame_draws_a_bounded_number_of_dots(main_window, qtbot):
    """20 000 requests: thousands in flight at once drew a dot each (a 0.5 s frame); the arriving and
    done lanes now draw every k-th request, at most MAX_FLYING each, the same ones frame to frame."""
    from ui.serve import queue_view
    page = _serve(main_window, qtbot, ServingSetup(requests=20_000))
    q = page.queue
    drawn = []
    real = q._dots
    q._dots = lambda p, xs, ys, *a, **k: (drawn.append(len(xs)), real(p, xs, ys, *a, **k))
    worst = 0
    for _ in range(40):
        q.advance(0.25)
        drawn.clear()
        q.repaint()
        worst = max(worst, sum(drawn))
    cols_rows = sum(c * r for c, r, _ in (q._grids["waiting"], q._grids["running"]))
    assert worst <= 2 * queue_view.MAX_FLYING + cols_rows
    assert q._fly_stride > 1                        # this run has more in flight than that
