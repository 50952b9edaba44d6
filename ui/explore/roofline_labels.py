"""Where the roofline's labels go: roof labels that overlap a more important one hide, a
roof label the HBM slope would cross takes its shorter form, and the operating-point label
takes the first of eight places around the point that covers nothing (ui.plotting.placement;
pixel geometry only, no model numbers). Mixed into ui.explore.roofline.RooflinePlot."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF

from ui.plotting.coords import Box, log10
from ui.plotting.labels import avoid_labels, label_box, place, view_pixels
from ui.plotting.placement import Avoid, around

TRAIL_DOT_WEIGHT = 0.5        # covering a batch dot costs less than covering a label


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
                    sx, _ = self._to_px(log10(10 ** top_v / bw), 0.0)
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
        return view_pixels(self.vb).to_px(vx, vy)

    def _to_view(self, px: float, py: float) -> tuple[float, float]:
        return view_pixels(self.vb).to_view(px, py)

    def _label_px_rect(self, lab: pg.TextItem, anchor=None) -> QRectF:
        """Where ``lab`` (at its position, with ``anchor`` or its own) lands, in view-box pixels."""
        b = label_box(lab, view_pixels(self.vb), anchor)
        return QRectF(b.x0, b.y0, b.w, b.h)

    def _place_op_label(self) -> None:
        """The operating point's label: the first of eight places around it (right, above-left,
        left, above-right, …) inside the plot, over no other label and, if it can, no batch dot."""
        lab = self.op_label
        if self.vb.width() < 2 or self.vb.height() < 2:
            return
        px = view_pixels(self.vb)
        avoid = avoid_labels((o for o in self._made_labels() if o is not lab), px)
        xd, yd = self.trail_dots.getData()              # view coordinates (log10) already
        if xd is not None and len(xd):
            for tx, ty in zip(xd, yd):
                x, y = px.to_px(float(tx), float(ty))
                avoid.append(Avoid(box=Box(x - 5, y - 5, x + 5, y + 5), weight=TRAIL_DOT_WEIGHT))
        r = self.op.opts.get("size", 24) / 2.0 + 5             # clear of the marker
        place(lab, px, self._op_xy, around(r), avoid)

    def op_label_rect(self) -> QRectF:
        """The operating-point label's rectangle in view-box pixels (for layout checks)."""
        return self._label_px_rect(self.op_label)

    def label_rects(self) -> dict[str, QRectF]:
        """Every visible label's rectangle in view-box pixels, by its text."""
        return {lab.toPlainText(): self._label_px_rect(lab) for lab in self._made_labels() if lab.isVisible()}
