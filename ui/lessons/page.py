"""The Lessons page: a chapter strip (the chapter list and the progress through every
prepared state), a small toolbar (previous / next / prepared state / present / export /
open / save), and the chapter views (built when first shown). The window builds this page on
first use or right after its first paint (ui.shell.pages: the mode bar and the page switching).

Stepping to a prepared state hands its scenario to the controller through ScenarioGlide
(batch and lengths glide; GPU, model … switch at once) and its knobs to the chapter view.
Scenario files are the window's (ui/shell/scenario_files.py); a file's chapter opens here
(``open_chapter``), and the window's file lines are shown in this page's status line too.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (QApplication, QFileDialog, QHBoxLayout, QLabel, QMenu, QPushButton, QSizePolicy,
                               QStackedWidget, QToolButton, QVBoxLayout, QWidget)

from model.errors import ModelError
from model.files.safe_io import check_writable_target
from model.lessons.chapters import default_chapters
from model.lessons.read import READ_WORDS
from ui.kit import theme as th
from ui.kit.dialog_buttons import plain_tip
from ui.lessons.keys import key_style, make_keys, set_current_key
from ui.kit.fit_text import first_fitting
from ui.chapters import SHORT_TITLES, chapter_class
from ui.state.glide import ScenarioGlide


class ChapterStrip(QWidget):
    """Eight segments (number + short title), each with a dot per prepared state. Click a
    segment for its chapter, a dot for its state; by keyboard, a ChapterKey per segment
    (ui.lessons.keys: Tab, Left/Right, Enter)."""

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
        """Each chapter's tab: as wide as its words in bold (the current tab's type) and an equal
        share of what is left, so a longer name never loses letters where the strip is narrow."""
        font = QFont()
        font.setPixelSize(self.theme.px(15))
        font.setBold(True)
        fm = QFontMetrics(font)
        need = [fm.horizontalAdvance(f"{ch.number}  {SHORT_TITLES.get(ch.number, ch.title)}") + TAB_PAD_PX
                for ch in self.chapters]
        total = float(self.width())
        spare = total - sum(need)
        widths = [n + spare / len(need) for n in need] if spare >= 0 else [n * total / sum(need) for n in need]
        out, x = [], 0.0
        for w in widths:
            out.append(QRectF(x, 0, w, self.height()))
            x += w
        return out

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


TAB_PAD_PX = 20          # a tab's box and text margins (paintEvent: 2 + 8 … 4 + 2) and a little air


WARM_AFTER_MS = 400     # a page built while the speaker talks: after the glide (300 ms), on an idle turn


class LessonsView(QWidget):
    """The eight chapters. A chapter's page is built on first use, or before: the first chapter's
    a moment after the page is made, the next chapter's a moment after each chapter shows (a
    speaker goes forward), each on an idle turn, so a first visit costs its refresh, not its
    building (~30–50 ms here)."""

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
        self.position.setTextFormat(Qt.PlainText)
        self.status = QLabel("")
        self.status.setObjectName("lessonsStatus")
        self.status.setTextFormat(Qt.PlainText)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.read_button = QPushButton(READ_WORDS["button"])
        self.read_button.setObjectName("readButton")
        self.read_button.setCheckable(True)
        self.read_button.setToolTip(READ_WORDS["button_tip"])
        self.read_button.toggled.connect(self.set_reading)
        self.reading = False
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
        bar.addWidget(self.read_button)
        bar.addWidget(self.export_button)
        self.toolbar = QWidget()
        self.toolbar.setLayout(bar)
        bar.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.toolbar)

        self.stack = QStackedWidget()
        lay.addWidget(self.stack, 1)
        self.set_theme(theme)
        self._warm(1)

    def show_snapshot(self, snap) -> None:
        """A change of the controller: every chapter built so far takes it (the shown one redraws,
        the others when they show)."""
        for v in self.views.values():
            v.show_snapshot(snap)

    # ---------------------------------------------------------------- chapters
    def view(self, number: int):
        """The chapter's view, built on first use."""
        v = self.views.get(number)
        if v is None:
            ch = self.chapters[number - 1]
            v = chapter_class(number)(ch, self.controller, self.theme)
            self.views[number] = v
            v.resize(0, 0)                  # hidden: its default 640×480 would repaint the page shown
            if self.reading:
                v.set_reading(True)
            self.stack.addWidget(v)
        return v

    @property
    def current_view(self):
        return self.view(self.number)

    def _warm(self, number: int) -> None:
        """Build chapter ``number``'s page a moment from now, unless it exists by then (or the
        user is busy: then a moment later)."""
        if 1 <= number <= len(self.chapters) and number not in self.views:
            QTimer.singleShot(WARM_AFTER_MS, self, lambda: self._warm_now(number))

    def _warm_now(self, number: int) -> None:
        if number in self.views:
            return
        if self.glide.running or QApplication.mouseButtons() != Qt.NoButton:
            self._warm(number)              # not while the scenario glides or a slider is dragged
            return
        self.view(number)

    def show_chapter(self, number: int, index: int = 0, animate: bool = True) -> None:
        number = max(1, min(len(self.chapters), int(number)))
        ch = self.chapters[number - 1]
        index = max(0, min(len(ch.states) - 1, int(index)))
        self.number, self.index = number, index
        v = self.view(number)
        glide = animate and self.isVisible()
        if not glide:                   # the state's scenario first: the page then draws once, with
            self.controller.set_scenario(ch.states[index].scenario)     # its estimate
        self.stack.setCurrentWidget(v)
        self.strip.set_current(number, index)       # before the estimate: the page's view repaints
        self.position.setText(f"chapter {number}/{len(self.chapters)} · step {index + 1}/{len(ch.states)}")
        self._go_to_state(v, index, animate)         # the window when it has drawn it (deliver_now)
        if not glide:
            self.controller.flush()     # that estimate now: drawn before the page is laid out
        self.chapter_changed.emit(number, index)
        self._warm(number + 1)

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

    def set_reading(self, on: bool) -> None:
        """Read mode on or off for every chapter (the button, the T key, the speaker view's button)."""
        self.reading = bool(on)
        if self.read_button.isChecked() != self.reading:
            self.read_button.setChecked(self.reading)        # toggled comes back here once, then stops
            return
        for v in self.views.values():
            v.set_reading(self.reading)

    def toggle_reading(self) -> None:
        self.set_reading(not self.reading)

    def reset_state(self) -> None:
        self.show_chapter(self.number, self.index)
        self.message("back to the prepared state")

    # ---------------------------------------------------------------- messages
    def message(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setToolTip(plain_tip(text))
        self.status.setStyleSheet(f"color: {th.VERMILLION}; font-weight: 600;" if error
                                  else f"color: {self.theme.secondary};")

    # ---------------------------------------------------------------- a scenario file's chapter
    def open_chapter(self, chapter: int) -> None:
        """Show ``chapter`` in its first state's knobs for a scenario file's own scenario (the window
        reads the file and hands the scenario to the controller: ui/shell/scenario_files.py)."""
        self.glide.anim.stop()
        self.number = chapter
        self.index = 0
        v = self.view(chapter)
        self.stack.setCurrentWidget(v)
        v.apply_state(0)
        self.strip.set_current(chapter, 0)
        self.position.setText(f"chapter {chapter}/{len(self.chapters)} · loaded scenario")

    # ---------------------------------------------------------------- exports
    def export(self, kind: str, path: str, overwrite: bool = False) -> bool:
        """Export the chart; an existing file only with ``overwrite`` (the Export dialog asked)."""
        v = self.current_view
        try:
            check_writable_target(path, overwrite)   # a missing folder or read-only file: one line, no Qt warnings
            ok = {"PNG": v.export_png, "SVG": v.export_svg, "CSV": v.export_csv}[kind.upper()](path, overwrite)
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
            self.export(kind, path, overwrite=True)      # the save dialog asked before replacing

    # ---------------------------------------------------------------- look
    def set_theme(self, t: th.Theme) -> None:
        """The window's theme; the page's own is that at the scale its room carries (fit_theme)."""
        self.window_theme = t
        self.fit_theme(force=True)
        bar = getattr(self.window(), "mode_bar", None)
        if bar is not None:
            bar.set_theme(t)

    def fit_theme(self, force: bool = False) -> None:
        """The chapters' type at the window's scale, or smaller where this page has less room than
        a slide's layout needs at that scale (ui.kit.theme.slide_scale)."""
        t = self.window_theme
        scale = th.slide_scale(t.scale, self.width(), self.height()) if self.isVisible() else t.scale
        t = th.get_theme(t.name, scale)     # the slides keep their own type: no stage floor (ui.kit.theme.STAGE_MIN_PX)
        if not force and t == self.theme:
            return
        self.theme = t
        self.strip.set_theme(t)
        for v in self.views.values():
            v.set_theme(t)
        self.status.setStyleSheet(f"color: {t.secondary};")
        self.toolbar.setStyleSheet(th.focus_style(t))

    def resizeEvent(self, ev) -> None:           # noqa: N802 (Qt name)
        super().resizeEvent(ev)
        self.fit_theme()

    def showEvent(self, ev) -> None:             # noqa: N802 (Qt name)
        super().showEvent(ev)
        self.fit_theme()
