"""The Serve page's two kinds of chart, painted (no plotting library): a distribution with its
p50/p90/p99 marks and the target line, and the run over time (output tokens/s and running batch).
Everything drawn is a readout of model/readouts/serving_page.py; the charts only map it to pixels
(log axis for the distributions), and repaint from a cached picture until the readouts change.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from ui.kit import theme as th

MARK_COLOURS = {"p50": th.SKY_BLUE, "p90": th.YELLOW, "p99": th.VERMILLION}


class _Chart(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAttribute(Qt.WA_OpaquePaintEvent, True)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setMinimumSize(220, 150)
        self.theme = th.get_theme("dark")
        self.data = None
        self._pm: QPixmap | None = None

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self._pm = None
        self.update()

    def set_data(self, data) -> None:
        self.data = data
        self._pm = None
        self.update()

    def resizeEvent(self, _ev) -> None:
        self._pm = None

    def font(self, size: float, bold: bool = False) -> QFont:
        f = QFont()
        f.setPixelSize(self.theme.px(size))
        f.setBold(bold)
        return f

    def paintEvent(self, _ev) -> None:
        if self._pm is None or self._pm.size() != self.size():
            self._pm = QPixmap(self.size())
            self._pm.fill(QColor(self.theme.panel))
            p = QPainter(self._pm)
            p.setRenderHint(QPainter.Antialiasing, True)
            p.setPen(QPen(QColor(self.theme.panel_border), 1))
            p.drawRect(QRectF(0.5, 0.5, self.width() - 1, self.height() - 1))
            if self.data is not None:
                self.draw(p)
            p.end()
        p = QPainter(self)
        p.drawPixmap(0, 0, self._pm)
        p.end()

    def draw(self, p: QPainter) -> None:  # pragma: no cover - subclasses
        raise NotImplementedError

    def axis(self, p: QPainter, plot: QRectF, ticks, axis_h: float) -> None:
        """The baseline and its tick labels ((x px, text), left to right), none overlapping or clipped."""
        t = self.theme
        p.setPen(QPen(QColor(t.grid), 1))
        p.drawLine(QPointF(plot.left(), plot.bottom()), QPointF(plot.right(), plot.bottom()))
        p.setFont(self.font(12))
        p.setPen(QColor(t.secondary))
        last = -1e9
        for x, lab in ticks:
            tw = p.fontMetrics().horizontalAdvance(lab)
            left = max(2.0, x - tw / 2)
            if left < last + 6 or left + tw > self.width() - 2:
                continue
            p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4))
            p.drawText(QRectF(left - 2, plot.bottom() + 4, tw + 4, axis_h), Qt.AlignCenter, lab)
            last = left + tw


class DistributionChart(_Chart):
    """A histogram on a log time axis with p50/p90/p99 marks and the target line."""

    def texts(self) -> list[str]:
        d = self.data
        if d is None:
            return []
        return [d.title] + [f"{k} {txt}" for k, _, txt in d.marks] + ([d.target[1]] if d.target else []) + \
            [lab for _, lab in d.ticks]

    def draw(self, p: QPainter) -> None:
        d, t = self.data, self.theme
        w, h = self.width(), self.height()
        title_h, axis_h, marks_h = t.px(24), t.px(20), t.px(19)
        p.setFont(self.font(14, True))
        p.setPen(QColor(t.text))
        p.drawText(QRectF(10, 4, w - 20, title_h), Qt.AlignLeft | Qt.AlignVCenter | Qt.TextSingleLine, d.title)
        plot = QRectF(12, 4 + title_h + 2 * marks_h, w - 24, h - title_h - axis_h - 2 * marks_h - 12)
        if d.empty or d.counts.size == 0:
            p.setPen(QColor(t.secondary))
            p.drawText(plot, Qt.AlignCenter | Qt.TextWordWrap, d.empty or "—")
            return
        lo, hi = math.log(d.edges_ms[0]), math.log(d.edges_ms[-1])

        def xpix(ms: float) -> float:
            return plot.left() + (math.log(max(ms, 1e-9)) - lo) / (hi - lo) * plot.width()
        top = float(d.counts.max()) or 1.0
        p.setPen(Qt.NoPen)
        bar = QColor(t.accent)
        bar.setAlphaF(0.75)
        p.setBrush(bar)
        for c, a, b in zip(d.counts.tolist(), d.edges_ms[:-1].tolist(), d.edges_ms[1:].tolist()):
            if c:
                bh = c / top * plot.height()
                p.drawRect(QRectF(xpix(a) + 0.5, plot.bottom() - bh, max(1.0, xpix(b) - xpix(a) - 1), bh))
        self.axis(p, plot, [(xpix(ms), lab) for ms, lab in d.ticks], axis_h)
        if d.target:
            x = xpix(d.target[0])
            p.setPen(QPen(QColor(t.text), 2, Qt.DashLine))
            p.drawLine(QPointF(x, plot.top() - 2), QPointF(x, plot.bottom()))
        self._draw_marks(p, d, xpix, plot, marks_h)

    def _draw_marks(self, p, d, xpix, plot: QRectF, marks_h: float) -> None:
        """The marks as lines, and their words in one row above the plot, left to right, never overlapping."""
        t = self.theme
        p.setFont(self.font(12, True))
        items = [(xpix(ms), k, txt, MARK_COLOURS[k]) for k, ms, txt in d.marks]
        if d.target:
            items.append((xpix(d.target[0]), "target", d.target[1], t.text))
        rows = [plot.left(), plot.left()]          # where each of the two label rows is free from
        for x, k, txt, colour in sorted(items):
            placed = self._place_mark(p, x, (txt,) if k == "target" else (f"{k} {txt}", k), rows)
            if placed is None:
                continue                           # no room for even its name: no line without words either
            row, left, tw, label = placed
            if k != "target":
                p.setPen(QPen(QColor(colour), 2))
                p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
            p.setPen(QColor(colour))
            y = plot.top() - marks_h * (2 - row)
            p.drawText(QRectF(left, y, tw, marks_h - 2), Qt.AlignCenter | Qt.TextSingleLine, label)
            rows[row] = left + tw + 4

    def _place_mark(self, p, x: float, forms: tuple[str, ...], rows: list[float]):
        """(row, left, width, words) for the first of ``forms`` that fits a row above ``x``, else None."""
        for label in forms:
            tw = p.fontMetrics().horizontalAdvance(label) + 6
            for row in (0, 1):
                left = min(max(x - tw / 2, rows[row]), self.width() - tw - 4)
                if left >= rows[row] - 1:
                    return row, left, tw, label
        return None


class OverTimeChart(_Chart):
    """Output tokens/s (filled, left scale) and running sequences (line) over the run."""

    def texts(self) -> list[str]:
        d = self.data
        return [] if d is None else [d.tokens_label, d.running_label] + [lab for _, lab in d.x_ticks]

    def draw(self, p: QPainter) -> None:
        d, t = self.data, self.theme
        w, h = self.width(), self.height()
        title_h, axis_h = t.px(24), t.px(20)
        p.setFont(self.font(14, True))
        fm = p.fontMetrics()
        one_line = fm.horizontalAdvance(d.tokens_label) + fm.horizontalAdvance(d.running_label) + 40 < w
        p.setPen(QColor(th.BLUISH_GREEN))
        p.drawText(QRectF(10, 4, w - 20, title_h), Qt.AlignLeft | Qt.AlignVCenter | Qt.TextSingleLine, d.tokens_label)
        p.setPen(QColor(th.ORANGE))
        y2 = 4 if one_line else 4 + title_h
        p.drawText(QRectF(10, y2, w - 20, title_h), (Qt.AlignRight if one_line else Qt.AlignLeft) | Qt.AlignVCenter
                   | Qt.TextSingleLine, d.running_label)
        head = title_h if one_line else 2 * title_h
        plot = QRectF(12, 8 + head, w - 24, h - head - axis_h - 16)
        if d.t_s.size < 2:
            return
        span = float(d.t_s[-1] + (d.t_s[1] - d.t_s[0]) / 2)
        xs = plot.left() + d.t_s / span * plot.width()
        tok = d.output_tokens_per_s / (d.peak_tokens_per_s or 1.0)
        path = QPainterPath(QPointF(plot.left(), plot.bottom()))
        for x, v in zip(xs.tolist(), tok.tolist()):
            path.lineTo(QPointF(x, plot.bottom() - v * plot.height()))
        path.lineTo(QPointF(xs[-1], plot.bottom()))
        fill = QColor(th.BLUISH_GREEN)
        fill.setAlphaF(0.45)
        p.setPen(Qt.NoPen)
        p.setBrush(fill)
        p.drawPath(path)
        run = d.running / (d.peak_running or 1.0)
        p.setPen(QPen(QColor(th.ORANGE), 2))
        p.setBrush(Qt.NoBrush)
        pts = [QPointF(x, plot.bottom() - v * plot.height() * 0.98) for x, v in zip(xs.tolist(), run.tolist())]
        for a, b in zip(pts, pts[1:]):
            p.drawLine(a, b)
        self.axis(p, plot, [(plot.left() + s / span * plot.width(), lab) for s, lab in d.x_ticks], axis_h)
