"""Where the roofline's labels go: roof labels that overlap a more important one hide, a
roof label the HBM slope would cross takes its shorter form, and the operating-point label
takes the first of eight places around the point that covers nothing (pixel geometry only,
no model numbers). Mixed into ui.roofline_plot.RooflinePlot."""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QRectF


def _log(x: float) -> float:
    return math.log10(max(x, 1e-300))


class RooflineLabelsMixin:
    """Needs: self.vb, self.controller, self.roof_labels, self._made_labels() (every text item),
    self.op_label, self.op, self.trail_dots, self._roof_label_slots, self._op_xy."""

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
        e = self._snap.estimate if self._snap is not None else None
        bw = e.peak_bandwidth_bytes_per_s if e is not None else None
        (x0, x1), (y0, y1) = self.vb.viewRange()
        key = (tuple((a, ly, tuple(forms)) for a, ly, _lab, forms in self._roof_label_slots), x0, x1, y0, y1,
               self.vb.width(), self.vb.height(), bw, getattr(self, "theme", None))
        if key == getattr(self, "_roof_labels_key", None):     # a batch change moves no roof label
            self._place_op_label()
            return
        self._roof_labels_key = key
        right = self.vb.width() - 6
        lift = 2.0
        placed: list[QRectF] = []
        roof_ys = [self._to_px(0.0, r[1])[1] for r in self._roof_label_slots]
        for active, ly, lab, forms in sorted(self._roof_label_slots, key=lambda r: (not r[0], -r[1])):
            _, py = self._to_px(0.0, ly)
            chosen = None
            for text in dict.fromkeys(forms):
                bw_px, bh_px = self._box(lab, text)
                rect = QRectF(right - bw_px, py - lift - bh_px, bw_px, bh_px)
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
                w0 = self._box(lab, forms[0])[0]
                text, rect = forms[0], QRectF(right - w0, rect.top(), w0, rect.height())
            if lab.toPlainText() != text:
                lab.setText(text)
            ok = all(not rect.intersects(q) for q in placed) and rect.top() >= 0 \
                and not any(rect.top() - 1 <= ry <= rect.bottom() + 1 for ry in roof_ys)   # covers no roof
            lab.setVisible(ok)
            if ok:
                placed.append(rect)
                lab.setPos(*self._to_view(right, rect.bottom()))
        self._place_op_label()

    def _box(self, lab: pg.TextItem, text: str) -> tuple[float, float]:
        """(width, height) in pixels of ``lab`` showing ``text`` on its backing box: measured once
        per text and font (setting a text item's words lays out a document), then remembered."""
        boxes = self.__dict__.setdefault("_label_boxes", {})
        key = (text, lab.textItem.font().key())
        size = boxes.get(key)
        if size is None:
            if len(boxes) > 256:
                boxes.clear()
            lab.setText(text)
            r = lab.textItem.boundingRect()
            size = boxes[key] = (r.width(), r.height())
        return size

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
        others = [self._label_px_rect(o) for o in self._made_labels() if o is not lab and o.isVisible()]
        rp = self.op.opts.get("size", 24) / 2.0 + 5             # clear of the marker
        d = rp * 0.75
        # (anchor, pixel offset from the point): right, above-left, left, above-right, below-right,
        # below-left, above, below
        candidates = [((0.0, 0.5), (rp, 0.0)), ((1.0, 1.0), (-d, -d)), ((1.0, 0.5), (-rp, 0.0)),
                      ((0.0, 1.0), (d, -d)), ((0.0, 0.0), (d, d)), ((1.0, 0.0), (-d, d)),
                      ((0.5, 1.0), (0.0, -rp)), ((0.5, 0.0), (0.0, rp))]
        trail = []
        xd, yd = self.trail_dots.getData()              # view coordinates (log10) already
        if xd is not None and len(xd):
            for tx, ty in zip(xd, yd):
                px, py = self._to_px(float(tx), float(ty))
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
        return {lab.toPlainText(): self._label_px_rect(lab) for lab in self._made_labels() if lab.isVisible()}
