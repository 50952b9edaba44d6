"""Gauges: big numbers from the Estimate, the binding roof, and the HBM bar per GPU.

Each gauge places one model.readouts.gauges.Gauge: its readout (title = its label, the big
number = its text), the line beneath and the tooltip; the badge, the HBM bar's words and the notes
are model.readouts.sentences's and gauges'. Nothing here computes a number or writes a word.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (QFrame, QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QToolTip, QVBoxLayout,
                               QWidget)

from model.readouts import gauges as gw, sentences as ex
from ui.kit import theme as th
from ui.kit.fit_text import first_fitting, fitting_px
from ui.kit.page_catch_up import CatchUpWhenShown
from ui.kit.steady_label import RichLine, SteadyLabel, set_rich_text
from ui.kit.dialog_buttons import tip_text


class Gauge(QFrame):
    """A title, one large number (with its unit) and a small line beneath."""

    def __init__(self, key: str, parent=None):
        super().__init__(parent)
        self.key = key
        self.setObjectName("gauge")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        lay.setSpacing(0)
        self.title = QLabel("")
        self.title.setObjectName("gaugeTitle")
        self.value = QLabel("—")
        self.value.setObjectName("gaugeValue")
        self.sub = QLabel("")
        self.sub.setObjectName("gaugeSub")
        for w in (self.title, self.value, self.sub):
            w.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
            lay.addWidget(w)
        self.value.setFont(_tabular(self.value.font()))

        self.base_px = 32
        self.readout_key = ""
        self.setCursor(Qt.PointingHandCursor)
        self._titles: tuple[str, ...] = ()
        self._sized = False         # laid out once: before that no width to fit the number to

    def set(self, value: str, sub: str, tip: str, titles: tuple[str, ...] = ()) -> None:
        if titles:
            self._titles = titles
        self.value.setText(value)
        self.sub.setText(sub)
        tip = tip_text(tip)
        if self.toolTip() != tip:
            self.setToolTip(tip)
        self._fit()

    def show_gauge(self, g: gw.Gauge) -> None:
        """Title = the readout's label, the big number = its text, the line beneath and the tooltip
        as model.readouts.gauges made them."""
        r = g.readout
        self.readout_key = r.key
        self.set(r.text, g.sub, g.tip, r.labels)

    def mousePressEvent(self, ev) -> None:  # noqa: N802 (Qt name)
        if ev.button() == Qt.LeftButton and self.readout_key:
            panel = self.parentWidget()
            if hasattr(panel, "explain_requested"):
                panel.explain_requested.emit(self.readout_key)
            ev.accept()
            return
        super().mousePressEvent(ev)

    def labelled_pairs(self) -> list[tuple[str, str]]:
        """(title, number) as shown: for ui.plotting.screen_text."""
        return [(self.title.text(), self.value.text())]

    def set_base_px(self, px: int) -> None:
        self.base_px = px
        self._fit()

    def _fit(self) -> None:
        """Largest size up to base_px at which the number fits its column (never clipped); the
        title's longest form that fits. Only once the gauge has its width (before that there is
        nothing to fit to: at start the estimate arrives before the first layout)."""
        if not self._sized:
            if self._titles:
                self.title.setText(self._titles[0])
            return
        f = self.value.font()
        f.setBold(True)
        px = fitting_px(self.value.text(), f, max(40, self.value.width()), self.base_px, 12)
        if self._titles:                         # the readout's label, or its short form where narrow
            self.title.setText(first_fitting(self._titles, self.title.font(), self.title.contentsRect().width()))
        if px != getattr(self, "_px", None):    # the window's style sheet sets fonts: override per label
            self._px = px
            self.value.setStyleSheet(f"font-size: {px}px; font-weight: 700;")

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self._sized = True
        self._fit()


def _tabular(f: QFont) -> QFont:
    """Tabular figures, so digits do not jitter as numbers change."""
    try:
        f.setFeature(QFont.Tag("tnum"), 1)
    except (AttributeError, TypeError):
        pass
    return f


class HbmBar(QWidget):
    """Weights | KV cache | workspace | free, per GPU, against the HBM capacity.

    When the need exceeds the capacity the bar spans the need, the capacity is a marked
    line, the overflow is vermillion and the reason is written beneath."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(28)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.theme = th.DARK
        self.capacity = 1.0
        self.cap_text = ""
        self.segments: list[tuple[str, float, str]] = []   # (hover text, bytes, colour)
        self.fits = True
        self.status_text = ""
        self.cap_tip = ""
        self.setMouseTracking(True)

    def show_estimate(self, e) -> None:
        """The parts from model.readouts.sentences.hbm_segments: widths from their bytes, words from the model."""
        self._show(e.hbm_capacity_bytes, ex.hbm_segments(e), e.fits, ex.hbm_status(e), *gw.hbm_capacity(e))

    def _show(self, capacity: float, parts, fits: bool, status: str, cap_text: str, cap_tip: str) -> None:
        colours = {"weights": th.ORANGE, "kv": th.REDDISH_PURPLE, "workspace": self.theme.workspace,
                   "free": self.theme.hbm_free}
        self.capacity, self.fits, self.status_text, self.cap_text, self.cap_tip = capacity, fits, status, cap_text, cap_tip
        self.segments = [(text, b, colours[name]) for name, b, text in parts]
        self.update()

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.setFixedHeight(max(26, t.px(30)))
        self.update()

    def _scale(self) -> float:
        total = sum(b for _, b, _ in self.segments)
        return max(self.capacity, total, 1.0)

    def _rects(self):
        w = self.width() - 2
        scale = self._scale()
        x = 1.0
        for name, b, colour in self.segments:
            width = w * b / scale
            yield name, b, colour, QRectF(x, 1, width, self.height() - 2)
            x += width

    def paintEvent(self, _ev) -> None:
        p = QPainter(self)
        t = self.theme
        p.fillRect(self.rect(), QColor(t.hbm_free))
        for _name, _b, colour, r in self._rects():
            p.fillRect(r, QColor(colour))
        w = self.width() - 2
        cap_x = 1 + w * self.capacity / self._scale()
        if not self.fits:
            over = QRectF(cap_x, 1, self.width() - 1 - cap_x, self.height() - 2)
            p.fillRect(over, QBrush(QColor(th.VERMILLION), Qt.BDiagPattern))
            c = QColor(th.VERMILLION)
            c.setAlpha(90)
            p.fillRect(over, c)
            p.setPen(QPen(QColor(th.VERMILLION), 3))
            p.drawRect(QRectF(1.5, 1.5, self.width() - 3, self.height() - 3))
        p.setPen(QPen(QColor(t.text), 2))
        p.drawLine(int(cap_x), 0, int(cap_x), self.height())
        if self.status_text:
            f = p.font()
            f.setPixelSize(max(10, int(self.height() * 0.5)))
            f.setBold(True)
            p.setFont(f)
            fm = p.fontMetrics()
            tw, th_ = fm.horizontalAdvance(self.status_text) + 12, fm.height() + 2
            box = QRectF(self.width() - tw - 6, (self.height() - th_) / 2, tw, th_)
            back = QColor(t.bg)
            back.setAlpha(200)
            p.setPen(Qt.NoPen)
            p.setBrush(back)
            p.drawRoundedRect(box, 3, 3)
            p.setPen(QColor(th.VERMILLION if not self.fits else t.text))
            p.drawText(box, Qt.AlignCenter, self.status_text)
        p.end()

    def shown_texts(self) -> list[str]:
        """The words this bar paints and its hover texts: for ui.plotting.screen_text."""
        return [self.status_text, *(text for text, _b, _c in self.segments), self.cap_text]

    def segment_at(self, x: float) -> str:
        for text, _b, _c, r in self._rects():
            if r.left() <= x <= r.right():
                return text
        return ""

    def event(self, ev) -> bool:
        if ev.type() == QEvent.ToolTip:
            text = self.segment_at(ev.pos().x())
            QToolTip.showText(ev.globalPos(), tip_text("\n".join(t for t in (text, self.cap_tip) if t)), self)
            return True
        return super().event(ev)


class GaugePanel(CatchUpWhenShown, QWidget):
    explain_requested = Signal(str)        # a readout's key: a gauge was clicked

    def __init__(self, snapshot, parent=None):
        super().__init__(parent)
        self.setObjectName("panel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 8)
        lay.setSpacing(4)

        head = QHBoxLayout()
        title = QLabel(gw.TITLE)
        title.setObjectName("sectionTitle")
        head.addWidget(title)
        head.addStretch(1)
        self.badge = QLabel("")
        self.badge.setObjectName("badge")
        head.addWidget(self.badge)
        lay.addLayout(head)

        grid = QGridLayout()
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(2)
        self.gauges: dict[str, Gauge] = {}
        for i, key in enumerate(gw.PLACES):
            g = Gauge(key)
            self.gauges[key] = g
            grid.addWidget(g, i // 3, i % 3)
        for col in range(3):
            grid.setColumnStretch(col, 1)
        lay.addLayout(grid)

        hb = QHBoxLayout()
        self.memory_title = hb_title = QLabel("")
        hb_title.setObjectName("gaugeTitle")
        hb.addWidget(hb_title)
        self.hbm_text = RichLine("")
        self.hbm_text.setObjectName("gaugeSub")
        self.hbm_text.setTextFormat(Qt.RichText)
        self.hbm_text.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        self.hbm_text.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        hb.addWidget(self.hbm_text, 1)
        lay.addLayout(hb)
        self.hbm = HbmBar()
        self.hbm.setObjectName("hbmBar")
        lay.addWidget(self.hbm)
        self.notes = SteadyLabel(lines=2)      # room for a warning, kept when there is none
        self.notes.setObjectName("notes")
        self.notes.setTextFormat(Qt.RichText)
        lay.addWidget(self.notes)
        lay.addStretch(1)

        self._snap = None
        self.show_snapshot(snapshot)

    def value_text(self, key: str) -> str:
        return self.gauges[key].value.text()

    def set_theme(self, t: th.Theme) -> None:
        self.hbm.set_theme(t)
        for g in self.gauges.values():
            g.set_base_px(t.px(32))
        if self.newest() is not None:
            self.show_snapshot(self.newest(), force=True)

    def show_snapshot(self, snap, force: bool = False) -> None:
        """Place the model's readouts of ``snap``'s estimate: every gauge is one readout (title = its label)."""
        if self.on_hidden_page(snap):
            return
        same = self._snap is not None and self._snap.estimate is snap.estimate
        self._snap = snap
        if same and not force:          # a problem line changed, not the estimate
            return
        e = snap.estimate
        for g in gw.gauges(e):
            self.gauges[g.place].show_gauge(g)

        self.memory_title.setText(ex.memory_bar_title(e))
        self.badge.setText(ex.badge_text(e))
        badge_style = f"background: {th.BOUND_COLOURS.get(e.bound, th.VERMILLION)};"
        if self.badge.styleSheet() != badge_style:        # a new style sheet re-polishes the label
            self.badge.setStyleSheet(badge_style)
        self.badge.setToolTip(tip_text(ex.badge_tooltip(e)))

        t = self.hbm.theme
        self.hbm.show_estimate(e)
        colours = {"weights": th.ORANGE, "kv": th.REDDISH_PURPLE, "workspace": t.workspace}
        set_rich_text(self.hbm_text, " ".join(f"<span style='color:{colours[part]}'>■</span> {_esc(words)}"
                                             for part, words in gw.hbm_legend(e)))
        self.hbm_text.setToolTip(tip_text(gw.hbm_legend_tip(e)))
        self.hbm.setToolTip("")
        html = []
        for n, warn in gw.notes(e):
            style = f"color:{th.VERMILLION}; font-weight:600" if warn else ""
            html.append(f"<span style='{style}'>{_esc(n)}</span>")
        self.notes.setText("<br>".join(html))         # (a WrapLabel lays rich text out when set)



def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
