"""User entries in the catalogue: hardware files and Hugging Face configs, and the copies a
scenario file carries so it opens on another computer.

    catalog_with_files(["my.json"], ["config.json"])  → the default catalogue + those entries
    install_files(…)                                   → the same, made the process default
    embed_custom(doc, scenario)  /  install_embedded(doc)   → scenario files (see model/files/scenario_file.py)
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Iterable, Mapping

from model.catalog.parts import Catalog, Hardware, LLM
from model.catalog.active import default_catalog, set_default_catalog
from model.files.hardware_file import HardwareFileError, document_text, hardware_from_document, load_hardware_file
from model.files.hf_config import llm_from_config, load_model_config

EMBED_KEY = "custom_entries"
MODEL_NAME_KEY = "memory_wall_name"     # the display name kept beside a saved config.json (ui/custom/store.py)
MAX_NAME_CHARS = 80


def catalog_with_files(hardware_files: Iterable[str] = (), model_configs: Iterable[str] = (),
                       base: Catalog | None = None,
                       model_names: Iterable[str | None] = ()) -> tuple[Catalog, list[Hardware], list[LLM]]:
    """``base`` (default: the current default catalogue) plus every file's entry; ``model_names``:
    a display name for each config in turn (None, or none given: the config's own, hf_config.default_name)."""
    cat = base or default_catalog()
    hws, llms = [], []
    for path in hardware_files or ():
        hw, text = load_hardware_file(path)
        cat = cat.with_hardware(hw, text)
        hws.append(hw)
    names = list(model_names or ())
    for n, path in enumerate(model_configs or ()):
        llm, text = load_model_config(path, names[n] if n < len(names) else None)
        cat = cat.with_model(llm, text)
        llms.append(llm)
    return cat, hws, llms


def install_files(hardware_files: Iterable[str] = (), model_configs: Iterable[str] = (),
                  model_names: Iterable[str | None] = ()) -> tuple[list[Hardware], list[LLM]]:
    """Read the files and make the result the process-wide default catalogue."""
    cat, hws, llms = catalog_with_files(hardware_files, model_configs, model_names=model_names)
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


def remove_from_default(ident: str, kind: str | None = None) -> Catalog:
    cat = default_catalog().without_custom(ident, kind)
    set_default_catalog(cat)
    return cat


# ---------------------------------------------------------------- scenario files

def embed_custom(doc: dict[str, Any], gpu: str, model: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """Add to a scenario document the custom hardware/model it uses (their JSON), if any."""
    cat = catalog or default_catalog()
    entries = []
    for kind, ident in (("hardware", gpu), ("model", model)):
        if cat.is_custom(ident, kind):
            name = (cat.gpu(ident) if kind == "hardware" else cat.model(ident)).name
            entries.append({"kind": kind, "id": ident, "name": name,
                            "document": json.loads(cat.custom_document(ident, kind) or "null")})
    if entries:
        doc[EMBED_KEY] = entries
    return doc


def _same_document(a: Any, b: Any) -> bool:
    """Two entry documents with the same numbers (the name a config was given is kept apart)."""
    def plain(d: Any) -> Any:
        return {k: v for k, v in d.items() if k != MODEL_NAME_KEY} if isinstance(d, Mapping) else d
    return json.dumps(plain(a), sort_keys=True) == json.dumps(plain(b), sort_keys=True)


def _free_id(cat: Catalog, ident: str, kind: str) -> str:
    """``ident-2``, ``ident-3``, … : the first id no entry of ``kind`` has (shipped or yours)."""
    taken = {i for g in cat.gpus for i in (g.id, *g.aliases)} if kind == "hardware" else \
            {i for m in cat.models for i in (m.id, *m.aliases)}
    n = 2
    while f"{ident[:60]}-{n}" in taken:
        n += 1
    return f"{ident[:60]}-{n}"


def _incoming_id(cat: Catalog, ident: str, kind: str, body: Any) -> str:
    """The id an entry of ``kind`` coming from a file gets: its own where that is free or the same
    entry of yours; the ``ident-N`` of yours it equals (the same file again); else a free
    ``ident-N`` (your own entry is never replaced)."""
    def same(candidate: str) -> bool:
        doc = {**body, "id": candidate} if kind == "hardware" and isinstance(body, Mapping) else body
        return _same_document(json.loads(cat.custom_document(candidate, kind) or "null"), doc)
    if not cat.is_custom(ident, kind) or same(ident):
        return ident
    n = 2
    while cat.is_custom(candidate := f"{ident[:60]}-{n}", kind):
        if same(candidate):
            return candidate
        n += 1
    return _free_id(cat, ident, kind)


def beside_yours(doc: Mapping[str, Any], hw: Hardware, name: str = "hardware file",
                 catalog: Catalog | None = None) -> tuple[dict[str, Any], Hardware]:
    """A hardware file opened on its own, made safe to install (``_incoming_id``)."""
    final = _incoming_id(catalog or default_catalog(), hw.id, "hardware", doc)
    if final == hw.id:
        return dict(doc), hw
    body = {**doc, "id": final}
    return body, hardware_from_document(body, name)


def embedded_catalog(doc: Mapping[str, Any], name: str = "scenario",
                     base: Catalog | None = None) -> tuple[Catalog, dict[tuple[str, str], str]]:
    """``base`` plus the custom entries a scenario document carries (each checked like any file),
    and the ids that had to change: {(kind, id in the file): id in the catalogue}. Nothing is
    installed here. An entry whose id is already one of yours with other numbers is renamed
    (``id-2``): your own entry is never replaced. Two entries of one kind with one id: refused."""
    cat = base or default_catalog()
    entries = doc.get(EMBED_KEY) if isinstance(doc, Mapping) else None
    renames: dict[tuple[str, str], str] = {}
    if entries is None:
        return cat, renames
    if not isinstance(entries, list) or len(entries) > 8:
        raise HardwareFileError(f"{name}: {EMBED_KEY} must be a list of at most 8 entries")
    seen: set[tuple[str, str]] = set()
    for entry in entries:
        if not isinstance(entry, Mapping) or entry.get("kind") not in ("hardware", "model"):
            raise HardwareFileError(f"{name}: each of {EMBED_KEY} needs kind 'hardware' or 'model'")
        kind, body = entry["kind"], entry.get("document")
        if kind == "hardware":
            item = hardware_from_document(body, f"{name} (its hardware)")
        else:
            try:
                item = llm_from_config(body, str(entry.get("name") or "model")[:MAX_NAME_CHARS],
                                       source=f"carried by {name}")
            except HardwareFileError as exc:
                raise HardwareFileError(f"{name} (its model): {exc}") from None
        ident = entry.get("id") if isinstance(entry.get("id"), str) else item.id
        if (kind, ident) in seen or (kind, item.id) in seen:
            raise HardwareFileError(f"{name}: {EMBED_KEY} holds two {kind} entries with the id '{item.id}'")
        seen |= {(kind, ident), (kind, item.id)}
        final = _incoming_id(cat, item.id, kind, body)        # yours stays as it is
        if final != item.id:
            if kind == "hardware":
                body = {**body, "id": final}
                item = hardware_from_document(body, f"{name} (its hardware)")
            else:
                item = replace(item, id=final)
        cat = cat.with_hardware(item, document_text(body)) if kind == "hardware" else cat.with_model(item, document_text(body))
        if final != ident:
            renames[(kind, ident)] = final
    return cat, renames


def install_embedded(doc: Mapping[str, Any], name: str = "scenario") -> dict[tuple[str, str], str]:
    """embedded_catalog made the process default; the renamed ids."""
    cat, renames = embedded_catalog(doc, name)
    set_default_catalog(cat)
    return renames
