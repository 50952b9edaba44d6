"""pyqtgraph's scatter items without their one leak.

A click or a hover on a ScatterPlotItem (``pointsAt``, ``points``) makes a SpotItem for each of its
points and keeps it in the points' record array; the SpotItem holds a record of that array, so the
array holds itself through a numpy object array, a cycle Python's garbage collector cannot see
(numpy issue 6581). ``setData`` then drops the array without letting go of the SpotItems, and the
old points stay for as long as the app runs: over a 3 000-action walk of the window ~16 000
SpotItems with their arrays (benches/soak_ui.py). ``let_go_of_spots`` makes ``clear`` (which
``setData`` calls) first empty the array's SpotItem column, as pyqtgraph's own ``addPoints`` does.
"""
from __future__ import annotations


def let_go_of_spots() -> None:
    """Install once (build_window, recording): every ScatterPlotItem, our own and PlotDataItems'."""
    import pyqtgraph as pg
    cls = pg.ScatterPlotItem
    if getattr(cls.clear, "lets_go_of_spots", False):
        return
    original = cls.clear

    def clear(self) -> None:
        self.data["item"][...] = None       # break the SpotItem ↔ array cycle before the array is dropped
        original(self)
    clear.lets_go_of_spots = True
    clear.__doc__ = original.__doc__
    cls.clear = clear
