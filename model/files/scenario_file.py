"""Scenario files: the one reader and the one writer.

    {"memory_wall_scenario": 1, "scenario": {...Scenario fields...}, "chapter": 5,
     "custom_entries": [{"kind": "hardware", "id": …, "name": …, "document": {hardware file}}],
     "serving": {...the Serve setup: load, lengths, knobs, targets (model/serving/setup.py)...},
     "planning": {...the Plan settings: GPUs available, targets, rate, switches (model/planning/settings.py)...}}

(custom_entries only when the scenario uses custom hardware or a model from a config.json;
serving and planning only when given.)

    read_scenario_file(path, sections) → ScenarioFile: the file read once and validated whole —
        the format, the scenario (resolved against the catalogue with the file's own entries),
        the chapter, the custom entries and each section the caller reads (``sections``: name →
        its reader; the serving and planning values live on the floor above, so their readers are
        handed in: ui/state/controller.py gives the window's, cli/ its own). Nothing is applied:
        a refused file (ScenarioError, one line) leaves everything as it was; the caller applies
        a ScenarioFile whole (its catalogue with ``install``), or not at all.
    save_scenario(path, …) → an atomic write (model.files.safe_io).

Reading and writing go through model.files.safe_io (size, depth and integer limits; FIFOs and
devices refused; temp file + rename, the umask kept, read-only targets refused).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping

from model.catalog.active import set_default_catalog
from model.catalog.parts import Catalog
from model.errors import ModelError, ScenarioError
from model.files.custom_catalog import embed_custom, embedded_catalog
from model.files.safe_io import SafeIOError, TargetExistsError, atomic_write_text, read_json
from model.physics.scenario import Scenario, resolve
from model.values import frozen

__all__ = ["ScenarioError", "ScenarioFile", "TargetExistsError", "load_scenario", "load_scenario_with_chapter",
           "read_scenario_document", "read_scenario_file", "save_scenario", "scenario_document"]

FORMAT_KEY = "memory_wall_scenario"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 1_000_000
SECTIONS = ("serving", "planning")
TEXT_FIELDS = ("gpu", "model", "precision", "kv_precision", "interconnect", "phase", "engine")
SectionReader = Callable[[Any], Any]


@frozen(eq=False)
class ScenarioFile:
    """Everything one scenario file holds, validated whole and not yet applied."""

    name: str                       # the file's name, for messages
    scenario: Scenario              # resolved against ``catalog`` (a custom entry renamed if it had to be)
    chapter: int | None
    catalog: Catalog                # the catalogue with the file's custom entries (``install`` makes it the default)
    serving: Any = None             # the "serving" section as its reader made it (None: none in the file)
    planning: Any = None            # the "planning" section likewise

    def install(self) -> None:
        """Make the file's catalogue the process default (its custom entries come in)."""
        set_default_catalog(self.catalog)


def scenario_document(s: Scenario, chapter: int | None = None, serving: dict | None = None,
                      planning: dict | None = None) -> dict:
    doc = embed_custom({FORMAT_KEY: FORMAT_VERSION, "scenario": s.to_dict()}, s.gpu, s.model)
    if chapter is not None:
        doc["chapter"] = int(chapter)
    for key, section in (("serving", serving), ("planning", planning)):
        if section is not None:
            doc[key] = dict(section)
    return doc


def _document(path: str | os.PathLike) -> dict:
    """The file's JSON object (through the safe reader): one read."""
    try:
        doc = read_json(path, max_bytes=MAX_FILE_BYTES, unique_keys=True)
    except SafeIOError as exc:
        raise ScenarioError(str(exc)) from None
    if not isinstance(doc, dict) or FORMAT_KEY not in doc:
        raise ScenarioError(f"{Path(path).name} is not a Memory Wall scenario file")
    return doc


def _scenario(doc: Mapping[str, Any], name: str) -> Scenario:
    version = doc[FORMAT_KEY]
    if not isinstance(version, int) or isinstance(version, bool) or version != FORMAT_VERSION:
        raise ScenarioError(f"{name} has scenario format {version!r}; this version reads {FORMAT_VERSION}")
    raw = doc.get("scenario")
    if not isinstance(raw, dict):
        raise ScenarioError(f"{name} holds no scenario (a \"scenario\" object is missing)")
    for key in TEXT_FIELDS:          # an id as a list or an object: refused here, not a TypeError further on
        if key in raw and not (isinstance(raw[key], str) or (key == "kv_precision" and raw[key] is None)):
            raise ScenarioError(f"{name}: the scenario's {key} must be text, got {type(raw[key]).__name__}")
    try:
        return Scenario.from_dict(raw)
    except (ModelError, TypeError) as exc:
        raise ScenarioError(f"{name}: {' '.join(str(exc).split())}") from None


def _chapter(doc: Mapping[str, Any], name: str) -> int | None:
    chapter = doc.get("chapter")
    if chapter is not None and (not isinstance(chapter, int) or isinstance(chapter, bool) or not 1 <= chapter <= 8):
        raise ScenarioError(f"{name}: chapter must be 1-8, got {chapter!r}")
    return chapter


def _section(doc: Mapping[str, Any], key: str, read: SectionReader, name: str) -> Any:
    raw = doc.get(key)
    if raw is None:
        return None
    try:
        return read(raw)
    except (ModelError, TypeError, ValueError) as exc:
        raise ScenarioError(f"{name}: {key}: {' '.join(str(exc).split())}") from None


def parse_scenario_document(doc: Any, name: str = "scenario",
                            sections: Mapping[str, SectionReader] | None = None) -> ScenarioFile:
    """A scenario file's JSON object, validated whole (ScenarioError, one line); nothing applied."""
    if not isinstance(doc, dict) or FORMAT_KEY not in doc:
        raise ScenarioError(f"{name} is not a Memory Wall scenario file")
    s = _scenario(doc, name)
    chapter = _chapter(doc, name)
    try:       # custom hardware/models the file carries: into a catalogue of its own, not installed
        cat, renames = embedded_catalog(doc, name)
        s = s.with_(gpu=renames.get(("hardware", s.gpu), s.gpu), model=renames.get(("model", s.model), s.model))
        resolve(s, cat)
    except ModelError as exc:
        raise ScenarioError(f"{name}: {' '.join(str(exc).split())}") from None
    unknown = sorted(set(sections or ()) - set(SECTIONS))
    if unknown:
        raise ValueError(f"no scenario-file section '{unknown[0]}' (sections: {', '.join(SECTIONS)})")
    read = {k: _section(doc, k, r, name) for k, r in (sections or {}).items()}
    return ScenarioFile(name, s, chapter, cat, read.get("serving"), read.get("planning"))


def read_scenario_file(path: str | os.PathLike, sections: Mapping[str, SectionReader] | None = None) -> ScenarioFile:
    """The file at ``path``, read once and validated whole (see the module's docstring)."""
    return parse_scenario_document(_document(path), Path(path).name, sections)


def read_scenario_document(path: str | os.PathLike) -> dict:
    """The file's JSON object as it is (through the safe reader); ScenarioError when it is not one.
    (cli/ reads its "serving" object with model.serving.setup.serving_from_document.)"""
    return _document(path)


def load_scenario_with_chapter(path: str | os.PathLike) -> tuple[Scenario, int | None]:
    """(scenario, chapter) of the file, its custom entries installed (the command line's use)."""
    f = read_scenario_file(path)
    f.install()
    return f.scenario, f.chapter


def load_scenario(path: str | os.PathLike) -> Scenario:
    return load_scenario_with_chapter(path)[0]


def save_scenario(path: str | os.PathLike, s: Scenario, chapter: int | None = None, *,
                  overwrite: bool = False, serving: dict | None = None, planning: dict | None = None) -> None:
    """Atomic write (model.files.safe_io). An existing file is kept unless ``overwrite`` (the window
    sets it after its dialog asked); raises SafeIOError / TargetExistsError with one line."""
    text = json.dumps(scenario_document(s, chapter, serving, planning), indent=2) + "\n"
    atomic_write_text(path, text, overwrite=overwrite)

