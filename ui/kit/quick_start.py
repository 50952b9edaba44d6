"""What the window's start does before Qt, and undoes after its first paint. No Qt here.

    main.py (the window) → begin() … the first paint → MainWindow._next_step → end()

* One OpenBLAS thread. The window's numpy work is element-wise on small arrays (packets,
  sweeps); OpenBLAS's pool (one thread per core, started when numpy is imported) cost ~40 ms
  of CPU at every start on the 2-core machine here and would compete with the UI thread on a
  laptop. Only before numpy's first import; a value the user set is kept. The short commands
  (cli.ONE_BLAS_THREAD: estimate, list, sweep, hardware) start with one thread too (main.py);
  calibrate, validate, serve and plan keep OpenBLAS's default (``calibrate`` measures with it),
  and "Measure this machine" in the window gets every core back while it measures
  (``all_blas_threads``).
* No cyclic garbage collection until the first paint. Importing Qt, pyqtgraph and numpy
  creates a few hundred thousand objects and the collector walks them ~150 times, ~27 ms
  here, finding nothing to free. After the first paint what start-up made is frozen
  (``gc.freeze``: later collections skip it, so a full collection in the middle of an
  animation no longer walks Qt's and numpy's objects) and collection resumes. The little
  garbage start-up left (a full collection at the first paint finds ~450 objects) is frozen
  with it, once; collecting it first would put a ~20 ms pause right after the first paint.
* numpy and the cost model are imported before Qt: once PySide6 is loaded it reads the
  source of every module imported after it (``shibokensupport.feature`` looks for the word
  "PySide6"); the model needs no Qt. These are the modules the first screen uses.
"""
from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager

_paused = False
_one_blas = False           # True when we, not the user, asked OpenBLAS for one thread


@contextmanager
def all_blas_threads():
    """OpenBLAS with one thread per core, as calibrate runs it, for as long as this lasts (the
    machine measurement's matrix multiplies); then one again. Nothing changes where the user
    set the thread count, or where we did not limit it."""
    if not _one_blas or "numpy" not in sys.modules:
        yield
        return
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=max(1, os.cpu_count() or 1), user_api="blas"):
        yield


def begin() -> None:
    """Before anything imports numpy or Qt (main.py, for the window only)."""
    global _paused, _one_blas
    if "OPENBLAS_NUM_THREADS" not in os.environ:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        _one_blas = True
    if gc.isenabled():
        gc.disable()
        _paused = True


def end() -> None:
    """After the first paint (or when no window will paint): freeze what start-up made, collect again."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def paused() -> bool:
    return _paused


def model_before_qt() -> None:
    """numpy and the model modules the first screen uses, before PySide6 (see above). The thread
    count is begin()'s alone: an app that did not call it keeps OpenBLAS's default."""
    import numpy  # noqa: F401
    import model  # noqa: F401
    import model.physics.sweep  # noqa: F401
    import model.readouts.chip  # noqa: F401
    import model.readouts.flow  # noqa: F401
    import model.readouts.numbers  # noqa: F401
    import model.readouts.roofline  # noqa: F401
    import model.readouts.sentences  # noqa: F401
