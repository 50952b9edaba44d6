"""The Plan page's chart (pyqtgraph, log-log, built once; every change is setData): every
configuration as a faint cloud, the frontier, the Explore setup's path over the batch caps and
its current point, published runs of the scenario (★), the TPOT target as a line and the cheapest
setup as a ring. Everything drawn is a readout of model/readouts/planning.plan_chart; clicking a
frontier point asks (``point_clicked``) for that point to be loaded into Explore and Serve.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ui.kit import theme as th
from ui.kit.pens import brush, pen, set_symbol_style
from ui.plotting.axes import SIAxis, line_height
from ui.plotting.coords import LOG_LOG, log10_array


CLOUD_RGB = (150, 150, 150)      # every configuration: faint grey dots (the key shows them solid)


def _log(v):
    """Data → view coordinates of a log axis (scatter items take view coordinates)."""
    return log10_array(v)


class FrontierChart(QWidget):
    point_clicked = Signal(int)          # the plan's point index

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget(axisItems={"bottom": SIAxis("bottom"), "left": SIAxis("left")}, enableMenu=False)
        pi = self.plot.getPlotItem()
        pi.setLogMode(x=True, y=True)
        pi.setMouseEnabled(x=False, y=False)
        pi.hideButtons()
        pi.setMenuEnabled(False)
        pi.vb.disableAutoRange()
        lay.addWidget(self.plot)
        self.cloud = pg.ScatterPlotItem(size=4, pxMode=True)
        self.frontier = self.plot.plot()
        self.front_points = pg.ScatterPlotItem(size=13, pxMode=True, hoverable=True)
        self.path = self.plot.plot()
        self.measured = self.plot.plot(pen=None, symbol="star", symbolSize=24)
        self.cheapest = self.plot.plot(pen=None, symbol="o", symbolSize=30)
        self.now = self.plot.plot(pen=None, symbol="o", symbolSize=18)
        self.target = pg.InfiniteLine(angle=90, movable=False)
        for z, item in enumerate((self.cloud, self.frontier, self.front_points, self.path, self.measured,
                                  self.cheapest, self.now)):
            item.setZValue(z)
        for item in (self.cloud, self.front_points):
            self.plot.addItem(item)
        self.plot.addItem(self.target, ignoreBounds=True)
        self.front_points.sigClicked.connect(self._clicked)
        self.front_points.setCursor(Qt.PointingHandCursor)
        self.data = None
        self.theme = th.get_theme("dark")

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.plot.setBackground(t.bg)
        th.style_plot_axes(self.plot.getPlotItem(), t, self.data.x_label if self.data else "",
                           self.data.y_label if self.data else "", 6.0)
        bottom = self.plot.getPlotItem().getAxis("bottom")
        bottom.setStyle(autoExpandTextSpace=False,      # room for the tick names' full line, so the axis title
                        tickTextHeight=line_height(bottom.style["tickFont"]))    # under them never overlaps them
        self.cloud.setPen(pen(None))
        self.cloud.setBrush(brush((*CLOUD_RGB, 60)))
        self.frontier.setPen(pen(th.BLUISH_GREEN, width=3))
        self.front_points.setPen(pen(t.bg, width=1))
        self.front_points.setBrush(brush(th.BLUISH_GREEN))
        self.path.setPen(pen(th.SKY_BLUE, width=2, style=Qt.DashLine))
        self.target.setPen(pen(th.VERMILLION, width=2, style=Qt.DashLine))
        set_symbol_style(self.measured, pen(t.bg, width=1), brush(th.YELLOW))
        set_symbol_style(self.cheapest, pen(th.ORANGE, width=3), brush(None))
        set_symbol_style(self.now, pen(t.op_outline, width=2), brush(t.op_point))

    def key_entries(self, d) -> list[tuple[str, str, str]]:
        """(colour, the readout's words, swatch) for each kind of thing drawn (ui.plotting.keys.key_html)."""
        t = self.theme
        look = {"frontier": (th.BLUISH_GREEN, "line"), "cloud": ("#%02X%02X%02X" % CLOUD_RGB, "dot"),
                "current": (t.op_point, "dot"),
                "path": (th.SKY_BLUE, "dashed"), "cheapest": (th.ORANGE, "ring"), "target": (th.VERMILLION, "dashed"),
                "measured": (th.YELLOW, "star")}
        return [(*look[k][:1], words, look[k][1]) for k, words in d.keys]

    def set_data(self, d) -> None:
        """Draw ``d`` (model.readouts.planning.PlanChart)."""
        first = self.data is None
        self.data = d
        if first:
            self.set_theme(self.theme)
        self.cloud.setData(_log(d.cloud_x), _log(d.cloud_y))
        self.frontier.setData(d.frontier_x, d.frontier_y)
        self.front_points.setData(_log(d.frontier_x), _log(d.frontier_y), data=list(d.frontier_index),
                                  tip=None)
        self.front_points.setToolTip("Click a point: load it into Explore and Serve")
        self.path.setData(d.path_x, d.path_y)
        self.measured.setData(d.measured_x, d.measured_y)
        self.cheapest.setData(*([d.cheapest[0]], [d.cheapest[1]]) if d.cheapest else ([], []))
        self.now.setData(*([d.current[0]], [d.current[1]]) if d.current else ([], []))
        self.target.setVisible(d.target_x is not None)
        if d.target_x is not None:
            self.target.setValue(LOG_LOG.x(d.target_x))
        self.plot.getPlotItem().vb.setRange(xRange=[LOG_LOG.x(v) for v in d.x_span],
                                            yRange=[LOG_LOG.y(v) for v in d.y_span], padding=0)

    def _clicked(self, _item, points, *_):
        if points is not None and len(points):
            self.point_clicked.emit(int(points[0].data()))
