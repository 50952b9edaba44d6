"""Lesson 2: GPU shape — throughput over latency.

model.lessons.latency_hiding(warps, divergence, latency_cycles = the GPU's HBM latency in
cycles): a strip chart with one row per warp (waiting on memory / issuing / ready but not
chosen) over one steady-state period, and the 32 lanes of a warp (busy or masked).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSignalBlocker, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QSlider, QWidget

from model.format import percent
from model.lessons import hbm_latency_cycles, latency_hiding
from ui import theme as th
from ui.chapters.base import ChapterView

LANES = 32
MAX_WARPS = 64


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    c = QColor(hex_colour)
    return c.red(), c.green(), c.blue()


class LaneBar(QWidget):
    """32 lanes: bright = doing useful work, grey = masked by divergence; brightness = issue rate."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.busy = 0.0
        self.masked = 0
        self.theme = th.DARK
        self.setMinimumHeight(34)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)

    def set_values(self, busy: float, masked_lanes: int) -> None:
        self.busy, self.masked = float(busy), int(masked_lanes)
        self.update()

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.setFixedHeight(max(30, t.px(40)))
        self.update()

    def paintEvent(self, _ev) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing, False)
        t = self.theme
        w, h = self.width(), self.height()
        cell = (w - 2) / LANES
        on = QColor(th.BLUISH_GREEN)
        idle = QColor(t.hbm_free)
        lit = QColor(int(idle.red() + (on.red() - idle.red()) * self.busy),
                     int(idle.green() + (on.green() - idle.green()) * self.busy),
                     int(idle.blue() + (on.blue() - idle.blue()) * self.busy))
        p.setPen(QPen(QColor(t.bg), 1))
        for i in range(LANES):
            r = QRectF(1 + i * cell, 1, cell - 1, h - 2)
            if i >= LANES - self.masked:
                p.setBrush(QColor(t.bg))
                p.setPen(QPen(QColor(t.roof_dim), 1, Qt.DashLine))
            else:
                p.setBrush(lit)
                p.setPen(QPen(QColor(t.bg), 1))
            p.drawRect(r)
        p.end()


class GpuShapeChapter(ChapterView):
    def build(self) -> None:
        self.result = None
        self.strip_title = QLabel("")
        self.strip_title.setObjectName("chartTitle")
        self.chart_lay.addWidget(self.strip_title)
        self.strip = self.make_plot("cycles (one steady-state period: compute, then wait for HBM)", "warp")
        self.image = pg.ImageItem(axisOrder="row-major")
        self.strip.addItem(self.image)
        self.strip.getPlotItem().invertY(True)
        self.chart_lay.addWidget(self.strip, 1)
        self.legend_label = QLabel("")
        self.legend_label.setObjectName("chapterNote")
        self.legend_label.setTextFormat(Qt.RichText)
        self.chart_lay.addWidget(self.legend_label)
        self.lanes_title = QLabel("")
        self.lanes_title.setObjectName("chartTitle")
        self.chart_lay.addWidget(self.lanes_title)
        self.lanes = LaneBar()
        self.chart_lay.addWidget(self.lanes)

        self.warps_label = QLabel("")
        self.warps_label.setObjectName("controlLabel")
        self.side_lay.addWidget(self.warps_label)
        self.warps_slider = QSlider(Qt.Horizontal)
        self.warps_slider.setRange(1, MAX_WARPS)
        self.warps_slider.valueChanged.connect(lambda v: self.set_params(warps=int(v)))
        self.side_lay.addWidget(self.warps_slider)
        self.div_label = QLabel("")
        self.div_label.setObjectName("controlLabel")
        self.side_lay.addWidget(self.div_label)
        self.div_slider = QSlider(Qt.Horizontal)
        self.div_slider.setRange(0, 100)
        self.div_slider.valueChanged.connect(lambda v: self.set_params(divergence=v / 100.0))
        self.side_lay.addWidget(self.div_slider)
        self.numbers = self.note_label(name="chapterValue")
        self.side_lay.addWidget(self.numbers)
        self.side_note = self.note_label(
            "A Hopper SM scheduler holds at most 16 warps; the slider goes further to show the curve flatten.")
        self.side_lay.addWidget(self.side_note)

    def sync_controls(self) -> None:
        w = int(round(self.params.get("warps", 1)))
        d = float(self.params.get("divergence", 0.0))
        with QSignalBlocker(self.warps_slider):
            self.warps_slider.setValue(w)
        with QSignalBlocker(self.div_slider):
            self.div_slider.setValue(int(round(d * 100)))
        self.warps_label.setText(f"Warps in flight: {w}")
        self.div_label.setText(f"Divergence: {percent(d)} of branches")

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.lanes.set_theme(t)
        self.lut = np.array([_rgb(t.hbm_free), _rgb(th.BLUISH_GREEN), _rgb(th.SKY_BLUE)], dtype=np.uint8)

    def update_view(self, e) -> None:
        t = self.theme
        hw = self.catalog.gpu(e.scenario.gpu)
        lat = hbm_latency_cycles(hw)
        w = int(round(self.params.get("warps", 1)))
        d = float(self.params.get("divergence", 0.0))
        r = self.result = latency_hiding(w, d, latency_cycles=lat)
        rgb = self.lut[r.timeline]
        self.image.setImage(rgb, autoLevels=False, levels=(0, 255))
        cycles = r.timeline.shape[1]
        self.image.setRect(QRectF(0, -0.5, cycles, r.warps))
        vb = self.strip.getPlotItem().vb
        vb.setRange(xRange=(0, cycles), yRange=(-0.5, r.warps - 0.5), padding=0)
        ax = self.strip.getPlotItem().getAxis("left")
        step = max(1, int(np.ceil(r.warps / 16)))
        ax.setTicks([[(i, str(i + 1)) for i in range(0, r.warps, step)]])
        self.strip_title.setText(f"ONE SCHEDULER ON {hw.short_name.upper()}: {r.warps} WARP"
                                 f"{'S' if r.warps > 1 else ''} · {r.compute_cycles} CYCLES OF MATHS, THEN A "
                                 f"{r.latency_cycles}-CYCLE HBM LOAD")
        self.legend_label.setText(
            f"<span style='color:{th.BLUISH_GREEN}'>■</span> issuing &nbsp; "
            f"<span style='color:{th.SKY_BLUE}'>■</span> ready, waiting for its turn &nbsp; "
            f"<span style='color:{t.roof_dim}'>■</span> waiting on memory")
        masked = int(round(LANES * d / 2.0))
        self.lanes.set_values(r.issue_busy, masked)
        self.lanes_title.setText(f"THE 32 LANES OF A WARP: {percent(r.lane_use)} DOING USEFUL WORK"
                                 + (f" ({masked} MASKED BY DIVERGENCE)" if masked else ""))
        self.numbers.setText(
            f"Scheduler issuing <b>{percent(r.issue_busy)}</b> of cycles<br>"
            f"Lanes doing useful work <b>{percent(r.lane_use)}</b><br>"
            f"Warps needed to hide {r.latency_cycles} cycles: <b>{r.warps_needed}</b>")
        tips = self.strip.tips
        tips.clear()
        for i in range(r.warps):
            row = r.timeline[i]
            tips.rect(0, i - 0.5, cycles, i + 0.5,
                      f"Warp {i + 1} over one {cycles}-cycle period: issuing {int((row == 1).sum())} cycles, "
                      f"ready but not chosen {int((row == 2).sum())}, waiting on memory {int((row == 0).sum())}\n"
                      f"Scheduler issuing {percent(r.issue_busy)} of cycles; {r.latency_cycles}-cycle HBM latency")
        self.strip.setToolTip(f"HBM latency {r.latency_cycles} cycles on {hw.short_name} "
                              f"(measured ns × clock); each warp computes {r.compute_cycles} cycles per load")

    def csv_rows(self):
        r = self.result
        header = ["warp", "cycles_issuing", "cycles_ready_not_chosen", "cycles_waiting_on_memory", "period_cycles",
                  "scheduler_issue_busy", "lane_use", "warps_needed", "latency_cycles", "divergence"]
        rows = []
        for i in range(r.warps):
            row = r.timeline[i]
            rows.append([i + 1, int((row == 1).sum()), int((row == 2).sum()), int((row == 0).sum()), row.size,
                         r.issue_busy, r.lane_use, r.warps_needed, r.latency_cycles, r.divergence])
        return header, rows
