"""Speaker notes and the order of the prepared states, for the presenter view.

Each prepared state in assets/lessons.json may carry ``"notes"``: two to four sentences for
the speaker, shown on the laptop and never to the audience. ``speaker_notes(n, i)`` gives
them ("" when a state has none). ``neighbour_state`` walks the prepared states in talk
order (chapter 1 state 0, 1, … then chapter 2 …), the same walk the presenter keys make,
so the speaker view can say what comes next.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Sequence

from model.catalog import ASSETS_DIR, _read_json
from model.errors import AssetError, ModelError


@lru_cache(maxsize=4)
def _notes_table(path: str) -> tuple[tuple[str, ...], ...]:
    """Per chapter (in file order), per prepared state, its notes ("" when absent)."""
    doc = _read_json(Path(path))
    try:
        table = []
        for ch in doc["chapters"]:
            notes = []
            for st in ch["states"]:
                text = st.get("notes", "") if isinstance(st, dict) else ""
                if not isinstance(text, str):
                    raise TypeError(f"chapter {ch.get('number')}: notes must be text, got {type(text).__name__}")
                notes.append(" ".join(text.split()))
            table.append(tuple(notes))
    except (KeyError, TypeError, AttributeError) as exc:
        raise AssetError(f"lessons.json is malformed: {exc}") from None
    return tuple(table)


def speaker_notes(chapter_number: int, state_index: int, path: str | Path | None = None) -> str:
    """The notes for one prepared state ("" when it has none). A chapter or state that does
    not exist raises ModelError with one line."""
    table = _notes_table(str(path or ASSETS_DIR / "lessons.json"))
    if not 1 <= int(chapter_number) <= len(table):
        raise ModelError(f"there is no chapter {chapter_number} (chapters are 1–{len(table)})")
    states = table[int(chapter_number) - 1]
    if not 0 <= int(state_index) < len(states):
        raise ModelError(f"chapter {chapter_number} has no prepared state {state_index} "
                         f"(states are 0–{len(states) - 1})")
    return states[int(state_index)]


def neighbour_state(state_counts: Sequence[int], chapter_number: int, state_index: int,
                    delta: int = 1) -> tuple[int, int] | None:
    """The prepared state ``delta`` steps from (chapter_number, state_index) in talk order,
    crossing chapter boundaries; None past either end. ``state_counts[k]`` is the number of
    prepared states of chapter k + 1."""
    flat = [(n + 1, i) for n, count in enumerate(state_counts) for i in range(count)]
    try:
        here = flat.index((int(chapter_number), int(state_index)))
    except ValueError:
        raise ModelError(f"there is no prepared state {state_index} in chapter {chapter_number}") from None
    k = here + int(delta)
    return flat[k] if 0 <= k < len(flat) else None
