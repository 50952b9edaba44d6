"""Issue 27, item 7: hostile files through the real command line and the window's loaders.

Every case is a hardware file, a model config.json or a scenario file made hostile one way
(truncated, wrong types, NaN/Infinity, negative, tiny, huge, deeply nested, BOM, binary, a
folder, a FIFO, duplicate keys, duplicate or conflicting ids, names too long or with line
breaks). Each goes through ``main.main`` (``hardware check``, ``estimate --hardware-file`` /
``--model-config``, ``main.py FILE``) and through the window (open a scenario, drop a hardware
file, the model import dialog, the saved entries loaded at start). A case passes when the file is
used (the few valid ones) or refused with exit 2 and exactly one line — no exception, no
traceback, no Qt warning, no hang, and nothing of yours replaced.
"""
from __future__ import annotations

import json
import os
import pathlib

import pytest

import main
from model import Scenario
from model.catalog.active import default_catalog, set_default_catalog, shipped_catalog
from model.files.hardware_file import export_document, hardware_from_document
from qt_events import deliver
from ui.custom import store as custom_store

CONFIGS = pathlib.Path(__file__).resolve().parent / "data" / "hf_configs"
KINDS = ("hardware", "model", "scenario")
NUMBER = {"hardware": ("compute", "peak_flops_per_s", "bf16"), "model": ("hidden_size",), "scenario": ("scenario", "batch")}
NAME = {"hardware": ("name",), "model": None, "scenario": None}
ID = {"hardware": ("id",), "model": None, "scenario": None}    # a scenario names a GPU as the lists do (trimmed)
MARK = "__HOSTILE__"


def _hardware_doc(ident: str = "their-gpu", bw: float | None = None) -> dict:
    doc = export_document(shipped_catalog().gpu("h100"))
    doc.update(id=ident, name="Their H100")
    if bw is not None:
        doc["memory"]["hbm"]["bandwidth_bytes_per_s"] = bw
    return doc


def base(kind: str) -> dict:
    if kind == "hardware":
        return _hardware_doc()
    if kind == "model":
        return json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    return {"memory_wall_scenario": 1, "scenario": Scenario(gpu="their-gpu").to_dict(), "chapter": 2,
            "custom_entries": [{"kind": "hardware", "id": "their-gpu", "name": "Their H100",
                                "document": _hardware_doc()}]}


def _set(doc: dict, path, value) -> dict:
    sec = doc
    for k in path[:-1]:
        sec = sec[k]
    sec[path[-1]] = value
    return doc


def _with_literal(kind: str, literal: str) -> str:
    """The base document as text with its key number replaced by ``literal`` (NaN, 1e999, …)."""
    return json.dumps(_set(base(kind), NUMBER[kind], MARK)).replace(f'"{MARK}"', literal)


def _text(kind: str) -> str:
    return json.dumps(base(kind), indent=1)


# case → (how to make it, kinds it applies to, whether the file is usable)
CASES = {
    "valid": (lambda k: _text(k), KINDS, True),
    "bom_utf8": (lambda k: "\ufeff" + _text(k), KINDS, True),
    "html_name": (lambda k: json.dumps(_set(base(k), NAME[k], "<b>Their</b> <img src=x>")), ("hardware",), True),
    "truncated": (lambda k: _text(k)[: len(_text(k)) // 2], KINDS, False),
    "empty": (lambda k: "", KINDS, False),
    "whitespace": (lambda k: " \n\t ", KINDS, False),
    "null": (lambda k: "null", KINDS, False),
    "list": (lambda k: "[1, 2, 3]", KINDS, False),
    "string_number": (lambda k: json.dumps(_set(base(k), NUMBER[k], "many")), KINDS, False),
    "object_number": (lambda k: json.dumps(_set(base(k), NUMBER[k], {"value": 1})), KINDS, False),
    "bool_number": (lambda k: json.dumps(_set(base(k), NUMBER[k], True)), KINDS, False),
    "nan": (lambda k: _with_literal(k, "NaN"), KINDS, False),
    "infinity": (lambda k: _with_literal(k, "-Infinity"), KINDS, False),
    "overflow_float": (lambda k: _with_literal(k, "1e999"), KINDS, False),
    "negative": (lambda k: _with_literal(k, "-1"), KINDS, False),
    "zero": (lambda k: _with_literal(k, "0"), KINDS, False),
    "tiny": (lambda k: _with_literal(k, "1e-300"), KINDS, False),
    "fraction": (lambda k: _with_literal(k, "0.5"), KINDS, False),
    "huge_float": (lambda k: _with_literal(k, "1e308"), KINDS, False),
    "huge_int": (lambda k: _with_literal(k, "1" + "0" * 29), KINDS, False),
    "long_int": (lambda k: _with_literal(k, "9" * 400), KINDS, False),
    "deep": (lambda k: "[" * 100_000 + "]" * 100_000, KINDS, False),
    "deep_value": (lambda k: _with_literal(k, "[" * 80 + "1" + "]" * 80), KINDS, False),
    "duplicate_key": (lambda k: _text(k)[:-1].rstrip() + ', "' + NUMBER[k][0] + '": 1}', KINDS, False),
    "long_name": (lambda k: json.dumps(_set(base(k), NAME[k], "x" * 200_000)), ("hardware",), False),
    "name_newline": (lambda k: json.dumps(_set(base(k), NAME[k], "Their\nH100")), ("hardware",), False),
    "id_newline": (lambda k: json.dumps(_set(base(k), ID[k], "their-gpu\n")), ("hardware",), False),
    "embedded_flops_tiny": (lambda k: json.dumps(_set(base(k), ("custom_entries", 0, "document", "compute",
                                                                  "peak_flops_per_s", "bf16"), 1e-300)),
                            ("scenario",), False),
    "embedded_twice": (lambda k: json.dumps(_set(base(k), ("custom_entries",),
                                                 base(k)["custom_entries"] * 2)), ("scenario",), False),
    "embedded_heads": (lambda k: json.dumps({**base(k), "scenario": {**base(k)["scenario"], "model": "m"},
                                             "custom_entries": [{"kind": "model", "id": "m", "name": "m", "document":
                                                                 {**base("model"), "hidden_size": 16}}]}),
                       ("scenario",), False),
    "model_heads_over_hidden": (lambda k: json.dumps({**base(k), "hidden_size": 16}), ("model",), False),
    "model_heads_not_dividing": (lambda k: json.dumps({**base(k), "hidden_size": 4100}), ("model",), False),
    "model_kv_not_dividing": (lambda k: json.dumps({**base(k), "num_key_value_heads": 5}), ("model",), False),
    "utf16": (lambda k: _text(k).encode("utf-16"), KINDS, False),
    "latin1": (lambda k: '{"name": "caf\xe9"}'.encode("latin-1"), KINDS, False),
    "binary": (lambda k: bytes(range(256)) * 16, KINDS, False),
    "png": (lambda k: b"\x89PNG\r\n\x1a\n" + b"\0" * 64, KINDS, False),
    "too_large": (lambda k: " " * 1_100_000 + _text(k), KINDS, False),
    "folder": (None, KINDS, False),
    "fifo": (None, KINDS, False),
    "missing": (None, KINDS, False),
}
PARAMS = [pytest.param(kind, case, id=f"{kind}-{case}") for case, (_, kinds, _) in CASES.items() for kind in kinds]


def make(tmp_path: pathlib.Path, kind: str, case: str, name: str = "") -> str:
    """The hostile file (or folder, FIFO, missing path) for ``kind`` and ``case``."""
    maker = CASES[case][0]
    path = tmp_path / (name or f"{kind}-{case}.json")
    if case == "folder":
        path.mkdir()
    elif case == "fifo":
        os.mkfifo(path)
    elif case == "missing":
        pass
    else:
        data = maker(kind)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


def _one_line(text: str) -> str:
    text = text.strip()
    assert text and "\n" not in text and "Traceback" not in text, repr(text[:500])
    return text


@pytest.fixture(autouse=True)
def data_dir(own_data_dir):
    return own_data_dir


# ---------------------------------------------------------------- the command line

def _cli(kind: str, path: str, monkeypatch) -> list[list[str]]:
    if kind == "hardware":
        return [["hardware", "check", path], ["estimate", "--hardware-file", path, "--gpu", "their-gpu"]]
    if kind == "model":
        return [["estimate", "--model-config", path]]
    import ui.shell.app
    monkeypatch.setattr(ui.shell.app, "run", lambda *a, **k: 0)      # the file is read; no window opens
    return [[path]]


@pytest.mark.parametrize("kind,case", PARAMS)
def test_the_command_line_uses_or_refuses_in_one_line(tmp_path, capsys, monkeypatch, kind, case):
    path = make(tmp_path, kind, case)
    for argv in _cli(kind, path, monkeypatch):
        set_default_catalog(None)
        rc = main.main(argv)
        out, err = capsys.readouterr()
        if CASES[case][2]:
            assert rc == 0, (argv, err)
        else:
            assert rc == 2, (argv, rc, out[-300:], err[-300:])
            _one_line(err)


# ---------------------------------------------------------------- the window

def _window_load(w, kind: str, path: str) -> bool:
    """Through the window's own loader for ``kind``; True when it was used."""
    if kind == "scenario":
        return w.open_scenario(path)
    if kind == "hardware":
        return w.custom_actions.open_hardware(path)
    from ui.custom.model_import import ModelImportDialog
    dialog = ModelImportDialog(path, w)
    try:
        used = dialog.add_button.isEnabled()
        if not used:
            _one_line(dialog.status.text())
        return used and dialog.add()
    finally:
        dialog.close()
        dialog.deleteLater()


def _status(w, kind: str) -> str:
    return w.file_status if kind == "scenario" else w.custom_actions.status.text()


@pytest.mark.parametrize("kind,case", PARAMS)
def test_the_window_uses_or_refuses_in_one_line(shared_window, tmp_path, kind, case):
    w = shared_window
    mine = _hardware_doc("their-gpu", bw=1.234e12)           # your own entry with the id the files use
    custom_store.save_hardware(mine, hardware_from_document(mine))
    mine_file = custom_store.hardware_path("their-gpu")
    mine_text = mine_file.read_text()
    w.controller.set_scenario(Scenario(batch=3))
    w.controller.flush()
    before = w.controller.scenario
    path = make(tmp_path, kind, case)
    used = _window_load(w, kind, path)
    w.controller.flush()
    deliver()
    if kind == "hardware" and used:                            # a file with your id comes in beside yours
        assert w.controller.scenario.gpu != "their-gpu" and custom_store.hardware_path(w.controller.scenario.gpu).is_file()
    assert mine_file.read_text() == mine_text, "your own hardware file changed"
    yours = default_catalog().gpu("their-gpu")
    assert yours.hbm_bandwidth_bytes_per_s == 1.234e12, "your entry was replaced"
    if CASES[case][2]:
        assert used, _status(w, kind)
    else:
        assert not used
        _one_line(_status(w, kind))
        assert w.controller.scenario == before and w.controller.problem == ""


@pytest.mark.parametrize("kind,case", [p for p in PARAMS if p.values[0] in ("hardware", "model")])
def test_saved_entries_at_start_load_or_are_named_in_one_line(tmp_path, data_dir, kind, case):
    folder = data_dir / ("hardware" if kind == "hardware" else "models")
    folder.mkdir(parents=True)
    make(folder, kind, case, name="entry.json")
    problems = custom_store.load_saved()
    if CASES[case][2]:
        assert problems == []
    else:
        if case == "missing":
            assert problems == []
        else:
            assert len(problems) == 1 and _one_line(problems[0])
    assert (folder / "entry.json").exists() == (case != "missing")      # never deleted
