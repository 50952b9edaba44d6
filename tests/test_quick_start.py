"""How the window starts (ui/kit/quick_start.py): numpy and the model before Qt, one
OpenBLAS thread, no garbage collection until the first paint — and collection back on, with
start-up's objects frozen, right after it. The commands start as before. Speed: benches/."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str, **env) -> dict:
    full = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    full.update(QT_QPA_PLATFORM="offscreen", **env)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


WINDOW = r"""
import gc, json, os, sys
sys.path.insert(0, ".")
import main
seen = {}

def first_step(self, step):                # the turn after the first paint
    seen.setdefault("gc_before_first_step", gc.isenabled())
    step(self)
    seen.setdefault("gc_after_first_step", gc.isenabled())

import ui.shell.app
build = ui.shell.app.build_window
def spy(*a, **k):                          # just before the window is built: numpy, Qt, the model loaded
    seen["gc_while_building"] = gc.isenabled()
    names = list(sys.modules)
    seen["model_before_qt"] = names.index("model.physics.estimate") < names.index("PySide6.QtCore")
    from ui.shell import main_window
    step = main_window.MainWindow._next_step
    main_window.MainWindow._next_step = lambda self: first_step(self, step)
    return build(*a, **k)
ui.shell.app.build_window = spy
rc = main.main(["--first-paint"])
print(json.dumps(dict(seen, rc=rc, gc_after=gc.isenabled(), frozen=gc.get_freeze_count(),
                      blas=os.environ.get("OPENBLAS_NUM_THREADS"))))
"""


def test_the_window_starts_without_gc_and_collects_again_after_its_first_paint():
    got = _run(WINDOW)
    assert got["rc"] == 0
    assert got["gc_while_building"] is False          # no collection while Qt, numpy and the window load
    assert got["gc_before_first_step"] is False       # still off through the first paint
    assert got["gc_after_first_step"] is True         # back on at the first step after it
    assert got["gc_after"] is True
    assert got["frozen"] > 10_000                     # start-up's objects: later collections skip them
    assert got["blas"] == "1"
    assert got["model_before_qt"] is True


def test_a_blas_thread_count_the_user_set_is_kept():
    got = _run(WINDOW, OPENBLAS_NUM_THREADS="3")
    assert got["rc"] == 0 and got["blas"] == "3"


COMMAND = r"""
import gc, io, json, os, sys, contextlib
sys.path.insert(0, ".")
import main
seen = {}
dumps = json.dumps
def spy(*a, **k):                          # the command printing its JSON (numpy and the model loaded)
    seen["gc_in_command"] = gc.isenabled()
    return dumps(*a, **k)
json.dumps = spy
with contextlib.redirect_stdout(io.StringIO()):
    try:
        rc = main.main(sys.argv[1:])
    except SystemExit as exc:              # --help
        rc = exc.code
json.dumps = dumps
from threadpoolctl import threadpool_info
threads = max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
print(json.dumps(dict(seen, rc=rc, gc=gc.isenabled(), frozen=gc.get_freeze_count(), blas_threads=threads,
                      blas=os.environ.get("OPENBLAS_NUM_THREADS"), cores=os.cpu_count())))
"""


def _command(*argv: str, **env) -> dict:
    return _run(COMMAND.replace("sys.argv[1:]", repr(list(argv))), **env)


def test_a_short_command_starts_with_one_blas_thread_and_runs_with_collection_on():
    """estimate, list, sweep, hardware (cli.ONE_BLAS_THREAD): one OpenBLAS thread, no collection
    while numpy and the model import, then what they made frozen; the command itself runs with
    collection on."""
    for argv in (["list", "gpus", "--json"], ["estimate", "--json"]):
        got = _command(*argv)
        assert got["rc"] == 0, argv
        assert got["blas"] == "1" and got["blas_threads"] == 1, argv
        assert got["gc_in_command"] is True and got["gc"] is True and got["frozen"] > 10_000, argv


def test_a_short_command_keeps_a_blas_thread_count_the_user_set():
    got = _command("estimate", "--json", OPENBLAS_NUM_THREADS="2")
    assert got["rc"] == 0 and got["blas"] == "2" and got["blas_threads"] == 2


def test_calibrate_starts_as_before():
    """It measures the machine: OpenBLAS's own pool, one thread per core."""
    got = _command("calibrate", "--help")
    assert got["rc"] == 0 and got["blas"] is None and got["gc"] is True and got["frozen"] == 0
    assert got["blas_threads"] == got["cores"]


def test_a_recording_collects_garbage_while_it_runs():
    """--record builds no main window that paints: collection comes back before it records."""
    got = _run(r"""
import gc, json, sys
sys.path.insert(0, ".")
import main, ui.present.recording
seen = {}
def fake(*a, **k):
    seen["gc"] = gc.isenabled()
    return 0
ui.present.recording.record_cli = fake
rc = main.main(["--record", "x.gif"])
print(json.dumps(dict(seen, rc=rc)))
""")
    assert got == {"gc": True, "rc": 0}


def test_end_is_once_and_only_after_begin():
    got = _run(r"""
import gc, json, sys
sys.path.insert(0, ".")
from ui.kit import quick_start
quick_start.end()                                   # never paused: nothing to undo
untouched = (gc.isenabled(), gc.get_freeze_count())
quick_start.begin()
paused = (gc.isenabled(), quick_start.paused())
quick_start.end(); quick_start.end()
print(json.dumps(dict(untouched=untouched, paused=paused, after=(gc.isenabled(), quick_start.paused()),
                      frozen=gc.get_freeze_count() > 0)))
""")
    assert got == {"untouched": [True, 0], "paused": [False, True], "after": [True, False], "frozen": True}


BLAS = r"""
import json, os, sys
sys.path.insert(0, ".")
from ui.kit import quick_start
quick_start.begin()
import numpy
from threadpoolctl import threadpool_info
def blas():
    return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
before = blas()
with quick_start.all_blas_threads():
    during = blas()
print(json.dumps(dict(before=before, during=during, after=blas(), cores=os.cpu_count())))
"""


def test_measuring_the_machine_gets_every_core_back_while_it_measures():
    got = _run(BLAS)
    assert got["before"] == 1 and got["after"] == 1
    assert got["during"] == got["cores"]


def test_a_thread_count_the_user_set_is_not_raised_to_measure():
    got = _run(BLAS, OPENBLAS_NUM_THREADS="1")
    assert got["before"] == got["during"] == got["after"] == 1


def test_the_window_measures_the_machine_with_every_core():
    """The measure dialog's worker runs its steps inside all_blas_threads (``main.py calibrate``
    measures with every core too): a step records the BLAS threads it ran with."""
    got = _run(r"""
import json, os, sys
sys.path.insert(0, ".")
from ui.kit import quick_start
quick_start.begin()
from ui.kit.qt_app import ensure_app
app = ensure_app()
from threadpoolctl import threadpool_info
from ui.custom.measure_dialog import MachineMeasurer
seen = []
class Step:
    label = "count the threads"
    def run(self, m):
        seen.append(max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"))
w = MachineMeasurer(None, quick=True)
w.steps = [Step()]
w._work()
print(json.dumps(dict(seen=seen, cores=os.cpu_count(), done=w.queue.get_nowait()[0] == "step")))
""")
    assert got["seen"] == [got["cores"]] and got["done"]
