"""Issue 27 in the window: exports and slides never replace without asking and keep the old file
on a full disk; your own entries survive a restart and a Remove of the other kind; names are
plain text; a crash in the model becomes the one-line problem state, controls and panels in step."""
from __future__ import annotations

import errno
import json
import os
import pathlib

import pytest

from model import Scenario
from model.catalog.active import default_catalog, set_default_catalog, shipped_catalog
from model.files.hardware_file import export_document, hardware_from_document
from qt_events import deliver
from ui.custom import store as custom_store

CONFIGS = pathlib.Path(__file__).resolve().parent / "data" / "hf_configs"


@pytest.fixture(autouse=True)
def data_dir(own_data_dir):
    return own_data_dir


def _my_gpu(ident: str = "my-gpu") -> dict:
    doc = export_document(shipped_catalog().gpu("mi300x"))
    doc.update(id=ident, name="My MI300X")
    return doc


def _one_line(text: str) -> str:
    assert text and "\n" not in text, text
    return text


def test_a_crash_in_the_model_is_the_problem_state_and_controls_and_panels_agree(main_window, monkeypatch):
    import ui.state.controller as controller_module
    c = main_window.controller
    good = c.estimate
    real = controller_module.estimate

    def failing(s, cat=None):
        if s.batch == 7:
            raise ZeroDivisionError("float division by zero")
        return real(s, cat)
    monkeypatch.setattr(controller_module, "estimate", failing)
    seen = []
    c.changed.connect(seen.append)
    main_window.controls.batch_spin.setValue(7)
    c.flush()
    deliver()
    assert seen, "no snapshot after the failing change: the panels stay on the old one"
    snap = seen[-1]
    assert snap.requested.batch == 7 and c.scenario.batch == 7
    assert "ZeroDivisionError" in _one_line(snap.problem)
    text = main_window.problem.text()
    assert main_window.problem.isVisibleTo(main_window) and "ZeroDivisionError" in text
    assert "last scenario that works" in text                   # the numbers are labelled as the old ones
    assert snap.estimate is good and main_window.controls.batch_spin.value() == 7
    main_window.controls.batch_spin.setValue(2)
    c.flush()
    deliver()
    assert c.problem == "" and not main_window.problem.isVisibleTo(main_window) and c.estimate.scenario.batch == 2


def test_an_export_never_replaces_a_file_without_asking(main_window, tmp_path):
    main_window.show_chapter(6, 0)
    lessons = main_window.lessons
    for kind in ("PNG", "SVG", "CSV"):
        mine = tmp_path / f"mine.{kind.lower()}"
        mine.write_text("my own file")
        assert not lessons.export(kind, str(mine))
        assert "already exists" in _one_line(lessons.status.text())
        assert mine.read_text() == "my own file"
        assert lessons.export(kind, str(mine), overwrite=True), lessons.status.text()   # the dialog asked
        assert mine.read_bytes() != b"my own file" and lessons.status.text().startswith("exported")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_full_disk_keeps_the_old_export_and_never_says_exported(main_window, tmp_path, monkeypatch):
    main_window.show_chapter(4, 0)
    lessons = main_window.lessons
    svg = tmp_path / "chart.svg"
    svg.write_text("<svg>the old chart</svg>")

    def full(_fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    for kind in ("SVG", "PNG", "CSV"):
        target = svg.with_suffix("." + kind.lower())
        if not target.exists():
            target.write_text("old")
        before = target.read_bytes()
        assert not lessons.export(kind, str(target), overwrite=True)
        status = _one_line(lessons.status.text())
        assert "No space left" in status and not status.startswith("exported")
        assert target.read_bytes() == before
    monkeypatch.undo()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".memory-wall-")]


def test_a_slide_never_replaces_a_file_without_asking(main_window, tmp_path):
    from ui.present.slides import save_slide
    main_window.show_chapter(2, 0)
    mine = tmp_path / "deck.png"
    mine.write_bytes(b"my slide")
    assert not save_slide(main_window, "PNG", "dark", str(mine))
    assert "already exists" in _one_line(main_window.lessons.status.text())
    assert mine.read_bytes() == b"my slide"


def test_a_saved_scenario_on_your_own_hardware_survives_a_restart(data_dir, monkeypatch, capsys):
    import ui.shell.app as app
    from ui.shell.settings import open_settings
    custom_store.save_hardware(_my_gpu(), hardware_from_document(_my_gpu()))
    set_default_catalog(None)                         # a fresh start: only the shipped catalogue
    st, _ = open_settings()
    st.setValue("scenario", json.dumps(Scenario(gpu="my-gpu", batch=4).to_dict()))
    st.sync()
    got = {}

    def build(scenario, **_kw):
        got["scenario"] = scenario
        raise RuntimeError("stop here")
    monkeypatch.setattr(app, "build_window", build)
    try:
        assert app.run() == 1
    finally:
        st.remove("scenario")
        st.sync()
    capsys.readouterr()
    assert got["scenario"] is not None and got["scenario"].gpu == "my-gpu" and got["scenario"].batch == 4


def test_stale_temporaries_in_the_app_folders_are_cleaned_at_start(data_dir, monkeypatch, capsys):
    import time
    import ui.shell.app as app
    from ui.shell.settings import open_settings
    hw = data_dir / "hardware"
    hw.mkdir(parents=True)
    from model.files.safe_io import TEMP_PREFIX, _mark
    stale, keep = hw / f"{TEMP_PREFIX}k1ll3d00-{_mark('k1ll3d00')}.tmp", hw / "NAME.part.gif"
    look_alike = hw / ".memory-wall-k1ll3d00.tmp"                  # the app's pattern before the mark: not its own
    for f in (stale, keep, look_alike):
        f.write_text("x")
        old = time.time() - 7200
        os.utime(f, (old, old))
    monkeypatch.setattr(app, "build_window", lambda *_a, **_k: (_ for _ in ()).throw(RuntimeError("stop")))
    open_settings()
    assert app.run() == 1
    capsys.readouterr()
    assert not stale.exists() and keep.exists() and look_alike.exists()


def test_removing_a_model_keeps_the_hardware_of_the_same_id(main_window, data_dir):
    from model.files.hf_config import llm_from_config
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    custom_store.save_hardware(_my_gpu("same"), hardware_from_document(_my_gpu("same")))
    custom_store.save_model(cfg, llm_from_config(cfg, "same"))
    hw_file, model_file = data_dir / "hardware" / "same.json", data_dir / "models" / "same.json"
    assert hw_file.is_file() and model_file.is_file()
    main_window.custom_actions.remove("same", "model")
    main_window.controller.flush()
    assert hw_file.is_file() and not model_file.exists()
    cat = default_catalog()
    assert cat.is_custom("same", "hardware") and not cat.is_custom("same", "model")
    assert cat.gpu("same").name == "My MI300X"
    set_default_catalog(None)
    assert custom_store.load_saved() == [] and default_catalog().gpu("same").name == "My MI300X"


def test_names_are_plain_text_in_the_status_lines(main_window):
    from PySide6.QtCore import Qt
    acts = main_window.custom_actions
    acts.say("<b>Saved</b> <img src=x>")
    assert acts.status.textFormat() == Qt.PlainText and acts.status.text() == "<b>Saved</b> <img src=x>"
    assert "&lt;b&gt;" in acts.status.toolTip()
    main_window.lessons.message("<i>x</i>")
    assert main_window.lessons.status.textFormat() == Qt.PlainText
    assert main_window.problem.textFormat() == Qt.PlainText


def test_the_import_dialog_refuses_heads_that_do_not_divide_the_hidden_size(qtbot, tmp_path):
    from ui.custom.model_import import ModelImportDialog
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    for broken, needle in (({"hidden_size": 16, "num_attention_heads": 32}, "not a multiple"),
                           ({"hidden_size": 4100}, "not a multiple")):
        path = tmp_path / "config.json"
        path.write_text(json.dumps({**cfg, **broken}))
        dialog = ModelImportDialog(str(path))
        qtbot.addWidget(dialog)
        assert not dialog.add_button.isEnabled()
        assert needle in _one_line(dialog.status.text())
        dialog.name.setText("x" * 500)
        assert len(dialog.name.text()) == 80


def test_two_saved_files_with_one_id_load_the_first_and_name_the_second(data_dir):
    folder = data_dir / "hardware"
    folder.mkdir(parents=True)
    first, second = _my_gpu(), {**_my_gpu(), "name": "Another"}
    (folder / "a.json").write_text(json.dumps(first))
    (folder / "b.json").write_text(json.dumps(second))
    problems = custom_store.load_saved()
    assert len(problems) == 1 and "b.json" in _one_line(problems[0]) and "'my-gpu'" in problems[0]
    assert default_catalog().gpu("my-gpu").name == "My MI300X"


def test_the_hardware_editor_refuses_what_the_command_line_refuses(main_window):
    ed = main_window.custom_actions.new_hardware()
    ident = next(f for f in ed.fields if f.key == "id")
    ed.edit(ident, "my-slow-gpu")
    assert ed.save_button.isEnabled()
    flops = next(f for f in ed.fields if f.key == "compute.peak_flops_per_s.bf16")
    ed.edit(flops, "1e-300")                                   # TFLOP/s: FLOP/s of 1e-288
    assert "below" in _one_line(ed.reasons[flops.key].text()) and not ed.save_button.isEnabled()
    ed.edit(flops, "989")
    name = next(f for f in ed.fields if f.key == "name")
    ed.edit(name, "x" * 200_000)
    assert "200,000 characters" in ed.reasons[name.key].text() and not ed.save_button.isEnabled()
    ed.close()
