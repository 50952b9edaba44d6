"""The lesson views' side panel (ChapterView's): the key number in the largest type that fits,
its caption, the derivation ("why this number") fitted to its room before it scrolls, and the
Details toggle whose text goes under the chart.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from ui.chapters.look import KEY, SECONDARY, text_font
from ui.kit.fit_text import fitting_px
from ui.kit.steady_label import WrapLabel

WHY_MIN_SHARE = 0.75      # the derivation's type steps down to this share of its size before it scrolls
DETAILS_MAX_SHARE = 0.3   # the details under the chart take at most this share of its room; past that they scroll


def why_scroll(label: QLabel) -> QScrollArea:
    """The key number's derivation, scrolling where a short slide has less room than its lines: never cut."""
    area = QScrollArea()
    area.setObjectName("chapterWhyScroll")
    area.setWidget(label)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
    area.setFocusPolicy(Qt.NoFocus)
    area.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
    area.viewport().setAutoFillBackground(False)
    label.setAlignment(Qt.AlignTop | Qt.AlignLeft)
    return area


class SidePanel:
    """Mixed into ChapterView: needs self.theme, self.note_label; makes self.side, self.key_label,
    self.key_caption, self.details_button, self.details_label (and uses self.why_label / why_scroll)."""

    def _build_side(self) -> QWidget:
        """The side panel: the key number and its label (the chapter adds its controls), and the
        Details toggle, whose text goes under the chart."""
        self.side = QWidget()
        self.side.setObjectName("chapterSide")
        self.side_lay = QVBoxLayout(self.side)
        self.side_lay.setContentsMargins(10, 8, 10, 8)
        self.side_lay.setSpacing(6)
        self.key_label = QLabel("")
        self.key_label.setObjectName("chapterKey")
        self.key_caption = WrapLabel()
        self.key_caption.setObjectName("chapterKeyLabel")
        for w in (self.key_label, self.key_caption):
            w.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
            self.side_lay.addWidget(w)
        self.details_button = QPushButton("Details ▸")
        self.details_button.setObjectName("detailsButton")
        self.details_button.setCheckable(True)
        self.details_button.setToolTip("Show or hide the numbers behind this screen")
        self.details_button.setAccessibleName("Details: the numbers behind this screen")
        self.details_button.toggled.connect(self._toggle_details)
        self.details_label = self.note_label(name="chapterDetails")
        self.details_scroll = why_scroll(self.details_label)       # long details scroll: the chart keeps its room
        self.details_scroll.setObjectName("chapterDetailsScroll")
        self.details_scroll.setVisible(False)
        return self.side

    def _fit_key(self) -> None:
        """The key number in its large type, or as large as fits where the side panel is narrow
        (a slide shrunk to its room): never cut."""
        t = self.theme
        m = self.side_lay.contentsMargins()
        room = self.side.minimumWidth() - m.left() - m.right() - 4           # the panel's border
        px = fitting_px(self.key_label.text(), text_font(t, KEY, bold=True), room, t.px(KEY), t.px(SECONDARY))
        self.key_label.setStyleSheet(f"font-size: {px}px;")

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt's name)
        if ev.type() == QEvent.Resize and obj is self.why_scroll.viewport():
            self._fit_why()
        elif ev.type() == QEvent.Resize and obj is self.chart:
            self._fit_details()
        return False

    def _fit_details(self) -> None:
        """The details at most DETAILS_MAX_SHARE of the chart's height (the plot keeps the rest), as
        tall as their lines need below that."""
        cap = max(60, int(self.chart.height() * DETAILS_MAX_SHARE))
        if self.details_scroll.maximumHeight() != cap:
            self.details_scroll.setMaximumHeight(cap)
        need = self.details_label.heightForWidth(max(1, self.details_scroll.viewport().width())) + 4
        want = min(cap, max(need, 0))
        if self.details_scroll.minimumHeight() != want:
            self.details_scroll.setMinimumHeight(want)

    def _fit_why(self) -> None:
        """The derivation in its type size, or as large as fits its room down to WHY_MIN_SHARE of
        it (a short slide: chapters 7 and 8 at 1280×720 in presenter mode); past that it scrolls."""
        room = self.why_scroll.viewport().size()
        if room.width() < 40 or room.height() < 40:
            return
        base = self.theme.px(SECONDARY)
        font, text = self.why_label.font(), self.why_label.text()
        px = base
        for px in range(base, max(9, round(base * WHY_MIN_SHARE)) - 1, -1):
            font.setPixelSize(px)
            need = QFontMetrics(font).boundingRect(QRect(0, 0, room.width(), 1 << 20), Qt.TextWordWrap, text)
            if need.height() <= room.height() - 4:
                break
        style = "" if px == base else f"font-size: {px}px;"
        if self.why_label.styleSheet() != style:
            self.why_label.setStyleSheet(style)

    def _toggle_details(self, on: bool) -> None:
        self.details_button.setText("Details ▾" if on else "Details ▸")
        self.details_label.setVisible(on)
        self.details_scroll.setVisible(on)
        if on:
            self._fit_details()
