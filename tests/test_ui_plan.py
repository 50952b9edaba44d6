"""The Plan page: it plans the snapshot's model, moves the current point with Explore, loads a
clicked frontier point into Explore and Serve, draws only readouts and fits a small screen."""
from PySide6.QtWidgets import QWidget

from model.planning.explore import current_path, point_scenario
from model.readouts.planning import plan_chart


def _plan(window, qtbot, available="h100:2"):
    window.show_plan()
    page = window.plan
    page.available.setText(available)
    page.available.editingFinished.emit()
    qtbot.waitUntil(lambda: page.plan is not None and not page._queued
                    and page.plan.request.gpus_available == (("h100-sxm5-80gb", 2),), timeout=60_000)
    return page


def test_the_plan_page_plans_the_snapshots_model(main_window, qtbot):
    page = _plan(main_window, qtbot)
    s = main_window.controller.valid_scenario
    assert page.plan.request.model == s.model and page.plan.request.input_len == s.input_len
    assert main_window.mode_bar.plan_button.isChecked()
    assert not main_window.findChild(QWidget, "footer").isVisible()
    assert len(page.plan.frontier) >= 3


def test_the_current_point_moves_along_with_the_batch_and_nothing_is_planned_again(main_window, qtbot):
    page = _plan(main_window, qtbot)
    n = page.computations
    before = page.chart.now.getData()
    main_window.controller.set(batch=64)
    main_window.controller.flush()
    qtbot.waitUntil(lambda: page.path is not None and int(page.path.points.batch[page.path.index]) == 64,
                    timeout=10_000)
    after = page.chart.now.getData()
    assert page.computations == n
    assert after[0][0] != before[0][0] and after[1][0] != before[1][0]
    # faster per user at batch 1, more per GPU at batch 64: batching moves the point along its path
    main_window.controller.set(batch=1)
    main_window.controller.flush()
    qtbot.waitUntil(lambda: int(page.path.points.batch[page.path.index]) == 1, timeout=10_000)
    one = page.chart.now.getData()
    assert one[0][0] > after[0][0] and one[1][0] < after[1][0]


def test_every_sentence_on_the_page_is_a_readout(main_window, qtbot):
    page = _plan(main_window, qtbot)
    d = plan_chart(page.plan, current_path(page.plan.request, main_window.controller.valid_scenario))
    assert page.lines["cheapest"].text() == d.cheapest_text
    assert page.lines["current"].text() == d.current_text
    assert page.title.text() == d.title
    assert list(page.chart.frontier.xData) == list(d.frontier_x)


def test_clicking_a_frontier_point_loads_it_into_explore_and_serve(main_window, qtbot):
    page = _plan(main_window, qtbot)
    i = int(page.plan.frontier[len(page.plan.frontier) // 2])
    scenario, setup = point_scenario(page.plan, i)
    page.chart.point_clicked.emit(i)
    main_window.controller.flush()
    assert main_window.controller.scenario == scenario
    assert main_window.controller.snapshot.problem == ""
    assert main_window.serve.setup == setup
    assert main_window.pages.currentWidget() is main_window.explore


def test_the_page_fits_at_1024x768(main_window, qtbot):
    page = _plan(main_window, qtbot)
    main_window.resize(1024, 768)
    qtbot.wait(50)
    assert page.knobs.geometry().bottom() < page.chart.geometry().top()
    assert page.chart.height() > 250
    for lab in page.lines.values():
        assert lab.geometry().bottom() <= page.height()


def test_the_knobs_are_the_controllers_settings(main_window, qtbot):
    from model.planning.settings import LIMITS, PlanSettings
    page = _plan(main_window, qtbot)
    c = main_window.controller
    assert c.planning.available == "h100:2"
    for w, name in ((page.ttft, "ttft_p90_ms"), (page.tpot, "tpot_p90_ms"), (page.rate, "rate_per_s")):
        assert (w.minimum(), w.maximum()) == (LIMITS[name].lo, LIMITS[name].hi), name
    page.tpot.setValue(0)
    c.flush()
    assert c.planning.tpot_p90_ms is None and c.snapshot.planning.tpot_p90_ms is None
    c.set_planning(PlanSettings(available="h100:2", ttft_p90_ms=800.0, disaggregated=True))
    c.flush()
    assert page.ttft.value() == 800.0 and page.tpot.value() == 25.0 and page.disagg.isChecked()
    qtbot.waitUntil(lambda: page._key is not None and page._key[1] and not page._queued, timeout=120_000)
    page.available.setText("x" * 300)
    page.available.editingFinished.emit()
    assert page.problem.isVisible() and "GPUs available" in page.problem.text() and c.planning.available == "h100:2"
