"""The Lessons page: a chapter strip (the chapter list and the progress through every
prepared state), a small toolbar (previous / next / prepared state / present / export /
open / save), and the chapter views (built when first shown).

Stepping to a prepared state hands its scenario to the controller through ScenarioGlide
(batch and lengths glide; GPU, model … switch at once) and its knobs to the chapter view.
Scenario files: model.scenario_file (atomic save; a broken or foreign file raises
ScenarioError with one line, which is shown here, and nothing changes).
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QMenu, QPushButton, QSizePolicy, QStackedWidget,
                               QToolButton, QVBoxLayout, QWidget)

from model.errors import ModelError
from model.safe_io import check_writable_target
from model.lessons import default_chapters
from model.scenario_file import load_scenario_with_chapter, save_scenario
from ui import theme as th
from ui.chapter_keys import key_style, make_keys, set_current_key
from ui.fit_text import first_fitting
from ui.chapters import SHORT_TITLES, chapter_class
from ui.chapters.base import focus_style
from ui.presenter import ScenarioGlide


class ChapterStrip(QWidget):
    """Eight segments (number + short title), each with a dot per prepared state. Click a
    segment for its chapter, a dot for its state; by keyboard, a ChapterKey per segment
    (ui.chapter_keys: Tab, Left/Right, Enter)."""

    picked = Signal(int, int)      # chapter number, state index

    def __init__(self, chapters, parent=None):
        super().__init__(parent)
        self.chapters = chapters
        self.current = (1, 0)
        self.theme = th.DARK
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.setMouseTracking(True)
        self.setCursor(Qt.PointingHandCursor)
        self.keys = make_keys(self, chapters, SHORT_TITLES)
        set_current_key(self.keys, 1, 0, len(chapters[0].states))
        self._apply_height()

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self._apply_height()
        self.setStyleSheet(key_style(t))
        self.update()

    def _apply_height(self) -> None:
        t = self.theme
        self.setFixedHeight(t.px(15) + t.px(10) + 22)

    def set_current(self, number: int, index: int) -> None:
        self.current = (number, index)
        set_current_key(self.keys, number, index, len(self.chapters[number - 1].states))
        self.update()

    def resizeEvent(self, ev) -> None:           # noqa: N802 (Qt name): each key over its segment
        super().resizeEvent(ev)
        for k, r in zip(self.keys, self._segments()):
            k.setGeometry(r.toRect())

    def _segments(self):
        n = len(self.chapters)
        w = self.width() / n
        return [QRectF(i * w, 0, w, self.height()) for i in range(n)]

    def hit(self, x: float, y: float) -> tuple[int, int]:
        for ch, r in zip(self.chapters, self._segments()):
            if r.left() <= x < r.right():
                k = len(ch.states)
                dot_y = r.bottom() - self.theme.px(10) / 2 - 6
                if abs(y - dot_y) <= self.theme.px(10):
                    step = (r.width() - 16) / max(1, k)
                    i = int((x - r.left() - 8) // max(step, 1))
                    return ch.number, max(0, min(k - 1, i))
                return ch.number, 0
        return self.current

    def mousePressEvent(self, ev) -> None:
        p = ev.position()
        self.picked.emit(*self.hit(p.x(), p.y()))

    def paintEvent(self, _ev) -> None:
        t = self.theme
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing, True)
        font = QFont()
        font.setPixelSize(t.px(15))
        bold = QFont(font)
        bold.setBold(True)
        cur_n, cur_i = self.current
        dot = t.px(10)
        for ch, r in zip(self.chapters, self._segments()):
            here = ch.number == cur_n
            done = ch.number < cur_n
            box = r.adjusted(2, 1, -2, -1)
            p.setPen(QPen(QColor(t.accent if here else t.panel_border), 1))
            p.setBrush(QColor(t.panel))
            p.drawRoundedRect(box, 4, 4)
            f = bold if here else font
            p.setFont(f)
            p.setPen(QColor(t.text if here else t.secondary))
            text = first_fitting([f"{ch.number}  {SHORT_TITLES.get(ch.number, ch.title)}"], f, box.width() - 12)
            p.drawText(box.adjusted(8, 3, -4, 0), Qt.AlignLeft | Qt.AlignTop, text)
            k = len(ch.states)
            step = (box.width() - 12) / max(1, k)
            y = box.bottom() - dot / 2 - 5
            for i in range(k):
                x = box.left() + 6 + step * i
                seg = QRectF(x, y - dot / 4, step - 4, dot / 2)
                filled = done or (here and i <= cur_i)
                p.setPen(Qt.NoPen)
                p.setBrush(QColor(t.accent if filled else t.hbm_free))
                p.drawRoundedRect(seg, dot / 4, dot / 4)
        p.end()


class LessonsView(QWidget):
    chapter_changed = Signal(int, int)

    def __init__(self, controller, theme: th.Theme = th.DARK, parent=None):
        super().__init__(parent)
        self.setObjectName("lessonsView")
        self.controller = controller
        self.theme = theme
        self.chapters = default_chapters()
        self.views: dict[int, object] = {}
        self.number, self.index = 1, 0
        self.glide = ScenarioGlide(controller, self)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.strip = ChapterStrip(self.chapters)
        self.strip.picked.connect(lambda n, i: self.show_chapter(n, i))
        lay.addWidget(self.strip)

        bar = QHBoxLayout()
        bar.setSpacing(6)
        self.prev_button = QPushButton("◀ Back")
        self.prev_button.setToolTip("Previous prepared state (← or Page Up)")
        self.prev_button.clicked.connect(lambda: self.step(-1))
        self.next_button = QPushButton("Next ▶")
        self.next_button.setToolTip("Next prepared state, then the next chapter (→, Space or Page Down)")
        self.next_button.clicked.connect(lambda: self.step(+1))
        self.reset_button = QPushButton("Prepared state")
        self.reset_button.setToolTip("Back to this step's prepared scenario after live changes (R or Home)")
        self.reset_button.clicked.connect(self.reset_state)
        self.position = QLabel("")
        self.position.setObjectName("controlLabel")
        self.status = QLabel("")
        self.status.setObjectName("lessonsStatus")
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.export_button = QToolButton()
        self.export_button.setText("Export ▾")
        self.export_button.setPopupMode(QToolButton.InstantPopup)
        menu = QMenu(self.export_button)
        for kind in ("PNG", "SVG", "CSV"):
            act = QAction(f"Chart as {kind}…" if kind != "CSV" else "Data as CSV…", menu)
            act.triggered.connect(lambda _=False, k=kind: self._export_dialog(k))
            menu.addAction(act)
        self.export_button.setMenu(menu)
        for w in (self.prev_button, self.next_button, self.reset_button, self.position):
            bar.addWidget(w)
        bar.addWidget(self.status, 1)
        bar.addWidget(self.export_button)
        self.toolbar = QWidget()
        self.toolbar.setLayout(bar)
        bar.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.toolbar)

        self.stack = QStackedWidget()
        lay.addWidget(self.stack, 1)
        self.set_theme(theme)

    # ---------------------------------------------------------------- chapters
    def view(self, number: int):
        """The chapter's view, built on first use."""
        v = self.views.get(number)
        if v is None:
            ch = self.chapters[number - 1]
            v = chapter_class(number)(ch, self.controller, self.theme)
            self.views[number] = v
            self.stack.addWidget(v)
        return v

    @property
    def current_view(self):
        return self.view(self.number)

    def show_chapter(self, number: int, index: int = 0, animate: bool = True) -> None:
        number = max(1, min(len(self.chapters), int(number)))
        ch = self.chapters[number - 1]
        index = max(0, min(len(ch.states) - 1, int(index)))
        self.number, self.index = number, index
        v = self.view(number)
        self.stack.setCurrentWidget(v)
        self._go_to_state(v, index, animate)
        self.strip.set_current(number, index)
        self.position.setText(f"chapter {number}/{len(self.chapters)} · step {index + 1}/{len(ch.states)}")
        self.chapter_changed.emit(number, index)

    def _go_to_state(self, v, index: int, animate: bool) -> None:
        state = v.chapter.states[index]
        if animate and self.isVisible():
            self.glide.start(state.scenario, v, index)
        else:
            self.glide.anim.stop()
            self.controller.set_scenario(state.scenario)
            v.apply_state(index)

    def step(self, delta: int) -> None:
        """Next/previous prepared state, crossing into the neighbouring chapter at the ends."""
        ch = self.chapters[self.number - 1]
        i = self.index + delta
        if 0 <= i < len(ch.states):
            self.show_chapter(self.number, i)
        elif i >= len(ch.states) and self.number < len(self.chapters):
            self.show_chapter(self.number + 1, 0)
        elif i < 0 and self.number > 1:
            prev = self.chapters[self.number - 2]
            self.show_chapter(self.number - 1, len(prev.states) - 1)

    def reset_state(self) -> None:
        self.show_chapter(self.number, self.index)
        self.message("back to the prepared state")

    # ---------------------------------------------------------------- messages
    def message(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setToolTip(text)
        self.status.setStyleSheet(f"color: {th.VERMILLION}; font-weight: 600;" if error
                                  else f"color: {self.theme.secondary};")

    # ---------------------------------------------------------------- files
    def save_scenario_to(self, path: str, overwrite: bool = False) -> bool:
        """Save; an existing file only with ``overwrite`` (the Save dialog has asked). One line on error."""
        c = self.controller
        s = c.scenario if not c.problem else c.valid_scenario
        try:
            save_scenario(path, s, self.number if self.isVisible() else None, overwrite=overwrite)
        except (ModelError, OSError) as exc:
            self.message(str(exc).splitlines()[0] if str(exc) else f"could not save {path}", error=True)
            return False
        self.message(f"saved {path}")
        return True

    def load_scenario_from(self, path: str) -> tuple[bool, int | None]:
        """Load a scenario (and its chapter). On any error: one line shown, nothing changes."""
        try:
            s, chapter = load_scenario_with_chapter(path)
        except ModelError as exc:
            self.message(str(exc).splitlines()[0] if str(exc) else "not a scenario file", error=True)
            return False, None
        self.glide.anim.stop()
        if chapter is not None:
            self.number = chapter
            self.index = 0
            v = self.view(chapter)
            self.stack.setCurrentWidget(v)
            v.apply_state(0)
            self.strip.set_current(chapter, 0)
            self.position.setText(f"chapter {chapter}/{len(self.chapters)} · loaded scenario")
        self.controller.set_scenario(s)
        self.message(f"opened {path}")
        return True, chapter

    # ---------------------------------------------------------------- exports
    def export(self, kind: str, path: str) -> bool:
        v = self.current_view
        try:
            check_writable_target(path)      # a missing folder or read-only file: one line, no Qt warnings
            ok = {"PNG": v.export_png, "SVG": v.export_svg, "CSV": v.export_csv}[kind.upper()](path)
        except ModelError as exc:
            self.message(str(exc), error=True)
            return False
        except Exception as exc:   # an export failure is a message, never a crash
            self.message(f"could not export {kind}: {type(exc).__name__}: {exc}", error=True)
            return False
        self.message(f"exported {path}" if ok else f"could not write {path}", error=not ok)
        return bool(ok)

    def _export_dialog(self, kind: str) -> None:
        ext = kind.lower()
        default = f"chapter{self.number}.{ext}"
        path, _ = QFileDialog.getSaveFileName(self, f"Export chapter {self.number} as {kind}", default,
                                              f"{kind} files (*.{ext})")
        if path:
            self.export(kind, path)

    # ---------------------------------------------------------------- look
    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.strip.set_theme(t)
        for v in self.views.values():
            v.set_theme(t)
        self.status.setStyleSheet(f"color: {t.secondary};")
        self.toolbar.setStyleSheet(focus_style(t))
        bar = getattr(self.window(), "mode_bar", None)
        if bar is not None:
            bar.set_theme(t)


class ModeBar(QWidget):
    """Explore | Lessons, and the scenario file and presenter buttons."""

    def __init__(self, window, parent=None):
        super().__init__(parent)
        self.setObjectName("modeBar")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        self.explore_button = QPushButton("Explore")
        self.lessons_button = QPushButton("Lessons")
        for b in (self.explore_button, self.lessons_button):
            b.setCheckable(True)
            b.setAutoExclusive(True)
            lay.addWidget(b)
        self.explore_button.setChecked(True)
        self.explore_button.setToolTip("The live chip, roofline and gauges")
        self.lessons_button.setToolTip("The eight lessons, one chapter at a time")
        self.explore_button.clicked.connect(window.show_explore)
        self.lessons_button.clicked.connect(lambda: window.show_lessons())
        lay.addStretch(1)
        self.open_button = QPushButton("Open…")
        self.open_button.setToolTip("Open a saved scenario (Ctrl+O)")
        self.open_button.clicked.connect(window.open_scenario_dialog)
        self.save_button = QPushButton("Save…")
        self.save_button.setToolTip("Save this scenario and chapter as a small JSON file (Ctrl+S)")
        self.save_button.clicked.connect(window.save_scenario_dialog)
        self.present_button = QPushButton("Present (F5)")
        self.present_button.setToolTip("Presenter mode: full screen, large type; arrows or a clicker step through")
        self.present_button.clicked.connect(lambda: window.enter_presenter())
        for b in (self.open_button, self.save_button, self.present_button):
            lay.addWidget(b)

    def set_theme(self, t: th.Theme) -> None:
        f = QFont()
        f.setPixelSize(t.px(15))
        f.setBold(True)
        fm = QFontMetrics(f)
        for b in (self.explore_button, self.lessons_button):
            b.setMinimumWidth(fm.horizontalAdvance(b.text()) + 28)
        self.setStyleSheet(focus_style(t))

    def set_page(self, lessons: bool) -> None:
        (self.lessons_button if lessons else self.explore_button).setChecked(True)


class LessonsWindowMixin:
    """What the main window needs for the Lessons page and presenter mode (kept here so the
    shared main_window.py changes little). Expects self.controls_scroll, self.controller,
    self.apply_theme(force) and a footer widget named "footer"."""

    presenting = False
    PRESENTER_SCALE = 1.35

    def _install_lessons(self, explore: QWidget, body, outer) -> None:
        from PySide6.QtGui import QKeySequence
        from ui.presenter import Presenter
        self.explore = explore
        self.lessons = LessonsView(self.controller, self.theme)
        self.pages = QStackedWidget()
        self.pages.addWidget(explore)
        self.pages.addWidget(self.lessons)
        body.addWidget(self.pages, 1)
        self.mode_bar = ModeBar(self)
        outer.insertWidget(0, self.mode_bar)
        self.presenter = Presenter(self)
        for seq, fn in ((QKeySequence.Save, self.save_scenario_dialog), (QKeySequence.Open, self.open_scenario_dialog)):
            act = QAction(self)
            act.setShortcut(seq)
            act.triggered.connect(fn)
            self.addAction(act)

    # ---------------------------------------------------------------- pages
    def _footer_visible(self, on: bool) -> None:
        """The Explore footer explains the Explore scenario: never under a lesson or on stage."""
        footer = self.findChild(QWidget, "footer")
        if footer is not None:
            footer.setVisible(on and not self.presenting)

    def show_lessons(self, chapter: int | None = None, state: int = 0) -> None:
        first = self.pages.currentWidget() is not self.lessons
        self.pages.setCurrentWidget(self.lessons)
        self.mode_bar.set_page(True)
        self._footer_visible(False)
        if chapter is not None:
            self.lessons.show_chapter(chapter, state, animate=False)
        elif first and not self.lessons.views:
            self.lessons.show_chapter(1, 0, animate=False)

    def show_chapter(self, chapter: int, state: int = 0) -> None:
        self.show_lessons(chapter, state)

    def show_explore(self) -> None:
        self.pages.setCurrentWidget(self.explore)
        self.mode_bar.set_page(False)
        self._footer_visible(True)

    def lessons_visible(self) -> bool:
        return self.pages.currentWidget() is self.lessons

    # ---------------------------------------------------------------- presenter
    def enter_presenter(self, fullscreen: bool = True) -> None:
        self.presenter.enter(fullscreen=fullscreen)
        self.show_lessons()

    def set_presenting(self, on: bool) -> None:
        self.presenting = bool(on)
        self.controls_scroll.setVisible(not on)
        self.mode_bar.setVisible(not on)
        self._footer_visible(not on and not self.lessons_visible())
        self.lessons.toolbar.setVisible(not on)
        if on:
            self.show_lessons()
        self.apply_theme(force=True)

    def toggle_presenter_controls(self) -> None:
        self.controls_scroll.setVisible(not self.controls_scroll.isVisible())

    # ---------------------------------------------------------------- scenario files
    def save_scenario_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save scenario", "scenario.json", "Scenario files (*.json)")
        if path:
            self.lessons.save_scenario_to(path, overwrite=True)   # the dialog asked before replacing
            self._file_message()

    def open_scenario_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open scenario", "", "Scenario files (*.json);;All files (*)")
        if path:
            self.open_scenario(path)

    def open_scenario(self, path: str) -> bool:
        ok, chapter = self.lessons.load_scenario_from(path)
        if ok and chapter is not None:
            self.pages.setCurrentWidget(self.lessons)
            self.mode_bar.set_page(True)
        self._file_message()
        return ok

    def _file_message(self) -> None:
        """Scenario-file messages also reach the Explore page (its status bar)."""
        text = self.lessons.status.text()
        if text:
            self.statusBar().showMessage(text, 8000)
