"""Issue 27, speed: what a GPU not shown before costs its change. The chip's frames of the GPU
menu's parts are drawn ahead while the window is idle (ui/chip/warm.py), and a log axis works
out its ticks in plain floats, the same ticks as pyqtgraph's (ui/plotting/axes.py). No timings
here (benches/bench_ui_latency.py has them): what is drawn, and when, is counted; the idle
timer is stood in for by calling its turns by hand, so no verdict depends on the machine's speed."""
import pyqtgraph as pg
from hypothesis import given, settings
from hypothesis import strategies as st

from model import Scenario
from model.catalog.active import default_catalog
from model.readouts.flow import flows_on
from qt_events import deliver
from test_repaint import _change, _still, chip_on
from ui.chip import warm
from ui.kit.idle_work import nearest_first
from ui.chip.pictures import FRAMES_KEPT, ChipPictures
from ui.plotting.axes import SIAxis


def test_nearest_first_goes_out_from_the_present_gpu_both_ways():
    assert nearest_first(list("abcdef"), "c") == list("dbeaf")
    assert nearest_first(list("abc"), "a") == list("bc")
    assert nearest_first(list("abc"), "c") == list("ba")
    assert nearest_first(list("abc"), "x") == list("abc")      # (an id not in the menu: all of it)


def test_flows_on_leaves_out_a_part_that_cannot_run_the_scenario():
    ids = ["h100-sxm5-80gb", "no-such-gpu", "l4-24gb"]
    got = list(flows_on(Scenario(), ids, default_catalog()))
    assert [g for g, *_ in got] == ["h100-sxm5-80gb", "l4-24gb"]
    assert all(hw.id == g and e.scenario.gpu == g for g, e, _f, hw in got)


def idle_pass(work) -> None:
    """An IdleWork's pass (ui/kit/idle_work.py), its turns called as the event loop would run them once idle."""
    work._begin()
    turns = 0
    while work._turn.isActive():
        work._one()
        turns += 1
        assert turns < 200


def _warm_now(v) -> None:
    """The chip's pass of work ahead."""
    idle_pass(v._warm)


def test_the_menu_chips_frames_are_drawn_ahead_and_a_first_visit_draws_none(shared_window, qtbot, monkeypatch):
    """Once idle, the frames of the other catalogued chips (10 shapes among 29 parts) are drawn;
    choosing any of them afterwards draws no frame, and a frame drawn ahead is the same picture
    its change would have drawn."""
    w = shared_window
    v = chip_on(w, "h100-sxm5-80gb")
    v._frames.clear()
    v._statics.clear()
    v._frame = v._static = None
    v.canvas.repaint()
    present = v._frame
    _warm_now(v)
    assert present[0] in v._frames and v._frame is present         # the present chip's stays, and is shown
    assert 6 <= len(v._frames) <= FRAMES_KEPT
    drawn = []
    draw = ChipPictures._draw_frame
    monkeypatch.setattr(ChipPictures, "_draw_frame", lambda self, *a: drawn.append(a) or draw(self, *a))
    for gpu in ("l40s-48gb", "b200-180gb", "v100-sxm2-32gb", "tpu-v5p-95gb", "m1-max-64gb"):
        _change(w, gpu=gpu)
        w.repaint()
        assert v.hw.id == gpu and not drawn, f"{gpu}: its frame was drawn on the change"
    dpr = v.canvas.devicePixelRatioF()
    fresh = draw(v, v.lay, v.canvas.width(), v.canvas.height(), dpr)
    assert v._frame[1].toImage() == fresh.toImage()


def test_drawing_ahead_waits_for_idle_and_stops_on_a_change_or_when_hidden(shared_window, qtbot):
    """A change starts the idle wait over (nothing is drawn between a user's quick changes); a
    hidden chip draws nothing ahead; the frames kept stay within their room."""
    w = shared_window
    w.resize(1600, 900)
    _still(w)
    v = w.hierarchy
    _change(w, gpu="a100-sxm4-80gb")
    assert v._warm._idle.isActive() and not v._warm._turn.isActive()
    v._warm._begin()
    assert v._warm._turn.isActive()
    _change(w, batch=8)
    assert v._warm._idle.isActive() and not v._warm._turn.isActive()    # begun again, after idle
    v._warm.stop()
    v.set_speed(2.0)                                                    # another scene: its words, after idle
    assert v._warm._idle.isActive()
    v.set_speed(1.0)
    v.hide()
    assert not v._warm.busy
    v._warm._begin()
    assert not v._warm.busy                                             # hidden: nothing to draw for
    v.show()
    deliver()
    _warm_now(v)
    room = ChipPictures.frames_room(v.canvas.width() * v.canvas.height() * 4)
    assert len(v._frames) <= room


def test_frames_kept_are_fewer_on_a_big_screen():
    small = ChipPictures.frames_room(1100 * 620 * 4)
    big = ChipPictures.frames_room(2 * 2200 * 2 * 1240 * 4)        # a 4K stage at device pixel ratio 2
    assert small == FRAMES_KEPT and 2 <= big < small


def _pyqtgraph_ticks(axis, lo, hi, size):
    """pyqtgraph's own log ticks (numpy), less a level's ticks on a value a level above has."""
    out, seen = [], []
    stock = pg.AxisItem.logTickValues
    try:
        axis.logTickValues = lambda *a: stock(axis, *a)
        levels = pg.AxisItem.tickValues(axis, lo, hi, size)
    finally:
        del axis.logTickValues
    for spacing, values in levels:
        values = [float(v) for v in values if all(abs(v - u) > 1e-9 for u in seen)]
        seen += values
        out.append((spacing, values))
    return out


@settings(max_examples=400, deadline=None)
@given(lo=st.floats(-20, 20), width=st.floats(0.01, 16), size=st.floats(20, 3000),
       orientation=st.sampled_from(["left", "bottom"]), quarter=st.booleans())
def test_log_ticks_are_pyqtgraphs_exactly(qapp, lo, width, size, orientation, quarter):
    axis = SIAxis(orientation)
    axis.setLogMode(True)
    if quarter:                                   # the roofline's ranges: whole and quarter decades
        lo, width = round(lo * 4) / 4, max(0.25, round(width * 4) / 4)
    mine = [(s, [float(v) for v in vs]) for s, vs in axis.tickValues(lo, lo + width, size)]
    assert mine == _pyqtgraph_ticks(axis, lo, lo + width, size)


def test_a_log_axis_names_its_decades_only(qapp):
    axis = SIAxis("left", unit="FLOP/s")
    axis.setLogMode(True)
    assert axis.tickStrings([12.0, 12.30103, 15.0], 1.0, 1.0) == ["1 TFLOP/s", None, "1 PFLOP/s"]


def test_a_model_failure_while_drawing_ahead_stops_it_quietly(shared_window, qtbot, monkeypatch):
    """Work ahead is optional: a part the model fails on (choosing it would say so in one line)
    stops the drawing ahead, and nothing is raised into the event loop."""
    w = shared_window
    v = chip_on(w, "h100-sxm5-80gb")

    def failing(*_a):
        raise ZeroDivisionError("a model bug")
        yield

    monkeypatch.setattr(warm, "flows_on", failing)
    v._warm._begin()
    assert v._warm._turn.isActive()
    v._warm._one()
    assert not v._warm.busy
