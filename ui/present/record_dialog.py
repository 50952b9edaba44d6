"""The window's "Record…" dialog: what (the chip, or this chapter gliding through its steps),
how long, how large, how many frames per second; then a file name (.gif, or .mp4 when the
optional encoder is there) and a progress bar. The recording itself is ui.present.recording.record,
drawn off screen: the window keeps running as it was."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QApplication, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog,
                               QFormLayout, QLabel, QProgressDialog, QSpinBox)

from ui.present import recording as rec

SIZES = ((960, 540), (1280, 720), (1920, 1080), (640, 360))


class RecordingCancelled(rec.RecordingError):
    """The speaker pressed Cancel."""


class RecordDialog(QDialog):
    def __init__(self, window):
        super().__init__(window)
        self.window_ = window
        self.setWindowTitle("Record for slides")
        lessons = window.lessons
        self.chapter = lessons.number if window.lessons_visible() else None
        form = QFormLayout(self)
        self.what = QComboBox()
        self.what.addItem("The chip, animated", None)
        for ch in lessons.chapters:
            self.what.addItem(f"Chapter {ch.number} gliding through its {len(ch.states)} steps", ch.number)
        self.what.setCurrentIndex(self.what.findData(self.chapter) if self.chapter else 0)
        self.what.currentIndexChanged.connect(self._default_length)
        self.seconds = QDoubleSpinBox()
        self.seconds.setRange(0.5, rec.MAX_SECONDS)
        self.seconds.setSingleStep(0.5)
        self.seconds.setSuffix(" s")
        self.size_box = QComboBox()
        for w, h in SIZES:
            self.size_box.addItem(f"{w}×{h}")
        self.fps = QSpinBox()
        self.fps.setRange(5, rec.MAX_FPS)
        self.fps.setValue(rec.DEFAULT_FPS)
        self.fps.setSuffix(" frames/s")
        try:
            rec.mp4_encoder()
            mp4 = "GIF, or MP4 (imageio-ffmpeg)"
        except rec.RecordingError:
            mp4 = "GIF (MP4 needs the optional imageio-ffmpeg package)"
        form.addRow("Record", self.what)
        form.addRow("Length", self.seconds)
        form.addRow("Size", self.size_box)
        form.addRow("Frame rate", self.fps)
        form.addRow("Format", QLabel(mp4))
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.button(QDialogButtonBox.Ok).setText("Record…")
        buttons.accepted.connect(self._choose_file)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._default_length()

    def _default_length(self) -> None:
        n = self.what.currentData()
        states = len(self.window_.lessons.chapters[n - 1].states) if n else 0
        self.seconds.setValue(rec.DEFAULT_STATE_S * states if n else rec.DEFAULT_CHIP_S)

    def _choose_file(self) -> None:
        n = self.what.currentData()
        default = f"chapter{n}.gif" if n else "chip.gif"
        path, _ = QFileDialog.getSaveFileName(self, "Save the recording", default,
                                              "Animated GIF (*.gif);;MP4 video (*.mp4)")
        if path and self.record_to(path):
            self.accept()

    def record_to(self, path: str, replace: bool = True) -> bool:
        """Record with a progress bar; the result (or one line why not) goes to the status line.
        ``replace``: the file chooser has asked before an existing file is chosen."""
        n = self.what.currentData()
        seconds, fps, size = self.seconds.value(), self.fps.value(), SIZES[max(0, self.size_box.currentIndex())]
        frames = rec.frame_count(seconds, fps)
        bar = QProgressDialog("Drawing frames…", "Cancel", 0, frames, self)
        bar.setWindowModality(Qt.WindowModal)
        bar.setAttribute(Qt.WA_DeleteOnClose)
        bar.setMinimumDuration(300)

        def progress(k: int) -> None:
            bar.setValue(k)
            QApplication.processEvents()
            if bar.wasCanceled():
                raise RecordingCancelled("recording cancelled; nothing was written")

        w = self.window_
        scenario = w.controller.valid_scenario
        try:
            result = rec.record(path, chapter=n, scenario=scenario, seconds=seconds, size=size, fps=fps,
                                theme=w.theme_name, progress=progress, overwrite=replace)   # the file chooser asked
        except rec.RecordingError as exc:
            bar.close()
            w.lessons.message(str(exc), error=True)
            w.statusBar().showMessage(str(exc), 8000)
            return isinstance(exc, RecordingCancelled)
        bar.close()
        w.lessons.message(result.summary())
        w.statusBar().showMessage(result.summary(), 8000)
        return True
