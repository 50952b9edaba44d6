"""Issues 37 and 41: a scenario file is read once, by one reader, validated whole and applied whole
or not at all; saving is the window's; the Serve setup and the Plan settings are the controller's,
kept in files and settings; a serving-only change makes no estimate and redraws no Explore panel."""
import json
from pathlib import Path

import pytest

from model import Scenario
from model.catalog.active import default_catalog
from model.planning.settings import PlanSettings
from model.serving.setup import ServingSetup
from qt_events import deliver

SETUP = ServingSetup(load="concurrency", concurrency=8, requests=120, ttft_p90_ms=700.0)
PLAN = PlanSettings(available="h100:4", ttft_p90_ms=900.0, tpot_p90_ms=40.0, rate_per_s=2.0, speculative=False,
                    disaggregated=True)


@pytest.fixture
def window(shared_window):
    return shared_window


def _state(w):
    """Everything a file may change: the scenario, the setup, the settings, the chapter and page, the catalogue."""
    c = w.controller
    return (c.scenario, c.serving, c.planning, c.snapshot.serving, c.snapshot.planning, w.lessons.number,
            w.pages.currentWidget(), default_catalog())


def _write(tmp_path, doc, name="x.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return str(p)


def _file(**extra):
    return {"memory_wall_scenario": 1, "scenario": {"batch": 16, "output_len": 256}, **extra}


REFUSED = {
    "serving a list": _file(serving=[1, 2]),
    "serving a string": _file(serving="fast"),
    "serving a number": _file(serving=5),
    "negative requests": _file(serving={"requests": -1}),
    "fractional requests": _file(serving={"requests": 100.5}),
    "requests true": _file(serving={"requests": True}),
    "unknown serving field": _file(serving={"colour": "red"}),
    "trace load without a file": _file(serving={"load": "trace"}),
    "unknown load": _file(serving={"load": "sometimes"}),
    "unknown lengths": _file(serving={"lengths": "long"}),
    "rate as text": _file(serving={"rate_per_s": "fast"}),
    "rate beyond the knob": _file(serving={"rate_per_s": 1e6}),
    "requests beyond the knob": _file(serving={"requests": 1_000_000}),
    "requests below the knob": _file(serving={"requests": 5}),
    "clients beyond the knob": _file(serving={"load": "concurrency", "concurrency": 1_000_000}),
    "no clients": _file(serving={"load": "concurrency", "concurrency": 0}),
    "replicas beyond the simulator": _file(serving={"replicas": 65}),
    "no replicas": _file(serving={"replicas": 0}),
    "drafts beyond the knob": _file(serving={"spec_k": 9}),
    "acceptance without drafts": _file(serving={"spec_accept": 0.5}),
    "prefix hit over 1": _file(serving={"prefix_hit": 1.5}),
    "negative TTFT target": _file(serving={"ttft_p90_ms": -5}),
    "TTFT target beyond the knob": _file(serving={"ttft_p90_ms": 700_000}),
    "TPOT target beyond the knob": _file(serving={"tpot_p90_ms": 20_000}),
    "range ratio over 1": _file(serving={"range_ratio": 2}),
    "planning a list": _file(planning=[]),
    "unknown planning field": _file(planning={"gpus": 8}),
    "planning target beyond the knob": _file(planning={"ttft_p90_ms": 1e7}),
    "planning switch as text": _file(planning={"speculative": "yes"}),
    "gpu as a list": {"memory_wall_scenario": 1, "scenario": {"gpu": ["h100"]}},
    "model as an object": {"memory_wall_scenario": 1, "scenario": {"model": {"id": "llama-3.1-8b"}}},
    "chapter 9": _file(chapter=9),
    "a bad scenario with a good setup": {"memory_wall_scenario": 1, "scenario": {"batch": -1},
                                         "serving": {"requests": 100}},
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_file_leaves_the_whole_window_as_it_was(window, tmp_path, case):
    c = window.controller
    c.set_scenario(Scenario(batch=3), serving=ServingSetup(requests=321))
    c.set_planning(PlanSettings(available="h200:2"))
    c.flush()
    window.show_chapter(3, 1)
    c.flush()
    before = _state(window)
    assert not window.open_scenario(_write(tmp_path, REFUSED[case]))
    c.flush()
    deliver()
    assert _state(window) == before
    line = window.file_status
    assert line and "\n" not in line and line.startswith("x.json")
    assert window.statusBar().currentMessage() == line
    c.set_serving(ServingSetup(requests=600))
    c.set_planning(PlanSettings())


def test_opening_reads_the_file_once_and_applies_all_of_it(window, tmp_path, monkeypatch):
    import model.files.safe_io as safe_io
    reads = []
    real = safe_io.read_json
    monkeypatch.setattr(safe_io, "read_json", lambda *a, **k: reads.append(a[0]) or real(*a, **k))
    monkeypatch.setattr("model.files.scenario_file.read_json", safe_io.read_json)
    path = _write(tmp_path, _file(chapter=6, serving=SETUP.to_dict(), planning=PLAN.to_dict()))
    assert window.open_scenario(path)
    window.controller.flush()
    assert reads == [path]
    c = window.controller
    assert (c.scenario.batch, c.serving, c.planning) == (16, SETUP, PLAN)
    assert (c.snapshot.serving, c.snapshot.planning) == (SETUP, PLAN)
    assert window.lessons_visible() and window.lessons.number == 6
    c.set_serving(ServingSetup(requests=600))
    c.set_planning(PlanSettings())


def test_serve_and_plan_settings_round_trip_through_a_file(window, tmp_path):
    c = window.controller
    c.set_scenario(Scenario(batch=8), serving=SETUP)
    c.set_planning(PLAN)
    c.flush()
    path = str(tmp_path / "talk.json")
    assert window.save_scenario_to(path)
    doc = json.loads(Path(path).read_text())
    assert "chapter" not in doc and doc["serving"] == SETUP.to_dict() and doc["planning"] == PLAN.to_dict()
    window.serve.controls.reset()
    c.set_planning(PlanSettings())
    c.flush()
    assert c.serving != SETUP and c.planning != PLAN
    assert window.open_scenario(path)
    c.flush()
    assert (c.serving, c.planning) == (SETUP, PLAN) and window.serve_visible()
    assert window.serve.controls.shown_setup == SETUP and window.plan.tpot.value() == 40.0
    window.serve.controls.reset()
    c.set_planning(PlanSettings())
    c.flush()


def test_the_defaults_are_not_written(window, tmp_path):
    path = str(tmp_path / "plain.json")
    assert window.save_scenario_to(path)
    doc = json.loads(Path(path).read_text())
    assert "serving" not in doc and "planning" not in doc


def test_serve_and_plan_settings_are_kept_in_the_settings(tmp_path, shown):
    from PySide6.QtCore import QSettings
    from ui.shell.app import build_window
    st = QSettings(str(tmp_path / "MemoryWall.ini"), QSettings.IniFormat)
    w = shown(build_window(Scenario(), st=st))
    w.controller.set_serving(SETUP)
    w.controller.set_planning(PLAN)
    w.controller.flush()
    w.save_settings()
    w.close()
    again = build_window(None, st=QSettings(str(tmp_path / "MemoryWall.ini"), QSettings.IniFormat))
    assert (again.controller.serving, again.controller.planning) == (SETUP, PLAN)
    again.close()
    st.setValue("serving", json.dumps({"requests": 10 ** 7}))
    st.sync()
    third = build_window(None, st=QSettings(str(tmp_path / "MemoryWall.ini"), QSettings.IniFormat))
    assert third.controller.serving == ServingSetup(requests=600) and third.controller.planning == PLAN
    assert "serving" in third.statusBar().currentMessage()
    third.close()


def test_saving_from_explore_builds_no_lessons_page(tmp_path, monkeypatch, qtbot):
    from PySide6.QtWidgets import QFileDialog
    from ui.shell.app import build_window
    w = build_window(Scenario(batch=4), st=None)           # not shown: nothing built after a first paint
    qtbot.addWidget(w)
    path = str(tmp_path / "explore.json")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (path, ""))
    w.save_scenario_dialog()
    assert not w.lessons_built()
    doc = json.loads(Path(path).read_text())
    assert doc["scenario"]["batch"] == 4 and "chapter" not in doc


def test_a_serving_only_change_makes_no_estimate_and_redraws_no_explore_panel(window, monkeypatch):
    import ui.state.controller as controller
    c = window.controller
    window.show_serve()
    c.flush()
    before = c.snapshot
    calls = []
    monkeypatch.setattr(controller, "estimate", lambda *a, **k: calls.append("estimate"))
    monkeypatch.setattr(controller, "sweep_batch", lambda *a, **k: calls.append("sweep"))
    for panel in (window.controls, window.hierarchy, window.roofline, window.gauges, window.lessons):
        monkeypatch.setattr(panel, "show_snapshot", lambda *a, **k: calls.append("explore panel"))
    seen = []
    c.changed.connect(seen.append)
    try:
        window.serve.controls.requests.setValue(700)
        window.plan.rate.setValue(4.0)
        deliver()
    finally:
        c.changed.disconnect(seen.append)
    assert len(seen) == 1 and calls == []
    snap = seen[0]
    assert snap.estimate is before.estimate and snap.sweep is before.sweep
    assert snap.explore_serial == before.explore_serial and snap.serial == before.serial + 1
    assert snap.serving.requests == 700 and snap.planning.rate_per_s == 4.0
    monkeypatch.undo()
    window.serve.controls.reset()
    c.set_planning(PlanSettings())
    c.flush()


def test_the_window_reads_a_file_with_the_knobs_readers():
    from model.serving.knobs import window_setup
    from ui.state.controller import SECTIONS
    assert SECTIONS == {"serving": window_setup, "planning": PlanSettings.from_dict}


def test_a_file_named_on_the_command_line_brings_its_plan_settings(tmp_path, monkeypatch):
    """`main.py plan.json` opened the file's scenario and Serve setup but dropped its "planning"
    section (the Plan page showed the defaults); it now reaches the window, checked when read."""
    import ui.shell.app as app
    from cli.window import run_app
    seen = {}
    monkeypatch.setattr(app, "run", lambda scenario, **kw: seen.update(kw, scenario=scenario) or 0)
    path = _write(tmp_path, _file(planning={"available": "h100:8", "ttft_p90_ms": 2000.0, "tpot_p90_ms": 40.0}))
    assert run_app([path, "--page", "plan", "--screenshot", str(tmp_path / "p.png")]) == 0
    assert seen["planning"] == PlanSettings(available="h100:8", ttft_p90_ms=2000.0, tpot_p90_ms=40.0)
    assert seen["page"] == "plan"
