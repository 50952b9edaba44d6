"""The Serve and Plan pages compute off the event loop (ui/kit/background.py): a key press does no
model work on the GUI thread, a newer request calls an older one off, the keys on the Plan page in
presenter mode act on the Plan page only, and a plan or a run past its limit is one line in the
window. Counted, never timed: what ran, where, and how often."""
import threading

from PySide6.QtCore import QObject, Qt

from model.planning.settings import PlanSettings, TPOT_STEPS_MS, stepped_tpot
from model.serving.setup import ServingSetup
from model.work import cancel_point
from qt_events import deliver
from ui.kit.background import Background

ALL_KINDS_64 = ",".join(f"{g}:64" for g in (
    "v100-sxm2-32gb a100-sxm4-40gb a100-sxm4-80gb a100-pcie-80gb h100-sxm5-80gb h100-pcie-80gb h100-nvl-94gb "
    "gh200-96gb h200-sxm-141gb b200-180gb gb200-186gb l40s-48gb l4-24gb rtx-a6000-48gb rtx-6000-ada-48gb "
    "rtx-3090-24gb rtx-4080-16gb rtx-4090-24gb rtx-5090-32gb mi250x-128gb mi300x-192gb mi325x-256gb").split())


def _threads_of(monkeypatch, module, name: str) -> list[bool]:
    """Patch ``module.name`` to note, at each call, whether it ran on the GUI (main) thread."""
    real, seen = getattr(module, name), []

    def noted(*a, **k):
        seen.append(threading.current_thread() is threading.main_thread())
        return real(*a, **k)
    monkeypatch.setattr(module, name, noted)
    return seen


# ---------------------------------------------------------------- the worker itself
def test_a_newer_job_calls_the_older_one_off_and_only_the_newest_is_handed_over(qtbot):
    owner = QObject()
    got, started, release = [], threading.Event(), threading.Event()
    jobs = Background(owner, got.append)

    def slow():
        started.set()
        release.wait(30)
        for _ in range(1000):
            cancel_point()
        return "old"
    jobs.submit(slow)
    assert started.wait(30)
    jobs.submit(lambda: "new")
    assert jobs.busy
    release.set()
    assert jobs.finish(60) and got == ["new"] and not jobs.busy
    jobs.submit(lambda: 1 / 0)
    jobs.finish(60)
    assert isinstance(got[-1], ZeroDivisionError) and jobs.handed_over == 2


def test_a_job_lets_the_window_in_when_the_window_is_late_and_stops_when_its_page_is_gone(qtbot):
    """The GIL's convoy: a worker that drops the interpreter only inside numpy's calls takes it back
    before the waiting GUI thread wakes. At a cancel point a job sleeps when the window's beat is
    late (the window did not run for LATE_S), and not when it is on time; a job whose page was
    deleted is called off. (Counted, not timed: benches/bench_event_loop.py measures the blocks.)"""
    import time
    import shiboken6
    from ui.kit import background as bg
    owner = QObject()
    jobs = Background(owner, lambda _r: None)
    check = jobs._polite_check(jobs._serial)
    jobs._note_gui_ran()
    assert check() is False and jobs.yields == 0            # the window ran just now: no sleep
    jobs._gui_ran = time.perf_counter() - 10 * bg.LATE_S
    assert check() is False and jobs.yields == 1            # the window is late: the job steps aside once
    jobs.submit(lambda: None)
    assert jobs._beat.isActive() and jobs.finish(60)        # the beat runs while a job does, not after
    deliver()
    assert not jobs._beat.isActive()
    check = jobs._polite_check(jobs._serial)
    shiboken6.delete(owner)                                 # the page goes (its Background with it)
    assert check() is True


# ---------------------------------------------------------------- the Plan page
def _plan_page(window, settings: PlanSettings):
    window.show_plan()
    page = window.plan
    window.controller.set_planning(settings)
    window.controller.flush()
    deliver()
    page.settle()
    deliver()
    return page


def test_presenter_keys_on_the_plan_page_step_its_target_and_never_the_hidden_lessons(main_window, monkeypatch):
    """40 presses of → on the Plan page in presenter mode stepped the hidden lesson deck, replaced
    the Explore scenario and planned again on the GUI thread at each press (9.3 s frozen)."""
    import ui.plan.page as plan_page
    w = main_window
    page = _plan_page(w, PlanSettings(available="h100:2"))
    w.enter_presenter(fullscreen=False)
    assert w.plan_visible()
    deck = (w.lessons.number, w.lessons.index) if w.lessons_built() else None
    scenario = w.controller.scenario
    on_gui = _threads_of(monkeypatch, plan_page, "make_plan")
    for _ in range(40):
        assert w.presenter.handle_key(Qt.Key_Right)
        deliver()                     # the key's whole answer on the event loop: no plan is made there
    assert not any(on_gui) and w.controller.scenario == scenario
    assert deck is None or (w.lessons.number, w.lessons.index) == deck
    assert w.controller.planning.tpot_p90_ms == TPOT_STEPS_MS[0] == page.tpot.value()
    page.settle()
    assert page.plan.request.tpot_p90_ms == TPOT_STEPS_MS[0] and not any(on_gui)
    reading = w.lessons.reading if w.lessons_built() else None
    assert w.presenter.handle_key(Qt.Key_End) and w.presenter.handle_key(Qt.Key_T)
    assert w.presenter.handle_key(Qt.Key_R)
    deliver()
    assert w.controller.planning.tpot_p90_ms == PlanSettings().tpot_p90_ms and w.plan_visible()
    assert deck is None or (w.lessons.number, w.lessons.index) == deck
    assert reading is None or w.lessons.reading == reading       # T does not turn the hidden read mode


def test_the_tpot_steps():
    assert stepped_tpot(25.0, +1) == 20.0 and stepped_tpot(25.0, -1) == 30.0
    assert stepped_tpot(None, +1) == 20.0 and stepped_tpot(22.0, +1) == 20.0
    assert stepped_tpot(TPOT_STEPS_MS[0], +1) == TPOT_STEPS_MS[0] and stepped_tpot(9999, -1) == TPOT_STEPS_MS[-1]


def test_a_plan_past_the_limit_is_one_line_on_the_page_and_builds_nothing(main_window, monkeypatch):
    """Every catalogued kind ×64 with disaggregated pools took 23.8 GB before the kernel killed the app."""
    from model.planning import frontier

    def never(*_a, **_k):
        raise AssertionError("a replica shape was built")
    monkeypatch.setattr(frontier, "group_points", never)
    page = _plan_page(main_window, PlanSettings(available=ALL_KINDS_64[:200].rpartition(",")[0],
                                                disaggregated=True))
    text = page.problem.text()
    assert page.problem.isVisible() and "narrow it" in text and "\n" not in text, text


def test_a_failed_plan_never_hides_what_the_knobs_said(main_window):
    page = _plan_page(main_window, PlanSettings(available="h100:2"))
    page.available.setText("x" * 300)
    page.available.editingFinished.emit()
    page.jobs.submit(lambda: page.plan)          # a plan that lands after the knobs' line
    page.jobs.finish()
    assert page.problem.isVisible() and "GPUs available" in page.problem.text()


# ---------------------------------------------------------------- the Serve page
def test_serve_runs_off_the_gui_thread_and_the_newest_setup_wins(main_window, monkeypatch):
    import ui.serve.page as serve_page
    w = main_window
    w.show_serve()
    page = w.serve
    on_gui = _threads_of(monkeypatch, serve_page, "serve")
    for n in (100, 200, 300, 400, 500):
        w.controller.set_serving(ServingSetup(requests=n))
        w.controller.flush()
        deliver()
    page.settle(1)
    assert page.run.setup.requests == 500 and not any(on_gui) and page.computations <= len(on_gui)
    w.enter_presenter(fullscreen=False)
    before = (w.controller.scenario, w.lessons.index if w.lessons_built() else None)
    for key in (Qt.Key_Right, Qt.Key_Left, Qt.Key_End, Qt.Key_Right):
        assert w.presenter.handle_key(key)
        deliver()
    page.settle(1)
    assert not any(on_gui) and (w.controller.scenario, w.lessons.index if w.lessons_built() else None) == before


def test_a_page_deleted_while_its_job_runs_gets_nothing_and_nothing_crashes(qapp):
    """The worker signalled through the page's own object; one deleted on the GUI thread meanwhile
    crashed the process at a test's teardown (a segmentation fault). Now it signals through an
    object that lives for the process, and a gone page is skipped."""
    import shiboken6
    import time
    parent, got, go = QObject(), [], threading.Event()
    jobs = Background(parent, got.append)
    jobs.submit(lambda: (go.wait(5), "done")[1])
    time.sleep(0.05)
    shiboken6.delete(parent)                     # the page goes while its job runs
    assert not shiboken6.isValid(jobs)
    go.set()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and jobs._running:
        time.sleep(0.01)
    time.sleep(0.05)
    deliver()
    assert got == []
