"""Why this number? One readout's derivation, over the window: its equation in words, the same with
this scenario's numbers, its assumptions, how far to trust it, and its inputs to walk down to.

    panel.explain("decode_time")    show a readout (the last snapshot's estimate)
    panel.show_snapshot(snap)       a change: the same readout, the new numbers
    an input's link, Backspace ◀    walk down, and back up;  Esc ×: close

Every text comes from model.readouts.explain_text.derivation_view; the panel only lays it out.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QSizePolicy, QVBoxLayout

from model.errors import ModelError
from model.readouts.explain_text import derivation_view
from ui.kit import theme as th


class ExplainPanel(QFrame):
    """A floating panel inside the main window (the projector shows it too)."""

    closed = Signal()

    def __init__(self, parent, theme: th.Theme):
        super().__init__(parent)
        self.setObjectName("explainPanel")
        self.setFrameShape(QFrame.StyledPanel)
        self.setAutoFillBackground(True)
        self._snap = None
        self.key = ""
        self.history: list[str] = []
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 10, 14, 12)
        lay.setSpacing(6)
        head = QHBoxLayout()
        title = QLabel("WHY THIS NUMBER?")
        title.setObjectName("sectionTitle")
        head.addWidget(title, 1)
        self.back_button = QPushButton("◀ Back")
        self.back_button.setToolTip("Back up the tree (Backspace)")
        self.back_button.clicked.connect(self.back)
        self.close_button = QPushButton("×")
        self.close_button.setToolTip("Close (Esc)")
        self.close_button.clicked.connect(self.close_panel)
        head.addWidget(self.back_button)
        head.addWidget(self.close_button)
        lay.addLayout(head)
        self.body = QLabel("")
        self.body.setObjectName("explainBody")
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.RichText)
        self.body.setTextInteractionFlags(Qt.LinksAccessibleByMouse | Qt.LinksAccessibleByKeyboard)
        self.body.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.body.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.body.linkActivated.connect(self.walk)
        scroll = QScrollArea()
        scroll.setWidget(self.body)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        lay.addWidget(scroll, 1)
        for seq, fn in ((QKeySequence(Qt.Key_Escape), self.close_panel), (QKeySequence(Qt.Key_Backspace), self.back)):
            QShortcut(seq, self, fn, context=Qt.WidgetWithChildrenShortcut)
        self.set_theme(theme)
        self.hide()

    # ---------------------------------------------------------------- showing
    def explain(self, key: str, snap=None) -> None:
        """Open (or move to) the derivation of ``key``; the history starts again."""
        if snap is not None:
            self._snap = snap
        self.history = []
        self._show(key)
        self.show()
        self.raise_()
        self.body.setFocus()

    def walk(self, key: str) -> None:
        """An input's link: down one level (Back returns)."""
        if self.key:
            self.history.append(self.key)
        self._show(key)

    def back(self) -> None:
        if self.history:
            self._show(self.history.pop())

    def close_panel(self) -> None:
        self.hide()
        self.closed.emit()

    def show_snapshot(self, snap) -> None:
        """A change while open: the same readout with the new numbers (or a line if it is gone)."""
        self._snap = snap
        if self.isVisible() and self.key:
            self._show(self.key)

    def _show(self, key: str) -> None:
        self.key = key
        self.back_button.setEnabled(bool(self.history))
        if self._snap is None:
            return
        try:
            v = derivation_view(self._snap.estimate, key)
        except ModelError as exc:
            self.body.setText(f"<p>{html.escape(str(exc))}</p>")
            return
        self.body.setText(self._html(v))

    def _html(self, v) -> str:
        t = self._theme
        esc = html.escape
        parts = [f"<p style='font-size:{t.px(24)}px; font-weight:600'>{esc(v.title)}</p>",
                 f"<p>{esc(v.equation)}</p>"]
        if v.arithmetic:
            parts.append(f"<p style='color:{th.BLUISH_GREEN}; font-weight:600'>{esc(v.arithmetic)}</p>")
        if v.assumptions:
            parts.append("<p style='color:%s'>%s</p>" % (t.secondary, "<br>".join("· " + esc(a) for a in v.assumptions)))
        if v.trust:
            parts.append(f"<p><b>How far to trust it:</b> {esc(v.trust)}</p>")
            if v.runs:
                parts.append("<p style='color:%s'>Published runs nearby:<br>%s</p>"
                             % (t.secondary, "<br>".join("· " + esc(r) for r in v.runs)))
        if v.inputs:
            links = "<br>".join(f"<a href='{esc(k)}' style='color:{th.SKY_BLUE}'>{esc(text)}</a>" for k, text in v.inputs)
            parts.append(f"<p><b>Made of</b> (click to open):<br>{links}</p>")
        return "".join(parts)

    # ---------------------------------------------------------------- look
    def set_theme(self, t: th.Theme) -> None:
        self._theme = t
        self.setStyleSheet(f"QFrame#explainPanel {{ background: {t.panel}; border: 2px solid {th.SKY_BLUE}; "
                           f"border-radius: 8px; }} QLabel#explainBody {{ font-size: {t.px(16)}px; }}")
        if self.isVisible() and self.key:
            self._show(self.key)

    def place(self, area) -> None:
        """Over ``area`` (a widget of the same window): its right half, its full height."""
        g = area.geometry()
        top_left = area.parentWidget().mapTo(self.parentWidget(), g.topLeft())
        w = max(360, int(g.width() * 0.55))
        self.setGeometry(top_left.x() + g.width() - w, top_left.y(), w, g.height())
