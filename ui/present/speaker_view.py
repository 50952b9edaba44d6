"""The speaker's view on the laptop: what the audience sees now, the next prepared state, the
notes for this state, the elapsed time and the clock, and the chapter list.

    ┌ 3 · Memory hierarchy — step 2 of 3 ─────────────── 12:34 elapsed · 21:45 ┐
    │ NOW (the audience view, as shown)      │ NEXT (the next prepared state)   │
    │                                        │ its caption                      │
    │ NOTES for this state                   │ chapter list                     │
    └────────────────────────────────────────┴──────────────────────────────────┘

The next-state preview is drawn off screen (ui.present.offscreen) once per prepared state and kept;
it is drawn after the glide has landed, so the stage never stutters. "Now" is a grab of the
audience view, taken when the state changes or the scenario changes (never per frame). The
clock is a 1 s timer. The view only draws: notes come from model.lessons.speaker_notes.
"""
from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QObject, QRectF, QSize, Qt, QTime, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPixmap
from PySide6.QtWidgets import (QBoxLayout, QComboBox, QHBoxLayout, QLabel, QListWidget, QPushButton, QScrollArea,
                               QSizePolicy, QVBoxLayout, QWidget)

from model.errors import ModelError
from model.lessons.read import READ_WORDS
from model.lessons.speaker_notes import neighbour_state, speaker_notes, state_claim
from ui.kit import theme as th
from ui.chapters import SHORT_TITLES

THUMB_WIDTH_PX = 960          # previews are kept at this width (16:9)
MIRROR_DELAY_MS = 350         # after a scenario change, grab the audience view once it has settled
STRIP_HEAD = 20               # the strip under the slide (a narrow window): its title and clocks' design size,
STRIP_NOTES = 16              # … its notes' and the next claim's
STRIP_MIN_PX = 16             # … never under this


class StateThumbnails(QObject):
    """Pictures of prepared states, drawn off screen at ``render_size`` and kept per state.
    request() queues one; it is drawn on a later event-loop turn, never while ``busy()``."""

    ready = Signal(int, int)

    def __init__(self, theme_name: str = "dark", render_size: tuple[int, int] = (1920, 1080),
                 busy=lambda: False, parent: QObject | None = None):
        super().__init__(parent)
        self.theme_name = theme_name
        self.render_size = render_size
        self.busy = busy
        self.cache: dict[tuple[int, int], QPixmap] = {}
        self.failed: dict[tuple[int, int], str] = {}
        self.renders = 0
        self._hosts: dict[int, object] = {}
        self._queue: list[tuple[int, int]] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._work)

    def get(self, number: int, index: int) -> QPixmap | None:
        return self.cache.get((number, index))

    def request(self, number: int, index: int) -> None:
        key = (number, index)
        if key in self.cache or key in self._queue or key in self.failed:
            return
        self._queue.append(key)
        if not self._timer.isActive():
            self._timer.start(0)

    def render(self, number: int, index: int) -> QPixmap:
        """Draw one prepared state now (or return the kept picture)."""
        key = (number, index)
        if key not in self.cache:
            from ui.present.offscreen import OffscreenChapter
            host = self._hosts.get(number)
            if host is None:
                host = OffscreenChapter(number, th.presenter_theme(self.theme_name, self.render_size[1]),
                                        self.render_size)
                self._hosts[number] = host
            host.show_state(index)
            image = host.image().scaledToWidth(THUMB_WIDTH_PX, Qt.SmoothTransformation)
            self.cache[key] = QPixmap.fromImage(image)
            self.renders += 1
        return self.cache[key]

    def _work(self) -> None:
        if not self._queue:
            return
        if self.busy():                      # a glide is running on stage: draw after it lands
            self._timer.start(100)
            return
        key = self._queue.pop(0)
        try:
            self.render(*key)
        except Exception as exc:           # a preview that cannot be drawn must not stop the talk
            self.failed[key] = f"no preview: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        self.ready.emit(*key)
        if self._queue:
            self._timer.start(0)

    def set_theme_name(self, name: str) -> None:
        if name != self.theme_name:
            self.theme_name = name
            self.clear()

    def clear(self) -> None:
        self.cache.clear()
        self.failed.clear()
        for host in self._hosts.values():
            host.close()
        self._hosts.clear()


class Thumb(QWidget):
    """A picture scaled to fit (16:9 kept), or a line of text where there is none."""

    def __init__(self, empty_text: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.pixmap: QPixmap | None = None
        self.empty_text = empty_text
        self.theme = th.DARK
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setMinimumSize(160, 90)

    def sizeHint(self) -> QSize:
        return QSize(320, 180)          # a small start: the layout's stretch gives it the room

    def set_pixmap(self, pixmap: QPixmap | None, empty_text: str | None = None) -> None:
        self.pixmap = pixmap
        if empty_text is not None:
            self.empty_text = empty_text
        self.update()

    def picture_rect(self) -> QRectF:
        w, h = self.width(), self.height()
        pw, ph = (self.pixmap.width(), self.pixmap.height()) if self.pixmap else (16, 9)
        k = min(w / pw, h / ph)
        return QRectF((w - pw * k) / 2, (h - ph * k) / 2, pw * k, ph * k)

    def paintEvent(self, _ev) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.SmoothPixmapTransform, True)
        r = self.picture_rect()
        if self.pixmap is not None:
            p.drawPixmap(r, self.pixmap, QRectF(self.pixmap.rect()))
        else:
            p.fillRect(r, QColor(self.theme.panel))
            f = QFont()
            f.setPixelSize(self.theme.px(18))
            p.setFont(f)
            p.setPen(QColor(self.theme.secondary))
            p.drawText(r, Qt.AlignCenter | Qt.TextWordWrap, self.empty_text)
        p.setPen(QColor(self.theme.panel_border))
        p.setBrush(Qt.NoBrush)
        p.drawRect(r.adjusted(0, 0, -1, -1))
        p.end()


def _label(name: str, text: str = "", wrap: bool = False) -> QLabel:
    lab = QLabel(text)
    lab.setObjectName(name)
    lab.setWordWrap(wrap)
    if wrap:
        lab.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
    return lab


class SpeakerView(QWidget):
    """The speaker's panel. ``window`` is the main window (its lessons, presenter, theme)."""

    screen_picked = Signal(str)        # a screen's name for the audience ("" = automatic)

    def __init__(self, window, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("speakerView")
        self.window_ = window
        self.lessons = window.lessons
        self.counts = [len(c.states) for c in self.lessons.chapters]
        self.thumbs = StateThumbnails(window.theme_name, busy=lambda: self.lessons.glide.running, parent=self)
        self.thumbs.ready.connect(self._on_thumb)
        self.clock = QElapsedTimer()
        self.clock.start()
        self.next_state: tuple[int, int] | None = None
        self.mirrors = 0
        self._build()
        self._tick_timer = QTimer(self)
        self._tick_timer.setInterval(1000)              # a slow clock: the time, not the animation
        self._tick_timer.timeout.connect(self.tick)
        self._mirror_timer = QTimer(self)
        self._mirror_timer.setSingleShot(True)
        self._mirror_timer.timeout.connect(self.refresh_mirror)
        self.lessons.chapter_changed.connect(self.show_state)
        window.controller.changed.connect(self.schedule_mirror)    # a bound method: gone with this view
        self.chapter_list.currentRowChanged.connect(self._picked_chapter)
        self.screen_box.activated.connect(lambda i: self.screen_picked.emit(self.screen_box.itemData(i) or ""))
        self.set_theme(window.theme)
        self.show_state(self.lessons.number, self.lessons.index)
        self.tick()

    # ---------------------------------------------------------------- build
    def _build(self) -> None:
        self.title = _label("speakerTitle", wrap=True)
        self.elapsed_label = _label("speakerClock")
        self.clock_label = _label("speakerClock")
        clocks = QHBoxLayout()
        clocks.addWidget(self.elapsed_label)
        clocks.addSpacing(16)
        clocks.addWidget(self.clock_label)
        clocks.addStretch(0)
        self.top = QBoxLayout(QBoxLayout.LeftToRight)
        self.top.addWidget(self.title, 1)
        self.top.addLayout(clocks)

        self.now = Thumb("the audience view")
        self.now_label = _label("speakerSection", "NOW — WHAT THE AUDIENCE SEES")
        self.notes = _label("speakerNotes", wrap=True)
        self.notes.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.notes.setTextFormat(Qt.PlainText)
        self.notes_scroll = QScrollArea()               # long notes scroll, never clip
        self.notes_scroll.setObjectName("speakerNotesScroll")
        self.notes_scroll.setWidget(self.notes)
        self.notes_scroll.setWidgetResizable(True)
        self.notes_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.notes_scroll.setFocusPolicy(Qt.NoFocus)
        self.notes_label = _label("speakerSection", "NOTES")
        left = QVBoxLayout()
        for w, stretch in ((self.now_label, 0), (self.now, 5), (self.notes_label, 0),
                           (self.notes_scroll, 4)):
            left.addWidget(w, stretch)

        self.next_label = _label("speakerSection", "NEXT")
        self.next = Thumb("")
        self.next_caption = _label("speakerCaption", wrap=True)
        self.chapter_list = QListWidget()
        self.chapter_list.setObjectName("speakerChapters")
        self.chapter_list.setFocusPolicy(Qt.NoFocus)
        for ch in self.lessons.chapters:
            self.chapter_list.addItem(f"{ch.number}  {SHORT_TITLES.get(ch.number, ch.title)}")
        self.screen_box = QComboBox()
        self.screen_box.setToolTip("The screen the audience sees (the projector)")
        self.chapters_label = _label("speakerSection", "CHAPTERS")
        self.read_button = QPushButton(READ_WORDS["button"])
        self.read_button.setObjectName("speakerRead")
        self.read_button.setCheckable(True)
        self.read_button.setToolTip(READ_WORDS["button_tip"])
        self.read_button.setFocusPolicy(Qt.NoFocus)
        self.read_button.setChecked(self.lessons.reading)
        self.read_button.toggled.connect(self.lessons.set_reading)
        self.lessons.read_button.toggled.connect(self.read_button.setChecked)
        right = QVBoxLayout()
        for w, stretch in ((self.next_label, 0), (self.next, 5), (self.next_caption, 0),
                           (self.chapters_label, 0), (self.chapter_list, 3), (self.screen_box, 0),
                           (self.read_button, 0)):
            right.addWidget(w, stretch)

        self.columns = QBoxLayout(QBoxLayout.LeftToRight)
        self.columns.setSpacing(16)
        self.columns.addLayout(left, 3)
        self.columns.addLayout(right, 2)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(14, 10, 14, 10)
        outer.addLayout(self.top)
        outer.addLayout(self.columns, 1)

    def set_compact(self, on: bool, column: bool = True) -> None:
        """Docked beside the audience view when rehearsing, one column (``column``); docked under
        it (a narrow window), a low strip: the title and the clocks on one line, the notes and the
        next state side by side, in smaller type, so the slide keeps most of the height. No "now"
        and no chapter list when docked: the audience view and its chapter strip are right there.
        Two columns with both in its own window."""
        self.compact = bool(on)
        self.strip_mode = bool(on and not column)
        direction = QBoxLayout.TopToBottom if on and column else QBoxLayout.LeftToRight
        self.columns.setDirection(direction)
        self.top.setDirection(direction)
        for w in (self.now, self.now_label, self.chapter_list, self.chapters_label):
            w.setVisible(not on)
        self.notes_label.setVisible(not self.strip_mode)   # the strip's notes box speaks for itself
        self.read_button.setVisible(not self.strip_mode)   # the strip stays low: T turns read mode there
        self.columns.setStretch(0, 3)                     # the notes: most of the column when rehearsing
        self.columns.setStretch(1, 1 if on and column else 2)
        self._notes_size()

    def _notes_size(self) -> None:
        """Notes in large type in their own window, a little smaller in the rehearsal column, and
        the strip under the slide smaller again (its title and clocks too)."""
        t = getattr(self, "theme", th.DARK)
        strip = getattr(self, "strip_mode", False)
        notes = STRIP_NOTES if strip else 19 if getattr(self, "compact", False) else 24
        self.notes.setStyleSheet(f"font-size: {max(STRIP_MIN_PX, t.px(notes))}px;")
        head = f"font-size: {max(STRIP_MIN_PX, t.px(STRIP_HEAD))}px;" if strip else ""
        for lab in (self.title, self.elapsed_label, self.clock_label):
            lab.setStyleSheet(head)
        self.next_caption.setStyleSheet(f"font-size: {max(STRIP_MIN_PX, t.px(STRIP_NOTES))}px;" if strip else "")
        m = (12, 4, 12, 4) if strip else (14, 10, 14, 10)
        self.layout().setContentsMargins(*m)
        self.next.setMinimumSize(*((128, 72) if strip else (160, 90)))

    # ---------------------------------------------------------------- state
    def show_state(self, number: int, index: int) -> None:
        ch = self.lessons.chapters[number - 1]
        self.title.setText(f"{number} · {ch.title} — step {index + 1} of {len(ch.states)}")
        try:
            notes = speaker_notes(number, index)
        except ModelError as exc:
            notes = str(exc)
        self.notes.setText(notes or "(no notes for this step)")
        self.next_state = neighbour_state(self.counts, number, index, +1)
        if self.chapter_list.currentRow() != number - 1:
            self.chapter_list.blockSignals(True)
            self.chapter_list.setCurrentRow(number - 1)
            self.chapter_list.blockSignals(False)
        self._show_next()
        self.schedule_mirror()

    def _show_next(self) -> None:
        if self.next_state is None:
            self.next_label.setText("NEXT")
            self.next.set_pixmap(None, "the end of the talk")
            self.next_caption.setText("")
            return
        n, i = self.next_state
        ch = self.lessons.chapters[n - 1]
        self.next_label.setText(f"NEXT — {n} · {SHORT_TITLES.get(n, ch.title)}, step {i + 1} of {len(ch.states)}")
        self.next_caption.setText(state_claim(n, i))
        self.next.set_pixmap(self.thumbs.get(n, i), self.thumbs.failed.get((n, i), "drawing the preview…"))
        self.thumbs.request(n, i)

    def _on_thumb(self, number: int, index: int) -> None:
        if self.next_state == (number, index):
            self.next.set_pixmap(self.thumbs.get(number, index), self.thumbs.failed.get((number, index)))

    def _picked_chapter(self, row: int) -> None:
        if row >= 0 and row + 1 != self.lessons.number:
            self.lessons.show_chapter(row + 1)

    def list_screens(self, screens, picked: str) -> None:
        """The screens the audience view can go to (the choice only matters with two or more)."""
        self.screen_box.blockSignals(True)
        self.screen_box.clear()
        self.screen_box.addItem("Audience on: automatic (not the laptop's screen)", "")
        for s in screens:
            g = s.geometry()
            self.screen_box.addItem(f"Audience on: {s.name() or 'screen'} ({g.width()}×{g.height()})", s.name())
        self.screen_box.setCurrentIndex(max(0, self.screen_box.findData(picked)))
        self.screen_box.blockSignals(False)
        self.screen_box.setVisible(len(screens) > 1)

    # ---------------------------------------------------------------- now
    def schedule_mirror(self, _snapshot=None) -> None:
        self._mirror_timer.start(MIRROR_DELAY_MS)

    def audience_widget(self) -> QWidget:
        w = self.window_
        return w.centralWidget() if hasattr(w, "centralWidget") and w.centralWidget() else w

    def refresh_mirror(self) -> None:
        """Grab what the audience sees (after any glide has landed)."""
        if self.lessons.glide.running:
            self.schedule_mirror()
            return
        if not self.now.isVisible():
            return
        target = self.audience_widget()
        if getattr(self.window_.presenter, "blanked", False):
            self.now.set_pixmap(None, "blanked: the audience sees black (any key returns)")
            return
        pix = target.grab()
        self.now.set_pixmap(pix.scaledToWidth(min(THUMB_WIDTH_PX, pix.width()), Qt.SmoothTransformation))
        self.mirrors += 1

    # ---------------------------------------------------------------- clock
    def restart_clock(self) -> None:
        self.clock.restart()
        self.tick()

    def tick(self) -> None:
        s = self.clock.elapsed() // 1000
        self.elapsed_label.setText(f"{s // 3600:d}:{s // 60 % 60:02d}:{s % 60:02d} elapsed" if s >= 3600
                                   else f"{s // 60:02d}:{s % 60:02d} elapsed")
        self.clock_label.setText(QTime.currentTime().toString("HH:mm"))

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        self._tick_timer.start()
        self.tick()
        self.schedule_mirror()

    def hideEvent(self, ev) -> None:
        super().hideEvent(ev)
        self._tick_timer.stop()

    # ---------------------------------------------------------------- look
    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.thumbs.set_theme_name(t.name)
        for thumb in (self.now, self.next):
            thumb.theme = t
            thumb.update()
        self.setStyleSheet(speaker_style(t))
        self._notes_size()
        if self.next_state is not None:
            self._show_next()


def speaker_style(t: th.Theme) -> str:
    """Large, calm type: the speaker reads it from a metre away (18 px and up at 1080 p)."""
    px = lambda base: max(18, t.px(base))   # noqa: E731
    return f"""
    QWidget#speakerView {{ background: {t.bg}; }}
    QLabel#speakerTitle {{ font-size: {px(26)}px; font-weight: 700; }}
    QLabel#speakerClock {{ font-size: {px(28)}px; font-weight: 700; color: {t.accent}; }}
    QLabel#speakerSection {{ color: {t.secondary}; font-size: {px(15)}px; font-weight: 600; letter-spacing: 1px; }}
    QScrollArea#speakerNotesScroll {{ background: {t.panel}; border: 1px solid {t.panel_border}; border-radius: 6px; }}
    QLabel#speakerNotes {{ background: {t.panel}; padding: 10px 14px; }}
    QLabel#speakerCaption {{ color: {t.accent}; font-size: {px(18)}px; }}
    QListWidget#speakerChapters {{ font-size: {px(19)}px; background: {t.panel}; border: 1px solid {t.panel_border};
                                  border-radius: 6px; }}
    QListWidget#speakerChapters::item:selected {{ background: {t.accent}; color: #000000; }}
    QComboBox {{ font-size: {px(16)}px; }}
    """
