"""Speaker notes and the order of the prepared states, for the presenter view.

Each prepared state in assets/lessons.json may carry ``"notes"``: two to four sentences for
the speaker, shown on the laptop and never to the audience. Like the caption, the notes are a
template whose {names} are the state's model numbers; ``speaker_notes(n, i)`` gives them
filled ("" when a state has none). ``neighbour_state`` walks the prepared states in talk
order (chapter 1 state 0, 1, … then chapter 2 …), the same walk the presenter keys make,
so the speaker view can say what comes next.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from model.errors import ModelError
from model.physics.estimate import estimate
from model.lessons.facts import Facts, KeyNumber
from model.lessons.deck import chapter_facts
from model.lessons.chapters import default_chapters, load_chapters


def _chapters(path: str | Path | None):
    return default_chapters() if path is None else load_chapters(Path(path))


def _state(chapter_number: int, state_index: int, path: str | Path | None = None):
    chapters = _chapters(path)
    if not 1 <= int(chapter_number) <= len(chapters):
        raise ModelError(f"there is no chapter {chapter_number} (chapters are 1–{len(chapters)})")
    ch = chapters[int(chapter_number) - 1]
    if not 0 <= int(state_index) < len(ch.states):
        raise ModelError(f"chapter {chapter_number} has no prepared state {state_index} "
                         f"(states are 0–{len(ch.states) - 1})")
    return ch, ch.states[int(state_index)]


def speaker_notes(chapter_number: int, state_index: int, path: str | Path | None = None) -> str:
    """The notes for one prepared state ("" when it has none). A chapter or state that does
    not exist raises ModelError with one line."""
    ch, st = _state(chapter_number, state_index, path)
    return " ".join(_facts(ch, st).fill(st.notes, missing="…").split())


def _facts(ch, st) -> Facts:
    """The numbers of one prepared state (its claim's and its notes' {names})."""
    try:
        return chapter_facts(ch.number, estimate(st.scenario), dict(st.params))
    except ModelError:                       # a state the model cannot run: its words, numbers as …
        return Facts(KeyNumber("", ""))


def state_claim(chapter_number: int, state_index: int, path: str | Path | None = None) -> str:
    """A prepared state's claim as the audience will read it: its caption template filled
    with the model's numbers for that state (model.lessons.deck.chapter_facts)."""
    ch, st = _state(chapter_number, state_index, path)
    return _facts(ch, st).fill(st.caption, missing="…")


def state_takeaway(chapter_number: int, state_index: int, path: str | Path | None = None) -> str:
    """A prepared state's caption (under the chart), filled like its claim."""
    ch, st = _state(chapter_number, state_index, path)
    return _facts(ch, st).fill(st.takeaway or ch.takeaway, missing="…")


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
