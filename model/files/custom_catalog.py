"""User entries in the catalogue: hardware files and Hugging Face configs, and the copies a
scenario file carries so it opens on another computer.

    catalog_with_files(["my.json"], ["config.json"])  → the default catalogue + those entries
    install_files(…)                                   → the same, made the process default
    embed_custom(doc, scenario)  /  install_embedded(doc)   → scenario files (see model/files/scenario_file.py)
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from model.catalog.parts import Catalog, Hardware, LLM
from model.catalog.active import default_catalog, set_default_catalog
from model.files.hardware_file import HardwareFileError, document_text, hardware_from_document, load_hardware_file
from model.files.hf_config import llm_from_config, load_model_config

EMBED_KEY = "custom_entries"


def catalog_with_files(hardware_files: Iterable[str] = (), model_configs: Iterable[str] = (),
                       base: Catalog | None = None) -> tuple[Catalog, list[Hardware], list[LLM]]:
    """``base`` (default: the current default catalogue) plus every file's entry."""
    cat = base or default_catalog()
    hws, llms = [], []
    for path in hardware_files or ():
        hw, text = load_hardware_file(path)
        cat = cat.with_hardware(hw, text)
        hws.append(hw)
    for path in model_configs or ():
        llm, text = load_model_config(path)
        cat = cat.with_model(llm, text)
        llms.append(llm)
    return cat, hws, llms


def install_files(hardware_files: Iterable[str] = (), model_configs: Iterable[str] = ()) -> tuple[list[Hardware], list[LLM]]:
    """Read the files and make the result the process-wide default catalogue."""
    cat, hws, llms = catalog_with_files(hardware_files, model_configs)
    set_default_catalog(cat)
    return hws, llms


def add_to_default(hw: Hardware | None = None, llm: LLM | None = None, text: str = "") -> Catalog:
    cat = default_catalog()
    if hw is not None:
        cat = cat.with_hardware(hw, text)
    if llm is not None:
        cat = cat.with_model(llm, text)
    set_default_catalog(cat)
    return cat


def remove_from_default(ident: str) -> Catalog:
    cat = default_catalog().without_custom(ident)
    set_default_catalog(cat)
    return cat


# ---------------------------------------------------------------- scenario files

def embed_custom(doc: dict[str, Any], gpu: str, model: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """Add to a scenario document the custom hardware/model it uses (their JSON), if any."""
    cat = catalog or default_catalog()
    entries = []
    for kind, ident in (("hardware", gpu), ("model", model)):
        if cat.is_custom(ident):
            name = (cat.gpu(ident) if kind == "hardware" else cat.model(ident)).name
            entries.append({"kind": kind, "id": ident, "name": name,
                            "document": json.loads(cat.custom_document(ident) or "null")})
    if entries:
        doc[EMBED_KEY] = entries
    return doc


def install_embedded(doc: Mapping[str, Any], name: str = "scenario") -> None:
    """Install the custom entries a scenario document carries (checked like any file)."""
    entries = doc.get(EMBED_KEY) if isinstance(doc, Mapping) else None
    if entries is None:
        return
    if not isinstance(entries, list) or len(entries) > 8:
        raise HardwareFileError(f"{name}: {EMBED_KEY} must be a list of at most 8 entries")
    cat = default_catalog()
    for entry in entries:
        if not isinstance(entry, Mapping) or entry.get("kind") not in ("hardware", "model"):
            raise HardwareFileError(f"{name}: each of {EMBED_KEY} needs kind 'hardware' or 'model'")
        body = entry.get("document")
        if entry["kind"] == "hardware":
            hw = hardware_from_document(body, f"{name} (its hardware)")
            cat = cat.with_hardware(hw, document_text(body))
        else:
            try:
                llm = llm_from_config(body, str(entry.get("name") or "model"), source=f"carried by {name}")
            except HardwareFileError as exc:
                raise HardwareFileError(f"{name} (its model): {exc}") from None
            cat = cat.with_model(llm, document_text(body))
    set_default_catalog(cat)
