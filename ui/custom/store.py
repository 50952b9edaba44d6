"""Where the window keeps your own hardware and models: JSON files in the user's data folder.

    <data folder>/hardware/<id>.json   hardware files (docs/custom-hardware.md)
    <data folder>/models/<id>.json     a Hugging Face config.json, plus its name

The data folder is Qt's AppDataLocation (ui/kit/folders.py).

Files are written atomically (model/files/safe_io.py.atomic_write_text) and read with the same
checks as the command line; a broken file is reported, never deleted or overwritten. A folder
that cannot be used (hardware/ or models/ a file, a read-only data folder) is said in one line
(StoreError), and a removal that cannot delete its file changes nothing.
"""
from __future__ import annotations

import json
from pathlib import Path

from model.catalog.parts import Hardware, LLM
from model.files.custom_catalog import MODEL_NAME_KEY, add_to_default, remove_from_default
from model.errors import ModelError
from model.files.hardware_file import document_text, load_hardware_file, read_json_file
from model.files.safe_io import atomic_write_text, clean_stale_temps
from ui.kit import folders

NAME_KEY = MODEL_NAME_KEY          # the display name a user gave an imported config (kept beside it)
last_problems: list[str] = []      # what the last load_saved could not use (the window shows it)


class NoDataFolder(ModelError):
    """There is no usable data folder (no proper $HOME): nothing is saved, in one line."""


class StoreError(ModelError):
    """Your own entries cannot be kept or removed there (a folder that is a file, read-only), in one line."""


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def data_dir() -> Path:
    """The app's data folder (tests point it elsewhere by monkeypatching this function); NoDataFolder
    when there is none worth writing to (ui/kit/folders.py): never the file-system root or the
    current folder by accident."""
    where, why = folders.data_dir()
    if where is None:
        raise NoDataFolder(f"your own hardware and models are not kept: {why}")
    return where


def data_dir_text() -> str:
    """Where entries are saved, or why they are not (one line, for the editor's status)."""
    try:
        return str(data_dir())
    except NoDataFolder as exc:
        return str(exc)


def _folder(kind: str) -> Path:
    return data_dir() / kind


def _usable_folder(kind: str) -> Path:
    """The folder for ``kind``, made if need be; StoreError (one line) when it cannot be."""
    folder = _folder(kind)
    if folder.exists() and not folder.is_dir():
        raise StoreError(f"your own {kind} cannot be kept: {folder} is a file, not a folder (move it away)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"your own {kind} cannot be kept in {folder}: {_reason(exc)}") from None
    return folder


def hardware_path(ident: str) -> Path:
    return _folder("hardware") / f"{ident}.json"


def model_path(ident: str) -> Path:
    return _folder("models") / f"{ident}.json"


def clean_temporaries(extra_folders=()) -> list[str]:
    """Temporary files a killed save left in the app's own folders (data, hardware, models, and
    ``extra_folders``: the settings folder), older than an hour: removed. Nothing else is touched."""
    try:
        folders = [data_dir(), _folder("hardware"), _folder("models")]
    except NoDataFolder:
        folders = []
    return clean_stale_temps([*folders, *extra_folders])


def load_saved() -> list[str]:
    """Add every saved entry to the default catalogue; one line per file that cannot be used."""
    from model.files.hf_config import llm_from_config
    problems: list[str] = []
    try:
        _folder("hardware")
    except NoDataFolder as exc:
        last_problems[:] = [str(exc)]
        return list(last_problems)
    for kind in ("hardware", "models"):
        if _folder(kind).exists() and not _folder(kind).is_dir():
            problems.append(f"your own {kind} cannot be loaded: {_folder(kind)} is a file, not a folder")
    first: dict[tuple[str, str], str] = {}        # (kind, id) → the file it came from: one file per id

    def taken(kind: str, ident: str, path: Path) -> bool:
        if (kind, ident) in first:
            problems.append(f"saved {kind} not loaded: {path.name} has the id '{ident}' of {first[kind, ident]}")
            return True
        first[kind, ident] = path.name
        return False
    for path in sorted(_folder("hardware").glob("*.json")):
        try:
            hw, text = load_hardware_file(path)
            if not taken("hardware", hw.id, path):
                add_to_default(hw=hw, text=text)
        except ModelError as exc:
            problems.append(f"saved hardware not loaded: {exc}")
    for path in sorted(_folder("models").glob("*.json")):
        try:
            cfg = read_json_file(path)
            name = cfg.get(NAME_KEY) if isinstance(cfg, dict) else None
            llm = llm_from_config(cfg, str(name or path.stem), source=f"Hugging Face config.json ({path.name})")
            if not taken("model", llm.id, path):
                add_to_default(llm=llm, text=json.dumps(cfg))
        except ModelError as exc:
            problems.append(f"saved model not loaded: {path.name}: {exc}")
    last_problems[:] = problems
    return problems


def _keep_previous(path: Path, text: str) -> None:
    """Replacing a saved file keeps the old one beside it as <id>.json.previous (never loaded)."""
    if path.is_file():
        try:
            old = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise StoreError(f"{path} cannot be read to keep its old version ({_reason(exc)}); not replaced") from None
        if old != text:
            atomic_write_text(path.with_name(path.name + ".previous"), old, overwrite=True)


def save_hardware(doc: dict, hw: Hardware) -> Path:
    """Write the (checked) hardware file and add it to the catalogue."""
    path = _usable_folder("hardware") / f"{hw.id}.json"
    text = document_text(doc)
    _keep_previous(path, text)
    atomic_write_text(path, text, overwrite=True)         # your own entry, its old version kept beside it
    add_to_default(hw=hw, text=text)
    return path


def save_model(cfg: dict, llm: LLM) -> Path:
    """Keep a copy of the config.json (with its given name) and add the model to the catalogue."""
    path = _usable_folder("models") / f"{llm.id}.json"
    text = json.dumps({**cfg, NAME_KEY: llm.name}, indent=2, ensure_ascii=False) + "\n"
    _keep_previous(path, text)
    atomic_write_text(path, text, overwrite=True)         # your own entry, its old version kept beside it
    add_to_default(llm=llm, text=json.dumps(cfg))
    return path


def delete_files(ident: str, kind: str | None = None) -> None:
    """Delete the saved file of a custom entry of ``kind`` ("hardware" | "model"; None: both);
    StoreError (one line) when it cannot be (a read-only folder): then nothing is deleted twice
    and the entry stays. The catalogue is not touched (``remove`` does both)."""
    try:
        paths = (("hardware", hardware_path(ident)), ("model", model_path(ident)))
    except NoDataFolder:
        return                             # nothing was saved: it only leaves the catalogue
    for k, path in paths:
        if kind in (None, k) and path.is_file():
            try:
                path.unlink()
            except OSError as exc:
                raise StoreError(f"'{ident}' was not removed: {path} cannot be deleted ({_reason(exc)})") from None


def remove(ident: str, kind: str | None = None) -> None:
    """Forget a custom entry of ``kind`` ("hardware" | "model"; None: both): its file goes, and it
    leaves the catalogue (StoreError, nothing changed, when its file cannot go). The other name
    space is not touched."""
    delete_files(ident, kind)
    remove_from_default(ident, kind)
