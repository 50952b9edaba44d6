"""The physical range of every number and the length of every name a user file may hold: one
place, each bound with its reason. model/files/hardware_check.py (hardware files, the editor,
scenario files, ``hardware check``) and model/files/hf_config.py (config.json, the import dialog,
scenario files) read these; the ceilings above are 100× the largest shipped value
(hardware_check.ceilings), so "what if ×2" works six times over while a typo is refused.

    floor(kind)         → (lowest accepted value, why): a value below is refused in one line
    ceiling(kind)       → (highest accepted value, why) of a request rate, a latency target or
                          the span of a load's arrivals (model/serving/setup.py, workload.py,
                          model/planning/space.py, settings.py)
    least(kind)         → (lowest accepted value other than 0 for "none", why) of the same
    check_text(value)   → the reason a name/id/text cannot be used, or None
"""
from __future__ import annotations

import re

# (lowest accepted, reason). Keys are hardware_check's kinds; a level's kinds end in the field name.
FLOORS: dict[str, tuple[float, str]] = {
    "flops": (1e8, "100 MFLOP/s, slower than a 1990s workstation; below it every time divides by ~0"),
    "clock_hz": (1e6, "1 MHz, slower than any processor since the 1970s"),
    "tdp_w": (0.1, "0.1 W, below any accelerator"),
    "stream": (1e8, "100 MB/s, slower than any DRAM since the 1990s"),
    "capacity_bytes": (1024.0, "1 KiB, smaller than any register file or cache"),
    "bandwidth_bytes_per_s": (1e8, "100 MB/s, slower than any memory since the 1990s"),
    "latency_s": (1e-11, "10 ps, a tenth of one clock at 10 GHz"),
    "link.bandwidth_bytes_per_s": (1e6, "1 MB/s, slower than 10 Mbit/s Ethernet"),
    "link.latency_s": (1e-10, "0.1 ns, faster than light across a board"),
}

# (highest accepted, reason): what a request to the serving simulator or the planner may ask for.
CEILINGS: dict[str, tuple[float, str]] = {
    "rate_per_s": (1e6, "a million requests a second, more than any one deployment serves"),
    "target_ms": (1e9, "about 11.6 days, longer than any request waits"),
    "span_s": (1e9, "about 32 years of arrivals; past it a run's clock would lose a step's microseconds"),
}
# (lowest accepted but for 0, "none"): below these a run's numbers are noise. A million requests at
# the slowest rate arrive over 10⁹ s, the span's ceiling; at 10⁻³⁰⁰ they would arrive over 10³⁰⁶ s,
# where a step's milliseconds vanish from the clock (TTFT 0 µs) and the sums overflow.
LEAST: dict[str, tuple[float, str]] = {
    "rate_per_s": (1e-3, "one request every 17 minutes; slower, a run spans years and its clock loses a step's "
                         "microseconds"),
    "target_ms": (1e-3, "a microsecond, shorter than any step"),
}

MAX_NAME_CHARS = 80           # a name fits a menu line and the status line (200 000 characters made the editor 8 GB)
MAX_TEXT_CHARS = 2000         # sources and notes: a paragraph with its links
ID_CHARS = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")      # matched whole (re.fullmatch): a trailing newline fails
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def floor(kind: str) -> tuple[float, str] | None:
    """The floor for a hardware_check kind ("hbm.bandwidth_bytes_per_s", "flops", …), or None."""
    if kind in FLOORS:
        return FLOORS[kind]
    field = kind.rsplit(".", 1)[-1]
    return None if kind.startswith("link.") else FLOORS.get(field)


def ceiling(kind: str) -> tuple[float, str]:
    """(highest accepted value, why) for a CEILINGS kind ("rate_per_s", "target_ms", "span_s")."""
    return CEILINGS[kind]


def least(kind: str) -> tuple[float, str]:
    """(lowest accepted value but 0, why) for a LEAST kind ("rate_per_s", "target_ms")."""
    return LEAST[kind]


def check_amount(label: str, kind: str, value: float, unit: str) -> str | None:
    """Why ``value`` (a positive number of ``kind``: a rate, a target) is out of its range, or None."""
    lo, lo_why = LEAST[kind]
    hi, hi_why = CEILINGS[kind]
    if value < lo:
        return f"{label} must be at least {lo:g} {unit} ({lo_why}), got {value:.3g}"
    if value > hi:
        return f"{label} must be at most {hi:,.0f} {unit} ({hi_why}), got {value:.3g}"
    return None


def check_id(value: object) -> str | None:
    if not isinstance(value, str) or not ID_CHARS.fullmatch(value):
        return "must be lower-case letters, digits, '.', '_' or '-' (at most 64), e.g. 'my-gpu'"
    return None


def check_text(value: object, *, max_chars: int = MAX_NAME_CHARS, required: bool = False) -> str | None:
    """Why ``value`` cannot be a name (or, with a larger ``max_chars``, a source or note)."""
    if value is None and not required:
        return None
    if not isinstance(value, str):
        return "must be text"
    if required and not value.strip():
        return "must be a non-empty text"
    if len(value) > max_chars:
        return f"is {len(value):,} characters long (at most {max_chars})"
    if max_chars <= MAX_NAME_CHARS and _CONTROL.search(value):
        return "must be one line of text (no line breaks or control characters)"
    return None
