"""The lesson views' look: their type sizes, their plots' axes, their fonts and style sheet.

    SECONDARY, LABEL, KEY      design sizes (px at scale 1): secondary text, the plots' words, the key number
    style_plot(plot, theme)    a chapter plot's background and axes (ui.kit.theme.style_plot_axes), the
                               bottom axis as tall as its lines of tick text
    text_font(theme, base)     a font of ``base`` design px at the theme's scale
    chapter_style(theme)       the style sheet of a chapter view (ui.chapters.base.ChapterView)
    PlotParts                  the view's plots, chart title, legend and notes, made alike in every lesson
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel

from ui.kit import theme as th
from ui.kit.steady_label import WrapLabel
from ui.plotting.axes import SIAxis, line_height
from ui.plotting.hover import MarkerTips
from ui.plotting.keys import key_html

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


class PlotParts:
    """A chapter view's plots and the words around them, made the same way in every lesson (a mixin
    of ui.chapters.base.ChapterView: it appends to ``self.plots`` and ``self.chart_lay``)."""

    def make_plot(self, x_label: str, y_label: str, log_x: bool = False, log_y: bool = False,
                  x_unit: str = "", y_unit: str = "", bottom_axis=None) -> pg.PlotWidget:
        axes = {"bottom": bottom_axis or SIAxis("bottom", unit=x_unit), "left": SIAxis("left", unit=y_unit)}
        p = pg.PlotWidget(axisItems=axes, enableMenu=False)    # no menus: none made (2 ms a plot)
        pi = p.getPlotItem()
        pi.setLogMode(x=log_x, y=log_y)
        pi.setMouseEnabled(x=False, y=False)
        pi.hideButtons()
        pi.setMenuEnabled(False)
        pi.vb.disableAutoRange()
        p._labels = (x_label, y_label)
        p._left_em = 8.8 if (log_y and y_unit) else 4.8
        p.tips = MarkerTips(p, log_x, log_y)
        p.axes = p.tips.axes                 # data → view coordinates (ui.plotting.coords.Axes)
        pi.vb.sigResized.connect(self._placing)
        self.plots.append(p)
        return p

    def add_chart_title(self) -> QLabel:
        """The small caps line above a chapter's chart (what is plotted, for which scenario)."""
        lab = WrapLabel("")
        lab.setObjectName("chartTitle")
        self.chart_lay.addWidget(lab)
        return lab

    def add_legend(self, plot) -> QLabel:
        """A key under the chart title naming each colour the plot uses (``set_legend``)."""
        lab = WrapLabel("")
        lab.setObjectName("chartLegend")
        lab.setTextFormat(Qt.RichText)
        self.chart_lay.addWidget(lab)
        plot.legend_label = lab
        return lab

    @staticmethod
    def set_legend(plot, entries) -> None:
        """The key's entries: (colour, the model's words[, swatch: ui.plotting.keys, a square by default])."""
        plot.legend_label.setText(key_html((c, w, how[0] if how else "square") for c, w, *how in entries))
        plot.legend_label.setVisible(bool(entries))

    def note_label(self, text: str = "", name: str = "chapterNote") -> QLabel:
        lab = WrapLabel(text)
        lab.setObjectName(name)
        lab.setTextFormat(Qt.RichText)
        return lab
