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


# ---------------------------------------------------------------- one reader, the whole file

def _doc(**sections):
    return {"memory_wall_scenario": 1, "scenario": {"batch": 4}, **sections}


def _sections():
    """The window's section readers (ui/state/controller.SECTIONS)."""
    from model.planning.settings import PlanSettings
    from model.serving.knobs import window_setup
    return {"serving": window_setup, "planning": PlanSettings.from_dict}


def test_one_read_gives_everything_in_the_file(tmp_path, monkeypatch):
    from model.files import safe_io
    from model.planning.settings import PlanSettings
    from model.serving.setup import ServingSetup
    import model.files.scenario_file as sf
    setup = ServingSetup(load="concurrency", concurrency=16, requests=300)
    plan = PlanSettings(available="h100:4", ttft_p90_ms=800.0, tpot_p90_ms=None, rate_per_s=3.0, disaggregated=True)
    p = tmp_path / "all.json"
    save_scenario(p, Scenario(batch=4), 3, serving=setup.to_dict(), planning=plan.to_dict())
    reads = []
    real = safe_io.read_json
    monkeypatch.setattr(sf, "read_json", lambda *a, **k: reads.append(a[0]) or real(*a, **k))
    f = sf.read_scenario_file(p, _sections())
    assert len(reads) == 1
    assert (f.scenario, f.chapter, f.serving, f.planning) == (Scenario(batch=4), 3, setup, plan)
    assert f.catalog is not None and f.name == "all.json"


@pytest.mark.parametrize("key", ["gpu", "model", "precision", "engine"])
@pytest.mark.parametrize("value", [["h100"], {"id": "h100"}])
def test_an_id_as_a_list_or_an_object_is_refused_in_one_line(tmp_path, key, value):
    p = tmp_path / "odd.json"
    p.write_text(json.dumps({"memory_wall_scenario": 1, "scenario": {key: value}}))
    with pytest.raises(ScenarioError, match=f"{key} must be text") as exc:
        load_scenario_with_chapter(p)
    assert "\n" not in str(exc.value)


def test_nothing_is_installed_until_the_file_is_applied(tmp_path):
    from model.catalog.active import default_catalog, set_default_catalog
    from model.files.hardware_file import export_document
    from model.catalog.active import shipped_catalog
    from model.files.scenario_file import read_scenario_file
    set_default_catalog(None)
    hw = export_document(shipped_catalog().gpu("h100"))
    hw["id"] = "brought-along"
    doc = _doc(custom_entries=[{"kind": "hardware", "id": "brought-along", "name": "Brought", "document": hw}],
               serving={"requests": -3})
    doc["scenario"]["gpu"] = "brought-along"
    p = tmp_path / "half.json"
    p.write_text(json.dumps(doc))
    before = default_catalog()
    with pytest.raises(ScenarioError, match="half.json: serving: requests"):
        read_scenario_file(p, _sections())
    assert default_catalog() is before            # the entry was checked, never installed
    doc.pop("serving")
    p.write_text(json.dumps(doc))
    f = read_scenario_file(p, _sections())
    assert default_catalog() is before and f.scenario.gpu == "brought-along"
    f.install()
    assert default_catalog().gpu("brought-along")
    set_default_catalog(None)
