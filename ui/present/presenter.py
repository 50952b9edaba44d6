"""Presenter mode for the stage, and the glide between prepared states.

    F5 (or Present)          full screen, large type, the control panel folded away (C shows it);
                             with two screens the audience view goes to the projector and the
                             speaker view (notes, next state, clock) to the laptop (ui.present.stage)
    S                        rehearsal: the speaker view beside the audience view, one window
    → ↓ Page Down Space      next prepared state (then the next chapter); a clicker sends Page Up/Down
    ← ↑ Page Up              previous state
    Home or R                back to the prepared state after live changes
    T                        read mode: the lesson as text beside its chart (again: the slides)
    1 … 8                    jump to a chapter
    B                        blank the screen (black); any key returns
    Esc                      leave presenter mode
    on the Serve page        Space pauses the queue, ← → step the load, R resets it
    on the Plan page         → (Space) a tighter TPOT target, ← a looser one, R the targets back
    (on the Serve and Plan pages the keys act on that page only, never on the hidden lessons)

The glide between prepared states is ui/state/glide.py's.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QWidget)

NEXT_KEYS = (Qt.Key_Right, Qt.Key_Down, Qt.Key_PageDown, Qt.Key_Space)
PREV_KEYS = (Qt.Key_Left, Qt.Key_Up, Qt.Key_PageUp)
ARROWS = (Qt.Key_Right, Qt.Key_Down, Qt.Key_Left, Qt.Key_Up, Qt.Key_Space)


class Presenter(QObject):
    """Keys, full screen, blanking. Installed on the main window; listens app-wide for keys
    aimed at that window (a focused slider must not eat a clicker's Page Down)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.active = False
        self._was = None
        self.blank = QWidget(window)
        self.blank.setObjectName("presenterBlank")
        self.blank.setAttribute(Qt.WA_StyledBackground, True)
        self.blank.setStyleSheet("#presenterBlank { background: #000000; }")
        self.blank.hide()
        from ui.present.stage import Stage
        self.stage = Stage(window)
        self._window_keys = _WindowKeys(self)
        window.installEventFilter(self._window_keys)
        self._app_wide = False
        self.sync_listening()

    # ---------------------------------------------------------------- modes
    @property
    def blanked(self) -> bool:
        return self.blank.isVisible()

    def enter(self, fullscreen: bool = True) -> None:
        w = self.window
        if not self.active:
            self._was = (w.isFullScreen(), w.isMaximized(), w.normalGeometry(), w.screen())
        self.active = True
        w.set_presenting(True)
        self.sync_listening()
        self.stage.start(fullscreen)

    def leave(self) -> None:
        if not self.active:
            return
        self.active = False
        self.set_blank(False)
        w = self.window
        w.set_presenting(False)
        self.sync_listening()
        self.stage.stop()
        was_full, was_max, geometry, screen = self._was or (False, False, None, None)
        if w.isFullScreen() and not was_full:
            w.showNormal()
            handle = w.windowHandle()
            if screen in QGuiApplication.screens() and handle is not None and handle.screen() is not screen:
                handle.setScreen(screen)           # back to the laptop from the projector
            if geometry is not None and geometry.isValid():
                w.setGeometry(geometry)
            if was_max:
                w.showMaximized()

    def toggle(self) -> None:
        self.leave() if self.active else self.enter()

    def set_blank(self, on: bool) -> None:
        if on:
            self.blank.setGeometry(self.window.rect())
            self.blank.raise_()
            self.blank.show()
        else:
            self.blank.hide()

    # ---------------------------------------------------------------- keys
    def sync_listening(self) -> None:
        """Listen to every key app-wide only while it matters: presenting or on the Lessons page
        (a focused slider must not eat a clicker's Page Down). On the Explore page the only key
        is F5, which reaches the window unless a control takes it; an app-wide Python filter
        would see every event of every change (~240 per batch step) for nothing."""
        want = bool(self.active or self.window.lessons_visible())
        if want != self._app_wide:
            app = QApplication.instance()
            app.installEventFilter(self) if want else app.removeEventFilter(self)
            self._app_wide = want

    def eventFilter(self, obj, ev) -> bool:
        if ev.type() != QEvent.KeyPress or not isinstance(obj, QWidget):
            return False
        if obj.window() is not self.window and obj.window() not in self.stage.key_windows():
            return False
        return self.handle_key(ev.key(), ev.modifiers(), obj)

    def handle_key(self, key, modifiers=Qt.NoModifier, focus=None) -> bool:
        w = self.window
        if self.blanked:
            self.set_blank(False)
            return True
        if key == Qt.Key_F5:
            self.enter()
            if not (w.serve_visible() or w.plan_visible()):
                w.show_lessons()
            return True
        if modifiers & (Qt.ControlModifier | Qt.AltModifier | Qt.MetaModifier):
            return False
        lessons_shown = w.lessons_visible()
        if not (self.active or lessons_shown):
            return False
        if self.active and w.serve_visible() and self._serve_key(key):
            return True
        if self.active and w.plan_visible() and self._plan_key(key):
            return True
        typing = (isinstance(focus, (QLineEdit, QAbstractSpinBox, QComboBox, QAbstractSlider))
                  or getattr(focus, "keeps_arrows", False))       # e.g. a chapter key (ui.lessons.keys)
        if isinstance(focus, QLineEdit) and key not in (Qt.Key_PageUp, Qt.Key_PageDown):
            return False                      # typing in a search box keeps its keys
        if not self.active and typing and key in ARROWS + (Qt.Key_Home,):
            return False                      # outside presenter mode, a focused control keeps its arrows
        lv = w.lessons
        if key in NEXT_KEYS:
            lv.step(+1)
        elif key in PREV_KEYS:
            lv.step(-1)
        elif key in (Qt.Key_Home, Qt.Key_R):
            lv.reset_state()
        elif key == Qt.Key_T:
            lv.toggle_reading()
        elif Qt.Key_1 <= key <= Qt.Key_8:
            lv.show_chapter(int(key - Qt.Key_0))
        elif key == Qt.Key_End:
            lv.show_chapter(len(lv.chapters), len(lv.chapters[-1].states) - 1)
        elif not self.active:
            return False
        elif key == Qt.Key_Escape:
            self.leave()
        elif key == Qt.Key_B:
            self.set_blank(True)
        elif key == Qt.Key_C:
            w.toggle_presenter_controls()
        elif key == Qt.Key_S:
            self.stage.toggle_rehearsal()
        else:
            return False
        return True

    def _serve_key(self, key) -> bool:
        """On the Serve page: Space pauses the queue, ← → (a clicker's Page Up/Down) step the load;
        the other keys work as everywhere."""
        serve = self.window.serve
        if key == Qt.Key_Space:
            serve.toggle_pause()
        elif key in (Qt.Key_Right, Qt.Key_Up, Qt.Key_PageDown):
            serve.controls.step_load(+1)
        elif key in (Qt.Key_Left, Qt.Key_Down, Qt.Key_PageUp):
            serve.controls.step_load(-1)
        elif key in (Qt.Key_Home, Qt.Key_R):
            serve.controls.reset()
        else:
            return self._page_key(key)
        return True

    def _plan_key(self, key) -> bool:
        """On the Plan page: → (Space, Page Down, ↑) a tighter TPOT target, ← (Page Up, ↓) a looser
        one, R the targets back; the other keys work as everywhere."""
        plan = self.window.plan
        if key in (Qt.Key_Right, Qt.Key_Up, Qt.Key_PageDown, Qt.Key_Space):
            plan.step_target(+1)
        elif key in (Qt.Key_Left, Qt.Key_Down, Qt.Key_PageUp):
            plan.step_target(-1)
        elif key in (Qt.Key_Home, Qt.Key_R):
            plan.reset_targets()
        else:
            return self._page_key(key)
        return True

    def _page_key(self, key) -> bool:
        """What the Serve and Plan pages share: 1–8 open that lesson; End and T, which would move
        the hidden lessons or turn their read mode, do nothing here."""
        if Qt.Key_1 <= key <= Qt.Key_8:
            self.window.show_lessons(int(key - Qt.Key_0))
            return True
        return key in (Qt.Key_End, Qt.Key_T)

    def close(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        self._app_wide = False


class _WindowKeys(QObject):
    """On the main window itself: its style and close events for the stage, and, while the
    presenter does not listen app-wide, the keys that reach the window (F5)."""

    def __init__(self, presenter: Presenter):
        super().__init__(presenter)
        self.presenter = presenter

    def eventFilter(self, obj, ev) -> bool:
        p = self.presenter
        kind = ev.type()
        if kind == QEvent.StyleChange:
            p.stage.sync_theme()
        elif kind == QEvent.Close:
            p.stage.stop()                   # the speaker window goes with the main window
        elif kind == QEvent.KeyPress and not p._app_wide:
            return p.handle_key(ev.key(), ev.modifiers(), obj)
        return False
