"""Issue 12: hardware files — export, edit, import, what-ifs, broken files (model and CLI)."""
import dataclasses
import json
import os
import pathlib
import stat
import subprocess
import sys

import pytest

import main
from model import Scenario, estimate
from model.catalog.active import default_catalog, set_default_catalog, shipped_catalog
from model.errors import ModelError
from model.files.custom_catalog import catalog_with_files
from model.files.hardware_check import check_document
from model.readouts.export import estimate_json
from model.files.hardware_edit import apply_what_if, editor_fields, field_problems, field_text, set_field_text
from model.files.hardware_file import HardwareFileError, document_text, export_document, hardware_document, hardware_from_document, load_hardware_file, save_hardware_file

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _shipped_catalogue():
    set_default_catalog(None)
    yield
    set_default_catalog(None)


def _numbers(e):
    d = estimate_json(e)
    return {k: v for k, v in d.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def test_export_edit_double_bandwidth_halves_the_decode_floor(tmp_path):
    path = tmp_path / "h100x2.json"
    assert main.main(["hardware", "export", "h100", "-o", str(path)]) == 0
    doc = json.loads(path.read_text())
    assert doc["id"] == "h100-sxm5-80gb-custom" and doc["based_on"] == "h100-sxm5-80gb"
    assert "bandwidth_bytes_per_s" in doc["memory"]["hbm"] and doc["compute"]["source"]
    doc = apply_what_if(doc, "hbm_bandwidth_x2")
    doc["id"], doc["name"] = "h100-hbm-x2", "H100 with twice the bandwidth"
    save_hardware_file(path, doc, overwrite=True)
    cat, (hw,), _ = catalog_with_files([str(path)])
    base = estimate(Scenario(gpu="h100", model="llama-3.1-70b", precision="fp8"))
    fast = estimate(Scenario(gpu="h100-hbm-x2", model="llama-3.1-70b", precision="fp8"), cat)
    assert hw.hbm_bandwidth_bytes_per_s == 2 * shipped_catalog().gpu("h100").hbm_bandwidth_bytes_per_s
    # batch 1 decode is memory-bound: the floor is bytes / bandwidth, so it halves
    assert fast.decode_floor_ms_per_token == pytest.approx(base.decode_floor_ms_per_token / 2, rel=0.02)
    assert "what if ×2 memory bandwidth" in hw.source("hbm")


@pytest.mark.parametrize("gpu", [g.id for g in shipped_catalog().gpus])
def test_every_catalogue_entry_round_trips_to_the_same_estimate(gpu, tmp_path):
    hw0 = shipped_catalog().gpu(gpu)
    path = tmp_path / "x.json"
    path.write_text(document_text(export_document(hw0)))
    hw, _ = load_hardware_file(path)
    same = dataclasses.replace(hw, id=hw0.id, name=hw0.name, short_name=hw0.short_name, aliases=hw0.aliases)
    assert hardware_document(same) == hardware_document(hw0) and hw.sources == hw0.sources
    cat = shipped_catalog().with_hardware(hw)
    s = Scenario(gpu=gpu, model="llama-3.1-8b", precision="bf16" if hw0.peak("bf16") else "fp16", batch=8)
    assert _numbers(estimate(s.with_(gpu=hw.id), cat)) == pytest.approx(_numbers(estimate(s)), rel=1e-9)


def test_custom_entries_are_marked_and_removable():
    hw = hardware_from_document(export_document(shipped_catalog().gpu("a100")))
    cat = shipped_catalog().with_hardware(hw, "{}")
    assert cat.is_custom(hw.id) and not cat.is_custom("a100-sxm4-80gb")
    assert cat.gpu(hw.id) is hw and len(cat.gpus) == len(shipped_catalog().gpus) + 1
    back = cat.without_custom(hw.id)
    assert back.gpus == shipped_catalog().gpus and back.without_custom("h100") is back


def _doc():
    return export_document(shipped_catalog().gpu("h100"))


def _set(doc, path, value):
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize("path,value,needle", [
    (("memory", "hbm", "bandwidth_bytes_per_s"), -1.0, "greater than 0"),
    (("memory", "hbm", "bandwidth_bytes_per_s"), 0, "greater than 0"),
    (("memory", "hbm", "bandwidth_bytes_per_s"), None, "missing"),
    (("compute", "peak_flops_per_s", "bf16"), 1e30, "physically implausible"),
    (("compute", "peak_flops_per_s", "fp99"), 1e12, "unknown data type"),
    (("compute", "peak_flops_per_s"), {}, "at least one data type"),
    (("compute", "units"), 0, "greater than 0"),
    (("compute", "units"), 1.5, "whole number"),
    (("memory", "hbm", "capacity_bytes"), "80 GB", "must be a number"),
    (("links", "network"), None, "missing section"),
    (("power", "tdp_w"), -5, "greater than 0"),
    (("id",), "H100 SXM", "lower-case"),
    (("id",), "h100-sxm5-80gb", "catalogue entry"),
    (("name",), "", "non-empty"),
])
def test_impossible_numbers_are_refused_with_the_field_named(path, value, needle):
    doc = _set(_doc(), path, value)
    problems = check_document(doc)
    assert problems and needle in problems[0].reason, problems
    with pytest.raises(HardwareFileError, match=needle):
        hardware_from_document(doc, "mine.json")


@pytest.mark.parametrize("content,needle", [
    ("not json at all", "not valid JSON"),
    ("[1, 2, 3]", "not a Memory Wall hardware file"),
    ('{"memory_wall_scenario": 1}', "not a Memory Wall hardware file"),
    ('{"memory_wall_hardware": 7}', "this version reads 1"),
    ('{"memory_wall_hardware": 1, "id": "x", "memory": {"hbm": {"bandwidth_bytes_per_s": NaN}}}', "not valid JSON"),
    ("[" * 100000 + "]" * 100000, "nested 100000 levels deep"),
])
def test_broken_and_foreign_files_exit_2_with_one_line(tmp_path, capsys, content, needle):
    path = tmp_path / "broken.json"
    path.write_text(content)
    assert main.main(["estimate", "--hardware-file", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err


def test_binary_missing_huge_and_special_files_are_refused(tmp_path, capsys):
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 10)
    huge = tmp_path / "huge.json"
    huge.write_text(" " * 1_100_000)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path, needle in ((binary, "not UTF-8"), (tmp_path / "none.json", "no such"), (huge, "too large"),
                         (fifo, "not a regular file"), (tmp_path, "not a regular file")):
        assert main.main(["list", "gpus", "--hardware-file", str(path)]) == 2
        err = capsys.readouterr().err.strip()
        assert needle in err and len(err.splitlines()) == 1, err


def test_a_failed_save_leaves_the_old_file_whole(tmp_path):
    path = tmp_path / "mine.json"
    good = _doc()
    save_hardware_file(path, good)
    before = path.read_text()
    with pytest.raises(HardwareFileError):
        save_hardware_file(path, _set(_doc(), ("memory", "hbm", "bandwidth_bytes_per_s"), -1))
    assert path.read_text() == before and [p.name for p in tmp_path.iterdir()] == ["mine.json"]


def test_export_and_calibrate_never_replace_a_file_unless_forced(tmp_path, capsys):
    path = tmp_path / "mine.json"
    path.write_text("my notes")
    for argv in (["hardware", "export", "h100", "-o", str(path)], ["calibrate", "--quick", "-o", str(path)]):
        assert main.main(argv) == 2
        assert "exists" in capsys.readouterr().err and path.read_text() == "my notes"
    assert main.main(["hardware", "export", "h100", "-o", str(path), "--force"]) == 0
    assert json.loads(path.read_text())["based_on"] == "h100-sxm5-80gb"


def test_hardware_file_on_the_command_line(tmp_path):
    path = tmp_path / "mine.json"
    doc = export_document(shipped_catalog().gpu("l4"))
    doc["id"] = "my-l4"
    path.write_text(document_text(doc))
    out = subprocess.run([sys.executable, "main.py", "estimate", "--hardware-file", str(path), "--gpu", "my-l4",
                          "--model", "llama-3.1-8b", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["gpu_name"] == doc["name"]
    check = subprocess.run([sys.executable, "main.py", "hardware", "check", str(path)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0 and "my-l4" in check.stdout


def test_every_command_takes_hardware_files(tmp_path, capsys):
    paths = []
    for i, gpu in enumerate(("a100", "h200")):
        doc = export_document(shipped_catalog().gpu(gpu))
        doc["id"] = f"mine-{i}"
        paths += ["--hardware-file", str(tmp_path / f"{i}.json")]
        (tmp_path / f"{i}.json").write_text(document_text(doc))
    assert main.main(["list", "gpus", "--json", *paths]) == 0
    ids = [g["id"] for g in json.loads(capsys.readouterr().out)["gpus"]]
    assert "mine-0" in ids and "mine-1" in ids
    assert main.main(["sweep", "--gpu", "mine-1", "--batches", "1,2", *paths]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 3
    assert main.main(["hardware", "export", "mine-0", *paths]) == 0
    assert json.loads(capsys.readouterr().out)["based_on"] == "mine-0"


def test_editor_fields_convert_units_and_report_problems_per_field():
    doc = _doc()
    fields = {f.key: f for f in editor_fields()}
    bw = fields["memory.hbm.bandwidth_bytes_per_s"]
    assert field_text(doc, bw) == "3350" and bw.unit == "GB/s"
    doc2 = set_field_text(doc, bw, "6700")
    assert doc2["memory"]["hbm"]["bandwidth_bytes_per_s"] == 6.7e12 and doc["memory"]["hbm"]["bandwidth_bytes_per_s"] == 3.35e12
    bad = set_field_text(doc, bw, "fast")
    assert "must be a number" in field_problems(bad)[bw.key]
    assert "greater than 0" in field_problems(set_field_text(doc, bw, "-3"))[bw.key]
    fp8 = fields["compute.peak_flops_per_s.fp4"]
    assert field_text(doc, fp8) == ""           # H100 has no FP4 path: an empty field
    assert set_field_text(doc, fp8, "4000")["compute"]["peak_flops_per_s"]["fp4"] == 4e15
    assert field_problems(doc) == {}


def test_what_ifs_scale_and_say_so():
    doc = _doc()
    flops = apply_what_if(doc, "flops_x2")
    assert all(flops["compute"]["peak_flops_per_s"][k] == 2 * v for k, v in doc["compute"]["peak_flops_per_s"].items())
    twice = apply_what_if(apply_what_if(doc, "links_x2"), "links_x2")
    assert twice["links"]["scale_up"]["bandwidth_bytes_per_s"] == 4 * doc["links"]["scale_up"]["bandwidth_bytes_per_s"]
    assert twice["links"]["scale_up"]["source"].count("what if ×2 link bandwidth") == 2
    assert apply_what_if(doc, "hbm_capacity_x2")["memory"]["hbm"]["capacity_bytes"] == 1.6e11


def test_scenario_files_carry_their_custom_hardware(tmp_path):
    from model.catalog.active import set_default_catalog as use
    from model.files.custom_catalog import add_to_default
    from model.files.scenario_file import load_scenario_with_chapter, save_scenario
    doc = export_document(shipped_catalog().gpu("mi300x"))
    doc["id"] = "my-mi300x"
    add_to_default(hw=hardware_from_document(doc), text=document_text(doc))
    path = tmp_path / "scenario.json"
    save_scenario(path, Scenario(gpu="my-mi300x", model="llama-3.1-70b"), chapter=3)
    saved = json.loads(path.read_text())
    assert saved["custom_entries"][0]["document"]["id"] == "my-mi300x"
    use(None)                                     # "another computer": only the shipped catalogue
    s, chapter = load_scenario_with_chapter(path)
    assert s.gpu == "my-mi300x" and chapter == 3 and default_catalog().is_custom("my-mi300x")
    saved["custom_entries"][0]["document"]["memory"]["hbm"]["bandwidth_bytes_per_s"] = -1
    path.write_text(json.dumps(saved))
    use(None)
    from model.errors import ModelError
    with pytest.raises(ModelError, match="bandwidth_bytes_per_s"):
        load_scenario_with_chapter(path)


def test_the_documented_example_is_a_usable_hardware_file():
    text = (ROOT / "docs" / "custom-hardware.md").read_text()
    block = text.split("```json", 1)[1].split("```", 1)[0]
    hw = hardware_from_document(json.loads(block), "docs example")
    l4 = shipped_catalog().gpu("l4")
    assert hw.hbm_bandwidth_bytes_per_s == 2 * l4.hbm_bandwidth_bytes_per_s
    cat = shipped_catalog().with_hardware(hw)
    fast = estimate(Scenario(gpu=hw.id, model="llama-3.1-8b", precision="fp8"), cat)
    assert fast.decode_floor_ms_per_token == pytest.approx(
        estimate(Scenario(gpu="l4", model="llama-3.1-8b", precision="fp8")).decode_floor_ms_per_token / 2, rel=0.02)


def test_the_window_refuses_a_broken_hardware_file_before_it_opens(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**_doc(), "compute": {**_doc()["compute"], "peak_flops_per_s": {"bf16": 1e30}}}))
    assert main.main(["--hardware-file", str(bad), "--screenshot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert "physically implausible" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.png").exists()


def test_a_saved_hardware_file_keeps_the_umask_and_a_read_only_one_is_refused(tmp_path):
    old = os.umask(0o022)
    try:
        path = tmp_path / "mine.json"
        save_hardware_file(path, _doc())
        assert stat.S_IMODE(path.stat().st_mode) == 0o644           # not mkstemp's 0600
        path.chmod(0o444)
        with pytest.raises(ModelError, match="read-only"):
            save_hardware_file(path, _doc())
    finally:
        os.umask(old)
