"""Issue 12 in the window: hardware editor, config import, measuring, removing, broken files."""
import json
import pathlib

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from model import Scenario, estimate
from model.catalog.active import default_catalog, set_default_catalog
from model.files.hardware_file import document_text, export_document
from model.catalog.active import shipped_catalog

from qt_events import deliver

CONFIGS = pathlib.Path(__file__).resolve().parent / "data" / "hf_configs"


@pytest.fixture(autouse=True)
def data_dir(own_data_dir):
    return own_data_dir


def _combo_groups(combo):
    """{header: [labels]} of a SearchCombo."""
    out, head = {}, None
    for r in range(combo._model.rowCount()):
        it = combo._model.item(r)
        if not (it.flags() & Qt.ItemIsEnabled):
            head = it.text().strip("— ")
            out[head] = []
        else:
            out.setdefault(head, []).append(it.text())
    return out


def test_editor_what_if_save_lists_under_custom_and_halves_the_floor(main_window, data_dir):
    acts = main_window.custom_actions
    ed = acts.new_hardware()
    assert ed.start.currentData() == "h100-sxm5-80gb"
    ed.apply("hbm_bandwidth_x2")
    id_field = next(f for f in ed.fields if f.key == "id")
    ed.edit(id_field, "h100-hbm4")
    assert ed.edits["memory.hbm.bandwidth_bytes_per_s"].text() == "6700"
    assert ed.save_button.isEnabled() and ed.save()
    assert json.loads((data_dir / "hardware" / "h100-hbm4.json").read_text())["id"] == "h100-hbm4"
    main_window.controller.flush()
    assert main_window.controller.scenario.gpu == "h100-hbm4"
    assert "H100 SXM (custom)" in _combo_groups(main_window.controls.gpu)["Custom"]
    assert "H100 SXM (custom)" in _combo_groups(main_window.controls.compare)["Custom"]
    base = estimate(Scenario(gpu="h100"))
    assert main_window.controller.estimate.decode_floor_ms_per_token == pytest.approx(
        base.decode_floor_ms_per_token / 2, rel=0.02)
    assert "Saved" in acts.status.text()


def test_an_entry_removed_while_the_editor_is_open_is_not_offered_or_loaded(main_window, data_dir):
    """The soak walk chose, in an open editor's "Start from" list, an entry the Remove menu had
    removed meanwhile: UnknownIdError in a slot. Now Remove makes the list again, and an editor
    that was editing the removed entry starts from the first one, with one line."""
    acts = main_window.custom_actions
    ed = acts.new_hardware()
    ed.edit(next(f for f in ed.fields if f.key == "id"), "h100-mine")
    assert ed.save()
    other = acts.new_hardware()
    mine = other.start.findData("h100-mine")
    assert mine >= 0
    other.start.setCurrentIndex(mine)                   # editing your own entry
    assert other.start_id == "h100-mine"
    acts.remove("h100-mine", "hardware")
    assert other.start.findData("h100-mine") == -1
    assert other.start_id == other.start.itemData(0) == other.start.currentData()
    assert "h100-mine" in other.status.text() and "removed" in other.status.text()
    other.reject()
    deliver()


def test_editor_shows_the_reason_beside_the_field_and_will_not_save(main_window, data_dir):
    ed = main_window.custom_actions.new_hardware()
    for key, text, needle in (("memory.hbm.bandwidth_bytes_per_s", "-5", "greater than 0"),
                              ("compute.peak_flops_per_s.bf16", "1e18", "physically implausible"),
                              ("memory.hbm.capacity_bytes", "lots", "must be a number"),
                              ("id", "h100", "catalogue entry")):
        start = next(f for f in ed.fields if f.key == "id")
        ed.start_from("h100-sxm5-80gb")
        ed.edit(start, "mine")
        f = next(f for f in ed.fields if f.key == key)
        ed.edit(f, text)
        assert needle in ed.reasons[key].text(), (key, ed.reasons[key].text())
        assert "(got" not in ed.reasons[key].text()          # no stored SI numbers beside a GB/s field
        assert not ed.save_button.isEnabled() and "fix" in ed.status.text()
        assert not ed.save() and not (data_dir / "hardware").exists()
    assert main_window.controller.estimate is not None


def test_broken_hardware_files_get_one_line_and_keep_what_was_saved(main_window, data_dir, tmp_path):
    acts = main_window.custom_actions
    good = export_document(shipped_catalog().gpu("l40s"))
    good["id"] = "my-l40s"
    path = tmp_path / "good.json"
    path.write_text(document_text(good))
    assert acts.open_hardware(str(path))
    saved = (data_dir / "hardware" / "my-l40s.json").read_text()
    cases = {"text.json": "not json", "foreign.json": json.dumps({"hello": 1}),
             "negative.json": document_text({**good, "memory": {**good["memory"], "hbm": {
                 **good["memory"]["hbm"], "bandwidth_bytes_per_s": -1}}}),
             "huge_flops.json": document_text({**good, "compute": {**good["compute"],
                                                                   "peak_flops_per_s": {"bf16": 1e30}}})}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert not acts.open_hardware(str(tmp_path / name))
        line = acts.status.text()
        assert line.startswith("Not added:") and name in line and "\n" not in line, line
    assert (data_dir / "hardware" / "my-l40s.json").read_text() == saved
    assert main_window.controller.scenario.gpu == "my-l40s" and main_window.controller.problem == ""
    # a new entry may not take the id of one you saved; replacing your own keeps the old file
    ed = acts.new_hardware()
    ed.start_from("h100-sxm5-80gb")
    ed.edit(next(f for f in ed.fields if f.key == "id"), "my-l40s")
    assert "already one of yours" in ed.reasons["id"].text() and not ed.save_button.isEnabled()
    ed.reject()
    # a file with your entry's id and other numbers comes in beside it: yours is never replaced
    newer = {**good, "name": "my L40S, second try"}
    path.write_text(document_text(newer))
    assert acts.open_hardware(str(path))
    assert (data_dir / "hardware" / "my-l40s.json").read_text() == saved
    assert json.loads((data_dir / "hardware" / "my-l40s-2.json").read_text())["name"] == "my L40S, second try"
    assert main_window.controller.scenario.gpu == "my-l40s-2" and "is kept" in acts.status.text()
    assert acts.open_hardware(str(path)) and main_window.controller.scenario.gpu == "my-l40s-2"   # the same again: no -3
    assert not (data_dir / "hardware" / "my-l40s-3.json").exists()


def test_config_import_shows_the_count_and_adds_the_model(main_window):
    acts = main_window.custom_actions
    dlg = acts.add_model(str(CONFIGS / "mixtral-8x7b-v0.1.json"))
    rows = {dlg.rows.itemAt(i, dlg.rows.ItemRole.LabelRole).widget().text():
            dlg.rows.itemAt(i, dlg.rows.ItemRole.FieldRole).widget().text() for i in range(dlg.rows.rowCount())}
    assert rows["Parameters (derived)"].startswith("46.7 billion")
    assert rows["Active per token"].startswith("12.7 billion")
    dlg.name.setText("My Mixtral")
    assert dlg.read() and dlg.add()
    main_window.controller.flush()
    assert main_window.controller.scenario.model == "my-mixtral"
    assert "My Mixtral" in _combo_groups(main_window.controls.model)["Custom"]


@pytest.mark.parametrize("text,needle", [
    ("{not json", "not valid JSON"),
    (json.dumps({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 0, "num_attention_heads": 32,
                 "intermediate_size": 14336, "vocab_size": 32000}), "num_hidden_layers must be at least 1"),
    (json.dumps({"model_type": "gpt2", "n_layer": 12}), "architecture 'gpt2'"),
])
def test_broken_configs_say_why_and_add_nothing(main_window, tmp_path, text, needle):
    path = tmp_path / "config.json"
    path.write_text(text)
    before = default_catalog().models
    dlg = main_window.custom_actions.add_model(str(path))
    assert needle in dlg.status.text() and "\n" not in dlg.status.text()
    assert not dlg.add_button.isEnabled() and not dlg.add()
    assert default_catalog().models == before


def _drop(window, path):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(400, 300), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(window, enter)        # Qt delivers a drop to the widget that accepted the enter
    assert enter.isAccepted()
    ev = QDropEvent(QPointF(400, 300), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(window, ev)
    return ev


def test_drag_and_drop_of_config_and_hardware_files(main_window, tmp_path):
    acts = main_window.custom_actions
    _drop(main_window, CONFIGS / "gemma-2-9b.json")
    assert acts.dialog is not None and acts.dialog.llm.params.tied_embeddings
    acts.dialog.reject()
    doc = export_document(shipped_catalog().gpu("mi300x"))
    doc["id"] = "dropped-mi300x"
    (tmp_path / "hw.json").write_text(document_text(doc))
    _drop(main_window, tmp_path / "hw.json")
    main_window.controller.flush()
    assert main_window.controller.scenario.gpu == "dropped-mi300x"
    from model.files.scenario_file import save_scenario
    save_scenario(tmp_path / "talk.json", Scenario(gpu="h200", batch=16))
    _drop(main_window, tmp_path / "talk.json")
    main_window.controller.flush()
    assert main_window.controller.scenario.gpu == "h200-sxm-141gb" and main_window.controller.scenario.batch == 16
    (tmp_path / "broken.json").write_text("{oops")
    _drop(main_window, tmp_path / "broken.json")
    assert acts.status.text().startswith("Not added: broken.json is not valid JSON")
    assert main_window.controller.scenario.gpu == "h200-sxm-141gb"


def test_remove_moves_the_scenario_off_the_entry_first(main_window, data_dir):
    acts = main_window.custom_actions
    ed = acts.new_hardware()
    ed.edit(next(f for f in ed.fields if f.key == "id"), "gone-soon")
    ed.save()
    main_window.controller.set_compare("gone-soon")
    main_window.controller.flush()
    acts.remove("gone-soon")
    main_window.controller.flush()
    assert main_window.controller.scenario.gpu == Scenario().gpu and main_window.controller.compare_gpu is None
    assert not (data_dir / "hardware" / "gone-soon.json").exists()
    assert "Custom" not in _combo_groups(main_window.controls.gpu)
    assert main_window.controller.estimate is not None and main_window.controller.problem == ""


def test_measure_this_machine_saves_a_usable_hardware_file(main_window, data_dir, qtbot):
    acts = main_window.custom_actions
    m = acts.measure(quick=True)
    assert m.progress.maximum() == len(m.steps)
    m.wait(240)
    main_window.controller.flush()
    gpu = main_window.controller.scenario.gpu
    assert gpu.startswith("this-machine-") and (data_dir / "hardware" / f"{gpu}.json").exists()
    assert default_catalog().gpu(gpu).hbm_bandwidth_bytes_per_s > 1e8
    assert "Saved 'this machine (measured" in acts.status.text() and "decode step" in acts.status.text()
    assert "matmul" in acts.status.toolTip()


def test_scenario_files_carry_custom_hardware_into_another_window(main_window, tmp_path):
    ed = main_window.custom_actions.new_hardware()
    ed.edit(next(f for f in ed.fields if f.key == "id"), "travels")
    ed.save()
    main_window.controller.flush()
    path = tmp_path / "scenario.json"
    assert main_window.save_scenario_to(str(path))
    assert json.loads(path.read_text())["custom_entries"][0]["id"] == "travels"
    set_default_catalog(None)                      # another computer: nothing of the user's
    main_window.controller.flush()                 # (a new catalogue is a change: one snapshot)
    assert "Custom" not in _combo_groups(main_window.controls.gpu)
    ok = main_window.open_scenario(str(path))
    main_window.controller.flush()
    assert ok and main_window.controller.scenario.gpu == "travels"
    assert "H100 SXM (custom)" in _combo_groups(main_window.controls.gpu)["Custom"]


def test_saved_entries_load_at_start_and_broken_ones_are_reported_not_deleted(shown, data_dir):
    from ui.shell.app import build_window, settings
    (data_dir / "hardware").mkdir(parents=True)
    doc = export_document(shipped_catalog().gpu("h200"))
    doc["id"] = "kept-h200"
    (data_dir / "hardware" / "kept-h200.json").write_text(document_text(doc))
    (data_dir / "hardware" / "broken.json").write_text("{oops")
    (data_dir / "models").mkdir()
    (data_dir / "models" / "m.json").write_text((CONFIGS / "qwen2.5-7b.json").read_text())
    w = shown(build_window(Scenario(gpu="kept-h200", model="m"), st=settings()))
    w.controller.flush()
    assert w.controller.scenario.gpu == "kept-h200" and w.controller.problem == ""
    assert "broken.json" in w.custom_actions.status.text() and (data_dir / "hardware" / "broken.json").exists()


def test_lessons_draw_custom_hardware_added_after_they_were_built(main_window):
    for n in (3, 4):
        main_window.show_chapter(n)           # the chapter views exist (and keep a catalogue) before the entry
    main_window.show_explore()
    ed = main_window.custom_actions.new_hardware()
    ed.edit(next(f for f in ed.fields if f.key == "id"), "late-gpu")
    ed.save()
    main_window.controller.flush()
    for n in (2, 3, 4, 5, 6):
        main_window.show_chapter(n)
        main_window.controller.set(gpu="late-gpu")
        main_window.controller.flush()
        v = main_window.lessons.current_view
        v.ensure_fresh()
        assert v.error_text == "", (n, v.error_text)
