"""Tables and lines that fit a width: the command line's tables in a terminal (100 columns unless
the terminal is narrower; ``--wide``: ``width=None``, every row on one line as it always was).

    table_lines(rows, width, wrap=(…))   rows[0] the header; a column in ``wrap`` (names, labels)
                                         wraps at spaces, a header at its words; numbers never wrap;
                                         when the names cannot get a sensible width beside the
                                         numbers, each row's names go on a line of their own above them
    pairs_lines(rows, width)             "name  value" rows; a value wraps at its " · " first
    wrap_line(text, width, indent)       one sentence over as many lines as it needs

Nothing is ever cut inside a word: a word longer than its column keeps its length (the line is
then wider than asked, the only way it can be).
"""
from __future__ import annotations

import textwrap

SEP = "  "
MIN_NAME = 16           # below this a name column is a ribbon of words: names go on their own line


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width``, broken only at spaces (an id keeps its hyphens)."""
    if len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [""]


def _longest_word(text: str) -> int:
    return max((len(w) for w in text.split()), default=0)


def wrap_line(text: str, width: int | None, indent: str = "", subsequent: str | None = None) -> list[str]:
    """One line of prose as lines of at most ``width`` (``None``: as it is), later lines indented
    by ``subsequent`` (default: ``indent`` and two spaces)."""
    if width is None or len(indent) + len(text) <= width:
        return [indent + text]
    rest = indent + "  " if subsequent is None else subsequent
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [indent]


def _widths(rows: list[tuple[str, ...]], wrap: tuple[int, ...], width: int, fixed_width: int) -> list[int] | None:
    """Column widths that fit ``width`` with the wrapping columns at least MIN_NAME (or their
    longest word) wide, or None when they cannot."""
    n = len(rows[0])
    natural = [max(len(r[c]) for r in rows) for c in range(n)]
    room = width - fixed_width
    want = [natural[c] for c in wrap]
    least = [min(natural[c], max(MIN_NAME, max(_longest_word(r[c]) for r in rows))) for c in wrap]
    if room < sum(least):
        return None
    got = list(least)
    spare = room - sum(least)
    while spare > 0 and any(g < w for g, w in zip(got, want)):    # share what is left, widest need first
        i = max(range(len(got)), key=lambda k: want[k] - got[k])
        step = min(spare, want[i] - got[i], max(1, spare // len(got)))
        got[i] += step
        spare -= step
    out = list(natural)
    for c, g in zip(wrap, got):
        out[c] = g
    return out


def _fixed(rows: list[tuple[str, ...]], columns: list[int]) -> dict[int, int]:
    """Widths of the columns that do not wrap: their longest value, or their header's longest word."""
    return {c: max(max(len(r[c]) for r in rows[1:]) if len(rows) > 1 else 0, _longest_word(rows[0][c]))
            for c in columns}


def _render(rows: list[tuple[str, ...]], widths: list[int], left: set[int], indent: str, sep: str) -> list[str]:
    out = []
    for r in rows:
        cells = [_wrap(v, w) for v, w in zip(r, widths)]
        for k in range(max(len(c) for c in cells)):
            parts = [(c[k] if k < len(c) else "") for c in cells]
            out.append((indent + sep.join(p.ljust(w) if i in left else p.rjust(w)
                                          for i, (p, w) in enumerate(zip(parts, widths)))).rstrip())
    return out


def table_lines(rows: list[tuple[str, ...]], width: int | None, wrap: tuple[int, ...] = (0,),
                left: tuple[int, ...] = (0,), indent: str = "") -> list[str]:
    """``rows`` (the first is the header) as aligned lines: ``left`` columns to the left, the rest to
    the right; at most ``width`` wide where the words allow (``None``: one line per row)."""
    if not rows:
        return []
    n = len(rows[0])
    left_set = set(left) | set(wrap)
    natural = [max(len(r[c]) for r in rows) for c in range(n)]
    if width is None or len(indent) + sum(natural) + len(SEP) * (n - 1) <= width:
        return _render(rows, natural, left_set, indent, SEP)
    rest = [c for c in range(n) if c not in wrap]
    for sep in (SEP, " "):
        fixed = _fixed(rows, rest)
        widths = _widths(rows, wrap, width, len(indent) + sum(fixed.values()) + len(sep) * (n - 1))
        if widths is not None:
            for c, w in fixed.items():
                widths[c] = w
            head = tuple(_wrap(h, w) for h, w in zip(rows[0], widths))
            return _render_header(head, widths, left_set, indent, sep) + _render(rows[1:], widths, left_set, indent, sep)
    return _stacked(rows, wrap, rest, left_set, width, indent)


def _render_header(cells: tuple[list[str], ...], widths: list[int], left: set[int], indent: str, sep: str) -> list[str]:
    """A header whose cells wrapped: its words bottom-aligned over their columns."""
    height = max(len(c) for c in cells)
    padded = [[""] * (height - len(c)) + c for c in cells]
    return [(indent + sep.join(p[k].ljust(w) if i in left else p[k].rjust(w)
                               for i, (p, w) in enumerate(zip(padded, widths)))).rstrip() for k in range(height)]


def _stacked(rows: list[tuple[str, ...]], wrap: tuple[int, ...], rest: list[int], left: set[int], width: int,
             indent: str) -> list[str]:
    """Each row's other columns on one line, its names (joined by " · ", wrapped) under them."""
    sub = [tuple(r[c] for c in rest) for r in rows]
    sub_left = {i for i, c in enumerate(rest) if c in left}
    fixed = _fixed(sub, list(range(len(rest))))
    widths = [fixed[i] for i in range(len(rest))]
    sep = SEP if len(indent) + sum(widths) + len(SEP) * (len(rest) - 1) <= width else " "
    heads = tuple(_wrap(h, w) for h, w in zip(sub[0], widths))
    under = indent + "    "

    def names(r: tuple[str, ...]) -> list[str]:
        return wrap_line(" · ".join(r[c] for c in wrap if r[c]), width, under, under)
    out = _render_header(heads, widths, sub_left, indent, sep) + names(rows[0])
    for r, s in zip(rows[1:], sub[1:]):
        out += _render([s], widths, sub_left, indent, sep) + names(r)
    return out


def pairs_lines(rows: list[tuple[str, str]], width: int | None, gap: str = "  ") -> list[str]:
    """``name  value`` rows with the names in a column; a value too long for ``width`` goes on over
    the next lines under itself, broken at its " · " first, then at spaces."""
    key_w = max((len(k) for k, _ in rows), default=0)
    out = []
    for k, v in rows:
        lead = f"{k:<{key_w}}{gap}"
        if width is None or len(lead) + len(v) <= width:
            out.append(f"{lead}{v}".rstrip() if not v else f"{lead}{v}")
            continue
        room = max(20, width - len(lead))
        lines: list[str] = []
        for item in v.split(" · "):
            if lines and len(lines[-1]) + 3 + len(item) <= room:
                lines[-1] += " · " + item
            else:
                lines.extend(_wrap(item, room))
        out.extend((lead if i == 0 else " " * len(lead)) + line for i, line in enumerate(lines))
    return out
