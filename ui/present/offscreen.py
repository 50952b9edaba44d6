"""Chapter and chip pictures drawn off screen, on their own controller (never the user's).

Used by the presenter's next-state preview, the recordings and the slide exports. The host
widget is never shown: QWidget.grab() lays it out and renders it anyway, and an animated chip
inside it never starts its wall-clock timer, so whoever draws the pictures owns the clock
(``advance_animations(dt)``) and every picture is deterministic.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEasingCurve, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QVBoxLayout, QWidget

from model.lessons.chapters import default_chapters
from ui.kit import theme as th
from ui.state.glide import glide_params, glide_scenario

MAX_SUBSTEP_S = 1 / 60        # the chip caps one frame's dt; longer steps are cut into these


def animations(widget: QWidget) -> list:
    """The animated views (the chip) inside ``widget``: anything with settle(frames, dt)."""
    found = [w for w in widget.findChildren(QWidget) if callable(getattr(w, "settle", None))]
    return ([widget] if callable(getattr(widget, "settle", None)) else []) + found


def advance_animations(widget: QWidget, dt_s: float) -> None:
    """Move every animation inside ``widget`` forward by exactly ``dt_s`` seconds of screen time."""
    if dt_s <= 0:
        return
    n = max(1, int(-(-dt_s // MAX_SUBSTEP_S)))
    for a in animations(widget):
        a.settle(n, dt_s / n)


class Host(QWidget):
    """A top-level widget with the app's style sheet, never shown, holding one view. A size
    smaller than the view's layout allows is drawn larger (same 16:9 shape) and scaled down,
    so every picture has exactly the asked size."""

    def __init__(self, inner: QWidget, theme: th.Theme, size: tuple[int, int]):
        super().__init__()
        self.inner = inner
        self.size_px = (int(size[0]), int(size[1]))
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(inner)
        self.set_theme(theme)
        hint = self.minimumSizeHint()
        k = max(1.0, hint.width() / self.size_px[0], hint.height() / self.size_px[1])
        self.resize(math.ceil(self.size_px[0] * k), math.ceil(self.size_px[1] * k))

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.setStyleSheet(th.style_sheet(t))
        if hasattr(self.inner, "set_theme"):
            self.inner.set_theme(t)

    def image(self) -> QImage:
        img = self.grab().toImage()
        if (img.width(), img.height()) != self.size_px:
            img = img.scaled(*self.size_px, Qt.IgnoreAspectRatio, Qt.SmoothTransformation)
        return img


class OffscreenChapter:
    """One lesson's view on its own Controller, drawn off screen at ``size``."""

    def __init__(self, number: int, theme: th.Theme, size: tuple[int, int] = (1920, 1080)):
        from ui.chapters import chapter_class
        from ui.state.controller import Controller
        self.chapter = default_chapters()[int(number) - 1]
        self.controller = Controller(self.chapter.states[0].scenario)
        self.view = chapter_class(self.chapter.number)(self.chapter, self.controller, theme)
        self.controller.changed.connect(self.view.show_snapshot)
        self.host = Host(self.view, theme, size)
        self.index = 0

    @property
    def states(self):
        return self.chapter.states

    def show_state(self, index: int, settle_frames: int = 120) -> None:
        """The prepared state, as the audience sees it once the glide has landed."""
        self.index = max(0, min(len(self.states) - 1, int(index)))
        self.controller.set_scenario(self.states[self.index].scenario)
        self.controller.flush()
        self.view.apply_state(self.index)
        self.view.ensure_fresh()
        for a in animations(self.host):
            a.settle(settle_frames)

    def show_live(self, scenario, params: dict, index: int) -> None:
        """A scenario and knobs that may differ from the prepared state (live changes)."""
        self.show_state(index, settle_frames=0)
        self.controller.set_scenario(scenario)
        self.controller.flush()
        self.view.set_params(**params)
        self.view.ensure_fresh()
        for a in animations(self.host):
            a.settle(120)

    def show_between(self, a: int, b: int, f: float) -> None:
        """A fraction ``f`` (already eased) of the glide from prepared state a to b."""
        sa, sb = self.states[a], self.states[b]
        if f >= 1.0 or a == b:             # held: exactly the prepared state (its scenario and knobs), as a screenshot
            if (self.index != b or self.view.state_index != b or self.controller.scenario != sb.scenario
                    or self.view.params != dict(sb.params)):
                self.index = b
                self.controller.set_scenario(sb.scenario)
                self.controller.flush()
                self.view.apply_state(b)
            self.view.ensure_fresh()
            return
        if self.view.state_index != b:
            self.view.caption_label.setText(sb.caption)
            self.view.takeaway_label.setText(sb.takeaway or self.chapter.takeaway)
            self.view.state_index = b
        self.index = b
        self.controller.set_scenario(glide_scenario(sa.scenario, sb.scenario, f))
        self.controller.flush()
        self.view.set_params(**glide_params(dict(sa.params), dict(sb.params), f))
        self.view.ensure_fresh()

    def image(self) -> QImage:
        return self.host.image()

    def close(self) -> None:
        self.host.close()
        self.host.deleteLater()


class OffscreenChip:
    """The animated chip alone on its own Controller, drawn off screen at ``size``."""

    def __init__(self, scenario, theme: th.Theme, size: tuple[int, int], warm_up_frames: int = 240):
        from ui.state.controller import Controller
        from ui.chip.view import HierarchyView
        self.controller = Controller(scenario)
        self.view = HierarchyView(self.controller.estimate)
        self.controller.changed.connect(self.view.show_snapshot)
        self.host = Host(self.view, theme, size)
        self.view.settle(warm_up_frames)       # the pipes full, as in a running window

    def advance(self, dt_s: float) -> None:
        advance_animations(self.host, dt_s)

    def image(self) -> QImage:
        return self.host.image()

    def close(self) -> None:
        self.host.close()
        self.host.deleteLater()


def eased(f: float) -> float:
    """The presenter glide's easing (InOutCubic), for glides driven frame by frame."""
    return QEasingCurve(QEasingCurve.InOutCubic).valueForProgress(max(0.0, min(1.0, f)))
