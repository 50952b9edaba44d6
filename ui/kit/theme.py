"""Colours, type sizes and the Qt style sheet (dark for projectors, light, larger text).

Okabe–Ito colours (safe for colour-blind viewers) carry meaning everywhere in the window:
weights orange, KV cache reddish purple, activations sky blue, tensor cores bluish green,
interconnect blue, warnings vermillion. Never colour alone: every colour has a word beside it.
"""
from __future__ import annotations

import math

from dataclasses import replace

from model.values import frozen

# Okabe–Ito
ORANGE = "#E69F00"        # weights
SKY_BLUE = "#56B4E9"      # activations
BLUISH_GREEN = "#009E73"  # tensor cores
YELLOW = "#F0E442"
BLUE = "#0072B2"          # interconnect
VERMILLION = "#D55E00"    # warnings
REDDISH_PURPLE = "#CC79A7"  # KV cache

BOUND_COLOURS = {"memory": ORANGE, "compute": BLUISH_GREEN, "communication": BLUE}


@frozen
class Theme:
    """One look: colours (hex) for the panels, text, plots and gauges, and the type scale."""

    name: str
    bg: str
    panel: str
    panel_border: str
    text: str
    secondary: str
    grid: str
    input_bg: str
    accent: str
    op_point: str           # the current operating point on the roofline
    op_outline: str
    trail: str
    roof_dim: str
    compare: str
    hbm_free: str
    workspace: str
    plot_grid: str = "#1F242B"
    scale: float = 1.0      # type scale: window size × larger-text option
    min_px: int = 9         # no text smaller (MIN_PX; STAGE_MIN_PX in presenter mode)

    def px(self, base: float) -> int:
        """A font size in pixels for a design size given at 1080p, never under ``min_px``."""
        return max(self.min_px, int(round(base * self.scale)))


DARK = Theme(
    name="dark", bg="#0B0D10", panel="#13161B", panel_border="#252A32", text="#EEEEEA",
    secondary="#999999", grid="#3A404A", input_bg="#1B1F26", accent=SKY_BLUE,
    op_point=YELLOW, op_outline="#0B0D10", trail="#B8B8B0", roof_dim="#6B7078",
    compare="#8A8F98", hbm_free="#2A2F37", workspace="#7A7F88",
)

LIGHT = Theme(
    name="light", bg="#F7F6F2", panel="#FFFFFF", panel_border="#D6D4CE", text="#16181C",
    secondary="#666666", grid="#C8C6C0", input_bg="#FFFFFF", accent=BLUE,
    op_point="#C81E78", op_outline="#FFFFFF", trail="#55585E", roof_dim="#9A9CA0",
    compare="#A0A2A6", hbm_free="#E4E2DC", workspace="#9A9CA0", plot_grid="#E6E4DE",
)

THEMES = {"dark": DARK, "light": LIGHT}


MIN_PX = 9                  # the smallest type anywhere (Theme.min_px's default)


def get_theme(name: str | None, scale: float = 1.0, min_px: int = MIN_PX) -> Theme:
    base = THEMES.get((name or "dark").lower(), DARK)
    return replace(base, scale=scale, min_px=min_px)


PRESENTER_SCALE = 1.35      # presenter mode's type, × the window's own
STAGE_MIN_PX = 18           # presenter mode: no text on the Explore, Serve and Plan pages smaller, at any window size
STAGE_ROOM_PX = (1800, 1000)  # presenter mode: a window smaller than this shows Explore's numbers without the chip
                             # beside them (Ctrl+H or a double-click: the chip alone), so that 18 px type fits


def type_scale(window_height: int, large_text: bool, presenting: bool = False) -> float:
    """Type grows with the window (1.0 at 1080 px tall), clamped, ×1.25 for larger text; in
    presenter mode × PRESENTER_SCALE on top."""
    s = max(0.72, min(2.2, window_height / 1080.0))
    return round(s * (1.25 if large_text else 1.0), 2) * (PRESENTER_SCALE if presenting else 1)


SLIDE_ROOM_PX = (950, 620)  # the room a lesson's layout needs per unit of type scale (width, height)
SLIDE_MIN_SCALE = 0.5


def slide_scale(scale: float, width_px: int, height_px: int) -> float:
    """The type scale a lesson page ``width_px`` × ``height_px`` can carry: the window's own, or,
    where the page has less room than its layout needs at that scale (the controls open beside
    it, the speaker view docked beside or under it), the largest 0.05 step that fits: the slide
    shrinks to its room, as a slide would, and keeps its layout."""
    fit = min(width_px / SLIDE_ROOM_PX[0], height_px / SLIDE_ROOM_PX[1])
    if width_px <= 0 or height_px <= 0 or fit >= scale:
        return scale
    return max(SLIDE_MIN_SCALE, math.floor(fit * 20 + 1e-9) / 20)


def compact_stage(t: Theme, width_px: int, height_px: int) -> bool:
    """Presenter mode's type (``t.min_px`` the stage's) in a window smaller than STAGE_ROOM_PX: the
    pages show what matters most, at 18 px or more, and leave the rest out."""
    return t.min_px >= STAGE_MIN_PX and (width_px < STAGE_ROOM_PX[0] or height_px < STAGE_ROOM_PX[1])


def presenter_theme(name: str, height_px: int) -> Theme:
    """The type scale the audience sees on a screen ``height_px`` tall in presenter mode."""
    return get_theme(name, type_scale(height_px, False, presenting=True))


def style_sheet(t: Theme) -> str:
    return f"""
    QWidget {{ background: {t.bg}; color: {t.text}; font-size: {t.px(15)}px; }}
    QToolTip {{ background: {t.panel}; color: {t.text}; border: 1px solid {t.panel_border};
               font-size: {t.px(14)}px; padding: 4px; }}
    QFrame#panel, QWidget#panel {{ background: {t.panel}; border: 1px solid {t.panel_border}; border-radius: 6px; }}
    QWidget#panel QLabel, QWidget#panel QCheckBox {{ background: transparent; }}
    QLabel#sectionTitle {{ color: {t.secondary}; font-size: {t.px(13)}px; font-weight: 600;
                           letter-spacing: 1px; }}
    QLabel#controlLabel {{ color: {t.secondary}; font-size: {t.px(13)}px; }}
    QLabel#gaugeTitle {{ color: {t.secondary}; font-size: {t.px(13)}px; }}
    QLabel#gaugeSub {{ color: {t.secondary}; font-size: {t.px(13)}px; }}
    QLabel#badge {{ font-size: {t.px(16)}px; font-weight: 700; border-radius: 4px; padding: 3px 10px;
                    color: #000000; }}
    QLabel#notes {{ color: {t.secondary}; font-size: {t.px(13)}px; }}
    QLabel#explanation {{ font-size: {t.px(22)}px; }}
    QLabel#problem {{ color: {VERMILLION}; font-size: {t.px(18)}px; font-weight: 600; }}
    QLabel#chipPlaceholder {{ color: {t.secondary}; font-size: {t.px(18)}px; }}
    QWidget#footer {{ background: {t.panel}; border-top: 1px solid {t.panel_border}; }}
    QWidget#footer QLabel {{ background: transparent; }}
    QComboBox, QSpinBox {{ background: {t.input_bg}; border: 1px solid {t.panel_border}; border-radius: 4px;
                          padding: 2px 6px; min-height: {t.px(22)}px; }}
    QComboBox QAbstractItemView {{ background: {t.input_bg}; color: {t.text};
                                   selection-background-color: {t.accent}; selection-color: #000000; }}
    QPushButton {{ background: {t.input_bg}; border: 1px solid {t.panel_border}; border-radius: 4px;
                   padding: 3px 6px; min-height: {t.px(20)}px; }}
    QPushButton:checked {{ background: {t.accent}; color: #000000; border-color: {t.accent}; font-weight: 600; }}
    QPushButton:hover {{ border-color: {t.accent}; }}
    QPushButton#reset {{ font-weight: 600; }}
    QSlider::groove:horizontal {{ height: 4px; background: {t.panel_border}; border-radius: 2px; }}
    QSlider::handle:horizontal {{ background: {t.accent}; width: {t.px(16)}px; margin: -7px 0; border-radius: {t.px(8)}px; }}
    QScrollArea {{ border: none; }}
    QCheckBox::indicator {{ width: {t.px(14)}px; height: {t.px(14)}px; border: 1px solid {t.secondary};
                            border-radius: 3px; background: {t.input_bg}; }}
    QCheckBox::indicator:checked {{ background: {t.accent}; border-color: {t.accent}; }}
    QWidget#chipArea {{ border: 1px dashed {t.panel_border}; border-radius: 6px; }}
    QWidget#chipArea QLabel {{ border: none; }}
    """


def focus_style(t: Theme) -> str:
    """A visible focus ring on every keyboard-reachable control."""
    return (f"QPushButton:focus, QToolButton:focus, QCheckBox:focus, QSlider:focus, QComboBox:focus "
            f"{{ border: 2px solid {t.op_point}; }}")

def style_plot_axes(plot_item, t: Theme, x_label: str = "", y_label: str = "", left_em: float = 4.8,
                    text_base: float = 13) -> None:
    """One look for every pyqtgraph plot: axis pens, tick font and labels in the theme's secondary
    colour at 13 px (scaled); the left axis wide enough for ``left_em`` characters."""
    import pyqtgraph as pg
    from PySide6.QtGui import QFont
    font = QFont()
    font.setPixelSize(t.px(text_base))
    for name in ("bottom", "left", "right"):
        ax = plot_item.getAxis(name)
        ax.setPen(pg.mkPen(t.grid))
        ax.setTextPen(pg.mkPen(t.secondary))
        ax.setTickFont(font)
        ax.enableAutoSIPrefix(False)
    style = {"color": t.secondary, "font-size": f"{t.px(text_base)}px"}
    if x_label:
        plot_item.setLabel("bottom", x_label, **style)
    if y_label:
        plot_item.setLabel("left", y_label, **style)
    plot_item.getAxis("left").setWidth(int(t.px(text_base) * left_em))


@frozen
class ChipColours:
    """The animated chip's colours for one theme (hex). The Okabe–Ito meaning colours stay the same
    in both; on white the low-contrast ones get a darker shade for text and a rim round packets."""

    bg: str
    panel: str
    border: str
    text: str
    secondary: str
    pipe: str               # channels between levels, bar tracks
    tc_idle: str
    package: str            # the GPU package
    unit: str               # L2, SMs, cluster tiles
    memory_fill: str
    memory_edge: str
    memory_line: str        # the stacked dies; the memory strips on cluster tiles
    host_link: str          # the dashed PCIe line to host RAM
    switch: str
    input_bg: str
    hover: str
    kinds: tuple[str, ...]  # packet colours: weights, KV, activations, all-reduce
    kind_text: tuple[str, ...]
    outlines: tuple[str | None, ...]
    tc_text: str
    warning_text: str
    level_bar: str          # a level's use bar below 80 % (orange: bytes moving)


_KINDS = (ORANGE, REDDISH_PURPLE, SKY_BLUE, "#3A9BE0")
CHIP_DARK = ChipColours(
    DARK.bg, DARK.panel, "#2C323C", DARK.text, DARK.secondary, "#1A1E25", "#3A3F46", "#0F1216", "#161A20",
    "#1E1A12", "#5A4A20", "#3A3220", "#3A404A", "#0E1C2A", DARK.input_bg, SKY_BLUE, _KINDS, _KINDS,
    (None,) * 4, BLUISH_GREEN, VERMILLION, ORANGE)
CHIP_LIGHT = ChipColours(
    LIGHT.bg, LIGHT.panel, "#C4C1B9", LIGHT.text, LIGHT.secondary, "#E6E4DE", "#CDD0D4", "#FFFFFF", "#F3F2EE",
    "#FBF1DA", "#C9A24A", "#E8D6A8", "#9A9CA0", "#E2EEF7", LIGHT.input_bg, BLUE, _KINDS,
    ("#9A6700", "#A8457F", "#1F7FB8", BLUE), ("#9A6700", None, "#1F7FB8", None), "#007A59", "#B34E00", "#D99500")


def mix(a, b, t: float):
    """The one colour mix: ``a`` → ``b`` by ``t`` in [0, 1] (QColor or '#rrggbb'; returns QColor)."""
    from PySide6.QtGui import QColor
    ca, cb = QColor(a), QColor(b)
    t = min(1.0, max(0.0, t))
    return QColor(int(ca.red() + (cb.red() - ca.red()) * t), int(ca.green() + (cb.green() - ca.green()) * t),
                  int(ca.blue() + (cb.blue() - ca.blue()) * t))
