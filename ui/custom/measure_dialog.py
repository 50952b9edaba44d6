"""Measure this machine from the window: model/machine/benchmark.py steps on a worker thread,
a QProgressDialog on the GUI thread (polled by a timer, so the window stays responsive).

The worker only runs model code and puts (done, total, label) and the result on a queue;
everything Qt happens on the GUI thread. Cancel stops between steps. The result is saved as
a hardware file "this machine (measured DATE)" (ui/custom/store.py), like any other.
"""
from __future__ import annotations

import queue
import threading

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from model.machine import measure
from model.machine.benchmark import Measurements
from model.errors import ModelError
from model.files.hardware_file import hardware_from_document
from model.readouts.machine_report import measured_document, report_text, summary_line
from ui.custom import store as custom_store


class MachineMeasurer(QObject):
    """Runs the steps; ``finished(hardware id, one-line summary, full report)`` or ``failed(one line)``,
    then deletes itself and its progress dialog."""

    finished = Signal(str, str, str)
    failed = Signal(str)

    def __init__(self, parent: QWidget | None = None, quick: bool = False, backend: str = "auto"):
        super().__init__(parent)
        self.steps = measure.plan(quick, backend)
        self.queue: queue.Queue = queue.Queue()
        self.cancelled = threading.Event()
        self.progress = QProgressDialog("Measuring this machine…", "Cancel", 0, len(self.steps), parent)
        self.progress.setObjectName("measureProgress")
        self.progress.setWindowTitle("Measure this machine")
        self.progress.setMinimumDuration(0)
        self.progress.canceled.connect(self.cancelled.set)
        self.timer = QTimer(self)
        self.timer.setInterval(50)
        self.timer.timeout.connect(self._poll)
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._work, name="measure-machine", daemon=True)
        self.thread.start()
        self.timer.start()
        self.progress.show()

    def _work(self) -> None:
        import time
        from ui.kit.quick_start import all_blas_threads
        m = Measurements(date=time.strftime("%Y-%m-%d"))
        try:
            with all_blas_threads():            # every core, as `main.py calibrate` measures
                for i, step in enumerate(self.steps):
                    if self.cancelled.is_set():
                        self.queue.put(("cancelled", None))
                        return
                    self.queue.put(("step", (i, step.label)))
                    step.run(m)
            self.queue.put(("done", m))
        except Exception as exc:        # one line for the window, never a crash
            self.queue.put(("error", f"{type(exc).__name__}: {exc}"))

    def _poll(self) -> None:
        while True:
            try:
                kind, payload = self.queue.get_nowait()
            except queue.Empty:
                return
            if kind == "step":
                self.progress.setValue(payload[0])
                self.progress.setLabelText(payload[1] + "…")
                continue
            self.timer.stop()
            self.progress.reset()
            try:
                if kind == "done":
                    self._save(payload)
                elif kind == "error":
                    self.failed.emit(f"Measuring failed: {payload}")
                else:
                    self.failed.emit("Measuring cancelled: nothing saved")
            finally:
                self.progress.deleteLater()        # done with: nothing is kept per measurement
                self.deleteLater()
            return

    @property
    def running(self) -> bool:
        return self.timer.isActive()

    def _save(self, m: Measurements) -> None:
        doc = measured_document(m)
        try:
            hw = hardware_from_document(doc, "the measurement")
            custom_store.save_hardware(doc, hw)
        except (ModelError, OSError) as exc:
            self.failed.emit(f"Measured, but not saved: {exc}")
            return
        self.finished.emit(hw.id, summary_line(m), report_text(m))

    def wait(self, timeout_s: float = 120.0) -> None:
        """Tests: let the worker finish, then deliver its results."""
        if self.thread is not None:
            self.thread.join(timeout_s)
        self._poll()
