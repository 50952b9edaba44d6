"""The bar under the chip: pause, single step, speed, the time scale and the token counter."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from ui.chip.paint.common import Palette
from ui.kit.fit_text import first_fitting

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)


class FitLabel(QLabel):
    """A label that shows the longest of its forms that fits its width. Its size hint is the
    longest form, its minimum the shortest, and, for a counter, widths only grow so the bar
    does not twitch every decode step."""

    def __init__(self, parent: QWidget | None = None, sticky: bool = False):
        super().__init__(parent)
        self._forms: list[str] = [""]
        self._sticky = sticky
        self._seen = [0, 0]
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Preferred)

    def set_forms(self, forms: list[str]) -> None:
        forms = [f for f in forms if f] or [""]
        if forms == self._forms:
            return
        self._forms = forms
        self.updateGeometry()
        parent = self.parentWidget()
        if parent is not None and parent.layout() is not None:
            parent.layout().activate()          # take the new width now, not after the next paint
        self._fit()

    @property
    def forms(self) -> list[str]:
        return list(self._forms)

    def _w(self, text: str) -> int:
        m = self.contentsMargins()
        return self.fontMetrics().horizontalAdvance(text) + m.left() + m.right() + 4

    def sizeHint(self) -> QSize:
        w = self._w(self._forms[0])
        if self._sticky:
            self._seen[0] = w = max(self._seen[0], w)
        return QSize(w, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        w = self._w(self._forms[-1])
        if self._sticky:
            self._seen[1] = w = max(self._seen[1], w)
        return QSize(w, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event) -> None:        # noqa: N802 (Qt name)
        """A style sheet's new font size (presenter mode, larger text) changes what fits."""
        super().changeEvent(event)
        if event.type() in (QEvent.FontChange, QEvent.StyleChange):
            self.updateGeometry()
            self._fit()

    def _fit(self) -> None:
        shown = first_fitting(self._forms, self.font(), self.contentsRect().width())
        if shown != self.text():
            self.setText(shown)


class ControlBar(QWidget):
    """Buttons and words only: it emits what the user asks and shows what it is told."""

    pause_clicked = Signal()
    step_clicked = Signal()
    speed_chosen = Signal(float)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("hierarchyBar")
        self.setAttribute(Qt.WA_StyledBackground, True)
        self._style_key = None
        h = QHBoxLayout(self)
        h.setContentsMargins(10, 5, 10, 5)
        h.setSpacing(8)
        self.pause_button = QPushButton("Pause", self)
        self.pause_button.setToolTip("Pause or resume the flow (the model keeps its numbers)")
        self.pause_button.clicked.connect(self.pause_clicked)
        self.step_button = QPushButton("Step", self)
        self.step_button.setToolTip("Pause, then run exactly one decode step")
        self.step_button.clicked.connect(self.step_clicked)
        self.speed_box = QComboBox(self)
        for s in SPEEDS:
            self.speed_box.addItem(f"speed {s:g}×", s)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.currentIndexChanged.connect(lambda i: self.speed_chosen.emit(SPEEDS[i]))
        # both labels shorten rather than clip when the view is narrow (the 1280×720 window)
        self.scale_label = FitLabel(self)
        self.scale_label.setObjectName("secondary")
        self.token_label = FitLabel(self, sticky=True)
        self.token_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        for w in (self.pause_button, self.step_button, self.speed_box):
            h.addWidget(w)
        h.addSpacing(4)
        h.addWidget(self.scale_label, 1)
        h.addWidget(self.token_label, 0)

    def show_paused(self, paused: bool) -> None:
        self.pause_button.setText("Play" if paused else "Pause")

    def show_speed(self, speed: float) -> None:
        if speed in SPEEDS and self.speed_box.currentIndex() != SPEEDS.index(speed):
            self.speed_box.setCurrentIndex(SPEEDS.index(speed))

    def show_scale(self, forms: list[str], tooltip: str) -> None:
        self.scale_label.set_forms(forms)
        self.scale_label.setToolTip(tooltip)

    def show_tokens(self, step_word: str, steps: int, tokens: int) -> None:
        text = f"{step_word} {steps:,} · {tokens:,} tokens"
        if text != self.token_label.toolTip():
            self.token_label.set_forms([text, f"step {steps:,} · {tokens:,} tok", f"{tokens:,} tok"])
            self.token_label.setToolTip(text)

    def restyle(self, pal: Palette, px: int) -> None:
        """The bar's look in the palette's colours; its type follows the view's (bigger on 4K)."""
        if (pal.name, px) == self._style_key:
            return
        self._style_key = (pal.name, px)
        bg, border, text, sec, inp, hover = (c.name() for c in (pal.bg, pal.border, pal.text, pal.secondary,
                                                                 pal.input_bg, pal.hover))
        self.setStyleSheet(
            f"#hierarchyBar {{ background: {bg}; border-top: 1px solid {border}; }}"
            f"#hierarchyBar QLabel {{ color: {text}; background: transparent; font-size: {px}px; }}"
            f"#hierarchyBar QLabel#secondary {{ color: {sec}; }}"
            f"#hierarchyBar QPushButton, #hierarchyBar QComboBox {{ color: {text}; background: {inp};"
            f" border: 1px solid {border}; border-radius: 4px; padding: 3px 10px; font-size: {px}px; }}"
            f"#hierarchyBar QPushButton:hover {{ border-color: {hover}; }}")
