"""Every visible text of a window, where it is on screen and how tall, for the stage checks.

    texts(window) -> [Text(kind, text, rect, px, clip, key)]

kind: "label" (QLabel), "button" (QAbstractButton), "item" (a QGraphicsTextItem in a plot:
pyqtgraph TextItems, axis titles, legend labels) or "tick" (an axis tick label, from the
axis's own draw specs). rect is in window pixels, tight around the text; clip is the
rectangle the text must stay inside (its widgets and clipping items, intersected); px is
the font's pixel size; key marks the large key number.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QPoint, QRect, QRectF
from PySide6.QtGui import QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QAbstractButton, QGraphicsItem, QGraphicsTextItem, QLabel, QScrollArea, QWidget

FONT_PX = re.compile(r"font-size:\s*([\d.]+)px")


@dataclass(frozen=True)
class Text:
    kind: str
    text: str
    rect: QRectF
    px: float
    clip: QRectF
    key: bool = False

    def __str__(self) -> str:
        r = self.rect
        return f"{self.kind} {self.text[:50]!r} at ({r.x():.0f},{r.y():.0f} {r.width():.0f}×{r.height():.0f}) {self.px:g}px"


def _font_px(font, html: str = "") -> float:
    sizes = [float(v) for v in FONT_PX.findall(html)]
    if sizes:
        return min(sizes)
    if font.pixelSize() > 0:
        return float(font.pixelSize())
    return font.pointSizeF() * 96.0 / 72.0


def _widget_rect(w: QWidget, window: QWidget) -> QRectF:
    return QRectF(QRect(w.mapTo(window, QPoint(0, 0)), w.size()))


def _visible_area(w: QWidget, window: QWidget) -> QRectF:
    """The part of w that its ancestors show (each parent clips its children)."""
    area = _widget_rect(w, window)
    p = w.parentWidget()
    while p is not None and p is not window.parentWidget():
        area = area.intersected(_widget_rect(p, window))
        if p is window:
            break
        p = p.parentWidget()
    return area


def _scrolls(w: QWidget) -> bool:
    """w is a scroll area's widget (long notes, details and derivations scroll, never clip)."""
    viewport = w.parentWidget()
    return viewport is not None and isinstance(viewport.parentWidget(), QScrollArea) \
        and viewport.parentWidget().widget() is w


def _shown(w: QWidget, window: QWidget) -> bool:
    return w.isVisibleTo(window) and w.width() > 0 and w.height() > 0


def _label_texts(window: QWidget) -> list[Text]:
    out = []
    for lab in window.findChildren(QLabel):
        if not _shown(lab, window) or not lab.text().strip() or lab.pixmap() is not None and not lab.pixmap().isNull():
            continue
        rect = _widget_rect(lab, window)
        need_h = lab.heightForWidth(lab.width()) if lab.wordWrap() else lab.sizeHint().height()
        need_w = lab.width() if lab.wordWrap() else lab.sizeHint().width()
        if getattr(lab, "forms", None) is not None:   # a FitLabel (ui/chip/control_bar.py) hints its longest form:
            need_w = lab.fontMetrics().horizontalAdvance(lab.text()) + 4     # what it shows is what must fit
        clip = _visible_area(lab, window)
        if _scrolls(lab):                    # the text of a scroll area: what its viewport hides scrolls, not cut
            out.append(Text("label", lab.text(), rect.intersected(clip), _font_px(lab.font(), lab.text()), clip))
            continue
        if need_h > lab.height() + 1 or need_w > lab.width() + 1:   # the label is too small for its text
            clip = QRectF(rect.x(), rect.y(), min(lab.width(), need_w) - 2, min(lab.height(), need_h) - 2)
            rect = QRectF(rect.x(), rect.y(), need_w, need_h)
        out.append(Text("label", lab.text(), rect, _font_px(lab.font(), lab.text()), clip,
                        lab.objectName() == "chapterKey"))
    for b in window.findChildren(QAbstractButton):
        if not _shown(b, window) or not b.text().strip():
            continue
        rect = _widget_rect(b, window)
        clip = _visible_area(b, window)
        if b.sizeHint().width() > b.width() + 1:
            clip = QRectF(rect.x(), rect.y(), rect.width() - 2, rect.height())
            rect = QRectF(rect.x(), rect.y(), b.sizeHint().width(), rect.height())
        out.append(Text("button", b.text(), rect, _font_px(b.font()), clip))
    return out


def _scene_to_window(plot: pg.PlotWidget, window: QWidget, r: QRectF) -> QRectF:
    poly = plot.mapFromScene(r)
    br = poly.boundingRect()
    top_left = plot.viewport().mapTo(window, br.topLeft())
    return QRectF(top_left.x(), top_left.y(), br.width(), br.height())


def _item_clip(item: QGraphicsItem) -> QRectF | None:
    """The scene rectangle of the nearest ancestor that clips its children."""
    p = item.parentItem()
    while p is not None:
        if p.flags() & QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape:
            return p.sceneBoundingRect()
        p = p.parentItem()
    return None


def _plot_texts(plot: pg.PlotWidget, window: QWidget) -> list[Text]:
    out = []
    view_clip = _visible_area(plot, window)
    for item in plot.scene().items():
        if not isinstance(item, QGraphicsTextItem) or not item.isVisible() or not item.toPlainText().strip():
            continue
        if item.opacity() == 0 or (item.parentItem() is not None and not item.parentItem().isVisible()):
            continue
        m = item.document().documentMargin()
        r = item.sceneBoundingRect().adjusted(m, m, -m, -m)
        rect = _scene_to_window(plot, window, r)
        clip_scene = _item_clip(item)
        clip = view_clip if clip_scene is None else view_clip.intersected(_scene_to_window(plot, window, clip_scene))
        out.append(Text("item", item.toPlainText(), rect, _font_px(item.font(), item.toHtml()), clip))
    img = QImage(8, 8, QImage.Format_ARGB32)
    painter = QPainter(img)
    try:
        for name in ("left", "bottom", "right", "top"):
            ax = plot.getPlotItem().getAxis(name)
            if not ax.isVisible() or not ax.style.get("showValues", True):
                continue
            font = ax.style.get("tickFont") or ax.font()
            painter.setFont(font)
            specs = ax.generateDrawSpecs(painter)
            if not specs:
                continue
            fm = QFontMetrics(font)
            for rect, _flags, text in specs[2]:
                if not str(text).strip():
                    continue
                h, wd = fm.height(), fm.horizontalAdvance(str(text))   # the glyphs' full line, descenders too
                if name in ("bottom", "top"):
                    rect = QRectF(rect.center().x() - wd / 2, rect.top(), wd, h)
                else:
                    rect = QRectF(rect.right() - wd if name == "left" else rect.left(), rect.center().y() - h / 2, wd, h)
                r = _scene_to_window(plot, window, ax.mapRectToScene(rect))
                out.append(Text("tick", str(text), r, _font_px(font), view_clip))
    finally:
        painter.end()
    return out


def texts(window: QWidget) -> list[Text]:
    out = _label_texts(window)
    for plot in window.findChildren(pg.PlotWidget):
        if _shown(plot, window):
            out.extend(_plot_texts(plot, window))
    seen, unique = set(), []
    for t in out:          # a log axis may list one tick at two levels: drawn once, over itself
        k = (t.kind, t.text, round(t.rect.x()), round(t.rect.y()))
        if k not in seen:
            seen.add(k)
            unique.append(t)
    return unique


def problems(window: QWidget, min_px: float = 0.0, key_px: float = 0.0) -> list[str]:
    """What is wrong with the window's texts: overlaps, clipping, and type under min_px / key_px."""
    found = texts(window)
    bad = []
    for t in found:
        if not t.clip.adjusted(-1, -1, 1, 1).contains(t.rect):
            bad.append(f"clipped: {t} inside {t.clip.getRect()}")
        if t.px + 1e-6 < min_px:
            bad.append(f"too small: {t}")
        if t.key and t.px + 1e-6 < key_px:
            bad.append(f"key number too small: {t}")
    for i, a in enumerate(found):
        for b in found[i + 1:]:
            ra, rb = a.rect.adjusted(1, 1, -1, -1), b.rect.adjusted(1, 1, -1, -1)
            if ra.intersects(rb):
                bad.append(f"overlap: {a} and {b}")
    return bad
