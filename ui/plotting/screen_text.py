"""Every text a widget tree shows, for tests and for accessibility checks.

    shown_texts(root) -> [Shown(where, kind, text, label)]

kinds: "label" (a QLabel's text, rich text made plain), "tooltip" (a widget's toolTip),
"plot" (a visible pyqtgraph TextItem), "hover" (a plot's per-item hover texts, ui.plotting.hover),
"painted" (what a custom-painted widget draws: it offers ``shown_texts() -> list[str]``) and
"pair" (a number and the label written beside it: the widget offers
``labelled_pairs() -> list[(label, text)]`` from its own labels).

A view that paints its words (the chip, a chapter's chart) joins the walk by offering
``shown_texts()``; a view that writes a number under a title offers ``labelled_pairs()``.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtGui
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QWidget

from model.values import frozen
from ui.plotting.hover import HoverTips


@frozen
class Shown:
    where: str       # the widget's object name or class
    kind: str        # label | tooltip | plot | hover | painted | pair
    text: str
    label: str = ""  # for pairs: the label written beside ``text``


def plain(text: str) -> str:
    """Rich text as the reader sees it (tags gone, entities decoded, <br> a new line; a no-break
    space a space, a word joiner nothing: ui.kit.fit_text.keep_units)."""
    if QtGui.Qt.mightBeRichText(text):
        doc = QTextDocument()
        doc.setHtml(text)
        text = doc.toPlainText()
    return text.replace("\u2060", "").replace("\u00a0", " ")


def _where(w) -> str:
    return w.objectName() or type(w).__name__


def _plot_texts(plot: pg.PlotWidget) -> list[Shown]:
    out = []
    for item in plot.scene().items():
        if isinstance(item, pg.TextItem) and item.isVisible() and item.toPlainText():
            out.append(Shown(_where(plot), "plot", item.toPlainText()))
    for child in plot.children():
        if isinstance(child, HoverTips):
            out += [Shown(_where(plot), "hover", t) for t in child.texts]
    return out


def shown_texts(root: QWidget) -> list[Shown]:
    """Walk ``root`` and its visible descendants (see the module docstring)."""
    out: list[Shown] = []
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisible():
            continue
        where = _where(w)
        if isinstance(w, QLabel) and w.text():
            out.append(Shown(where, "label", plain(w.text())))
        if w.toolTip():
            out.append(Shown(where, "tooltip", plain(w.toolTip())))
        if isinstance(w, pg.PlotWidget):
            out += _plot_texts(w)
        painted = getattr(w, "shown_texts", None)
        if callable(painted):
            out += [Shown(where, "painted", t) for t in painted() if t]
        pairs = getattr(w, "labelled_pairs", None)
        if callable(pairs):
            out += [Shown(where, "pair", text, label) for label, text in pairs()]
    return out
