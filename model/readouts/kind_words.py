"""What each kind of layer of a model that mixes them holds, in one sentence (model/catalog/layers.py):
the words the chip, the gauges' notes, the memory bar, "Why this number?" and ``main.py estimate`` share.

    "KV for 8 of 48 layers grows with context; 40 keep a 1,024-token window"          (Gemma 3 12B)
    "KV for 12 of 48 layers grows with context; 36 Gated DeltaNet layers keep a fixed 39.5 MB state
     per sequence"                                                                       (Qwen3-Next)
"""
from __future__ import annotations

from model.catalog.layers import LayerKind
from model.readouts.format import si

SINKS = "attention sinks: a learned logit per head, nothing cached"


def holds(x: LayerKind, state_bytes: float) -> str:
    """What one kind keeps, in words (its layer count said by the caller)."""
    if x.kind == "sliding":
        return f"keep a {x.window:,}-token window"
    if x.kind == "chunked":
        return f"attend within {x.window:,}-token chunks"
    if x.kind == "linear":
        return f"{x.label} layers keep a fixed {si(x.state_values * state_bytes, 'B')} state per sequence"
    if x.kind == "sparse":
        return (f"cache a latent and an indexer key per token, which grow with context; each token attends to the "
                f"{x.window:,} keys its indexer picks")
    return "grow with context"


def kinds_sentence(llm) -> str:
    """What each layer kind of ``llm`` holds, one sentence ("" for a model with one kind of layer):
    "KV for 12 of 48 layers grows with context; 36 Gated DeltaNet layers keep a fixed 39.5 MB state
    per sequence" (the state at the model's state type, one sequence, not split)."""
    kinds = llm.shape.kinds
    if not kinds:
        return ""
    total = sum(x.layers for x in kinds)
    growing = [x for x in kinds if x.kind in ("full", "mla")]
    parts = []
    if growing:
        n = sum(x.layers for x in growing)
        what = "the MLA latent" if all(x.kind == "mla" for x in growing) else "KV"
        parts.append(f"{what} for {n} of {total} layers grows with context")
    for x in kinds:
        if x.kind in ("full", "mla"):
            continue
        lead = f"{x.layers}" if parts else (f"All {total} layers" if x.layers == total else f"{x.layers} of {total} layers")
        parts.append(f"{lead} {holds(x, llm.shape.state_bytes_per_value)}")
    text = "; ".join(parts)
    if any(x.sinks for x in kinds):
        text += f" ({SINKS})"
    return text[:1].upper() + text[1:]
