"""The roofline, log–log: arithmetic intensity (FLOP/byte) against attained FLOP/s per GPU.

Draws only what the model says: the HBM bandwidth slope, one compute roof per tensor path
the GPU has, the ridge point of the current compute type, the operating point from the
Estimate and the batch trail from model.physics.sweep (batch 1, 2, 4 … 4096), and a faint second
GPU at the precision its estimate runs at. Every item is created once (the comparison's, and
roof labels beyond four, when first needed) and updated with setData; every word and number
comes from model.readouts.roofline. Hover any item for its numbers (ui.plotting.hover, the one hover
engine).
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from model.readouts import roofline as rr
from model.physics.roofline import attainable_flops
from ui.kit import pens
from ui.kit import theme as th
from ui.kit.deliver import deliver_now
from ui.plotting.hover import HoverTips
from ui.kit.page_catch_up import CatchUpWhenShown
from ui.plotting.axes import SIAxis
from ui.plotting.coords import LOG_LOG, log10, shift
from ui.plotting.keys import key_html
from ui.plotting.labels import add_text, set_boxed, set_text
from ui.explore.roofline_ahead import AxesWarmer, view_range
from ui.explore.roofline_labels import RooflineLabelsMixin

MAX_ROOFS = 8
FIRST_ROOF_LABELS = 4          # made with the plot; more when a GPU has more roofs
TRAIL_LABELS = (1, 16, 256)
HOVER_PX = 13.0      # points within 13 px; lines within 9 px (ui.plotting.hover's line penalty)


def _clear(item) -> None:
    """Empty an item, unless it is empty already (setData re-plots even when nothing changes)."""
    x, _ = item.getData()
    if x is not None and len(x):
        item.setData(x=[], y=[])


def _put(item, x, y, **style) -> None:
    """Place a curve's or a scatter's points: model values, log10 on the log–log axes. (The
    lines and markers are plain PlotCurveItem/ScatterPlotItem, which take view coordinates:
    a PlotDataItem, which would take the log itself, costs 4× as much to make and 6–9× to
    update, for a curve and a scatter each, used or not.) Points it shows already (a batch
    change leaves the slope and the ridge where they are) leave it alone: setData re-plots
    and repaints even then."""
    xs, ys = LOG_LOG.xs(x), LOG_LOG.ys(y)
    if not style:
        old_x, old_y = item.getData()
        if old_x is not None and np.array_equal(old_x, xs) and np.array_equal(old_y, ys):
            return
    item.setData(x=xs, y=ys, **style)


LABEL_Z = 15          # labels over the slope and the dashed ridge line, on a backing box


def _style_label(item, t: th.Theme, boxed: bool) -> None:
    """13 px words; ``boxed``: on a backing box in the plot's background colour, so no line
    ever runs through a label's words."""
    font = QFont()
    font.setPixelSize(t.px(13))
    item.setFont(font)
    if boxed:
        set_boxed(item, t.bg)


class RooflinePlot(CatchUpWhenShown, RooflineLabelsMixin, QWidget):
    explain_requested = Signal(str)         # a click on the point, a kernel, the slope, the roof or the ridge

    def __init__(self, snapshot, theme: th.Theme = th.DARK, parent=None):
        super().__init__(parent)
        self.setObjectName("panel")
        self.theme = theme
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 4)
        lay.setSpacing(2)
        self.title = QLabel("ROOFLINE")
        self.title.setObjectName("sectionTitle")
        lay.addWidget(self.title)

        # no context menus: pyqtgraph would build the view box's menu (2 ms) only to drop it
        self.plot = pg.PlotWidget(axisItems={"bottom": SIAxis("bottom"), "left": SIAxis("left")},
                                  enableMenu=False)
        self.plot.setObjectName("rooflinePlot")
        lay.addWidget(self.plot, 1)
        pi = self.plot.getPlotItem()
        pi.setLogMode(x=True, y=True)
        pi.setMouseEnabled(x=False, y=False)
        pi.hideButtons()
        pi.setMenuEnabled(False)
        pi.vb.setMouseEnabled(False, False)
        pi.vb.disableAutoRange()
        # our own decade grid (one item): pyqtgraph's log-mode grid costs ~10 ms a paint here
        self.grid = self._curve(connect="pairs")
        self.grid.setZValue(-10)
        self.vb = pi.vb

        # created once; updated with setData (the comparison's items and roof labels beyond the
        # first few: when first needed, ``_compare_items`` and ``_roof_label``)
        self._compare = None
        self.slope = self._curve()
        self.roof_lines = self._curve(connect="pairs")     # the other roofs: one segment each
        self.active_roof = self._curve(connect="pairs")    # the roof this scenario runs on
        self.roof_labels = [add_text(self.plot, (1, 1), LABEL_Z) for _ in range(FIRST_ROOF_LABELS)]
        self.ridge_line = self._curve()
        self.ridge_point = self._marker("d", 12)
        self.ridge_label = add_text(self.plot, (0, 1), LABEL_Z)
        self.trail = self._curve()                      # the batch trail's line
        self.trail_dots = self._marker("o", 8)          # and its dots (hollow where it does not fit)
        self.trail_labels = [add_text(self.plot, (0.2, -0.15), z=None) for _ in TRAIL_LABELS]
        self.kernel_dots = self._marker("d", 11)        # the step's kernels, one point each
        self.kernel_legend = add_text(self.plot, (0, 0), LABEL_Z)
        self.op = self._marker("o", 24)
        self.op_label = add_text(self.plot, (0, 0.5), z=21)
        self.op.setZValue(20)
        self.trail.setZValue(10)
        self.trail_dots.setZValue(10)
        self.ridge_point.setZValue(16)
        self._op_xy = (0.0, 0.0)
        self.tips = HoverTips(self.plot, log_x=True, log_y=True, radius_px=HOVER_PX)
        self.tips.explain_requested.connect(self.explain_requested)
        self.kernel_dots.setZValue(12)
        self.vb.sigResized.connect(self._layout_labels)
        self._ahead = AxesWarmer(self)          # the menu GPUs' axis pictures, made while idle
        self.vb.sigResized.connect(self._ahead.restart)

        self._snap = snapshot
        self.set_theme(theme)           # (and shows the current snapshot)

    # ---------------------------------------------------------------- items
    def _curve(self, connect: str = "all") -> pg.PlotCurveItem:
        item = pg.PlotCurveItem(connect=connect)
        self.plot.addItem(item)
        return item

    def _marker(self, symbol: str, size: float) -> pg.ScatterPlotItem:
        item = pg.ScatterPlotItem(symbol=symbol, size=size, pxMode=True)
        self.plot.addItem(item)
        return item

    # ---------------------------------------------------------------- made when first needed
    def _compare_items(self) -> tuple:
        """(slope, roof, point, label) of the comparison GPU: made on the first comparison."""
        if self._compare is None:
            slope, roof, point = self._curve(), self._curve(), self._marker("t", 13)
            label = add_text(self.plot, (1, 0), LABEL_Z)
            for item in (slope, roof, point):
                item.setZValue(-1)          # beneath this GPU's lines, as a faint reference
            self._compare = (slope, roof, point, label)
            self._style_compare(self.theme)
        return self._compare

    compare_slope = property(lambda self: self._compare_items()[0])
    compare_roof = property(lambda self: self._compare_items()[1])
    compare_point = property(lambda self: self._compare_items()[2])
    compare_label = property(lambda self: self._compare_items()[3])

    def _made_labels(self) -> tuple:
        """Every text item made so far (the comparison's once it exists)."""
        extra = (self._compare[3],) if self._compare is not None else ()
        return (*extra, *self.roof_labels, self.ridge_label, *self.trail_labels, self.op_label, self.kernel_legend)

    def _roof_label(self, i: int):
        """The i-th roof label (0 = the highest roof), made when a GPU first has that many roofs."""
        while len(self.roof_labels) <= i:
            lab = add_text(self.plot, (1, 1), LABEL_Z)
            _style_label(lab, self.theme, boxed=True)
            self.roof_labels.append(lab)
        return self.roof_labels[i]

    # ---------------------------------------------------------------- look
    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.plot.setBackground(t.bg)
        x_title, y_title = rr.axis_titles(self._snap.estimate) if self._snap is not None else \
            ("Arithmetic intensity (FLOP per byte of HBM traffic)", "Attained FLOP/s per GPU")
        th.style_plot_axes(self.plot.getPlotItem(), t, x_title, y_title, left_em=4.6)
        self.plot.getPlotItem().setContentsMargins(0, t.px(13) * 0.6, 0, 0)    # room for the top tick's name
        # shared pens and brushes (ui.kit.pens): a theme change adds no picture to a symbol atlas
        self.slope.setPen(pens.pen(th.ORANGE, width=2))
        self.active_roof.setPen(pens.pen(th.BLUISH_GREEN, width=2))
        self.roof_lines.setPen(pens.pen(t.roof_dim))
        self.grid.setPen(pens.pen(t.plot_grid))
        self.ridge_line.setPen(pens.pen(t.secondary, style=Qt.DashLine))
        pens.set_marker_style(self.ridge_point, pens.pen(t.bg), pens.brush(t.text))
        self.trail.setPen(pens.pen(t.trail))
        pens.set_marker_style(self.op, pens.pen(t.op_outline, width=2), pens.brush(t.op_point))
        pens.set_marker_style(self.kernel_dots, pens.pen(t.bg), pens.brush(th.SKY_BLUE))
        if self._compare is not None:
            self._style_compare(t)
        for item in (*self.roof_labels, self.ridge_label, self.op_label, self.kernel_legend):
            _style_label(item, t, boxed=True)
        for item in self.trail_labels:
            _style_label(item, t, boxed=False)
        big = QFont()
        big.setPixelSize(t.px(15))
        big.setBold(True)
        self.op_label.setFont(big)
        if self.newest() is not None:
            self.show_snapshot(self.newest(), force=True)

    apply_theme = set_theme

    def _style_compare(self, t: th.Theme) -> None:
        slope, roof, point, label = self._compare
        slope.setPen(pens.pen(t.compare, style=Qt.DashLine))
        roof.setPen(pens.pen(t.compare, style=Qt.DashLine))
        pens.set_marker_style(point, pens.pen(t.bg), pens.brush(t.compare))
        _style_label(label, t, boxed=True)

    # ---------------------------------------------------------------- data
    def show_snapshot(self, snap, force: bool = False) -> None:
        """Place what model.readouts.roofline says of ``snap``: roofs, ridge, trail, operating point,
        comparison (nothing to redraw when only the problem line changed)."""
        if self.on_hidden_page(snap):
            return
        old, self._snap = self._snap, snap
        if not force and old is not None and old is not snap and (old.estimate, old.compare, old.compare_estimate) == \
                (snap.estimate, snap.compare, snap.compare_estimate) and old.estimate is snap.estimate:
            return
        e, hw, cmp_hw = snap.estimate, snap.hardware, snap.compare
        x_title = rr.axis_titles(e)[0]
        if x_title != self.plot.getPlotItem().getAxis("bottom").labelText:      # another part's words
            self.plot.getPlotItem().setLabel("bottom", x_title, **{"color": self.theme.secondary,
                                                                  "font-size": f"{self.theme.px(13)}px"})
        sw = snap.sweep if e.phase == "decode" else None
        roofs = rr.roofs(hw, e)
        croof = rr.comparison_roof(e, cmp_hw, snap.catalog) if cmp_hw is not None else None
        kp = rr.kernel_points(e)
        x0, x1, y0 = self._set_range(e, sw, roofs, croof, kp)
        self.tips.clear()
        op_x, op_y = e.arithmetic_intensity_flops_per_byte, e.achieved_flops
        self.tips.point(op_x, op_y, rr.operating_point_tooltip(e), key="achieved_flops")
        _put(self.kernel_dots, [k[0] for k in kp], [k[1] for k in kp])
        for x, y, text, key in kp:
            self.tips.point(x, y, text, key=key)
        unfit = sw is not None and not bool(np.all(sw.fits))     # the trail has hollow dots: name them
        lines = ((rr.KERNEL_LEGEND, th.SKY_BLUE), *(((rr.UNFIT_LEGEND, th.VERMILLION),) if unfit else ()))
        if lines != getattr(self, "_legend_shown", None):          # a new text re-lays out its document
            self._legend_shown = lines
            self.kernel_legend.setHtml(key_html(((c, w, None) for w, c in lines), between="<br>"))
        self.kernel_legend.setPos(*shift(LOG_LOG.point(x0, 10 ** self._y_span[1]), dx=0.03, dy=-0.03))
        ce = snap.compare_estimate if croof is not None else None
        if ce is not None:
            self.tips.point(ce.arithmetic_intensity_flops_per_byte, ce.achieved_flops,
                            rr.comparison_point_text(ce, croof.gpu_name))
        self._show_roofs(hw, e, roofs, x0, x1)
        self._show_ridge(e, y0)
        self._show_trail(e, sw)
        _put(self.op, [op_x], [op_y])
        set_text(self.op_label, rr.operating_point_label(e), self.theme.op_point)
        self._op_xy = LOG_LOG.point(op_x, op_y)
        self._show_comparison(croof, ce, x0, x1)
        self._layout_labels()
        self.title.setText(rr.title(hw, e))
        self._ahead.restart()

    def deliver_scene_updates(self, *_args) -> None:
        """``deliver_now`` for this plot: the main window calls it after every panel has taken a
        new snapshot, so the window's one repaint shows them all (not the plot a repaint later)."""
        if self.isVisible():               # (the Lessons page shown: its views update after this)
            deliver_now(self.plot)

    def _set_range(self, e, sw, roofs, croof, kp) -> tuple[float, float, float]:
        """View range (decades) that holds everything (``kp``: the step's kernel points) with room
        to spare (ui.explore.roofline_ahead.view_range), and the decade grid."""
        x0, x1, y0, y1 = view_range(e, sw, roofs, croof, kp)
        self.vb.setRange(xRange=(log10(x0), log10(x1)), yRange=(log10(y0), log10(y1)), padding=0)
        self._x0, self._x1 = x0, x1
        self._y_span = (log10(y0), log10(y1))
        if getattr(self, "_drawn_grid", None) == (x0, x1, y0, y1):
            return x0, x1, y0
        self._drawn_grid = (x0, x1, y0, y1)
        gx, gy = [], []
        for k in range(int(round(log10(x0))), int(round(log10(x1))) + 1):
            gx += [10.0 ** k, 10.0 ** k]
            gy += [y0, y1]
        for k in range(int(round(log10(y0))), int(math.floor(log10(y1))) + 1):
            gx += [x0, x1]
            gy += [10.0 ** k, 10.0 ** k]
        _put(self.grid, gx, gy)
        return x0, x1, y0

    def _show_roofs(self, hw, e, roofs, x0: float, x1: float) -> None:
        """The bandwidth slope up to the highest roof, and one roof per distinct peak."""
        t = self.theme
        top = roofs[0]
        sx = np.array([x0, top.ridge_flops_per_byte])
        sy = attainable_flops(sx, top.peak_flops, top.bandwidth_bytes_per_s)
        _put(self.slope, sx, sy)
        self.tips.line(list(zip(sx, sy)), rr.slope_text(hw, e), key="peak_bandwidth")
        self._roof_label_slots = []
        same = getattr(self, "_drawn_roofs", None) == (roofs, x1, t)    # a batch change moves no roof
        if not same:
            self._drawn_roofs = (roofs, x1, t)
            self._draw_roof_lines(roofs, x1)
        for i in range(max(len(self.roof_labels), min(len(roofs), MAX_ROOFS))):
            lab = self._roof_label(i)
            if same:
                if i < len(roofs):
                    self._roof_label_slots.append((roofs[i].active, log10(roofs[i].peak_flops), lab, lab.forms))
                    self.tips.line(list(zip([roofs[i].ridge_flops_per_byte, x1], [roofs[i].peak_flops] * 2)),
                                   roofs[i].tooltip, key="peak_flops" if roofs[i].active else "")
                continue
            if i >= len(roofs):
                lab.setVisible(False)
                continue
            roof = roofs[i]
            colour = th.BLUISH_GREEN if roof.active else t.roof_dim
            set_text(lab, roof.forms[0], colour)
            lab.forms = list(roof.forms)
            lab.setPos(*shift(LOG_LOG.point(x1, roof.peak_flops), dx=-0.03))
            lab.setVisible(True)
            self._roof_label_slots.append((roof.active, log10(roof.peak_flops), lab, lab.forms))
            self.tips.line(list(zip([roof.ridge_flops_per_byte, x1], [roof.peak_flops] * 2)), roof.tooltip,
                           key="peak_flops" if roof.active else "")

    def _draw_roof_lines(self, roofs, x1: float) -> None:
        """Each roof a segment from its ridge to the right edge: the active one bold in green,
        the others thin and dim (two items, whatever the number of roofs)."""
        for item, active in ((self.active_roof, True), (self.roof_lines, False)):
            mine = [r for r in roofs[:MAX_ROOFS] if r.active == active]
            if not mine:
                _clear(item)
                continue
            _put(item, [x for r in mine for x in (r.ridge_flops_per_byte, x1)],
                 [r.peak_flops for r in mine for _ in range(2)])

    def _show_ridge(self, e, y0: float) -> None:
        r = e.ridge_flops_per_byte
        label, point_tip, line_tip = rr.ridge_texts(e)
        _put(self.ridge_line, [r, r], [y0, e.peak_flops])
        _put(self.ridge_point, [r], [e.peak_flops])
        set_text(self.ridge_label, label, self.theme.text)
        self.ridge_label.setPos(*shift(LOG_LOG.point(r, y0), dx=0.03))
        self.tips.point(r, e.peak_flops, point_tip, key="ridge")
        self.tips.line([(r, y0), (r, e.peak_flops)], line_tip, key="ridge")

    def _show_trail(self, e, sw) -> None:
        """The batch trail (decode only): one dot per batch, hollow where it does not fit."""
        t = self.theme
        if sw is None:
            self._drawn_trail = None
            _clear(self.trail)
            _clear(self.trail_dots)
            for lab in self.trail_labels:
                lab.setVisible(False)
            return
        bx, by = sw.arithmetic_intensity_flops_per_byte, sw.achieved_flops
        fits = np.asarray(sw.fits, dtype=bool)
        key = (bx.tobytes(), by.tobytes(), fits.tobytes(), t)     # the same trail for every batch
        if key != getattr(self, "_drawn_trail", None):
            self._drawn_trail = key
            _put(self.trail, bx, by)
            _put(self.trail_dots, bx, by, brush=[pens.brush(t.trail if f else t.bg) for f in fits],
                 pen=[pens.pen(t.bg if f else th.VERMILLION) for f in fits])
        for lab, b in zip(self.trail_labels, TRAIL_LABELS):
            idx = np.nonzero(sw.batch == b)[0]
            if idx.size and b != e.scenario.batch:
                k = int(idx[0])
                set_text(lab, f"B={b}", t.secondary)
                lab.setPos(*LOG_LOG.point(bx[k], by[k]))
                lab.setVisible(True)
            else:
                lab.setVisible(False)
        for k in range(len(sw.batch)):          # each text written when hovered
            self.tips.point(bx[k], by[k], partial(rr.sweep_point_text, sw, k))

    def _show_comparison(self, croof, ce, x0: float, x1: float) -> None:
        """The faint comparison GPU: its slope and its roof at the precision its estimate runs at."""
        if croof is None:
            if self._compare is not None:
                for item in self._compare[:3]:
                    _clear(item)
                self._compare[3].setVisible(False)
            return
        t = self.theme
        cx = np.array([x0, croof.ridge_flops_per_byte])
        cy = attainable_flops(cx, croof.peak_flops, croof.bandwidth_bytes_per_s)
        _put(self.compare_slope, cx, cy)
        _put(self.compare_roof, [croof.ridge_flops_per_byte, x1], [croof.peak_flops, croof.peak_flops])
        set_text(self.compare_label, croof.label, t.compare)
        self.compare_label.setPos(*shift(LOG_LOG.point(x1, croof.peak_flops), dx=-0.03))
        self.compare_label.setVisible(True)
        self.tips.line([(x0, float(cy[0])), (croof.ridge_flops_per_byte, croof.peak_flops),
                        (x1, croof.peak_flops)], croof.tooltip)
        if ce is not None:
            _put(self.compare_point, [ce.arithmetic_intensity_flops_per_byte], [ce.achieved_flops])
        else:
            _clear(self.compare_point)

    # ---------------------------------------------------------------- geometry and hover
    def scene_pos(self, intensity: float, flops: float) -> QPointF:
        """Where a model (intensity, FLOP/s) lands in the plot's scene."""
        return self.vb.mapViewToScene(QPointF(*LOG_LOG.point(intensity, flops)))

    def widget_pos(self, intensity: float, flops: float, widget: QWidget) -> QPointF:
        """The same point in ``widget``'s coordinates (e.g. the main window, for pixel checks)."""
        p = self.plot.mapFromScene(self.scene_pos(intensity, flops))
        return QPointF(self.plot.mapTo(widget, p))

    def tooltip_at(self, scene_pos: QPointF) -> str:
        """The hover text at a scene position ('' when nothing is near): ui.plotting.hover.HoverTips."""
        return self.tips.text_at(scene_pos)
