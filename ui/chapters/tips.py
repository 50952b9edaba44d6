"""Hover tooltips per data marker on a chapter's plots (ui.hover's engine), and the text of a
published marker.

Every plot from ChapterView.make_plot() carries ``plot.tips`` (MarkerTips): the chapter registers
each data marker with its own tooltip text in update_view(); hovering within HOVER_PX screen
pixels of a marker shows that marker's text, anywhere else the plot's own setToolTip() text.
"""
from __future__ import annotations

import math

from ui.hover import MarkerTips  # noqa: F401 (the one hover engine; re-exported for the chapters)


def log10(x: float) -> float:
    return math.log10(max(float(x), 1e-300))


HOVER_PX = 10.0      # how near (screen pixels) the mouse must be to a marker for its own tooltip


def measured_tip(row, lines) -> str:
    """A published measurement's hover text: where it comes from, how it was run, then ``lines``
    (measured vs model, with the error)."""
    b = "max (in-flight, not reported)" if row.batch is None else f"{row.batch:,}"
    gpus = f"{row.n_gpus} GPU{'s' if row.n_gpus != 1 else ''}"
    return "\n".join([f"★ Published: {row.model} {row.precision} on {row.n_gpus}× {row.gpu}",
                      f"Source: {row.source}",
                      f"Framework: {row.framework}",
                      f"Conditions: {gpus}, batch {b}, {row.input_len:,} input / {row.output_len:,} output tokens",
                      *lines])


def error_text(err: float) -> str:
    """The model's error against a measurement: predicted ÷ measured − 1."""
    return f"model error {err:+.1%}" if err is not None and math.isfinite(err) else "model error —"
