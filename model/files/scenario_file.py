"""Save and load a scenario (and optionally the open chapter) as a small JSON file.

    {"memory_wall_scenario": 1, "scenario": {...Scenario fields...}, "chapter": 5,
     "custom_entries": [{"kind": "hardware", "id": …, "name": …, "document": {hardware file}}],
     "serving": {...the Serve page's setup: load, lengths, knobs, targets (model/serving/setup.py)...}}

(custom_entries only when the scenario uses custom hardware or a model from a config.json; serving only
when one was given. This floor keeps "serving" as the object it is: model/serving reads it.)

Reading and writing go through model.files.safe_io (size, depth and integer limits; FIFOs and
devices refused; temp file + rename, the umask kept, read-only targets refused). Loading
validates everything and raises ScenarioError with one line on a broken or foreign file.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from model.errors import ModelError, ScenarioError
from model.catalog.active import set_default_catalog
from model.files.custom_catalog import embed_custom, embedded_catalog
from model.files.safe_io import SafeIOError, TargetExistsError, atomic_write_text, read_json
from model.physics.scenario import Scenario, resolve

__all__ = ["ScenarioError", "TargetExistsError", "load_scenario", "load_scenario_with_chapter",
           "parse_scenario_document", "read_scenario_document", "save_scenario", "scenario_document"]

FORMAT_KEY = "memory_wall_scenario"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 1_000_000


def scenario_document(s: Scenario, chapter: int | None = None, serving: dict | None = None) -> dict:
    doc = embed_custom({FORMAT_KEY: FORMAT_VERSION, "scenario": s.to_dict()}, s.gpu, s.model)
    if chapter is not None:
        doc["chapter"] = int(chapter)
    if serving is not None:
        doc["serving"] = dict(serving)
    return doc


def parse_scenario_document(doc, name: str = "scenario") -> tuple[Scenario, int | None]:
    if not isinstance(doc, dict) or FORMAT_KEY not in doc:
        raise ScenarioError(f"{name} is not a Memory Wall scenario file")
    version = doc[FORMAT_KEY]
    if not isinstance(version, int) or isinstance(version, bool) or version != FORMAT_VERSION:
        raise ScenarioError(f"{name} has scenario format {version!r}; this version reads {FORMAT_VERSION}")
    if not isinstance(doc.get("scenario"), dict):
        raise ScenarioError(f"{name} holds no scenario (a \"scenario\" object is missing)")
    try:
        s = Scenario.from_dict(doc["scenario"])
    except ModelError as exc:
        raise ScenarioError(f"{name}: {exc}") from None
    chapter = doc.get("chapter")
    if chapter is not None and (not isinstance(chapter, int) or isinstance(chapter, bool) or not 1 <= chapter <= 8):
        raise ScenarioError(f"{name}: chapter must be 1-8, got {chapter!r}")
    try:       # custom hardware/models the file carries: installed only once everything is checked
        cat, renames = embedded_catalog(doc, name)
        s = s.with_(gpu=renames.get(("hardware", s.gpu), s.gpu), model=renames.get(("model", s.model), s.model))
        resolve(s, cat)
    except ModelError as exc:
        raise ScenarioError(f"{name}: {exc}") from None
    set_default_catalog(cat)
    return s, chapter


def load_scenario_with_chapter(path: str | os.PathLike) -> tuple[Scenario, int | None]:
    try:
        doc = read_json(path, max_bytes=MAX_FILE_BYTES, unique_keys=True)
    except SafeIOError as exc:
        raise ScenarioError(str(exc)) from None
    return parse_scenario_document(doc, Path(path).name)


def read_scenario_document(path: str | os.PathLike) -> dict:
    """The file's JSON object as it is (through the safe reader); ScenarioError when it is not one."""
    try:
        doc = read_json(path, max_bytes=MAX_FILE_BYTES, unique_keys=True)
    except SafeIOError as exc:
        raise ScenarioError(str(exc)) from None
    if not isinstance(doc, dict) or FORMAT_KEY not in doc:
        raise ScenarioError(f"{Path(path).name} is not a Memory Wall scenario file")
    return doc


def load_scenario(path: str | os.PathLike) -> Scenario:
    return load_scenario_with_chapter(path)[0]


def save_scenario(path: str | os.PathLike, s: Scenario, chapter: int | None = None, *,
                  overwrite: bool = False, serving: dict | None = None) -> None:
    """Atomic write (model.files.safe_io). An existing file is kept unless ``overwrite`` (the window
    sets it after its dialog asked); raises SafeIOError / TargetExistsError with one line."""
    text = json.dumps(scenario_document(s, chapter, serving), indent=2) + "\n"
    atomic_write_text(path, text, overwrite=overwrite)
