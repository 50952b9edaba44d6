"""Where the audience view and the speaker view go, screen by screen.

    two screens    the audience view (the main window, presenter mode) full screen on the
                   projector: the screen the speaker picked, else the first one that is not
                   the primary (the laptop's); the speaker window full screen on the laptop
    one screen     the audience view alone, full screen; S (rehearsal) puts the speaker view
                   beside it in the same window (under it in a window narrower than
                   REHEARSAL_BESIDE_MIN_PX, so the audience view keeps a slide's width)
    unplugged      QGuiApplication.screenRemoved: the audience view moves to the screen that
                   is left, the speaker window goes away, the talk goes on (same state, same
                   keys); screenAdded arranges again

Nothing here draws; SpeakerView (ui.present.speaker_view) does.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QDockWidget, QVBoxLayout, QWidget

from ui.kit import theme as th

AUTO = ""                       # the projector is chosen automatically
REHEARSAL_FRACTION = 0.36       # of the window's width, for the docked speaker view
REHEARSAL_BESIDE_MIN_PX = 1200  # a narrower window docks the speaker view under the audience view
REHEARSAL_UNDER_FRACTION = 0.25  # … a low strip (ui.present.speaker_view), this much of the window's height


class SpeakerWindow(QWidget):
    """The speaker view's own top-level window (on the laptop, when there is a projector).
    Owned by the main window: it closes with it, and never keeps the app running alone."""

    def __init__(self, stage: "Stage"):
        super().__init__(stage.window, Qt.Window)
        self.stage = stage
        self.setObjectName("speakerWindow")
        self.setWindowTitle("Memory Wall — speaker view")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.resize(1280, 720)


class Stage(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.mode = "off"              # off | single | dual | rehearsal
        self.rehearsal = False
        self.projector_name = AUTO
        self.fullscreen = True
        self.speaker = None
        self.speaker_window: SpeakerWindow | None = None
        self.dock: QDockWidget | None = None
        window.installEventFilter(self)          # a rehearsal window resized: beside or under
        app = QGuiApplication.instance()
        app.screenRemoved.connect(self.on_screen_removed)
        app.screenAdded.connect(self.on_screen_added)

    # ---------------------------------------------------------------- screens
    @staticmethod
    def screens(gone: QScreen | None = None) -> list[QScreen]:
        return [s for s in QGuiApplication.screens() if s is not gone]

    def projector(self, screens: list[QScreen]) -> QScreen | None:
        """The audience's screen: the one the speaker picked, else the first that is not the
        primary; None with one screen."""
        if len(screens) < 2:
            return None
        picked = [s for s in screens if s.name() == self.projector_name]
        primary = QGuiApplication.primaryScreen()
        return picked[0] if picked else next(s for s in screens if s is not primary)

    @staticmethod
    def laptop(screens: list[QScreen], projector: QScreen | None = None) -> QScreen | None:
        """The speaker's screen: the primary, unless the audience has it."""
        rest = [s for s in screens if s is not projector]
        primary = QGuiApplication.primaryScreen()
        return primary if primary in rest else (rest[0] if rest else None)

    def pick_projector(self, name: str) -> None:
        """The speaker chose the audience's screen (AUTO: not the laptop's)."""
        self.projector_name = name or AUTO
        if self.mode != "off":
            self.arrange()

    # ---------------------------------------------------------------- layouts
    def arrange(self, gone: QScreen | None = None, fullscreen: bool | None = None) -> str:
        """Put the windows where they belong now; returns the layout used."""
        if fullscreen is not None:
            self.fullscreen = fullscreen
        screens = self.screens(gone)
        projector = self.projector(screens)
        laptop = self.laptop(screens, projector)
        if laptop is None:
            return self.mode
        if self.rehearsal:
            self._rehearse(laptop)
        elif projector is not None:
            self._dual(projector, laptop)
        else:
            self._single(laptop)
        if self.speaker is not None:
            self.speaker.list_screens(screens, self.projector_name)
        return self.mode

    def _single(self, laptop: QScreen) -> None:
        self._hide_speaker()
        self.mode = "single"
        if self.fullscreen or self.window.screen() is not laptop:
            place(self.window, laptop, self.fullscreen or self.window.isFullScreen())

    def _dual(self, projector: QScreen, laptop: QScreen) -> None:
        speaker = self.ensure_speaker()
        if self.dock is not None:
            self.dock.hide()
        if self.speaker_window is None:
            self.speaker_window = SpeakerWindow(self)
        sw = self.speaker_window
        sw.setStyleSheet(th.style_sheet(self.window.theme))
        if speaker.parent() is not sw:
            sw.layout().addWidget(speaker)
        speaker.set_compact(False)
        speaker.show()
        self.mode = "dual"
        place(self.window, projector, True)
        place(sw, laptop, self.fullscreen)

    def _rehearse(self, laptop: QScreen) -> None:
        speaker = self.ensure_speaker()
        if self.speaker_window is not None:
            self.speaker_window.hide()
        if self.dock is None:
            self.dock = QDockWidget("Speaker view", self.window)
            self.dock.setObjectName("speakerDock")
            self.dock.setFeatures(QDockWidget.NoDockWidgetFeatures)
            self.dock.setTitleBarWidget(QWidget())
        if self.dock.widget() is not speaker:
            self.dock.setWidget(speaker)
        self.mode = "rehearsal"
        place(self.window, laptop, self.fullscreen)
        self._dock_speaker()
        speaker.show()

    def _rehearsal_area(self) -> Qt.DockWidgetArea:
        beside = self.window.width() >= REHEARSAL_BESIDE_MIN_PX
        return Qt.RightDockWidgetArea if beside else Qt.BottomDockWidgetArea

    def _dock_speaker(self) -> None:
        """The speaker view docked beside the audience view (one column), or under it (its columns
        side by side) where the window is too narrow for both to sit side by side."""
        if self.mode != "rehearsal" or self.dock is None or self.speaker is None:
            return
        area = self._rehearsal_area()
        self.speaker.set_compact(True, area == Qt.RightDockWidgetArea)
        self.window.addDockWidget(area, self.dock)          # moves it when docked elsewhere
        self.dock.show()
        self._size_dock()
        QTimer.singleShot(0, self._size_dock)       # again once laid out: a dock just added takes its size hint

    def _size_dock(self) -> None:
        """The docked speaker view's share: of the width beside, of the height under."""
        if self.mode != "rehearsal" or self.dock is None or not self.dock.isVisible():
            return
        if self.window.dockWidgetArea(self.dock) == Qt.RightDockWidgetArea:
            self.window.resizeDocks([self.dock], [int(self.window.width() * REHEARSAL_FRACTION)], Qt.Horizontal)
        else:
            self.window.resizeDocks([self.dock], [int(self.window.height() * REHEARSAL_UNDER_FRACTION)], Qt.Vertical)

    def eventFilter(self, obj, ev) -> bool:          # noqa: N802 (Qt name)
        if obj is self.window and ev.type() == QEvent.Resize and self.mode == "rehearsal" and self.dock is not None:
            QTimer.singleShot(0, self._dock_speaker)        # beside or under, its share of the new size
        return False

    def _hide_speaker(self) -> None:
        if self.speaker_window is not None:
            self.speaker_window.hide()
        if self.dock is not None:
            self.dock.hide()

    def ensure_speaker(self):
        if self.speaker is None:
            from ui.present.speaker_view import SpeakerView
            self.speaker = SpeakerView(self.window)
            self.speaker.screen_picked.connect(self.pick_projector)
        return self.speaker

    # ---------------------------------------------------------------- presenter mode
    def start(self, fullscreen: bool = True) -> str:
        if self.mode == "off" and self.speaker is not None:
            self.speaker.restart_clock()
        mode = self.arrange(fullscreen=fullscreen)
        if self.speaker is not None and self.mode != "single":
            self.speaker.show_state(self.window.lessons.number, self.window.lessons.index)
        return mode

    def stop(self) -> None:
        self._hide_speaker()
        self.mode = "off"

    def toggle_rehearsal(self) -> str:
        self.rehearsal = not self.rehearsal
        return self.arrange() if self.mode != "off" else self.mode

    def key_windows(self) -> tuple:
        """Windows whose keys drive the talk (besides the main window)."""
        return (self.speaker_window,) if self.speaker_window is not None and self.speaker_window.isVisible() else ()

    def sync_theme(self) -> None:
        if self.speaker is not None and self.speaker.theme is not self.window.theme:
            self.speaker.set_theme(self.window.theme)
            if self.speaker_window is not None:
                self.speaker_window.setStyleSheet(th.style_sheet(self.window.theme))

    # ---------------------------------------------------------------- plugging and unplugging
    def on_screen_removed(self, screen: QScreen) -> None:
        """The projector was unplugged (or any screen): arrange on what is left, keep going."""
        if self.mode != "off":
            self.arrange(gone=screen)

    def on_screen_added(self, _screen: QScreen) -> None:
        if self.mode != "off":
            self.arrange()


def place(widget: QWidget, screen: QScreen, fullscreen: bool) -> None:
    """Show a top-level widget on ``screen``: full screen, or at its own size (moved onto the
    screen only when it is elsewhere)."""
    if widget.isFullScreen() and (widget.screen() is not screen or not fullscreen):
        widget.showNormal()
    if fullscreen:
        widget.setGeometry(screen.geometry())
    elif widget.screen() is not screen or not widget.isVisible():
        area = screen.availableGeometry()
        widget.move(area.topLeft())
    handle = widget.windowHandle()
    if handle is not None and handle.screen() is not screen:
        handle.setScreen(screen)
    if fullscreen:
        widget.showFullScreen()
    else:
        widget.show()
