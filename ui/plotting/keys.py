"""A chart's key as rich text: each entry a swatch drawn as the plot draws the thing it names,
then the model's words, in its colour.

    key_html([(colour, words, swatch), …], between="&nbsp;&nbsp; ") -> str

SWATCHES: a filled square for a bar or a region, a solid, dashed or dotted stroke for a line, a
dot, a ring or a star for a marker; None for words that carry their own mark ("◆ …").
"""
from __future__ import annotations

import html
from typing import Iterable

SWATCHES = {"square": "&#9632;", "line": "&#9473;&#9473;", "dashed": "&#9549;&#9549;", "dotted": "&#9477;&#9477;",
            "dot": "&#9679;", "ring": "&#9675;", "star": "&#9733;"}


def key_html(entries: Iterable[tuple[str, str, str | None]], between: str = "&nbsp;&nbsp; ") -> str:
    """The entries (colour, words, swatch or None) side by side (``between``: "<br>" stacks them).
    An entry's words are joined by no-break spaces, so a key too wide for one line wraps between
    entries, never inside one ("■ KV" on one line and "cache does not fit" on the next); a hyphen
    is held to the word after it by a word joiner."""
    parts = []
    for colour, words, swatch in entries:
        text = html.escape(words).replace(" ", "&nbsp;").replace("-", "-&#8288;")   # nor at a hyphen ("per-step")
        parts.append(f'<span style="color:{colour}">{SWATCHES[swatch]}</span>&nbsp;{text}' if swatch
                     else f'<span style="color:{colour}">{text}</span>')
    return between.join(parts)
