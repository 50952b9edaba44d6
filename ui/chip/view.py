"""The animated memory hierarchy: packets of bytes flowing from HBM into the tensor cores.

The facade over the chip view's parts:
    ui.chip.layout        where every part sits, from the size (pure)
    model.readouts.chip  bytes/s → packets, packet speeds, the time scale (pure)
    model.readouts.flow            bytes/s per link and the chip's readouts (pure)
    ui.chip.animator      targets that ease, the token clock, the particle pool (no Qt)
    ui.chip.paint.*       one painter per part; static parts cached in a pixmap
    ui.chip.control_bar   pause / step / speed, the time scale and the token counter

One QTimer (16 ms) drives everything; dt is capped at 50 ms; the timer stops while the view is
hidden, and a hidden view only remembers the latest estimate: flow, layout and pictures are
made when it shows. Three cached pictures: the frame (boxes, SMs, stacks, bars: layout and
colours only, redrawn on a resize or a new chip), the static picture (the frame plus this
scenario's words and numbers, redrawn per scenario change), and the eased layer on top (use
bars, tensor-core fill), redrawn only while it eases; per frame only packets move. The last
layouts, frames and static pictures are kept (ui/chip/pictures.py): going back to a chip or a
scenario redraws none; while the window is idle the frames of the GPU menu's other chips, and
their words in the present scenario, are drawn ahead (ui/chip/warm.py). A change's paint is
also the animation's next frame.
"""
from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QSizePolicy, QToolTip, QVBoxLayout, QWidget

from model import Estimate, Scenario, estimate
from model.catalog.parts import Catalog
from model.errors import ModelError
from model.catalog.active import default_catalog
from model.readouts.chip import packet_scale, scale_forms, step_word, tiles_drawn
from model.readouts.chip_words import chip_words
from model.readouts.derivations import derivations
from model.readouts.flow import Flow, chip_readouts, flow, is_unified
from ui.kit import theme as th
from ui.chip.animator import MAX_DT, POOL, Animator
from ui.chip.control_bar import SPEEDS, ControlBar
from ui.chip.layout import MAX_SMS, ChipLayout, chip_layout, chip_routes, font_px
from ui.chip.paint.common import Scene, palette, patterns, recording
from ui.chip.paint.dynamic import paint_dynamic
from ui.chip.paint.header import caption_lines
from ui.chip.paint.particles import paint_particles
from ui.chip.pictures import ChipPictures, remember
from ui.chip.tips import explain_key_at, tooltip_at
from ui.chip.warm import FrameWarmer
from ui.kit.dialog_buttons import tip_text

FRAME_MS = 16
__all__ = ["HierarchyView", "POOL", "SPEEDS"]


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

    def mousePressEvent(self, ev) -> None:  # noqa: N802 (Qt name)
        """A click on a part asks for its number's derivation (the view's ``explain_requested``)."""
        v = self.view
        if ev.button() == Qt.LeftButton and v.estimate is not None:
            key = explain_key_at(v.scene, ev.position().x(), ev.position().y(), derivations(v.estimate))
            if key:
                v.explain_requested.emit(key)
                ev.accept()
                return
        super().mousePressEvent(ev)

    def mouseDoubleClickEvent(self, ev) -> None:  # noqa: N802 (Qt name)
        ev.ignore()                     # the window's: double-click shows the chip alone

    def event(self, ev) -> bool:
        if ev.type() == QEvent.ToolTip:
            tip = tooltip_at(self.view.scene, ev.pos().x(), ev.pos().y())
            if tip:
                QToolTip.showText(ev.globalPos(), tip_text(tip), self)
            else:
                QToolTip.hideText()
                ev.ignore()
            return True
        return super().event(ev)


class HierarchyView(ChipPictures, QWidget):
    """The chip, animated. ``show_snapshot(snap)`` (or ``set_estimate``) re-targets the flow; a click
    on a part emits ``explain_requested(readout key)``."""

    explain_requested = Signal(str)

    def __init__(self, estimate_: Estimate | None = None, parent: QWidget | None = None,
                 seed: int = 0, catalog: Catalog | None = None):
        super().__init__(parent)
        self.setObjectName("hierarchyView")
        self.catalog = catalog or default_catalog()
        self.animator = Animator(seed)
        self.particles = self.animator.particles
        self.estimate: Estimate | None = None
        self._flow: Flow | None = None
        self._pending: tuple[Estimate, bool] | None = None
        self.hw = None
        self.lay: ChipLayout | None = None
        self.scene: Scene | None = None
        self.speed = 1.0
        self.paused = False
        self._geom_key = None
        self._static: QPixmap | None = None
        self._frame: tuple | None = None        # (key, QPixmap): the layout's shapes, no words
        self._frames: dict = {}                 # the last FRAMES_KEPT of them, by key
        self._frames_wanted: dict = {}          # frame key → the last pass ahead that drew or found it
        self._layouts: dict = {}                # the last FRAMES_KEPT layouts and their routes
        self._statics: list = []                # the last STATICS_KEPT static pictures, by scene
        self._ahead: dict = {}                  # words drawn ahead: (size, colours, scenario) → (scene, pieces, …)
        self._base: QPixmap | None = None
        self._calm = False                      # the eased layer did not move since the last paint
        self._pal = palette("dark")
        self._boost = 1.0              # type beyond what the size gives (larger text, presenter)
        self._min_px = th.MIN_PX       # no type smaller (the stage's floor in presenter mode)
        self._shapes: dict = {}
        self._restart_clock = False             # the next paint is a change's frame (_frame_with_change)
        self.menu_snapshot = None               # the last snapshot shown: the GPU menu whose frames are drawn ahead
        self._warm = FrameWarmer(self)

        self.canvas = _Canvas(self)
        self._bar = ControlBar(self)
        self._bar.pause_clicked.connect(self.toggle_pause)
        self._bar.step_clicked.connect(self.single_step)
        self._bar.speed_chosen.connect(self.set_speed)
        self._bar.restyle(self._pal, 13)
        self.pause_button, self.step_button = self._bar.pause_button, self._bar.step_button
        self.speed_box, self.scale_label, self.token_label = (self._bar.speed_box, self._bar.scale_label,
                                                              self._bar.token_label)
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

        self.set_estimate(estimate_ or estimate(Scenario(), self.catalog), animate=False)

    # ---------------------------------------------------------------- the panel protocol
    def show_snapshot(self, snap) -> None:
        """A controller's change (ui/state/controller.Snapshot): re-target to its estimate."""
        self.menu_snapshot = snap
        if snap.estimate is not self.estimate and (self._pending is None or snap.estimate is not self._pending[0]):
            self.set_estimate(snap.estimate)
            self._frame_with_change()

    def _frame_with_change(self) -> None:
        """A change's paint is also the animation's next frame (else the tick due meanwhile paints
        the chip again right after it): advance now; the next tick a frame after that paint."""
        if self._timer.isActive() and self.isVisible():
            self._on_tick()
            self._restart_clock = True

    def set_estimate(self, est: Estimate, animate: bool = True) -> None:
        """Re-target the flow to ``est`` (glides over 300 ms; the particles keep moving). A hidden
        view keeps only the latest estimate and works it out when it shows (or is asked)."""
        if est is None:
            return
        self._pending = (est, animate)
        if self.isVisible():
            self._apply()

    def set_theme(self, t: th.Theme) -> None:
        """Draw in ``t``'s colours (dark or light): the palette, the control bar, a fresh static layer."""
        pal = palette("light" if t is not None and t.name == "light" else "dark")
        boost = self._type_boost(t)
        min_px = t.min_px if t is not None else th.MIN_PX  # presenter mode: the stage's 18 px floor
        if pal is self._pal and boost == self._boost and min_px == self._min_px:
            return
        self._pal, self._boost, self._min_px = pal, boost, min_px
        self._bar.restyle(pal, self._bar_px())
        self._relayout(force=True)

    def _type_boost(self, t: th.Theme | None) -> float:
        """The theme's type scale over the one its window's height alone gives (1 unless larger
        text or presenter mode enlarge the type). A chip that is its own window (the
        ``--view hierarchy`` picture) has no window type scale to follow."""
        if t is None or self.window() is self:
            return 1.0
        base = round(th.type_scale(max(self.window().height(), 1), False) * 20) / 20   # as the window rounds it
        boost = t.scale / base
        return round(boost, 2) if boost >= 1.05 else 1.0

    @property
    def theme_name(self) -> str:
        return self._pal.name

    # ---------------------------------------------------------------- state
    @property
    def flow(self) -> Flow:
        self._apply()
        return self._flow

    @property
    def frames(self) -> int:
        return self.animator.frames

    @property
    def steps(self) -> int:
        return self.animator.steps

    @property
    def tokens(self) -> int:
        return self.animator.tokens

    @property
    def chip_seconds_per_screen_second(self) -> float:
        return self.flow.time_scale * self.speed

    @property
    def particle_count(self) -> int:
        return self.particles.count

    def _apply(self) -> None:
        """Work out the pending estimate: flow, readouts, targets, layout, texts."""
        if self._pending is None:
            return
        est, animate = self._pending
        self._pending = None
        try:
            f = flow(est, self.catalog)
            hw = est.resolved.hw if est.resolved is not None else self.catalog.gpu(est.scenario.gpu)
        except ModelError:          # a failed scenario whose part has just left the catalogue (Remove):
            return                  # the controller's next snapshot, on the defaults, follows at once
        self.estimate = est
        self._flow, self.hw = f, hw
        self._shapes = patterns(f)
        self.animator.retarget(f, packet_scale(f, self.speed), animate and self.isVisible() and self.frames > 0)
        self._relayout(force=True)
        self._update_bar()

    def _relayout(self, force: bool = False) -> None:
        """A new layout (and routes) when the size or the chip's shape changed; a new scene always."""
        f, hw = self._flow, self.hw
        if f is None or (not self.isVisible() and not force):
            return
        shape_key, w, h, shape = shown_as = self._shape(f, hw)
        key = (shape_key, hw.id)          # (what the layout is made from, the GPU: its speeds)
        if key != self._geom_key:
            self._geom_key = key
            self.lay, routes = self._layout_and_routes(*shown_as)
            self.animator.set_routes(self.lay, f, routes)
            self._bar.restyle(self._pal, self._bar_px())
        self._rescene()

    def _shape(self, f: Flow, hw) -> tuple[tuple, int, int, dict]:
        """(layout key, w, h, shape): what the layout of ``f`` on ``hw`` is made from at the canvas's size.
        (units: as many as are drawn, at most MAX_SMS: parts alike in shape share one layout and
        its frame picture.)"""
        w, h = self.canvas.width(), self.canvas.height()
        shape = dict(units=min(hw.units, MAX_SMS), stacks=int(hw.hbm_stacks or 4), tiles=tiles_drawn(f.gpus),
                     caption_lines=caption_lines(f.caption, w, font_px(w, h, self._boost)), fits=f.fits,
                     unified=is_unified(hw), boost=self._boost)
        return (w, h, *shape.values()), w, h, shape

    def _layout_and_routes(self, key: tuple, w: int, h: int, shape: dict) -> tuple:
        """The layout for ``shape`` at w×h and its packet routes (pure), the last FRAMES_KEPT kept."""
        kept = self._layouts.get(key)
        if kept is None:
            lay = chip_layout(w, h, **shape)
            kept = (lay, chip_routes(lay))
        return remember(self._layouts, key, kept)

    def _rescene(self) -> None:
        if self._flow is None or self.lay is None:
            return
        self.scene = self._scene_of(self.lay, self.estimate, self._flow, self.hw)
        self._static = None
        self.canvas.update()
        if self.menu_snapshot is not None:
            self._warm.restart()                # a new scene (change, size, speed, colours): work ahead, once idle

    def _scene_of(self, lay: ChipLayout, e: Estimate, f: Flow, hw) -> Scene:
        """What the painters draw for ``e`` (its flow ``f`` on ``hw``) in ``lay``, at this speed, in these colours."""
        scale, shown = packet_scale(f, self.speed), chip_readouts(e, f, hw)
        return Scene(lay, self._pal, e, f, hw, scale, shown, chip_words(e, f, hw, shown, scale, len(lay.sms)))

    def set_controls_visible(self, visible: bool) -> None:
        """Show or hide the Pause / Step / speed bar under the chip (recordings show the chip alone)."""
        self._bar.setVisible(bool(visible))

    @property
    def controls_visible(self) -> bool:
        """Whether the control bar is part of the view (even while the view itself is hidden)."""
        return not self._bar.isHidden()

    def _bar_px(self) -> int:
        """The bar's type: one below the chip's body size, from the whole view's size. (From the
        canvas's it would loop: a bigger type makes the bar taller, the canvas shorter, the type
        smaller again; the fuzz walk found a 1600×900 window where it never settled.)"""
        if self.lay is None:
            return max(13, self._min_px)
        return max(13, self._min_px, font_px(self.width(), self.height(), self._boost) - 1)

    # ---------------------------------------------------------------- speed, pause, step
    def set_speed(self, speed: float) -> None:
        self.speed = float(speed)
        self._bar.show_speed(self.speed)
        if self._flow is not None:
            self._rescene()            # the legend's packet size is at this speed
            self._update_bar()

    def pause(self) -> None:
        self.paused = True
        self._bar.show_paused(True)

    def resume(self) -> None:
        self.paused = False
        self._bar.show_paused(False)
        self._clock.restart()

    def toggle_pause(self) -> None:
        self.resume() if self.paused else self.pause()

    def single_step(self) -> None:
        """Pause, then run the flow forward to the end of the current step (one decode step)."""
        self.pause()
        f = self.flow
        n, remaining = self.animator.frames_to_finish_step(f, self.chip_seconds_per_screen_second)
        start = self.steps
        for _ in range(n):
            self.advance(remaining / n, force=True)
        if self.steps == start:       # rounding: finish the step
            self.animator.finish_step()
            self.advance(1e-6, force=True)
        self.canvas.update()

    def settle(self, frames: int = 300, dt: float = 1 / 60) -> None:
        """Run ``frames`` frames deterministically (no clock): the flow reaches its steady state."""
        for _ in range(frames):
            self.advance(dt, force=True)
        self.canvas.update()

    # ---------------------------------------------------------------- the clock
    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._apply()
        self._relayout()
        self._clock.start()
        self._timer.start()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._timer.stop()
        self._warm.stop()

    @property
    def ticking(self) -> bool:
        return self._timer.isActive()

    def _on_tick(self) -> None:
        dt = self._clock.restart() / 1000.0 if self._clock.isValid() else FRAME_MS / 1000.0
        self.advance(min(MAX_DT, max(0.0, dt)))
        self.canvas.update()

    def advance(self, dt: float, force: bool = False) -> None:
        """One frame: ease the rates (wall time), move packets and the token clock (unless paused)."""
        self._apply()
        dt = min(MAX_DT, max(0.0, dt))
        self.animator.frames += 1
        if self.animator.ease_step(dt):
            self._base, self._calm = None, False
        if self.paused and not force:
            return
        if self.animator.run(dt, self.speed, self._flow):
            self._update_tokens()

    # ---------------------------------------------------------------- bar text
    def _update_bar(self) -> None:
        f = self._flow
        self._bar.show_scale(*scale_forms(f, packet_scale(f, self.speed)))
        self._update_tokens()

    def _update_tokens(self) -> None:
        self._bar.show_tokens(step_word(self._flow), self.steps, self.tokens)

    # ---------------------------------------------------------------- painting
    def _paint(self, canvas: QWidget) -> None:
        self._apply()
        if self.scene is None:
            self._relayout(force=True)
        dpr = canvas.devicePixelRatioF()
        if self._static is None or self._static.size() != canvas.size() * dpr:
            self._static = self._static_picture(canvas.width(), canvas.height(), dpr)
            self._base, self._calm = None, False
        if self._base is None and self._calm:   # the eased layer holds still: keep it in a picture
            self._base = QPixmap(self._static)
            p = QPainter(self._base)             # no antialiasing: steady bars, as fast as before
            paint_dynamic(p, self.scene, self.animator.cur)
            p.end()
        p = QPainter(canvas)
        if self._base is not None:
            p.drawPixmap(0, 0, self._base)
        else:                                    # while it eases, draw it straight on (no copy)
            p.drawPixmap(0, 0, self._static)
            paint_dynamic(p, self.scene, self.animator.cur)
            self._calm = True                    # until the next easing step says otherwise
        paint_particles(p, self.particles, self._pal, self._shapes)
        p.end()
        if self._restart_clock:                  # a change's frame: the next one a frame from now
            self._restart_clock = False
            if self._timer.isActive():
                self._timer.start()

    def shown_texts(self) -> list[str]:
        """Every string the chip paints now (ui.plotting.screen_text walks it with the window's labels)."""
        self._apply()
        if self.scene is None:
            self._relayout(force=True)
        with recording() as out:
            pm = self._render(self.canvas.width(), self.canvas.height(), 1.0, fresh=True)
            p = QPainter(pm)
            paint_dynamic(p, self.scene, self.animator.cur)
            p.end()
        return list(out)
