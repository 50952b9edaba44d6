"""The animated queue: requests arriving, waiting, prefilling and decoding on the GPU, done.

The clock discipline of the chip (ui/chip/view.py): one QTimer (16 ms), dt capped at 50 ms, the
timer stopped while the view is hidden; the simulated clock moves by dt × the run's time scale
(model/readouts/serving_page.clock) and loops over the run. What changes only with a run or a size
(the lanes, the cell grids, the static picture with the lane boxes and the legend) is made once
then; a tick only works out, as numpy masks over the run's per-request times, which request is in
which lane, and paints the dots.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QElapsedTimer, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from model.readouts.serving_page import LANE_SHORT, LANES, STATE_WORDS, clock, lane_count_forms, lane_counts
from ui.kit import theme as th
from ui.kit.fit_text import first_fitting

FRAME_MS = 16
MAX_DT = 0.05
FLIGHT_S = 0.8            # screen seconds a request takes to fly in, and to leave
MAX_FLYING = 240          # dots drawn at most in the arriving and the done lanes (every k-th request)
COLOURS = {"waiting": th.ORANGE, "prefill": th.SKY_BLUE, "decode": th.BLUISH_GREEN, "done": th.REDDISH_PURPLE}
LANE_SHARE = (0.14, 0.26, 0.46, 0.14)


def _grid(rect: QRectF, n: int) -> tuple[int, int, float]:
    """(columns, rows, cell px) that hold ``n`` dots in ``rect`` with square cells."""
    n = max(1, n)
    w, h = max(rect.width(), 1.0), max(rect.height(), 1.0)
    cols = max(1, int(math.ceil(math.sqrt(n * w / h))))
    rows = int(math.ceil(n / cols))
    cell = min(w / cols, h / rows)
    cols = max(1, int(w // cell))
    rows = max(1, int(h // cell))
    return cols, rows, cell


def _text(p: QPainter, room: QRectF, flags, text: str) -> tuple[str, QRectF]:
    """Paint ``text`` in ``room``; (text, the rectangle its line takes)."""
    p.drawText(room, flags, text)
    return text, p.boundingRect(room, flags, text)


class QueueView(QWidget):
    """Draws a ServingRun's requests as dots moving through four lanes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("serveQueue")
        self.setAttribute(Qt.WA_OpaquePaintEvent, True)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setMinimumSize(480, 200)
        self.theme = th.get_theme("dark")
        self.run = None
        self._painted = None
        self._dot_pictures: dict[tuple, QPixmap] = {}
        self.clock = None
        self.t_sim = 0.0
        self.paused = False
        self.frames = 0
        self._static: QPixmap | None = None
        self._lanes: list[QRectF] = []
        self._grids: dict[str, tuple] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.setTimerType(Qt.PreciseTimer)
        self._timer.timeout.connect(self._on_tick)
        self._elapsed = QElapsedTimer()

    # ---------------------------------------------------------------- state
    def set_run(self, run) -> None:
        """A new run: its arrays, its clock, a fresh layout; the animation starts over."""
        self.run = run
        self._painted = None          # the words painted for the last run: none yet for this one
        self.clock = clock(run)
        self._t0 = float(np.nanmin(run.sent_s))
        big = np.inf
        self._sent = run.sent_s
        self._adm = np.where(np.isnan(run.admitted_s), big, run.admitted_s)
        self._first = np.where(np.isnan(run.first_token_s), big, run.first_token_s)
        self._fin = np.where(np.isnan(run.finish_s), big, run.finish_s)
        self._peak = {"waiting": max(1, self._peak_count(self._sent, self._adm)),
                      "running": max(1, self._peak_count(self._adm, self._fin))}
        flight = FLIGHT_S * self.clock.sim_s_per_screen_s
        flying = max(self._peak_count(self._sent, self._sent + flight), self._peak_count(self._fin, self._fin + flight))
        # thousands of dots in flight at once cost a frame many times over and look the same as a few
        # hundred: every k-th request is drawn there, the same ones every frame (the counts stay whole)
        self._fly_stride = max(1, -(-flying // MAX_FLYING))
        self.t_sim = self._t0
        self._relayout()

    @staticmethod
    def _peak_count(start: np.ndarray, end: np.ndarray) -> int:
        """Most intervals [start, end) open at once."""
        ev = np.concatenate((start[np.isfinite(start)], end[np.isfinite(end)]))
        step = np.concatenate((np.ones(np.isfinite(start).sum()), -np.ones(np.isfinite(end).sum())))
        order = np.lexsort((step, ev))
        return int(np.max(np.cumsum(step[order]), initial=0))

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self._relayout()

    def pause(self, on: bool) -> None:
        self.paused = bool(on)
        self._elapsed.restart()

    # ---------------------------------------------------------------- layout (per run, size, theme)
    def _font(self, size: float, bold: bool = False) -> QFont:
        f = QFont()
        f.setPixelSize(self.theme.px(size))
        f.setBold(bold)
        return f

    def _relayout(self) -> None:
        self._static = None
        w, h = self.width(), self.height()
        t = self.theme
        top, bottom = t.px(30), t.px(26)
        x, rects = 8.0, []
        for share in LANE_SHARE:
            lw = (w - 16) * share
            rects.append(QRectF(x, top, lw - 8, max(20.0, h - top - bottom)))
            x += lw
        self._lanes = rects
        pad = t.px(10)
        inner = [r.adjusted(pad, pad + t.px(22), -pad, -pad) for r in rects]   # below the lane's title
        self._inner = inner
        if self.run is not None:
            self._grids = {"waiting": _grid(inner[1], self._peak["waiting"]),
                           "running": _grid(inner[2], self._peak["running"])}
        self.update()

    def resizeEvent(self, _ev) -> None:
        self._relayout()

    def _static_picture(self) -> QPixmap:
        t = self.theme
        pm = QPixmap(self.size())
        pm.fill(QColor(t.bg))
        p = QPainter(pm)
        p.setRenderHint(QPainter.Antialiasing, True)
        p.setFont(self._font(14, True))
        pad = t.px(10)
        boxes = []
        for name, r in zip(LANES, self._lanes):
            p.setPen(QPen(QColor(t.panel_border), 1.5))
            p.setBrush(QColor(t.panel))
            p.drawRoundedRect(r, 6, 6)
            p.setPen(QColor(t.secondary))
            title = first_fitting((name.upper(), LANE_SHORT[name].upper()), p.font(), r.width() - 2 * pad, elide=False)
            boxes.append(_text(p, QRectF(r.left() + pad, r.top() + 4, r.width() - 2 * pad, t.px(22)),
                               Qt.AlignLeft | Qt.AlignVCenter | Qt.TextSingleLine, title))
        p.setFont(self._font(14))
        x, top = 8.0, self._lanes[0].top()
        dot = t.px(12)
        for colour, words in self.legend():
            p.setPen(Qt.NoPen)
            p.setBrush(QColor(colour))
            p.drawEllipse(QRectF(x, (top - dot) / 2, dot, dot))
            p.setPen(QColor(t.text))
            wpx = p.fontMetrics().horizontalAdvance(words)
            boxes.append(_text(p, QRectF(x + dot + 6, 0, wpx + 4, top), Qt.AlignLeft | Qt.AlignVCenter, words))
            x += dot + 6 + wpx + t.px(18)
        self._legend_right = x
        self._static_boxes = boxes
        p.end()
        return pm

    # ---------------------------------------------------------------- the clock
    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        self._elapsed.start()
        self._timer.start()

    def hideEvent(self, ev) -> None:
        super().hideEvent(ev)
        self._timer.stop()

    @property
    def ticking(self) -> bool:
        return self._timer.isActive()

    def _on_tick(self) -> None:
        dt = self._elapsed.restart() / 1000.0 if self._elapsed.isValid() else FRAME_MS / 1000.0
        self.advance(dt)
        self.update()

    def advance(self, dt: float) -> None:
        """One frame of screen time (capped at MAX_DT); the simulated clock loops over the run."""
        self.frames += 1
        if self.run is None or self.paused:
            return
        self.t_sim += min(MAX_DT, max(0.0, dt)) * self.clock.sim_s_per_screen_s
        if self.t_sim > self._t0 + self.clock.loop_s + FLIGHT_S * self.clock.sim_s_per_screen_s:
            self.t_sim = self._t0

    def settle(self, frames: int = 60, dt: float = 1 / 60) -> None:
        """Run ``frames`` frames without the wall clock (recordings, screenshots)."""
        for _ in range(frames):
            self.advance(dt)
        self.update()

    # ---------------------------------------------------------------- painting
    def paintEvent(self, _ev) -> None:
        if self._static is None or self._static.size() != self.size():
            self._static = self._static_picture()
        p = QPainter(self)
        p.drawPixmap(0, 0, self._static)
        if self.run is not None:
            p.setRenderHint(QPainter.Antialiasing, True)
            self._paint_dots(p)
            self._paint_words(p)
        p.end()

    def _dot(self, size: float, colour: str) -> QPixmap:
        """One dot drawn once per colour and size (at the screen's pixel ratio), then stamped: an
        antialiased ellipse per request cost ~40 µs, a stamped picture a few."""
        dpr = self.devicePixelRatioF()
        key = (colour, round(size * dpr), dpr)
        pm = self._dot_pictures.get(key)
        if pm is None:
            side = max(1, key[1])
            pm = QPixmap(side, side)
            pm.setDevicePixelRatio(dpr)
            pm.fill(Qt.transparent)
            q = QPainter(pm)
            q.setRenderHint(QPainter.Antialiasing, True)
            q.setPen(Qt.NoPen)
            q.setBrush(QColor(colour))
            q.drawEllipse(QRectF(0, 0, side / dpr, side / dpr))
            q.end()
            if len(self._dot_pictures) > 64:
                self._dot_pictures.clear()
            self._dot_pictures[key] = pm
        return pm

    def _dots(self, p: QPainter, xs, ys, size: float, colour: str, alpha=None) -> None:
        pm = self._dot(size, colour)
        r = pm.width() / pm.devicePixelRatio() / 2
        if alpha is None:
            for x, y in zip(xs.tolist(), ys.tolist()):
                p.drawPixmap(QPointF(x - r, y - r), pm)
            return
        for x, y, a in zip(xs.tolist(), ys.tolist(), alpha.tolist()):
            p.setOpacity(a)
            p.drawPixmap(QPointF(x - r, y - r), pm)
        p.setOpacity(1.0)

    def _place(self, which: str, idx: np.ndarray, from_right: bool):
        cols, rows, cell = self._grids[which]
        inner = self._inner[1 if which == "waiting" else 2]
        cap = cols * rows
        shown = idx[:cap]
        k = np.arange(shown.size)
        col, row = k // rows, k % rows
        x = (inner.right() - (col + 0.5) * cell) if from_right else (inner.left() + (col + 0.5) * cell)
        y = inner.top() + (row + 0.5) * cell
        return shown, x, y, cell * 0.78, idx.size - shown.size

    def _paint_dots(self, p: QPainter) -> None:
        t, k = self.t_sim, self.clock.sim_s_per_screen_s
        flight = FLIGHT_S * k
        sent, adm, first, fin = self._sent, self._adm, self._first, self._fin
        self._overflow = {}
        base = min(self._grids["running"][2], self._grids["waiting"][2], self._inner[0].width() / 5) * 0.78
        # arriving: in flight across the first lane
        arr = np.flatnonzero((sent > t) & (sent <= t + flight))
        arr = arr[arr % self._fly_stride == 0]
        p.save()
        if arr.size:
            lane = self._inner[0]
            p.setClipRect(self._lanes[0])
            frac = 1.0 - (sent[arr] - t) / flight
            frac = base / 2 / lane.width() + frac * (1 - base / lane.width())
            ys = lane.top() + base / 2 + (arr * 0.6180339887 % 1.0) * (lane.height() - base)
            self._dots(p, lane.left() + frac * lane.width(), ys, base, COLOURS["waiting"])
        p.restore()
        wait = np.flatnonzero((sent <= t) & (adm > t))
        shown, x, y, size, extra = self._place("waiting", wait, from_right=True)
        self._dots(p, x, y, size, COLOURS["waiting"])
        self._overflow["Waiting"] = extra
        run = np.flatnonzero((adm <= t) & (fin > t))
        shown, x, y, size, extra = self._place("running", run, from_right=False)
        pre = first[shown] > t
        self._dots(p, x[pre], y[pre], size, COLOURS["prefill"])
        self._dots(p, x[~pre], y[~pre], size, COLOURS["decode"])
        self._overflow["Running on the GPU"] = extra
        gone = np.flatnonzero((fin <= t) & (fin > t - flight))
        gone = gone[gone % self._fly_stride == 0]
        if gone.size:
            lane = self._inner[3]
            p.save()
            p.setClipRect(self._lanes[3])
            frac = (t - fin[gone]) / flight
            ys = lane.top() + base / 2 + (gone * 0.6180339887 % 1.0) * (lane.height() - base)
            x = lane.left() + base / 2 + frac * (lane.width() - base)
            self._dots(p, x, ys, base, COLOURS["done"], alpha=1.0 - 0.8 * frac)
            p.restore()

    def _paint_words(self, p: QPainter) -> None:
        tm = self.theme
        counts = lane_count_forms(self.run, self.t_sim)
        p.setFont(self._font(14))
        p.setPen(QColor(tm.text))
        h = self.height()
        painted = []
        for name, r in zip(LANES, self._lanes):     # the longest form that fits under its lane (a narrow lane: fewer words)
            extra = self._overflow.get(name, 0)
            forms = ((counts[name][0] + f"  (+{extra:,} not drawn)",) if extra else ()) + counts[name]
            text = first_fitting(forms, p.font(), r.width() + 6, elide=False)
            painted.append(_text(p, QRectF(r.left(), r.bottom() + 2, r.width() + 6, h - r.bottom() - 2),
                                 Qt.AlignLeft | Qt.AlignTop | Qt.TextSingleLine, text))
        p.setPen(QColor(tm.secondary))
        p.setFont(self._font(13))
        left = getattr(self, "_legend_right", 8.0)
        room = self.width() - 8 - left
        head = first_fitting(self.clock.forms(self.t_sim - self._t0), p.font(), room, elide=False)
        if p.fontMetrics().horizontalAdvance(head) <= room:       # none fits beside the legend: no clock line
            painted.append(_text(p, QRectF(left, 0, room, self._lanes[0].top()),
                                 Qt.AlignRight | Qt.AlignVCenter | Qt.TextSingleLine, head))
        self._painted = painted

    def legend(self) -> list[tuple[str, str]]:
        """(colour, words) of the dots, for the page's legend."""
        return [(COLOURS[k], STATE_WORDS[k]) for k in ("waiting", "prefill", "decode", "done")]

    def shown_texts(self) -> list[str]:
        """The words the view paints now (tests, the screen-text walk)."""
        if self.run is None:
            return []
        painted = getattr(self, "_painted", None)
        words = [w for w, _ in painted] if painted else list(lane_counts(self.run, self.t_sim).values()) + [self.clock.text]
        return [n.upper() for n in LANES] + words + ([self.clock.text] if any(self.clock.text in w for w in words) else [])

    def painted_boxes(self) -> list[tuple[str, QRectF]]:
        """(words, where they are) of every text the view painted last: lane titles, legend, counts, clock
        (the stage checks: none outside the view or over another)."""
        return list(getattr(self, "_static_boxes", None) or []) + list(self._painted or [])
