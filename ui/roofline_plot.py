"""The roofline, log–log: arithmetic intensity (FLOP/byte) against attained FLOP/s per GPU.

Draws only what the model says: the HBM bandwidth slope, one compute roof per tensor path
the GPU has, the ridge point of the current compute type, the operating point from the
Estimate and the batch trail from model.sweep (batch 1, 2, 4 … 4096), and a faint second
GPU. Every item is created once and updated with setData. Hover any of them for numbers.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QToolTip, QVBoxLayout, QWidget

from model.format import duration, percent, si, sig3
from model.roofline import attainable_flops, ridge_flops_per_byte
from ui import theme as th

MAX_ROOFS = 8
TRAIL_LABELS = (1, 16, 256)
HOVER_PX = 9.0


class SIAxis(pg.AxisItem):
    """Log axis ticks as plain SI numbers: 1, 10, 100, 1k … / 1 T, 10 T … FLOP/s."""

    def __init__(self, orientation, unit="", **kw):
        super().__init__(orientation, **kw)
        self.unit = unit

    def tickStrings(self, values, scale, spacing):
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        out = []
        for v in values:
            if abs(v - round(v)) > 1e-6:
                out.append("")
                continue
            n = int(round(v))
            if n < 0:
                out.append(f"{10.0 ** n:g}")
                continue
            k = min(n // 3, len(_PREFIXES) - 1)
            out.append(f"{10 ** (n - 3 * k)} {_PREFIXES[k]}{self.unit}".strip())
        return out


_PREFIXES = ("", "k", "M", "G", "T", "P", "E")


def _log(x: float) -> float:
    return math.log10(max(x, 1e-300))


class RooflinePlot(QWidget):
    def __init__(self, controller, theme: th.Theme = th.DARK, parent=None):
        super().__init__(parent)
        self.setObjectName("panel")
        self.controller = controller
        self.theme = theme
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 4)
        lay.setSpacing(2)
        self.title = QLabel("ROOFLINE")
        self.title.setObjectName("sectionTitle")
        lay.addWidget(self.title)

        self.plot = pg.PlotWidget(axisItems={"bottom": SIAxis("bottom"), "left": SIAxis("left")})
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
        self.grid = self.plot.plot(connect="pairs")
        self.grid.setZValue(-10)
        self.vb = pi.vb

        # created once; updated with setData
        self.compare_slope = self.plot.plot()
        self.compare_roof = self.plot.plot()
        self.compare_point = self.plot.plot(symbol="t", symbolSize=13)
        self.compare_label = pg.TextItem(anchor=(1, 0))
        self.slope = self.plot.plot()
        self.roofs = [self.plot.plot() for _ in range(MAX_ROOFS)]
        self.roof_labels = [pg.TextItem(anchor=(1, 1)) for _ in range(MAX_ROOFS)]
        self.ridge_line = self.plot.plot()
        self.ridge_point = self.plot.plot(symbol="d", symbolSize=12)
        self.ridge_label = pg.TextItem(anchor=(0, 1))
        self.trail = self.plot.plot(symbol="o", symbolSize=8)
        self.trail_labels = [pg.TextItem(anchor=(0.2, -0.15)) for _ in TRAIL_LABELS]
        self.op = self.plot.plot(symbol="o", symbolSize=24)
        self.op_label = pg.TextItem(anchor=(0, 0.5))
        for item in (self.compare_label, *self.roof_labels, self.ridge_label, *self.trail_labels, self.op_label):
            self.plot.addItem(item, ignoreBounds=True)
        self.op.setZValue(20)
        self.op_label.setZValue(21)
        self.trail.setZValue(10)
        for lab in (*self.roof_labels, self.ridge_label, self.compare_label):
            lab.setZValue(15)           # over the slope and the dashed ridge line, on a backing box
        self.ridge_point.setZValue(16)
        self._op_xy = (0.0, 0.0)
        self._hover: list[tuple[str, list[tuple[float, float]]]] = []   # (tooltip, view-coordinate polyline)
        self._last_tip = ""
        self.plot.scene().sigMouseMoved.connect(self._mouse_moved)
        self.vb.sigResized.connect(self._layout_labels)
        self.plot.setMouseTracking(True)

        self.apply_theme(theme)
        controller.estimate_changed.connect(self.update_from)
        if controller.estimate is not None:
            self.update_from(controller.estimate)

    # ---------------------------------------------------------------- look
    def apply_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.plot.setBackground(t.bg)
        th.style_plot_axes(self.plot.getPlotItem(), t, "Arithmetic intensity (FLOP per byte of HBM traffic)",
                           "Attained FLOP/s per GPU", left_em=4.6)
        self.slope.setPen(pg.mkPen(th.ORANGE, width=2))
        self.grid.setPen(pg.mkPen(t.plot_grid, width=1))
        self.ridge_line.setPen(pg.mkPen(t.secondary, width=1, style=Qt.DashLine))
        self.ridge_point.setPen(None)
        self.ridge_point.setSymbolBrush(pg.mkBrush(t.text))
        self.ridge_point.setSymbolPen(pg.mkPen(t.bg))
        self.trail.setPen(pg.mkPen(t.trail, width=1))
        self.trail.setSymbolBrush(pg.mkBrush(t.trail))
        self.trail.setSymbolPen(pg.mkPen(t.bg))
        self.op.setPen(None)
        self.op.setSymbolBrush(pg.mkBrush(t.op_point))
        self.op.setSymbolPen(pg.mkPen(t.op_outline, width=2))
        self.compare_slope.setPen(pg.mkPen(t.compare, width=1, style=Qt.DashLine))
        self.compare_roof.setPen(pg.mkPen(t.compare, width=1, style=Qt.DashLine))
        self.compare_point.setPen(None)
        self.compare_point.setSymbolBrush(pg.mkBrush(t.compare))
        self.compare_point.setSymbolPen(pg.mkPen(t.bg))
        font = QFont()
        font.setPixelSize(t.px(13))
        for item in (self.compare_label, *self.roof_labels, self.ridge_label, *self.trail_labels, self.op_label):
            item.setFont(font)
        # a backing box in the plot's background colour: no line ever runs through a label's words
        backing = pg.mkColor(t.bg)
        backing.setAlpha(215)
        for item in (self.compare_label, *self.roof_labels, self.ridge_label, self.op_label):
            item.fill = pg.mkBrush(backing)
            item.textItem.document().setDocumentMargin(2)     # a snug box: labels fit between roofs
            item.updateTextPos()
            item.update()
        big = QFont()
        big.setPixelSize(t.px(15))
        big.setBold(True)
        self.op_label.setFont(big)
        if self.controller.estimate is not None:
            self.update_from(self.controller.estimate)

    # ---------------------------------------------------------------- data
    def update_from(self, e) -> None:
        t = self.theme
        c = self.controller
        hw = c.catalog.gpu(e.scenario.gpu)
        bw = e.peak_bandwidth_bytes_per_s
        sw = c.sweep if e.phase == "decode" else None
        op_x, op_y = e.arithmetic_intensity_flops_per_byte, e.achieved_flops
        peaks = sorted({v for _, v in hw.peak_flops}, reverse=True)
        cmp_hw = c.catalog.gpu(c.compare_gpu) if c.compare_gpu else None

        # view range: everything visible with room to spare
        xs = [op_x, e.ridge_flops_per_byte, ridge_flops_per_byte(peaks[0], bw)]
        ys = [op_y, peaks[0]]
        if sw is not None:
            xs += [float(sw.arithmetic_intensity_flops_per_byte.min()), float(sw.arithmetic_intensity_flops_per_byte.max())]
            ys += [float(sw.achieved_flops.min())]
        if cmp_hw is not None:
            ys.append(max(v for _, v in cmp_hw.peak_flops))
        x0 = 10 ** math.floor(_log(min(xs) / 1.5))
        x1 = 10 ** math.ceil(_log(max(xs) * 3.0))
        y_low = min(min(ys), float(attainable_flops(x0, peaks[0], bw)))
        y0 = 10 ** math.floor(_log(y_low / 1.5))
        y1 = max(ys) * 4.0
        self.vb.setRange(xRange=(_log(x0), _log(x1)), yRange=(_log(y0), _log(y1)), padding=0)
        self._x0, self._x1 = x0, x1
        gx, gy = [], []
        for k in range(int(round(_log(x0))), int(round(_log(x1))) + 1):
            gx += [10.0 ** k, 10.0 ** k]
            gy += [y0, y1]
        for k in range(int(round(_log(y0))), int(math.floor(_log(y1))) + 1):
            gx += [x0, x1]
            gy += [10.0 ** k, 10.0 ** k]
        self.grid.setData(np.array(gx), np.array(gy))
        hover: list[tuple[str, list[tuple[float, float]]]] = []

        # bandwidth slope up to the highest roof
        ridge_max = ridge_flops_per_byte(peaks[0], bw)
        sx = np.array([x0, ridge_max])
        sy = attainable_flops(sx, peaks[0], bw)
        self.slope.setData(sx, sy)
        hover.append((f"HBM bandwidth slope: {si(bw, 'B/s')} ({hw.short_name})\n"
                      f"attainable FLOP/s = intensity × {si(bw, 'B/s')}", list(zip(sx, sy))))

        # one roof per distinct peak (BF16 and FP16 share one)
        self._roof_label_slots = []
        by_peak: dict[float, list[str]] = {}
        for dtype, v in hw.peak_flops:
            by_peak.setdefault(v, []).append(dtype.upper())
        for i, (item, lab) in enumerate(zip(self.roofs, self.roof_labels)):
            if i >= len(peaks):
                item.setData([], [])
                lab.setVisible(False)
                continue
            p = peaks[i]
            names = " / ".join(by_peak[p])
            active = p == e.peak_flops
            colour = th.BLUISH_GREEN if active else t.roof_dim
            item.setPen(pg.mkPen(colour, width=2 if active else 1))
            rx = np.array([ridge_flops_per_byte(p, bw), x1])
            item.setData(rx, np.array([p, p]))
            lab.setText(f"{names}  {si(p, 'FLOP/s')}")
            lab.forms = [f"{names}  {si(p, 'FLOP/s')}", f"{by_peak[p][0]}  {si(p, 'FLOP/s')}"]
            lab.setColor(colour)
            lab.setPos(_log(x1) - 0.03, _log(p))
            lab.setVisible(True)
            self._roof_label_slots.append((active, _log(p), lab, lab.forms))
            hover.append((f"{names} tensor-core peak: {si(p, 'FLOP/s')} dense per GPU ({hw.short_name})"
                          + ("\nthe roof this scenario runs under" + (" (emulated)" if e.emulated else "")
                             if active else ""), list(zip(rx, [p, p]))))

        # ridge of the current compute type
        r = e.ridge_flops_per_byte
        self.ridge_line.setData(np.array([r, r]), np.array([y0, e.peak_flops]))
        self.ridge_point.setData(np.array([r]), np.array([e.peak_flops]))
        self.ridge_label.setText(f"ridge {sig3(r)} FLOP/B")
        self.ridge_label.setColor(t.text)
        self.ridge_label.setPos(_log(r) + 0.03, _log(y0))
        hover.append((f"Ridge point: {sig3(r)} FLOP/byte = {si(e.peak_flops, 'FLOP/s')} ÷ {si(bw, 'B/s')}\n"
                      "left of it memory-bound, right of it compute-bound", [(r, e.peak_flops)]))
        hover.append((f"Ridge at {sig3(r)} FLOP/byte", [(r, y0), (r, e.peak_flops)]))

        # batch trail
        if sw is not None:
            bx, by = sw.arithmetic_intensity_flops_per_byte, sw.achieved_flops
            fits = np.asarray(sw.fits, dtype=bool)
            self.trail.setData(bx, by, symbolBrush=[pg.mkBrush(t.trail if f else t.bg) for f in fits],
                               symbolPen=[pg.mkPen(t.bg if f else th.VERMILLION) for f in fits])
            for lab, b in zip(self.trail_labels, TRAIL_LABELS):
                idx = np.nonzero(sw.batch == b)[0]
                if idx.size and b != e.scenario.batch:
                    k = int(idx[0])
                    lab.setText(f"B={b}")
                    lab.setColor(t.secondary)
                    lab.setPos(_log(bx[k]), _log(by[k]))
                    lab.setVisible(True)
                else:
                    lab.setVisible(False)
            for k in range(len(sw.batch)):
                fit = "fits" if fits[k] else "does not fit in HBM"
                hover.append((f"batch {int(sw.batch[k])}: {sig3(bx[k])} FLOP/byte, {si(by[k], 'FLOP/s')} per GPU\n"
                              f"{duration(sw.decode_ms_per_token[k] / 1e3)}/token, "
                              f"{si(sw.output_tokens_per_s[k], 'tok/s')} for the group, "
                              f"MBU {percent(sw.mbu[k])}, MFU {percent(sw.mfu[k])} — {fit}",
                              [(bx[k], by[k])]))
        else:
            self.trail.setData([], [])
            for lab in self.trail_labels:
                lab.setVisible(False)

        # operating point
        self.op.setData(np.array([op_x]), np.array([op_y]))
        self.op_label.setText(f"batch {e.scenario.batch} · {si(op_y, 'FLOP/s')}")
        self.op_label.setColor(t.op_point)
        self._op_xy = (_log(op_x), _log(op_y))
        hover.insert(0, (f"Operating point ({e.phase}, batch {e.scenario.batch}, {e.precision_name})\n"
                         f"arithmetic intensity {sig3(op_x)} FLOP/byte\n"
                         f"attained {si(op_y, 'FLOP/s')} per GPU of {si(e.peak_flops, 'FLOP/s')} "
                         f"(MFU {percent(e.mfu)}, MBU {percent(e.mbu)})\n{e.bound}-bound", [(op_x, op_y)]))

        # faint comparison GPU
        if cmp_hw is not None:
            dtype = e.compute_dtype if cmp_hw.peak(e.compute_dtype) else None
            cpeak = cmp_hw.peak(dtype) if dtype else max(v for _, v in cmp_hw.peak_flops)
            cbw = cmp_hw.hbm_bandwidth_bytes_per_s
            cr = ridge_flops_per_byte(cpeak, cbw)
            cx = np.array([x0, cr])
            self.compare_slope.setData(cx, attainable_flops(cx, cpeak, cbw))
            self.compare_roof.setData(np.array([cr, x1]), np.array([cpeak, cpeak]))
            self.compare_label.setText(f"{cmp_hw.short_name} (compare)")
            self.compare_label.setColor(t.compare)
            self.compare_label.setPos(_log(x1) - 0.03, _log(cpeak))
            self.compare_label.setVisible(True)
            hover.append((f"{cmp_hw.short_name} (comparison): {si(cbw, 'B/s')} HBM, "
                          f"{(dtype or 'best').upper()} peak {si(cpeak, 'FLOP/s')}, ridge {sig3(cr)} FLOP/byte",
                          [(x0, float(attainable_flops(x0, cpeak, cbw))), (cr, cpeak), (x1, cpeak)]))
            ce = c.compare_estimate
            if ce is not None:
                self.compare_point.setData(np.array([ce.arithmetic_intensity_flops_per_byte]),
                                           np.array([ce.achieved_flops]))
                hover.insert(1, (f"{cmp_hw.short_name} at the same scenario: "
                                 f"{sig3(ce.arithmetic_intensity_flops_per_byte)} FLOP/byte, "
                                 f"{si(ce.achieved_flops, 'FLOP/s')} per GPU, "
                                 f"{duration(ce.decode_ms_per_token / 1e3)}/token",
                                 [(ce.arithmetic_intensity_flops_per_byte, ce.achieved_flops)]))
            else:
                self.compare_point.setData([], [])
        else:
            self.compare_slope.setData([], [])
            self.compare_roof.setData([], [])
            self.compare_point.setData([], [])
            self.compare_label.setVisible(False)

        self._y_span = (_log(y0), _log(y1))
        self._layout_labels()
        self.title.setText(f"ROOFLINE — {hw.short_name}, {e.compute_dtype.upper()}"
                           + (" (emulated)" if e.emulated else ""))
        self._hover = hover

    def _layout_labels(self, *_args) -> None:
        """Hide roof labels that would overlap a more important one (the active roof first), then
        put the operating-point label where it fits inside the plot and covers no other label."""
        if not getattr(self, "_roof_label_slots", None):
            return
        if self.vb.width() < 2 or self.vb.height() < 2:
            return
        # in pixels: each roof label sits just above its roof, right-aligned, on its backing box;
        # where the HBM slope would run through its words a shorter form (one dtype name) is tried;
        # a label that would overlap a more important one is hidden
        e = self.controller.estimate
        bw = e.peak_bandwidth_bytes_per_s if e is not None else None
        right = self.vb.width() - 6
        lift = 2.0
        placed: list[QRectF] = []
        roof_ys = [self._to_px(0.0, r[1])[1] for r in self._roof_label_slots]
        for active, ly, lab, forms in sorted(self._roof_label_slots, key=lambda r: (not r[0], -r[1])):
            _, py = self._to_px(0.0, ly)
            chosen = None
            for text in dict.fromkeys(forms):
                lab.setText(text)
                box = lab.textItem.boundingRect()
                rect = QRectF(right - box.width(), py - lift - box.height(), box.width(), box.height())
                crosses = False
                if bw:
                    # the slope's x at the rectangle's top edge (its right-most point inside)
                    _, top_v = self._to_view(0.0, rect.top())
                    sx, _ = self._to_px(_log(10 ** top_v / bw), 0.0)
                    crosses = rect.left() - 4 < sx
                chosen = (text, rect)
                if not crosses:
                    break
            text, rect = chosen
            if text != forms[0] and crosses:
                text, rect = forms[0], QRectF(right - lab.textItem.boundingRect().width(), rect.top(),
                                              lab.textItem.boundingRect().width(), rect.height())
            lab.setText(text)
            ok = all(not rect.intersects(q) for q in placed) and rect.top() >= 0 \
                and not any(rect.top() - 1 <= ry <= rect.bottom() + 1 for ry in roof_ys)   # covers no roof
            lab.setVisible(ok)
            if ok:
                placed.append(rect)
                lab.setPos(*self._to_view(right, rect.bottom()))
        self._place_op_label()

    # pixel geometry inside the view box (origin top left, y down), independent of paint state
    def _to_px(self, vx: float, vy: float) -> tuple[float, float]:
        (x0, x1), (y0, y1) = self.vb.viewRange()
        w, h = max(1.0, self.vb.width()), max(1.0, self.vb.height())
        return (vx - x0) / (x1 - x0) * w, (y1 - vy) / (y1 - y0) * h

    def _to_view(self, px: float, py: float) -> tuple[float, float]:
        (x0, x1), (y0, y1) = self.vb.viewRange()
        w, h = max(1.0, self.vb.width()), max(1.0, self.vb.height())
        return x0 + px / w * (x1 - x0), y1 - py / h * (y1 - y0)

    def _label_px_rect(self, lab: pg.TextItem, anchor=None) -> QRectF:
        """Where ``lab`` (at its position, with ``anchor`` or its own) lands, in view-box pixels."""
        r = lab.textItem.boundingRect()
        ax, ay = anchor if anchor is not None else (lab.anchor[0], lab.anchor[1])
        px, py = self._to_px(lab.pos().x(), lab.pos().y())
        return QRectF(px - r.width() * ax, py - r.height() * ay, r.width(), r.height())

    def _place_op_label(self) -> None:
        lab = self.op_label
        if self.vb.width() < 2 or self.vb.height() < 2:
            return
        ox, oy = self._to_px(*self._op_xy)
        box = lab.textItem.boundingRect()
        bw, bh = box.width(), box.height()
        view = QRectF(0, 0, self.vb.width(), self.vb.height()).adjusted(2, 2, -2, -2)
        others = [self._label_px_rect(o) for o in (*self.roof_labels, self.ridge_label, self.compare_label,
                                                   *self.trail_labels) if o.isVisible()]
        rp = self.op.opts.get("symbolSize", 24) / 2.0 + 5       # clear of the marker
        d = rp * 0.75
        # (anchor, pixel offset from the point): right, above-left, left, above-right, below-right,
        # below-left, above, below
        candidates = [((0.0, 0.5), (rp, 0.0)), ((1.0, 1.0), (-d, -d)), ((1.0, 0.5), (-rp, 0.0)),
                      ((0.0, 1.0), (d, -d)), ((0.0, 0.0), (d, d)), ((1.0, 0.0), (-d, d)),
                      ((0.5, 1.0), (0.0, -rp)), ((0.5, 0.0), (0.0, rp))]
        trail = []
        xd, yd = self.trail.getData()
        if xd is not None and len(xd):
            for tx, ty in zip(xd, yd):
                px, py = self._to_px(_log(tx), _log(ty))
                trail.append(QRectF(px - 5, py - 5, 10, 10))

        def cost(rect: QRectF) -> float:
            inside = rect.intersected(view)
            out = rect.width() * rect.height() - max(0.0, inside.width() * inside.height())
            c = out * 100.0
            for o in others:
                i = rect.intersected(o)
                c += max(0.0, i.width() * i.height()) * 10.0
            for tr in trail:
                i = rect.intersected(tr)
                c += max(0.0, i.width() * i.height()) * 0.5
            return c

        best = None
        for rank, ((ax, ay), (dx, dy)) in enumerate(candidates):
            rect = QRectF(ox + dx - bw * ax, oy + dy - bh * ay, bw, bh)
            score = (cost(rect), rank)
            if best is None or score < best[0]:
                best = (score, (ax, ay), (dx, dy))
        _, anchor, (dx, dy) = best
        lab.setAnchor(anchor)
        lab.setPos(*self._to_view(ox + dx, oy + dy))

    def op_label_rect(self) -> QRectF:
        """The operating-point label's rectangle in view-box pixels (for layout checks)."""
        return self._label_px_rect(self.op_label)

    def label_rects(self) -> dict[str, QRectF]:
        """Every visible label's rectangle in view-box pixels, by its text."""
        return {lab.toPlainText(): self._label_px_rect(lab)
                for lab in (*self.roof_labels, self.ridge_label, self.compare_label, *self.trail_labels,
                            self.op_label) if lab.isVisible()}

    # ---------------------------------------------------------------- geometry and hover
    def scene_pos(self, intensity: float, flops: float) -> QPointF:
        """Where a model (intensity, FLOP/s) lands in the plot's scene."""
        return self.vb.mapViewToScene(QPointF(_log(intensity), _log(flops)))

    def widget_pos(self, intensity: float, flops: float, widget: QWidget) -> QPointF:
        """The same point in ``widget``'s coordinates (e.g. the main window, for pixel checks)."""
        p = self.plot.mapFromScene(self.scene_pos(intensity, flops))
        return QPointF(self.plot.mapTo(widget, p))

    def tooltip_at(self, scene_pos: QPointF) -> str:
        best, best_d = "", HOVER_PX
        px, py = scene_pos.x(), scene_pos.y()
        for text, pts in self._hover:
            sp = [self.scene_pos(x, y) for x, y in pts]
            if len(sp) == 1:
                d = math.hypot(sp[0].x() - px, sp[0].y() - py) - 4.0   # points win over lines
            else:
                d = min(_seg_dist(px, py, a, b) for a, b in zip(sp, sp[1:]))
            if d < best_d:
                best, best_d = text, d
        return best

    def _mouse_moved(self, pos) -> None:
        text = self.tooltip_at(pos)
        if text:
            if text != self._last_tip:
                gp = self.plot.mapToGlobal(self.plot.mapFromScene(pos))
                QToolTip.showText(gp, text, self.plot)
        elif self._last_tip:
            QToolTip.hideText()
        self._last_tip = text


def _seg_dist(px: float, py: float, a: QPointF, b: QPointF) -> float:
    ax, ay, bx, by = a.x(), a.y(), b.x(), b.y()
    dx, dy = bx - ax, by - ay
    L = dx * dx + dy * dy
    u = 0.0 if L == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / L))
    return math.hypot(ax + u * dx - px, ay + u * dy - py)
