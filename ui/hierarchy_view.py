"""The animated memory hierarchy: packets of bytes flowing from HBM into the tensor cores.

The picture, bottom to top: host RAM behind PCIe, the HBM stacks, the L2 cache, and a row
of SMs (CUs on AMD), each split into shared memory / L1, the register file and the tensor
cores. A ladder on the left names every level with its capacity, bandwidth and how busy it
is; a legend and, with more than one GPU, the cluster and its all-reduce links sit on the
right; a bar below holds pause, single-step, speed, the time scale and the token counter.

How numbers become motion (rates from ``model.flow``, per GPU):
    time scale T        chip seconds per screen second (flow.time_scale × speed)
    packet size         HBM peak B/s × T / R_CHIP bytes: HBM at its peak carries R_CHIP
                        packets per screen second; "1 packet = N weights" in the legend
    in-chip flux        Φ(kind) = R_CHIP × bytes/s(kind) / HBM peak B/s   [packets/s on screen]
                        the same Φ crosses every link (bytes are conserved) ...
    packet speed        ... but a packet moves at a speed that grows with the bandwidth of the
                        link it is on, so density = flux / speed ∝ utilisation: a crowded
                        link is a busy link
    all-reduce flux     R_LINK × link utilisation per GPU (its own packet size, in the legend)
    tensor cores        steady fill and brightness = compute time / step time (no flashing)
    token counter       one decode step every step_s / T screen seconds

One QTimer (16 ms) drives everything; dt is capped at 50 ms; the timer stops while the view
is hidden. Layout, routes and the static picture are cached and rebuilt only on a resize or
a scenario change; a scenario change eases every rate to its new value over 300 ms.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QElapsedTimer, QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout,
                               QWidget)
from pyqtgraph.functions import create_qpolygonf, ndarray_from_qpolygonf

from model import Estimate, Scenario, estimate
from model.catalog import default_catalog
from model.flow import Flow, flow
from model.format import duration, percent, si
from ui import theme as th
from ui.particles import ParticleSystem

# Okabe–Ito on near-black
BG = QColor("#0B0D10")
PANEL = QColor("#13161B")
BORDER = QColor("#2C323C")
TEXT = QColor("#EEEEEA")
SECONDARY = QColor("#999999")
WEIGHTS = QColor(th.ORANGE)
KV = QColor(th.REDDISH_PURPLE)
ACTIVATIONS = QColor(th.SKY_BLUE)
TC_BUSY = QColor(th.BLUISH_GREEN)
TC_IDLE = QColor("#3A3F46")
INTERCONNECT = QColor(th.BLUE)
WARNING = QColor(th.VERMILLION)
PIPE = QColor("#1A1E25")

K_WEIGHTS, K_KV, K_ACT, K_AR = 0, 1, 2, 3
KIND_COLOURS = (WEIGHTS, KV, ACTIVATIONS, QColor("#3A9BE0"))


@dataclass(frozen=True)
class _Palette:
    """The chip's colours for one theme. The Okabe–Ito meaning colours stay the same in both;
    on white, the low-contrast ones get a darker shade of the same hue for text and an outline
    of that shade around their packets."""

    name: str
    bg: QColor
    panel: QColor
    border: QColor
    text: QColor
    secondary: QColor
    pipe: QColor            # channels between levels, bar tracks
    tc_idle: QColor
    package: QColor         # the GPU package
    unit: QColor            # L2, SMs, cluster tiles
    hbm_fill: QColor
    hbm_edge: QColor
    hbm_line: QColor        # the stacked dies; the HBM strips on cluster tiles
    host_link: QColor       # the dashed PCIe line to host RAM
    switch: QColor
    input_bg: QColor
    hover: QColor
    kinds: tuple            # packet colours, by kind
    kind_text: tuple        # the same meanings as text (darker on white)
    outlines: tuple         # an outline round each packet, or None
    tc_text: QColor
    warning_text: QColor
    level_bar: QColor       # a level's use bar below 80 % (orange: bytes moving)


def _layers(colour: QColor, outline: QColor | None, width: int) -> tuple:
    """(colour, pen width) passes for one packet: a rim of ``outline`` 1 px wide, then the fill.
    Big packets keep their size (the fill shrinks); small ones grow by the rim."""
    if outline is None:
        return ((colour, width),)
    if width >= 6:
        return ((outline, width), (colour, width - 2))
    return ((outline, width + 2), (colour, width))


def _palette(t: "th.Theme | None" = None) -> _Palette:
    if t is None or t.name != "light":
        return _Palette(
            "dark", BG, PANEL, BORDER, TEXT, SECONDARY, PIPE, TC_IDLE, QColor("#0F1216"), QColor("#161A20"),
            QColor("#1E1A12"), QColor("#5A4A20"), QColor("#3A3220"), QColor("#3A404A"), QColor("#0E1C2A"),
            QColor("#1B1F26"), QColor(th.SKY_BLUE), KIND_COLOURS, KIND_COLOURS, (None,) * 4, TC_BUSY, WARNING,
            WEIGHTS)
    weights_dark, act_dark = QColor("#9A6700"), QColor("#1F7FB8")
    return _Palette(
        "light", QColor(t.bg), QColor(t.panel), QColor("#C4C1B9"), QColor(t.text), QColor(t.secondary),
        QColor("#E6E4DE"), QColor("#CDD0D4"), QColor("#FFFFFF"), QColor("#F3F2EE"),
        QColor("#FBF1DA"), QColor("#C9A24A"), QColor("#E8D6A8"), QColor("#9A9CA0"), QColor("#E2EEF7"),
        QColor(t.input_bg), QColor(th.BLUE), KIND_COLOURS,
        (weights_dark, QColor("#A8457F"), act_dark, QColor(th.BLUE)),
        (weights_dark, None, act_dark, None), QColor("#007A59"), QColor("#B34E00"), QColor("#D99500"))

R_CHIP = 200.0        # packets per screen second on the HBM links when HBM runs at its peak
R_LINK = 45.0         # all-reduce packets per screen second per GPU when its link is saturated
POOL = 2400           # packets alive, at most, whatever the scenario
EASE_S = 0.3
MAX_DT = 0.05
FRAME_MS = 16
MAX_SMS = 12
MAX_TILES = 8
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)


def _ease(t: float) -> float:
    t = min(1.0, max(0.0, t))
    return t * t * (3.0 - 2.0 * t)


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    t = min(1.0, max(0.0, t))
    return QColor(int(a.red() + (b.red() - a.red()) * t), int(a.green() + (b.green() - a.green()) * t),
                  int(a.blue() + (b.blue() - a.blue()) * t))


def _font(px: int, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(9, int(px)))
    f.setBold(bold)
    return f


def _count(n: float) -> str:
    return si(n, "").strip()


def _shorter_sizes(text: str) -> list[str]:
    """'16.0 GB' -> ['16.0 GB', '16 GB', '16G']: the same number in less room (formatting only)."""
    forms = [text]
    m = re.fullmatch(r"(\d+)(?:\.(\d+))? (\S*?)B", text)
    if m:
        whole, frac, prefix = m.groups()
        if frac and set(frac) == {"0"}:
            forms.append(f"{whole} {prefix}B")
        forms.append(f"{whole}{prefix or 'B'}")
    return forms


class _FitLabel(QLabel):
    """A label that shows the longest of its forms that fits its width (the first form in full
    is its tooltip). Its size hint is the longest form, its minimum the shortest, and, for a
    counter, widths only grow so the bar does not twitch every decode step."""

    def __init__(self, parent: QWidget | None = None, sticky: bool = False):
        super().__init__(parent)
        self._forms: list[str] = [""]
        self._sticky = sticky
        self._seen = [0, 0]
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Preferred)

    def set_forms(self, forms: list[str]) -> None:
        forms = [f for f in forms if f] or [""]
        if forms == self._forms:
            return
        self._forms = forms
        self.updateGeometry()
        parent = self.parentWidget()
        if parent is not None and parent.layout() is not None:
            parent.layout().activate()          # take the new width now, not after the next paint
        self._fit()

    @property
    def forms(self) -> list[str]:
        return list(self._forms)

    def _w(self, text: str) -> int:
        m = self.contentsMargins()
        return self.fontMetrics().horizontalAdvance(text) + m.left() + m.right() + 4

    def sizeHint(self) -> QSize:
        h = super().sizeHint().height()
        w = self._w(self._forms[0])
        if self._sticky:
            self._seen[0] = w = max(self._seen[0], w)
        return QSize(w, h)

    def minimumSizeHint(self) -> QSize:
        h = super().minimumSizeHint().height()
        w = self._w(self._forms[-1])
        if self._sticky:
            self._seen[1] = w = max(self._seen[1], w)
        return QSize(w, h)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = self.contentsRect().width()
        fm = self.fontMetrics()
        shown = next((f for f in self._forms if fm.horizontalAdvance(f) <= room), None)
        if shown is None:
            shown = fm.elidedText(self._forms[-1], Qt.ElideRight, room)
        if shown != self.text():
            self.setText(shown)


def _pattern(bits: float) -> tuple[np.ndarray, int]:
    """Point offsets and pen width of one packet: the same bytes hold 16/bits as many weights."""
    if bits <= 6:
        return np.array([(-2.5, -2.5), (2.5, -2.5), (-2.5, 2.5), (2.5, 2.5)]), 4
    if bits <= 12:
        return np.array([(-2.5, -2.5), (2.5, 2.5)]), 4
    return np.array([(0.0, 0.0)]), 8


@dataclass
class _Targets:
    """What eases: packets/s per stream, tensor-core busy, level use, link use."""

    rates: np.ndarray = field(default_factory=lambda: np.zeros(4))
    busy: float = 0.0
    levels: np.ndarray = field(default_factory=lambda: np.zeros(7))   # host hbm l2 smem regs tc link

    def copy(self) -> "_Targets":
        return _Targets(self.rates.copy(), self.busy, self.levels.copy())

    @staticmethod
    def lerp(a: "_Targets", b: "_Targets", t: float) -> "_Targets":
        return _Targets(a.rates + (b.rates - a.rates) * t, a.busy + (b.busy - a.busy) * t,
                        a.levels + (b.levels - a.levels) * t)


LADDER = (("tensor_cores", 5), ("registers", 4), ("smem", 3), ("l2", 2), ("hbm", 1), ("host", 0))


class _Canvas(QWidget):
    def __init__(self, view: "HierarchyView"):
        super().__init__(view)
        self.view = view
        self.setAttribute(Qt.WA_OpaquePaintEvent, True)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setMinimumSize(520, 340)

    def sizeHint(self) -> QSize:
        return QSize(1100, 620)

    def paintEvent(self, _event) -> None:
        self.view._paint(self)

    def resizeEvent(self, _event) -> None:
        self.view._relayout()


class HierarchyView(QWidget):
    """The chip, animated. ``set_estimate(e)`` re-targets the flow; nothing else is needed."""

    def __init__(self, controller=None, estimate_: Estimate | None = None, parent: QWidget | None = None,
                 seed: int = 0):
        super().__init__(parent)
        self.setObjectName("hierarchyView")
        self.catalog = default_catalog()
        self.particles = ParticleSystem(POOL, seed=seed)
        self.estimate: Estimate | None = None
        self.flow: Flow | None = None
        self.hw = None
        self.speed = 1.0
        self.paused = False
        self.steps = 0
        self.tokens = 0
        self.frames = 0
        self._phase = 0.0
        self._from = _Targets()
        self._to = _Targets()
        self._cur = _Targets()
        self._ease_t = EASE_S
        self._geom_key = None
        self._static: QPixmap | None = None
        self._L: dict = {}
        self._patterns = {}
        self._sim_tokens_text = ""
        self._pal = _palette()

        self.canvas = _Canvas(self)
        self._bar = self._build_bar()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.canvas, 1)
        lay.addWidget(self._bar, 0)

        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.setTimerType(Qt.PreciseTimer)
        self._timer.timeout.connect(self._on_tick)
        self._clock = QElapsedTimer()

        self.controller = controller
        if controller is not None:
            controller.estimate_changed.connect(self.set_estimate)
            estimate_ = estimate_ or getattr(controller, "estimate", None)
        self.set_estimate(estimate_ or estimate(Scenario()), animate=False)

    # ---------------------------------------------------------------- control bar
    def _build_bar(self) -> QWidget:
        bar = QWidget(self)
        bar.setObjectName("hierarchyBar")
        bar.setAttribute(Qt.WA_StyledBackground, True)
        self._bar = bar
        self._bar_font_px = 0
        self._style_bar(13)
        h = QHBoxLayout(bar)
        h.setContentsMargins(10, 5, 10, 5)
        h.setSpacing(8)
        self.pause_button = QPushButton("Pause", bar)
        self.pause_button.setToolTip("Pause or resume the flow (the model keeps its numbers)")
        self.pause_button.clicked.connect(self.toggle_pause)
        self.step_button = QPushButton("Step", bar)
        self.step_button.setToolTip("Pause, then run exactly one decode step")
        self.step_button.clicked.connect(self.single_step)
        self.speed_box = QComboBox(bar)
        for s in SPEEDS:
            self.speed_box.addItem(f"speed {s:g}×", s)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.currentIndexChanged.connect(lambda i: self.set_speed(SPEEDS[i]))
        # both labels shorten rather than clip when the view is narrow (the 1280×720 window)
        self.scale_label = _FitLabel(bar)
        self.scale_label.setObjectName("secondary")
        self.token_label = _FitLabel(bar, sticky=True)
        self.token_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        for w in (self.pause_button, self.step_button, self.speed_box):
            h.addWidget(w)
        h.addSpacing(4)
        h.addWidget(self.scale_label, 1)
        h.addWidget(self.token_label, 0)
        return bar

    def _style_bar(self, px: int, force: bool = False) -> None:
        """The control bar's look, in the palette's colours; its type follows the view's (bigger on 4K)."""
        if px == self._bar_font_px and not force:
            return
        self._bar_font_px = px
        P = self._pal
        bg, border, text, sec, inp, hover = (c.name() for c in (P.bg, P.border, P.text, P.secondary, P.input_bg,
                                                                 P.hover))
        self._bar.setStyleSheet(
            f"#hierarchyBar {{ background: {bg}; border-top: 1px solid {border}; }}"
            f"#hierarchyBar QLabel {{ color: {text}; background: transparent; font-size: {px}px; }}"
            f"#hierarchyBar QLabel#secondary {{ color: {sec}; }}"
            f"#hierarchyBar QPushButton, #hierarchyBar QComboBox {{ color: {text}; background: {inp};"
            f" border: 1px solid {border}; border-radius: 4px; padding: 3px 10px; font-size: {px}px; }}"
            f"#hierarchyBar QPushButton:hover {{ border-color: {hover}; }}")

    # ---------------------------------------------------------------- public API
    def set_estimate(self, est: Estimate, animate: bool = True) -> None:
        """Re-target the flow to ``est`` (glides over 300 ms; the particles keep moving)."""
        if est is None:
            return
        self.estimate = est
        self.flow = flow(est, self.catalog)
        self.hw = self.catalog.gpu(est.scenario.gpu)
        self._to = self._targets(self.flow)
        if animate and self.frames > 0:
            self._from = self._cur.copy()
            self._ease_t = 0.0
        else:
            self._from = self._to.copy()
            self._cur = self._to.copy()
            self._ease_t = EASE_S
        self._patterns = {
            K_WEIGHTS: _pattern(self.flow.weight_bits), K_KV: _pattern(self.flow.kv_bits),
            K_ACT: (np.array([(0, 0)], dtype=float), 5), K_AR: (np.array([(0, 0)], dtype=float), 5),
        }
        self._relayout(force_static=True)
        self.particles.set_rates(self._cur.rates)
        self._update_bar()
        self.canvas.update()

    def set_theme(self, t: th.Theme) -> None:
        """Draw in ``t``'s colours (dark or light): the palette, the control bar, a fresh static layer."""
        pal = _palette(t)
        if pal == self._pal:
            return
        self._pal = pal
        self._style_bar(self._bar_font_px, force=True)
        self._static = None
        self.canvas.update()

    @property
    def theme_name(self) -> str:
        return self._pal.name

    def set_speed(self, speed: float) -> None:
        self.speed = float(speed)
        if self.speed in SPEEDS and self.speed_box.currentIndex() != SPEEDS.index(self.speed):
            self.speed_box.setCurrentIndex(SPEEDS.index(self.speed))
        self._update_bar()

    def pause(self) -> None:
        self.paused = True
        self.pause_button.setText("Play")

    def resume(self) -> None:
        self.paused = False
        self.pause_button.setText("Pause")
        self._clock.restart()

    def toggle_pause(self) -> None:
        self.resume() if self.paused else self.pause()

    def single_step(self) -> None:
        """Pause, then run the flow forward to the end of the current decode step (one token)."""
        self.pause()
        f = self.flow
        remaining = max(1e-6, (1.0 - self._phase)) * f.step_s / self.chip_seconds_per_screen_second
        n = int(min(600, max(1, math.ceil(remaining / (1 / 60)))))
        start = self.steps
        for _ in range(n):
            self.advance(remaining / n, force=True)
        if self.steps == start:       # rounding: finish the step
            self._phase = 1.0
            self.advance(1e-6, force=True)
        self.canvas.update()

    def settle(self, frames: int = 300, dt: float = 1 / 60) -> None:
        """Run ``frames`` frames deterministically (no clock): the flow reaches its steady state."""
        for _ in range(frames):
            self.advance(dt, force=True)
        self.canvas.update()

    @property
    def chip_seconds_per_screen_second(self) -> float:
        return self.flow.time_scale * self.speed

    @property
    def particle_count(self) -> int:
        return self.particles.count

    # ---------------------------------------------------------------- the clock
    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._clock.start()
        self._timer.start()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._timer.stop()

    @property
    def ticking(self) -> bool:
        return self._timer.isActive()

    def _on_tick(self) -> None:
        dt = self._clock.restart() / 1000.0 if self._clock.isValid() else FRAME_MS / 1000.0
        self.advance(min(MAX_DT, max(0.0, dt)))
        self.canvas.update()

    def advance(self, dt: float, force: bool = False) -> None:
        """One frame: ease the rates (wall time), move packets and the token clock (unless paused)."""
        dt = min(MAX_DT, max(0.0, dt))
        self.frames += 1
        if self._ease_t < EASE_S:
            self._ease_t += dt
            self._cur = _Targets.lerp(self._from, self._to, _ease(self._ease_t / EASE_S))
            self.particles.set_rates(self._cur.rates)
        if self.paused and not force:
            return
        sim = dt * self.speed
        self.particles.step(sim)
        self._phase += sim * self.flow.time_scale / self.flow.step_s
        if self._phase >= 1.0:
            n = int(self._phase)
            self._phase -= n
            self.steps += n
            self.tokens += n * self.flow.tokens_per_step
            self._update_tokens()

    # ---------------------------------------------------------------- targets from the flow
    def _targets(self, f: Flow) -> _Targets:
        hbm = self.hw.hbm_bandwidth_bytes_per_s
        chip = f.link("hbm_l2").bytes_per_s
        rates = np.array([R_CHIP * chip[0] / hbm, R_CHIP * chip[1] / hbm, R_CHIP * chip[2] / hbm, 0.0])
        if f.interconnect is not None:
            rates[3] = R_LINK * f.interconnect.utilisation * min(f.gpus, MAX_TILES)
        lv = dict(f.utilisation)
        levels = np.array([lv["host"], lv["hbm"], lv["l2"], lv["smem"], lv["registers"], f.tensor_busy,
                           f.link_busy])
        return _Targets(rates, f.tensor_busy, levels)

    def packet_bytes(self) -> float:
        """Bytes one in-chip packet stands for at the current speed."""
        return self.hw.hbm_bandwidth_bytes_per_s * self.chip_seconds_per_screen_second / R_CHIP

    def link_packet_bytes(self) -> float | None:
        f = self.flow
        if f.interconnect is None or not f.link_bandwidth_bytes_per_s:
            return None
        return f.link_bandwidth_bytes_per_s * self.chip_seconds_per_screen_second / R_LINK

    # ---------------------------------------------------------------- bar text
    def _update_bar(self) -> None:
        if self.flow is None:
            return
        t = self.chip_seconds_per_screen_second
        slow = 1.0 / t
        self.scale_label.set_forms([f"1 s on screen = {duration(t)} on chip ({_count(slow)}× slower)",
                                    f"1 s = {duration(t)} on chip ({_count(slow)}× slower)",
                                    f"1 s = {duration(t)} chip ({_count(slow)}×)",
                                    f"1 s = {duration(t)} chip"])
        self.scale_label.setToolTip(f"1 s on screen = {duration(t)} on chip ({_count(slow)}× slower); "
                                    f"one {self._step_word()} = {duration(self.flow.step_s)} on chip = "
                                    f"{self.flow.step_s / t:.2g} s on screen")
        self._update_tokens()

    def _step_word(self) -> str:
        return "prefill pass" if self.flow is not None and self.flow.phase == "prefill" else "decode step"

    def _update_tokens(self) -> None:
        text = f"{self._step_word()} {self.steps:,} · {self.tokens:,} tokens"
        if text != self._sim_tokens_text:
            self._sim_tokens_text = text
            self.token_label.set_forms([text, f"step {self.steps:,} · {self.tokens:,} tok", f"{self.tokens:,} tok"])
            self.token_label.setToolTip(text)

    # ---------------------------------------------------------------- layout
    def _relayout(self, force_static: bool = False) -> None:
        if self.flow is None:
            return
        w, h = self.canvas.width(), self.canvas.height()
        f, hw = self.flow, self.hw
        stacks = int(hw.hbm_stacks or 4)
        tiles = min(f.gpus, MAX_TILES) if f.gpus > 1 else 0
        fs = self._font_size(w, h)
        two = QFontMetrics(_font(int(fs * 1.45), True)).horizontalAdvance(f.caption) > w - 24
        key = (w, h, stacks, hw.units, tiles, hw.id, two, f.fits)
        if key != self._geom_key:
            self._geom_key = key
            self._layout(w, h, stacks, tiles, two)
            force_static = True
        if force_static:
            self._static = None

    @staticmethod
    def _font_size(w: int, h: int) -> int:
        return max(10, min(28, int(h / 46), int(w / 64)))   # grows on 4K screens and projectors

    def _layout(self, w: int, h: int, stacks: int, tiles: int, two_line_caption: bool = False) -> None:
        hw = self.hw
        L: dict = {}
        fs = self._font_size(w, h)
        L["fs"] = fs
        self._style_bar(max(13, fs - 1))
        L["caption_lines"] = 2 if two_line_caption else 1
        # one more line for the "does not fit" warning, so it never runs under the package
        header_h = int(fs * ((5.7 if two_line_caption else 4.4) + (0.0 if self.flow.fits else 1.3)))
        body = QRectF(0, header_h, w, h - header_h)
        grow = max(1.0, fs / 15.0)          # side columns widen with the type on big screens
        ladder_w = max(150, min(int(260 * grow), int(w * 0.20)))
        legend_w = max(190, min(int(320 * grow), int(w * 0.25)))
        L["header"] = QRectF(12, 6, w - 24, header_h - 6)
        L["ladder_x"] = 12.0
        L["ladder_w"] = float(ladder_w - 18)
        L["legend"] = QRectF(w - legend_w + 6, body.top() + 4, legend_w - 16, body.height() - 12)
        cx0, cx1 = float(ladder_w), float(w - legend_w - 6)
        H = body.height()
        y = body.top() + 0.02 * H
        pkg_top = y
        band = {}
        sm_top = y + max(0.03 * H, fs * 1.6)
        band["tensor_cores"] = (sm_top, sm_top + 0.13 * H)
        band["registers"] = (band["tensor_cores"][1], band["tensor_cores"][1] + 0.095 * H)
        band["smem"] = (band["registers"][1], band["registers"][1] + 0.095 * H)
        l2_top = band["smem"][1] + 0.11 * H
        band["l2"] = (l2_top, l2_top + 0.075 * H)
        hbm_top = band["l2"][1] + 0.11 * H
        band["hbm"] = (hbm_top, hbm_top + 0.16 * H)
        pkg_bottom = band["hbm"][1] + 0.02 * H
        host_top = pkg_bottom + 0.075 * H
        band["host"] = (host_top, min(body.bottom() - 4, host_top + 0.085 * H))
        L["band"] = band
        L["package"] = QRectF(cx0, pkg_top, cx1 - cx0, pkg_bottom - pkg_top)
        inner0, inner1 = cx0 + 14, cx1 - 14
        # SMs
        n_sm = max(1, min(hw.units, MAX_SMS, int((inner1 - inner0) // 42)))
        gap = 8.0 if n_sm > 1 else 0.0
        sm_w = ((inner1 - inner0) - gap * (n_sm - 1)) / n_sm
        sms = [QRectF(inner0 + i * (sm_w + gap), band["tensor_cores"][0], sm_w,
                      band["smem"][1] - band["tensor_cores"][0]) for i in range(n_sm)]
        L["sms"] = sms
        L["l2"] = QRectF(inner0, band["l2"][0], inner1 - inner0, band["l2"][1] - band["l2"][0])
        # HBM stacks: along the package's bottom edge, clustered at both ends like the real parts
        st_w = min(92.0, ((inner1 - inner0) - 10 * (stacks - 1)) / stacks)
        st_gap = 10.0
        left_n = (stacks + 1) // 2
        right_n = stacks - left_n
        xs = [inner0 + i * (st_w + st_gap) for i in range(left_n)]
        xs += [inner1 - (right_n - i) * (st_w + st_gap) + st_gap for i in range(right_n)]
        L["stacks"] = [QRectF(x, band["hbm"][0], st_w, band["hbm"][1] - band["hbm"][0]) for x in xs]
        host_w = min(220.0, (cx1 - cx0) * 0.36)
        L["host"] = QRectF(inner0, band["host"][0], host_w, band["host"][1] - band["host"][0])
        L["pcie_x"] = L["stacks"][0].center().x()
        # pipes
        hbm_pipe_w = max(8.0, min(18.0, st_w * 0.32))
        sm_pipe_w = max(6.0, min(16.0, sm_w * 0.34))
        L["hbm_pipe_w"], L["sm_pipe_w"] = hbm_pipe_w, sm_pipe_w

        # routes: stack k → L2 → SM j → shared mem → registers → tensor cores
        levels = {lvl.key: lvl.bandwidth_bytes_per_s for lvl in hw.levels}
        hbm_bw = hw.hbm_bandwidth_bytes_per_s
        v0 = 0.17 * H

        n_st = len(L["stacks"])

        def v(key):
            # density per drawn pipe ∝ level use: each of the n_sm drawn SM pipes stands for
            # 1/n_sm of the level's bandwidth, each of the n_st HBM pipes for 1/n_st of HBM's
            bw = levels.get(key)
            ratio = (bw / hbm_bw) * (n_st / n_sm) if bw else 10.0
            return v0 * min(8.0, max(0.6, ratio ** 0.35))

        polys, speeds, lanes = [], [], []
        l2r = L["l2"]
        l2_mid = l2r.center().y()
        lane = min(hbm_pipe_w, sm_pipe_w) * 0.8
        for st in L["stacks"]:
            sx = st.center().x()
            for sm in sms:
                x = sm.center().x()
                pts = [(sx, st.top() + 4), (sx, l2r.bottom()), (sx, l2_mid), (x, l2_mid), (x, l2r.top()),
                       (x, sm.bottom()), (x, band["registers"][1]), (x, band["tensor_cores"][1]),
                       (x, band["tensor_cores"][0] + (band["tensor_cores"][1] - band["tensor_cores"][0]) * 0.45)]
                across = max(v("l2"), abs(x - sx) / 0.35)
                speeds.append(np.array([v0, v("l2"), across, v("l2"), v("l2"), v("smem"),
                                        v("registers"), v("registers")]))
                polys.append(np.array(pts))
                lanes.append(lane)
        chip_routes = np.arange(len(polys))

        # cluster of GPUs: the legend column's lower part, one row of tiles over a switch
        L["tiles"] = []
        ar_routes = np.zeros(0, dtype=np.int32)
        if tiles:
            lg = L["legend"]
            head = fs * 3.0
            tile_h = max(30.0, min(46.0, H * 0.07))
            pipe_h = max(24.0, min(40.0, H * 0.06))
            sw_h = fs * 1.5
            foot = fs * 3.2
            ch = head + tile_h + pipe_h + sw_h + foot + 8
            cl = QRectF(lg.left(), lg.bottom() - ch, lg.width(), ch)
            L["cluster"] = cl
            tgap = 6.0
            tile_w = min(44.0, (cl.width() - 20 - tgap * (tiles - 1)) / tiles)
            total_w = tiles * tile_w + (tiles - 1) * tgap
            x0 = cl.left() + (cl.width() - total_w) / 2
            ty = cl.top() + head
            sw_y = ty + tile_h + pipe_h
            L["switch"] = QRectF(cl.left() + 10, sw_y, cl.width() - 20, sw_h)
            L["cluster_foot"] = QRectF(cl.left() + 10, sw_y + sw_h + 4, cl.width() - 20, foot)
            start = len(polys)
            vl = 0.1 * H
            for i in range(tiles):
                t = QRectF(x0 + i * (tile_w + tgap), ty, tile_w, tile_h)
                L["tiles"].append(t)
                tx = t.center().x()
                up, down = (tx + 3, sw_y), (tx + 3, t.bottom())
                polys.append(np.array([(tx - 3, t.bottom()), (tx - 3, sw_y)]))
                speeds.append(np.array([vl]))
                lanes.append(3.0)
                polys.append(np.array([up, down]))
                speeds.append(np.array([vl]))
                lanes.append(3.0)
            ar_routes = np.arange(start, len(polys))
        self.particles.set_routes(polys, speeds, lanes)
        self.particles.set_streams([(K_WEIGHTS, chip_routes), (K_KV, chip_routes), (K_ACT, chip_routes),
                                    (K_AR, ar_routes)])
        self.particles.set_rates(self._cur.rates)
        self._L = L

    # ---------------------------------------------------------------- painting
    def _paint(self, canvas: QWidget) -> None:
        p = QPainter(canvas)
        dpr = canvas.devicePixelRatioF()
        if self._static is None or self._static.size() != canvas.size() * dpr:
            self._static = self._render_static(canvas.width(), canvas.height(), dpr)
        p.drawPixmap(0, 0, self._static)
        self._paint_dynamic(p)
        self._paint_particles(p)
        p.end()

    def _render_static(self, w: int, h: int, dpr: float) -> QPixmap:
        P = self._pal
        pm = QPixmap(int(w * dpr), int(h * dpr))
        pm.setDevicePixelRatio(dpr)
        pm.fill(P.bg)
        p = QPainter(pm)
        p.setRenderHint(QPainter.Antialiasing, True)
        p.setRenderHint(QPainter.TextAntialiasing, True)
        try:
            self._paint_header(p)
            self._paint_ladder(p)
            self._paint_chip(p)
            self._paint_legend(p)
            if self._L.get("tiles"):
                self._paint_cluster(p)
        finally:
            p.end()
        return pm

    def _text(self, p: QPainter, rect: QRectF, text: str, font: QFont, colour: QColor,
              align=Qt.AlignLeft | Qt.AlignVCenter) -> float:
        p.setFont(font)
        p.setPen(colour)
        fm = QFontMetrics(font)
        shown = fm.elidedText(text, Qt.ElideRight, int(rect.width()))
        p.drawText(rect, int(align), shown)
        return fm.horizontalAdvance(shown)

    def _fit(self, p: QPainter, rect: QRectF, forms, font: QFont, colour: QColor,
             align=Qt.AlignLeft | Qt.AlignVCenter, wrap: bool = False) -> float:
        """Draw the first of ``forms`` that fits ``rect`` on one line; with ``wrap``, then the first
        that fits word-wrapped; else the last, elided. Returns the width used."""
        forms = [t for t in forms if t]
        if not forms:
            return 0.0
        fm = QFontMetrics(font)
        flags = int(align) | int(Qt.TextWordWrap)
        for text in forms:
            if fm.horizontalAdvance(text) <= rect.width():
                return self._text(p, rect, text, font, colour, align)
            if wrap:
                br = fm.boundingRect(rect.toRect(), flags, text)
                if br.height() <= rect.height() + 1 and br.width() <= rect.width():
                    p.setFont(font)
                    p.setPen(colour)
                    p.drawText(rect, flags, text)
                    return float(br.width())
        return self._text(p, rect, forms[-1], font, colour, align)

    def _wrapped_height(self, text: str, width: float, font: QFont) -> float:
        fm = QFontMetrics(font)
        if fm.horizontalAdvance(text) <= width:
            return float(fm.height())
        return float(fm.boundingRect(QRectF(0, 0, width, 10000).toRect(), int(Qt.TextWordWrap), text).height())

    def _paint_header(self, p: QPainter) -> None:
        P = self._pal
        e, f, L = self.estimate, self.flow, self._L
        fs = L["fs"]
        r = L["header"]
        gpus = f"{f.gpus} GPUs (tp {f.tp}{f', pp ' + str(f.pp) if f.pp > 1 else ''})" if f.gpus > 1 else "1 GPU"
        tp = f" · tp {f.tp}{f' pp ' + str(f.pp) if f.pp > 1 else ''}" if f.gpus > 1 else ""
        titles = [f"{e.gpu_name} · {e.model_name} · {e.precision_name} weights · KV {e.kv_precision_name} · "
                  f"batch {f.batch} · {gpus} · {f.phase}",
                  f"{e.gpu_name} · {e.model_name} · {e.precision_name} · KV {e.kv_precision_name} · "
                  f"batch {f.batch} · {gpus}",
                  f"{self.hw.short_name} · {e.model_name} · {e.precision_name} · batch {f.batch} · {f.gpus}×{tp}",
                  f"{self.hw.short_name} · {e.model_name} · batch {f.batch} · {f.gpus}×"]
        line1 = QRectF(r.left(), r.top(), r.width(), fs * 1.5)
        self._fit(p, line1, titles, _font(fs), P.secondary)
        cap = f.caption
        head, _, tail = cap.partition(" — ")
        colour = P.tc_text if f.bottleneck == "compute" else P.warning_text
        if L.get("caption_lines", 1) == 2:
            # narrow: the caption wraps over two lines, word by word, the tail in its colour
            line2 = QRectF(r.left(), line1.bottom() + 2, r.width(), r.bottom() - line1.bottom() - 2
                           - (fs * 1.3 if not f.fits else 0))
            size = int(fs * 1.45)
            while True:
                big = _font(size, bold=True)
                if self._caption_lines(p, line2, head, tail, big, colour, draw=False) or size <= fs:
                    break
                size -= 1
            self._caption_lines(p, line2, head, tail, big, colour, draw=True)
        else:
            line2 = QRectF(r.left(), line1.bottom() + 2, r.width(), fs * 2.0)
            big = _font(int(fs * 1.45), bold=True)
            used = self._text(p, line2, head + (" — " if tail else ""), big, P.text)
            if tail:
                self._text(p, QRectF(line2.left() + used, line2.top(), line2.width() - used, line2.height()),
                           tail, big, colour)
        if not f.fits:
            note = next((n for n in e.notes if n.startswith("does not fit")), "does not fit in HBM")
            warn = QRectF(r.left(), line2.bottom(), r.width(), fs * 1.3)
            self._fit(p, warn, ["⚠ " + note + " — shown as if it did", "⚠ " + note], _font(fs - 1), P.warning_text)

    def _caption_lines(self, p: QPainter, rect: QRectF, head: str, tail: str, font: QFont, colour: QColor,
                       draw: bool) -> bool:
        """Lay the caption's words into the lines ``rect`` holds; True when every word fits."""
        P = self._pal
        fm = QFontMetrics(font)
        words = [(w, P.text) for w in (head + (" —" if tail else "")).split()] + [(w, colour) for w in tail.split()]
        lh = fm.height() * 1.05
        n_lines = max(1, int(rect.height() // lh))
        space = fm.horizontalAdvance(" ")
        x, line = 0.0, 0
        if draw:
            p.setFont(font)
        for k, (word, c) in enumerate(words):
            adv = fm.horizontalAdvance(word)
            if x > 0 and x + adv > rect.width():
                line, x = line + 1, 0.0
            if line >= n_lines:
                return False
            if draw:
                room = rect.width() - x
                last_line = line == n_lines - 1
                shown = word if adv <= room else fm.elidedText(word, Qt.ElideRight, int(room))
                p.setPen(c)
                p.drawText(QRectF(rect.left() + x, rect.top() + line * lh, room if last_line else adv + 1, lh),
                           int(Qt.AlignLeft | Qt.AlignVCenter), shown)
            x += adv + space
        return True

    def _level_numbers(self, key: str) -> tuple[str, str]:
        hw, f, e = self.hw, self.flow, self.estimate
        if key == "tensor_cores":
            return ("Tensor cores", f"{hw.tensor_cores:,} · {si(f.peak_flops, 'FLOP/s')} {e.compute_dtype.upper()}")
        lvl = hw.level(key)
        cap = si(lvl.capacity_bytes, "B") if lvl.capacity_bytes else "—"
        bw = si(lvl.bandwidth_bytes_per_s, "B/s") if lvl.bandwidth_bytes_per_s else "bandwidth n/a"
        if key == "hbm":
            stacks = f" × {hw.hbm_stacks} stacks" if hw.hbm_stacks else ""
            return (f"{hw.hbm_kind}{stacks}", f"{cap} · {bw}")
        if key == "host":
            link = hw.pcie.name if hw.pcie else "host link"
            return (f"Host RAM ({'PCIe ' + link if hw.pcie else link})",
                    f"{cap} · {bw}" if lvl.capacity_bytes else f"{bw} to the GPU")
        name = {"registers": "Registers", "smem": "Shared mem / L1", "l2": "L2 cache"}[key]
        return (name, f"{cap} · {bw}")

    def _paint_ladder(self, p: QPainter) -> None:
        P = self._pal
        L = self._L
        fs = L["fs"]
        x, w = L["ladder_x"], L["ladder_w"]
        for key, _ in LADDER:
            y0, y1 = L["band"][key]
            name, nums = self._level_numbers(key)
            cy = (y0 + y1) / 2
            top = cy - fs * 1.55
            names = [name, name.split(" (")[0]] if " (" in name else [name]
            self._fit(p, QRectF(x, top, w, fs * 1.4), names, _font(fs, True), P.text)
            self._text(p, QRectF(x, top + fs * 1.35, w, fs * 1.3), nums, _font(fs - 1), P.secondary)
            # the bar track (its fill is dynamic)
            p.setPen(Qt.NoPen)
            p.setBrush(P.pipe)
            p.drawRoundedRect(QRectF(x, top + fs * 2.75, w * 0.5, 5), 2, 2)

    def _paint_chip(self, p: QPainter) -> None:
        P = self._pal
        L, hw = self._L, self.hw
        fs = L["fs"]
        pk = L["package"]
        p.setPen(QPen(P.border, 1.5))
        p.setBrush(P.package)
        p.drawRoundedRect(pk, 10, 10)
        unit = hw.unit_name
        drawn = len(L["sms"])
        # title left, unit count right; when both do not fit, shorten, then drop the title
        title_r = QRectF(pk.left() + 10, pk.top() + 1, pk.width() - 20, fs * 1.5)
        small_f, bold_f = _font(fs - 1), _font(fs, True)
        fm_s, fm_b = QFontMetrics(small_f), QFontMetrics(bold_f)
        full_units, short_units = f"×{hw.units:,} {unit}s ({drawn} drawn)", f"×{hw.units:,} {unit}s"
        choice = ("", short_units)
        for left, right in ((f"{hw.short_name} package", full_units), (hw.short_name, full_units),
                            (f"{hw.short_name} package", short_units), (hw.short_name, short_units),
                            ("", full_units)):
            need = fm_b.horizontalAdvance(right) + (fm_s.horizontalAdvance(left) + 14 if left else 0)
            if need <= title_r.width():
                choice = (left, right)
                break
        if choice[0]:
            self._text(p, title_r, choice[0], small_f, P.secondary, Qt.AlignLeft | Qt.AlignVCenter)
        self._text(p, title_r, choice[1], bold_f, P.text, Qt.AlignRight | Qt.AlignVCenter)
        band = L["band"]
        # pipes from HBM to L2 and from L2 to SMs
        p.setPen(Qt.NoPen)
        p.setBrush(P.pipe)
        l2 = L["l2"]
        hp, sp = L["hbm_pipe_w"], L["sm_pipe_w"]
        for st in L["stacks"]:
            p.drawRect(QRectF(st.center().x() - hp / 2, l2.bottom(), hp, st.top() - l2.bottom()))
        for sm in L["sms"]:
            p.drawRect(QRectF(sm.center().x() - sp / 2, sm.bottom(), sp, l2.top() - sm.bottom()))
        # L2
        p.setPen(QPen(P.border, 1))
        p.setBrush(P.unit)
        p.drawRoundedRect(l2, 5, 5)
        # SMs: shared memory, registers, tensor cores
        for sm in L["sms"]:
            p.setPen(QPen(P.border, 1))
            p.setBrush(P.unit)
            p.drawRoundedRect(sm, 4, 4)
            for key in ("registers", "smem"):
                y0, _ = band[key]
                p.drawLine(QPointF(sm.left(), y0), QPointF(sm.right(), y0))
            p.setPen(Qt.NoPen)
            p.setBrush(P.pipe)
            p.drawRect(QRectF(sm.center().x() - sp / 2, band["registers"][0] + 3, sp,
                              band["smem"][1] - band["registers"][0] - 6))
        if L["sms"] and L["sms"][0].width() >= 40:
            sm = L["sms"][0]
            small = _font(fs - 3)
            for key, word in (("registers", "RF"), ("smem", "SMEM")):
                y0, y1 = band[key]
                self._text(p, QRectF(sm.left() + 3, y0 + 1, sm.width() - 6, fs), word, small, P.secondary,
                           Qt.AlignLeft | Qt.AlignTop)
        # HBM stacks
        per = (hw.hbm_capacity_bytes / len(L["stacks"])) if L["stacks"] else 0
        for st in L["stacks"]:
            p.setPen(QPen(P.hbm_edge, 1))
            p.setBrush(P.hbm_fill)
            p.drawRoundedRect(st, 4, 4)
            p.setPen(QPen(P.hbm_line, 1))
            for k in range(1, 5):
                yy = st.top() + st.height() * k / 5.0
                p.drawLine(QPointF(st.left() + 4, yy), QPointF(st.right() - 4, yy))
            cap_r = QRectF(st.left() + 2, st.bottom() - fs * 1.4, st.width() - 4, fs * 1.3)
            fm = QFontMetrics(_font(fs - 2))
            forms = [t for t in _shorter_sizes(si(per, "B")) if fm.horizontalAdvance(t) <= cap_r.width()]
            if forms:          # the shortest that fits, or nothing rather than "16…"
                self._text(p, cap_r, forms[0], _font(fs - 2), P.secondary, Qt.AlignHCenter | Qt.AlignVCenter)
        # host RAM behind PCIe
        host = L["host"]
        px = L["pcie_x"]
        p.setPen(QPen(P.host_link, 2, Qt.DashLine))
        p.drawLine(QPointF(px, L["package"].bottom()), QPointF(px, host.top()))
        p.setPen(QPen(P.border, 1))
        p.setBrush(P.panel)
        p.drawRoundedRect(host, 5, 5)
        self._text(p, host.adjusted(8, 0, -8, 0), "Host RAM", _font(fs, True), P.text)
        link = hw.pcie.name if hw.pcie else "host link"
        notes = [f"PCIe {link}: idle in steady decode (weights already in HBM)",
                 f"PCIe {link}: idle in steady decode", f"PCIe {link}: idle in decode", "idle in decode"] \
            if hw.pcie else ["host link: idle in steady decode", "idle in decode"]
        self._fit(p, QRectF(host.right() + 10, host.top(), L["package"].right() - host.right() - 10, host.height()),
                  notes, _font(fs - 1), P.secondary, wrap=True)

    def _paint_legend(self, p: QPainter) -> None:
        P = self._pal
        L, f, e = self._L, self.flow, self.estimate
        fs = L["fs"]
        r = L["legend"]
        p.setPen(QPen(P.border, 1))
        p.setBrush(P.panel)
        limit = L["cluster"].top() - 8 if L.get("tiles") else r.bottom()
        box = QRectF(r.left(), r.top(), r.width(), limit - r.top())
        p.drawRoundedRect(box, 6, 6)
        x = r.left() + 10
        w = r.width() - 20
        y = r.top() + 6
        lh = fs * 1.45
        small, normal = _font(fs - 1), _font(fs)

        def line(text, font=small, colour=P.secondary, height=lh, shorter=()):
            # one line when it fits (or a shorter form does), else wrapped over as many as it needs
            nonlocal y
            fm = QFontMetrics(font)
            forms = [text, *shorter]
            fits = next((t for t in forms if fm.horizontalAdvance(t) <= w), None)
            if fits is None:
                need = self._wrapped_height(text, w, font) + (height - fm.height())
                if y + need <= limit - 4:
                    self._fit(p, QRectF(x, y, w, need), [text], font, colour, wrap=True)
                y += need
                return
            if y + height <= limit - 4:
                self._text(p, QRectF(x, y, w, height), fits, font, colour)
            y += height

        pb = self.packet_bytes()
        wpp = pb / (f.weight_bits / 8.0)
        line("Packets of bytes", _font(fs, True), P.text)
        line(f"1 packet = {si(pb, 'B')} (at this speed)")
        rows = [(K_WEIGHTS, "weights", f"{_count(wpp)} per packet"),
                (K_KV, "KV cache", f"{e.kv_precision_name}"),
                (K_ACT, "activations", "layer in/out")]
        if f.interconnect is not None:
            lp = si(self.link_packet_bytes(), 'B')
            rows.append((K_AR, "all-reduce", [f"1 packet = {lp}", f"{lp} a packet", lp]))
        for kind, name, sub in rows:
            if y + lh > limit - 4:
                break
            self._sprite(p, QPointF(x + 8, y + lh / 2), kind)
            used = self._text(p, QRectF(x + 22, y, w - 22, lh), name, normal, P.kind_text[kind])
            self._fit(p, QRectF(x + 22 + used + 8, y, w - 30 - used, lh), [sub] if isinstance(sub, str) else sub,
                      small, P.secondary)
            y += lh
        y += lh * 0.25
        if y + 2 * lh <= limit - 4:
            line("Same bytes, more weights:")
            xx = x + 8
            fm = QFontMetrics(small)
            for bits, word in ((16, "16-bit 1×"), (8, "8-bit 2×"), (4, "4-bit 4×")):
                if xx + 10 + fm.horizontalAdvance(word) > x + w:
                    break
                self._sprite(p, QPointF(xx, y + lh / 2), K_WEIGHTS, bits)
                adv = self._text(p, QRectF(xx + 10, y, 90, lh), word, small, P.text)
                xx += adv + 24
            y += lh * 1.25
        if y + lh <= limit - 4:
            p.setPen(Qt.NoPen)
            p.setBrush(TC_BUSY)
            p.drawRect(QRectF(x + 2, y + lh * 0.2, 12, lh * 0.6))
            used = self._text(p, QRectF(x + 22, y, w, lh), "tensor cores busy", normal, P.tc_text)
            p.setPen(Qt.NoPen)
            p.setBrush(P.tc_idle)
            p.drawRect(QRectF(x + 22 + used + 10, y + lh * 0.2, 12, lh * 0.6))
            self._text(p, QRectF(x + 22 + used + 28, y, w - used - 28, lh), "idle", normal, P.secondary)
            y += lh
        line("Packets slow to the speed of their link: a crowded link is a busy link.")
        y += lh * 0.4
        hbm = f.link("hbm_l2")
        line(f"Per GPU, each {self._step_word()}", _font(fs, True), P.text)
        wb, kb, ab = hbm.bytes_per_step
        line(f"reads {si(wb, 'B')} weights · {si(kb, 'B')} KV", small, P.text)
        line(f"+ {si(ab, 'B')} activations, in {duration(f.step_s)}", small, P.text)
        line(f"{si(hbm.total_bytes_per_s, 'B/s')} on every link HBM → cores")
        line(f"{si(f.flops_per_step, 'FLOP')} · MFU {percent(f.mfu)}")

    def _sprite(self, p: QPainter, at: QPointF, kind: int, bits: float | None = None) -> None:
        offsets, width = _pattern(bits) if bits is not None else self._patterns[kind]
        P = self._pal
        for colour, w in _layers(P.kinds[kind], P.outlines[kind], width):
            pen = QPen(colour, w)
            pen.setCapStyle(Qt.SquareCap)
            p.setPen(pen)
            for dx, dy in offsets:
                p.drawPoint(QPointF(at.x() + dx, at.y() + dy))

    def _paint_cluster(self, p: QPainter) -> None:
        P = self._pal
        L, f = self._L, self.flow
        fs = L["fs"]
        cl = L["cluster"]
        p.setPen(QPen(P.border, 1))
        p.setBrush(P.panel)
        p.drawRoundedRect(cl, 6, 6)
        split = f"tp {f.tp} × pp {f.pp}" if f.pp > 1 else f"tensor parallel {f.tp}"
        more = f" · {MAX_TILES} drawn" if f.gpus > MAX_TILES else ""
        short = f"tp {f.tp} pp {f.pp}" if f.pp > 1 else f"tp {f.tp}"
        self._fit(p, QRectF(cl.left() + 10, cl.top() + 4, cl.width() - 20, fs * 1.4),
                  [f"×{f.gpus} GPUs · {split}{more}", f"×{f.gpus} GPUs · {short}{more}", f"×{f.gpus} GPUs · {short}"],
                  _font(fs, True), P.text)
        link = f.link_name or "link"
        bw = si(f.link_bandwidth_bytes_per_s, "B/s") if f.link_bandwidth_bytes_per_s else ""
        self._text(p, QRectF(cl.left() + 10, cl.top() + 4 + fs * 1.35, cl.width() - 20, fs * 1.3),
                   f"{'PCIe ' if f.link_kind == 'pcie' else ''}{link} · {bw}", _font(fs - 1),
                   P.secondary)
        sw = L["switch"]
        p.setPen(Qt.NoPen)
        p.setBrush(P.pipe)
        for t in L["tiles"]:
            p.drawRect(QRectF(t.center().x() - 7, t.bottom(), 14, sw.top() - t.bottom()))
        p.setPen(QPen(INTERCONNECT, 1))
        p.setBrush(P.switch)
        p.drawRoundedRect(sw, 3, 3)
        word = {"pcie": "PCIe switch", "network": "network"}.get(f.link_kind, "switch")
        self._text(p, sw, word, _font(fs - 2), P.text, Qt.AlignCenter)
        for i, t in enumerate(L["tiles"]):
            p.setPen(QPen(P.text if i == 0 else P.border, 1.5 if i == 0 else 1))
            p.setBrush(P.unit)
            p.drawRoundedRect(t, 4, 4)
            p.setPen(Qt.NoPen)
            p.setBrush(P.hbm_line)
            p.drawRect(QRectF(t.left() + 3, t.top() + 3, 4, t.height() - 6))
            p.drawRect(QRectF(t.right() - 7, t.top() + 3, 4, t.height() - 6))

    def _paint_dynamic(self, p: QPainter) -> None:
        """Per frame: level-use bars, tensor-core fill, link fill. Steady, no flashing."""
        P = self._pal
        L, cur = self._L, self._cur
        fs = L["fs"]
        x, w = L["ladder_x"], L["ladder_w"]
        lv = {"host": cur.levels[0], "hbm": cur.levels[1], "l2": cur.levels[2], "smem": cur.levels[3],
              "registers": cur.levels[4], "tensor_cores": cur.busy}
        font = _font(fs - 1)
        fm = QFontMetrics(font)
        p.setFont(font)
        for key, _ in LADDER:
            y0, y1 = L["band"][key]
            cy = (y0 + y1) / 2
            top = cy - fs * 1.55
            u = float(lv[key])
            bar = QRectF(x, top + fs * 2.75, w * 0.5, 5)
            colour = TC_BUSY if key == "tensor_cores" else (WARNING if u > 0.8 else P.level_bar)
            p.setPen(Qt.NoPen)
            p.setBrush(colour)
            p.drawRoundedRect(QRectF(bar.left(), bar.top(), max(2.0, bar.width() * u), bar.height()), 2, 2)
            word = "busy" if key == "tensor_cores" else "used"
            room = w - bar.width() - 6
            text = f"{percent(u)} {word}"
            if fm.horizontalAdvance(text) > room:
                text = percent(u)
            p.setPen(P.text if u > 0.05 else P.secondary)
            p.drawText(QRectF(bar.right() + 6, bar.top() - fs * 0.6, room, fs * 1.3),
                       int(Qt.AlignLeft | Qt.AlignVCenter), text)
        # tensor cores: steady brightness and fill
        busy = float(cur.busy)
        y0, y1 = L["band"]["tensor_cores"]
        base = _mix(P.tc_idle, TC_BUSY, 0.25 + 0.75 * busy) if busy > 0.02 else P.tc_idle
        for sm in L["sms"]:
            tc = QRectF(sm.left() + 3, y0 + 3, sm.width() - 6, y1 - y0 - 5)
            p.setPen(Qt.NoPen)
            p.setBrush(QColor(base.red(), base.green(), base.blue(), 90))
            p.drawRoundedRect(tc, 3, 3)
            h = tc.height() * busy
            p.setBrush(_mix(P.tc_idle, TC_BUSY, 0.5 + 0.5 * busy))
            p.drawRoundedRect(QRectF(tc.left(), tc.bottom() - h, tc.width(), h), 3, 3)
        if L["sms"] and L["sms"][0].width() >= 40:
            sm = L["sms"][0]
            self._text(p, QRectF(sm.left() + 3, y0 + 2, sm.width() - 6, fs), "TC", _font(fs - 3), P.text,
                       Qt.AlignLeft | Qt.AlignTop)
        # cluster tiles: tensor-core fill; the link: how much of each step it is busy
        if L.get("tiles"):
            for t in L["tiles"]:
                inner = QRectF(t.left() + 9, t.top() + 4, t.width() - 18, t.height() - 8)
                p.setPen(Qt.NoPen)
                p.setBrush(P.tc_idle)
                p.drawRect(inner)
                h = inner.height() * busy
                p.setBrush(TC_BUSY)
                p.drawRect(QRectF(inner.left(), inner.bottom() - h, inner.width(), h))
            foot = L["cluster_foot"]
            u = float(cur.levels[6])
            bar = QRectF(foot.left(), foot.top() + fs * 1.55, foot.width() * 0.45, 5)
            p.setBrush(P.pipe)
            p.drawRoundedRect(bar, 2, 2)
            comm = self.flow.bottleneck == "communication"
            p.setBrush(WARNING if comm else INTERCONNECT)
            p.drawRoundedRect(QRectF(bar.left(), bar.top(), max(2.0, bar.width() * u), 5), 2, 2)
            colour = P.warning_text if comm else P.text
            self._fit(p, QRectF(foot.left(), foot.top(), foot.width(), fs * 1.4),
                      [f"link busy {percent(u)} of each step", f"link busy {percent(u)} of a step",
                       f"link busy {percent(u)}"], _font(fs - 1, comm), colour)
            if comm:
                self._fit(p, QRectF(bar.right() + 8, bar.top() - fs * 0.7, foot.width() - bar.width() - 8, fs * 1.4),
                          ["the bottleneck", "bottleneck"], _font(fs - 1, True), colour)

    def _paint_particles(self, p: QPainter) -> None:
        ps = self.particles
        if not ps.alive.any():
            return
        p.setRenderHint(QPainter.Antialiasing, False)
        alive = ps.alive
        for kind in (K_AR, K_ACT, K_KV, K_WEIGHTS):
            pts = ps.pos[alive & (ps.kind == kind)]
            if not len(pts):
                continue
            offsets, width = self._patterns[kind]
            n, m = len(pts), len(offsets)
            poly = create_qpolygonf(n * m)
            arr = ndarray_from_qpolygonf(poly)
            arr[:] = (np.round(pts)[:, None, :] + offsets[None, :, :]).reshape(-1, 2)
            for colour, w in _layers(self._pal.kinds[kind], self._pal.outlines[kind], width):
                pen = QPen(colour, w)
                pen.setCapStyle(Qt.SquareCap)
                p.setPen(pen)
                p.drawPoints(poly)
