"""The lesson views' look: their type sizes, their plots' axes, their fonts and style sheet.

    SECONDARY, LABEL, KEY      design sizes (px at scale 1): secondary text, the plots' words, the key number
    style_plot(plot, theme)    a chapter plot's background and axes (ui.kit.theme.style_plot_axes), the
                               bottom axis as tall as its lines of tick text
    text_font(theme, base)     a font of ``base`` design px at the theme's scale
    chapter_style(theme)       the style sheet of a chapter view (ui.chapters.base.ChapterView)
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFont

from ui.kit import theme as th
from ui.plotting.axes import line_height

SECONDARY = 18          # design size of secondary text: 24 px in presenter mode at 1080 px (×1.35)
LABEL = 18              # the plots' words
KEY = 34                # the key number's design size


def style_plot(p: pg.PlotWidget, t: th.Theme) -> None:
    p.setBackground(t.bg)
    pi = p.getPlotItem()
    x_label, y_label = getattr(p, "_labels", ("", ""))
    th.style_plot_axes(pi, t, x_label, y_label, getattr(p, "_left_em", 4.8), text_base=SECONDARY)
    font = QFont()
    font.setPixelSize(t.px(SECONDARY))
    bottom = pi.getAxis("bottom")               # as tall as its lines of names (ui.plotting.axes.NamesAxis)
    bottom.setStyle(autoExpandTextSpace=False, tickTextHeight=getattr(bottom, "lines", 1) * line_height(font))
    pi.showGrid(x=False, y=False)


def text_font(t: th.Theme, base: float = 13, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(t.px(base))
    f.setBold(bold)
    return f


focus_style = th.focus_style          # (in ui.kit.theme: the mode bar needs it before any chapter)


def chapter_style(t: th.Theme) -> str:
    return focus_style(t) + f"""
    QLabel#chapterTitle {{ color: {t.secondary}; font-size: {t.px(SECONDARY)}px; font-weight: 600; }}
    QLabel#chapterClaim {{ font-size: {t.px(25)}px; font-weight: 700; }}
    QLabel#chapterKey {{ color: {t.op_point}; font-size: {t.px(KEY)}px; font-weight: 700; }}
    QLabel#chapterKeyLabel {{ font-size: {t.px(SECONDARY)}px; }}
    QLabel#chapterWhyTitle {{ color: {t.secondary}; font-size: {t.px(SECONDARY)}px; font-weight: 600; }}
    QLabel#chapterWhy {{ font-size: {t.px(SECONDARY)}px; }}
    QLabel#chapterDetails {{ color: {t.secondary}; font-size: {t.px(SECONDARY)}px; }}
    QLabel#chapterTakeaway {{ font-size: {t.px(20)}px; background: {t.panel}; border: 1px solid {t.panel_border};
                             border-radius: 6px; padding: {t.px(8)}px {t.px(12)}px; }}
    QLabel#chapterError {{ color: {th.VERMILLION}; font-size: {t.px(16)}px; font-weight: 600; }}
    QWidget#chapterSide {{ background: {t.panel}; border: 1px solid {t.panel_border}; border-radius: 6px; }}
    QWidget#chapterSide QLabel, QWidget#chapterSide QCheckBox {{ background: transparent; }}
    QScrollArea#chapterWhyScroll, QScrollArea#chapterWhyScroll > QWidget > QWidget {{ background: transparent; }}
    QScrollArea#chapterWhyScroll QScrollBar:vertical {{ width: 6px; background: transparent; margin: 0; }}
    QScrollArea#chapterWhyScroll QScrollBar::handle:vertical {{ background: {t.secondary}; border-radius: 3px; }}
    QScrollArea#chapterWhyScroll QScrollBar::add-line, QScrollArea#chapterWhyScroll QScrollBar::sub-line {{ height: 0; }}
    QLabel#chapterNote {{ color: {t.secondary}; font-size: {t.px(SECONDARY)}px; }}
    QLabel#chapterBig {{ font-size: {t.px(34)}px; font-weight: 700; }}
    QLabel#chapterValue {{ font-size: {t.px(17)}px; }}
    QLabel#chartTitle {{ color: {t.secondary}; font-size: {t.px(SECONDARY)}px; font-weight: 600; }}
    QLabel#chartLegend {{ color: {t.text}; font-size: {t.px(SECONDARY)}px; }}
    QLabel#controlLabel {{ color: {t.secondary}; font-size: {t.px(SECONDARY)}px; }}
    """
