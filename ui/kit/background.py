"""Work a page asks of the model, done on a thread of its own, so that a key press is answered
within a frame however long a simulation or a plan takes.

    jobs = Background(page, on_done)     on_done(result) on the GUI thread; result is the function's
                                         return value, or the exception it raised
    jobs.submit(fn)                      fn() runs on the worker (pure model: no Qt); a newer submit
                                         supersedes: the waiting one is dropped, the running one is
                                         called off at its next cancel point (model/work.py) and its
                                         result, if it came anyway, is never handed over
    jobs.busy                            a job waits, runs, or its result is not yet handed over
    jobs.finish(timeout_s)               wait for the newest job and hand its result over now
                                         (screenshots, recordings, tests: the page as it settles)

One worker thread per page, started by a job and ended after IDLE_S with nothing to do. The
result is handed over by a queued call into the GUI thread; ``finish`` hands it over itself, at
once, so a test or a screenshot sees the same page a user would a moment later.
"""
from __future__ import annotations

import threading
import time
import weakref
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel

from model.work import Cancelled, cancellable

IDLE_S = 10.0           # a worker with nothing to do this long ends (the next job starts another)
BEAT_MS = 3             # while a job runs, the GUI thread notes every BEAT_MS that it got to run …
LATE_S = 0.004          # … and a job that finds the last note older than this at a cancel point …
YIELD_S = 0.002         # … sleeps this long, so the window gets the interpreter (Background._polite_check)
SAY_BUSY_AFTER_MS = 300     # a job still running this long is said (a quick one never flickers a line)


def busy_line(text: str) -> QLabel:
    """The line a page shows while a job of its runs long (hidden; ``Background`` shows it)."""
    label = QLabel(text)
    label.setObjectName("busy")
    label.setTextFormat(Qt.PlainText)
    label.setVisible(False)
    return label


class _Relay(QObject):
    """The worker's "a result is waiting", queued to the GUI thread through an object that is never
    deleted: a worker that signalled through its page's own object could do so while the GUI thread
    was deleting that page (a segmentation fault, seen at a test's teardown)."""
    ready = Signal(object)                  # a weak reference to the Background whose result waits


_RELAY: _Relay | None = None


def _relay() -> _Relay:
    """Made once, on the GUI thread (by the first Background), and kept for the process."""
    global _RELAY
    if _RELAY is None:
        _RELAY = _Relay()
        _RELAY.ready.connect(_deliver, Qt.QueuedConnection)
    return _RELAY


def _deliver(ref: weakref.ref) -> None:
    jobs = ref()
    if jobs is not None and shiboken6.isValid(jobs):
        jobs._hand_over()


class Background(QObject):
    def __init__(self, parent: QObject, on_done: Callable[[Any], None], busy: QLabel | None = None):
        super().__init__(parent)
        self._on_done = on_done
        self._busy = busy
        self._say_busy = QTimer(self)
        self._say_busy.setSingleShot(True)
        self._say_busy.setInterval(SAY_BUSY_AFTER_MS)
        if busy is not None:
            self._say_busy.timeout.connect(lambda: busy.setVisible(self.busy))
        self._cv = threading.Condition()
        self._serial = 0                    # the newest job's number
        self._job: tuple[int, Callable[[], Any]] | None = None     # waiting to run
        self._running = 0                   # the number of the job on the worker (0: none)
        self._result: tuple[int, Any] | None = None                # done, not yet handed over
        self._thread: threading.Thread | None = None
        self.handed_over = 0                # results handed to on_done (tests count them)
        self._relay = _relay()
        self._weak = weakref.ref(self)
        self._gui_ran = time.perf_counter()     # when the GUI thread last got to run (the beat)
        self._beat = QTimer(self)
        self._beat.setInterval(BEAT_MS)
        self._beat.timeout.connect(self._note_gui_ran)
        self.yields = 0                         # sleeps the jobs took to let the window in (benches, tests)

    # ---------------------------------------------------------------- the GUI thread
    def submit(self, fn: Callable[[], Any]) -> int:
        """Run ``fn`` on the worker, superseding whatever was asked before; its number."""
        with self._cv:
            self._serial += 1
            self._job = (self._serial, fn)
            self._result = None
            self._cv.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name=f"background-{id(self):x}", daemon=True)
                self._thread.start()
            serial = self._serial
        self._say_busy.start()
        self._note_gui_ran()
        self._beat.start()
        return serial

    def _note_gui_ran(self) -> None:
        self._gui_ran = time.perf_counter()

    def cancel(self) -> None:
        """Drop the waiting job and call the running one off; nothing more is handed over."""
        with self._cv:
            self._serial += 1
            self._job = None
            self._result = None
        self._say_busy.stop()
        self._beat.stop()
        if self._busy is not None:
            self._busy.setVisible(False)

    def _newest_running(self) -> bool:
        return self._job is not None or (self._running != 0 and self._running == self._serial)

    @property
    def busy(self) -> bool:
        with self._cv:
            return self._newest_running() or self._result is not None

    def finish(self, timeout_s: float = 600.0) -> bool:
        """Wait for the newest job, then hand its result over now; False when it did not finish."""
        with self._cv:
            done = self._cv.wait_for(lambda: not self._newest_running(), timeout_s)
        self._hand_over()
        return done

    def _hand_over(self) -> None:
        with self._cv:
            result, self._result = self._result, None
            idle = not self._newest_running()
        if idle:
            self._beat.stop()
            self._say_busy.stop()
            if self._busy is not None:
                self._busy.setVisible(False)
        if result is not None and result[0] == self._serial:
            self.handed_over += 1
            self._on_done(result[1])

    # ---------------------------------------------------------------- the worker
    def _polite_check(self, serial: int) -> Callable[[], bool]:
        """The job's cancel check, which also sleeps YIELD_S when the GUI thread has not run for
        LATE_S (its beat, every BEAT_MS while a job runs, is late). The worker drops the GIL only inside
        numpy's calls and takes it back at once, before a GUI thread waiting for it is even woken (the
        GIL's convoy): on an idle 2-core machine a 20 000-request run held the window 230–510 ms at a
        time (benches/bench_event_loop.py). The sleep lets the window in; a window with nothing to do
        keeps its beat on time and the job runs at full speed."""
        def check() -> bool:
            if time.perf_counter() - self._gui_ran > LATE_S:
                self.yields += 1
                time.sleep(YIELD_S)
            return self._serial != serial or not shiboken6.isValid(self)     # superseded, or its page is gone
        return check

    def _work(self) -> None:
        while True:
            with self._cv:
                if not self._cv.wait_for(lambda: self._job is not None, IDLE_S):
                    self._thread = None          # (under the lock: a submit now starts a new worker)
                    return
                serial, fn = self._job
                self._job = None
                self._running = serial
            try:
                with cancellable(self._polite_check(serial)):
                    out: Any = fn()
            except Cancelled:
                out = Cancelled
            except Exception as exc:        # handed over as it is: the page says it in one line
                out = exc
            with self._cv:
                self._running = 0
                if out is not Cancelled and serial == self._serial:
                    self._result = (serial, out)
                self._cv.notify_all()
            if out is not Cancelled:
                self._relay.ready.emit(self._weak)   # no Qt object of the page is touched here
