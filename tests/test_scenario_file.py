import json

import pytest

from model import Scenario
from model.errors import ModelError, ScenarioError
from model.files.scenario_file import load_scenario_with_chapter, save_scenario


def test_round_trip(tmp_path):
    s = Scenario(gpu="mi300x-192gb", model="mixtral-8x7b", precision="fp8", batch=32, gpus=2, input_len=512)
    p = tmp_path / "s.json"
    save_scenario(p, s, chapter=6)
    assert load_scenario_with_chapter(p) == (s, 6)
    assert not [f for f in tmp_path.iterdir() if f.name != "s.json"], "temporary file left behind"


@pytest.mark.parametrize("text,needle", [
    ("{ not json", "not valid JSON"),
    ('{"some": "other app"}', "not a Memory Wall scenario"),
    ('[1, 2, 3]', "not a Memory Wall scenario"),
    ('{"memory_wall_scenario": 99, "scenario": {}}', "format 99"),
    ('{"memory_wall_scenario": 1, "scenario": {"gpu": "h100", "batch": -1}}', "batch must be between"),
    ('{"memory_wall_scenario": 1, "scenario": {"gpu": "nope"}}', "unknown GPU"),
    ('{"memory_wall_scenario": 1, "scenario": {"colour": "red"}}', "unknown scenario field"),
    ('{"memory_wall_scenario": 1, "scenario": {}, "chapter": 12}', "chapter must be 1-8"),
    ('{"memory_wall_scenario": true, "scenario": {}}', "format True"),
    ('{"memory_wall_scenario": 1.0, "scenario": {}}', "format 1.0"),
    ('{"memory_wall_scenario": 1}', "holds no scenario"),
    ('{"memory_wall_scenario": 1, "scenario": [1]}', "holds no scenario"),
    ('{"memory_wall_scenario": 1, "scenario": {"batch": ' + "4" * 400 + '}}', "400-digit number"),
    ('{"memory_wall_scenario": 1, "scenario": {"batch": ' + "4" * 5000 + '}}', "5000-digit number"),
    ('{"memory_wall_scenario": 1, "scenario": ' + "[" * 100_000 + "]" * 100_000 + '}', "nested"),
    ('{"memory_wall_scenario": 1, "scenario": {"batch": 1e400}}', "batch must be a whole number"),
])
def test_broken_or_foreign_files_raise_one_line(tmp_path, text, needle):
    p = tmp_path / "x.json"
    p.write_text(text)
    with pytest.raises(ScenarioError, match=needle) as exc:
        load_scenario_with_chapter(p)
    assert "\n" not in str(exc.value)


def test_failed_save_keeps_the_old_file(tmp_path, monkeypatch):
    p = tmp_path / "keep.json"
    save_scenario(p, Scenario(batch=4))
    before = p.read_text()

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(ModelError, match="disk full"):
        save_scenario(p, Scenario(batch=8), overwrite=True)
    assert p.read_text() == before
    assert json.loads(before)["scenario"]["batch"] == 4
    assert [f.name for f in tmp_path.iterdir()] == ["keep.json"]


def test_an_existing_file_is_kept_unless_overwrite_is_asked_for(tmp_path):
    p = tmp_path / "mine.json"
    save_scenario(p, Scenario(batch=4))
    with pytest.raises(ModelError, match="already exists"):
        save_scenario(p, Scenario(batch=8))
    assert load_scenario_with_chapter(p)[0].batch == 4
    save_scenario(p, Scenario(batch=8), overwrite=True)
    assert load_scenario_with_chapter(p)[0].batch == 8
