"""Save and load a scenario (and optionally the open chapter) as a small JSON file.

    {"memory_wall_scenario": 1, "scenario": {...Scenario fields...}, "chapter": 5,
     "custom_entries": [{"kind": "hardware", "id": …, "name": …, "document": {hardware file}}]}

(custom_entries only when the scenario uses custom hardware or a model from a config.json.)

Loading validates everything and raises ScenarioError with one line on a broken or foreign
file; saving writes a temporary file beside the target and renames it, so a crash never
leaves a half-written file.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from model.errors import ModelError, ScenarioError
from model.scenario import Scenario, resolve

FORMAT_KEY = "memory_wall_scenario"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 1_000_000


def scenario_document(s: Scenario, chapter: int | None = None) -> dict:
    from model.custom_catalog import embed_custom
    doc = embed_custom({FORMAT_KEY: FORMAT_VERSION, "scenario": s.to_dict()}, s.gpu, s.model)
    if chapter is not None:
        doc["chapter"] = int(chapter)
    return doc


def parse_scenario_document(doc, name: str = "scenario") -> tuple[Scenario, int | None]:
    if not isinstance(doc, dict) or FORMAT_KEY not in doc:
        raise ScenarioError(f"{name} is not a Memory Wall scenario file")
    if doc[FORMAT_KEY] != FORMAT_VERSION:
        raise ScenarioError(f"{name} has scenario format {doc[FORMAT_KEY]!r}; this version reads {FORMAT_VERSION}")
    s = Scenario.from_dict(doc.get("scenario", {}))
    try:
        from model.custom_catalog import install_embedded
        install_embedded(doc, name)     # custom hardware/models the file carries (issue 12)
        resolve(s)
    except ModelError as exc:
        raise ScenarioError(f"{name}: {exc}") from None
    chapter = doc.get("chapter")
    if chapter is not None and (not isinstance(chapter, int) or isinstance(chapter, bool) or not 1 <= chapter <= 8):
        raise ScenarioError(f"{name}: chapter must be 1-8, got {chapter!r}")
    return s, chapter


def load_scenario_with_chapter(path: str | os.PathLike) -> tuple[Scenario, int | None]:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise ScenarioError(f"{p.name} is too large to be a scenario file")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"no such scenario file: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"cannot read {p.name}: {exc.__class__.__name__}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{p.name} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    return parse_scenario_document(doc, p.name)


def load_scenario(path: str | os.PathLike) -> Scenario:
    return load_scenario_with_chapter(path)[0]


def save_scenario(path: str | os.PathLike, s: Scenario, chapter: int | None = None) -> None:
    """Atomic write: temp file in the same folder, fsync, rename over the target."""
    p = Path(path)
    text = json.dumps(scenario_document(s, chapter), indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=str(p.parent or "."))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
