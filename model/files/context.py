"""How many tokens (prompt and output together) a model was built for: its context length.

    shipped models   assets/models.json's ``context_tokens`` (the config's max_position_embeddings)
    your own         the config.json it was imported from: max_position_embeddings (or n_positions,
                     max_sequence_length, seq_length; a multimodal config's text_config)
None where neither says. The physics does not use it (a longer run is costed as asked); the command
line warns when a scenario asks for more (model/readouts/command_line.context_warning).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Mapping

from model.catalog.parts import Catalog
from model.errors import ModelError
from model.files.assets import ASSETS_DIR, read_asset_json

KEYS = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length")


@lru_cache(maxsize=1)
def _shipped() -> dict[str, int]:
    try:
        doc = read_asset_json(ASSETS_DIR / "models.json")
    except ModelError:
        return {}
    return {m["id"]: int(m["context_tokens"]) for m in doc.get("models", ())
            if isinstance(m, Mapping) and isinstance(m.get("context_tokens"), int) and m["context_tokens"] > 0}


def _from_config(cfg: Any) -> int | None:
    if not isinstance(cfg, Mapping):
        return None
    for key in KEYS:
        v = cfg.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return _from_config(cfg.get("text_config"))


def context_tokens(model_id: str, catalog: Catalog) -> int | None:
    """The context length of catalogue model ``model_id`` (an id, not an alias), or None."""
    text = catalog.custom_document(model_id, "model") if catalog.is_custom(model_id, "model") else ""
    if text:
        try:
            return _from_config(json.loads(text))
        except ValueError:
            return None
    return _shipped().get(model_id)
