"""One QPen and one QBrush per look, shared by every view that draws with pyqtgraph.

pyqtgraph's symbol atlas (ScatterPlotItem) keys each pen and brush by object identity and keeps
a rendered picture per key: a fresh but equal pen on every update or theme change adds a picture
(up to 1 000 per item before it rebuilds), and BarGraphItem/PlotDataItem redraw from whatever
pen they are handed. ``pen(...)``/``brush(...)`` return the same object for the same arguments,
so a theme change that keeps a colour keeps its pen, and nothing grows per update. Treat the
returned objects as read-only (they are shared).

    pen("#0072B2", width=2, style=Qt.DashLine)   pen(None) → no pen
    brush("#E69F00")   brush((213, 94, 0, 40))
"""
from __future__ import annotations

from functools import lru_cache

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QPen


@lru_cache(maxsize=256)
def pen(colour, width: float = 1, style: Qt.PenStyle = Qt.SolidLine) -> QPen:
    """A cosmetic pen (pg.mkPen) of ``colour`` (a colour pyqtgraph reads: hex, tuple, None)."""
    return pg.mkPen(colour, width=width, style=style)


@lru_cache(maxsize=256)
def brush(colour) -> QBrush:
    return pg.mkBrush(colour)


def set_marker_style(item: pg.ScatterPlotItem, outline: QPen, fill: QBrush) -> None:
    """Give a scatter's markers these shared objects (kept as they are: no copy, no new picture)."""
    if item.opts["pen"] is outline and item.opts["brush"] is fill:
        return
    item.setPen(outline, update=False)
    item.setBrush(fill)


def set_symbol_style(item: pg.PlotDataItem, symbol_pen: QPen, symbol_brush: QBrush) -> None:
    """Give a PlotDataItem's symbols these shared objects. (Its setSymbolPen/setSymbolBrush copy
    the pen through pg.mkPen, so every theme change would key one more picture in its atlas.)"""
    opts = item.opts
    if opts["symbolPen"] is symbol_pen and opts["symbolBrush"] is symbol_brush:
        return
    opts["symbolPen"], opts["symbolBrush"] = symbol_pen, symbol_brush
    item.updateItems(styleUpdate=True)
