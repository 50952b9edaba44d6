"""The roofline's view range, and its axes' pictures made ahead for the GPU menu's parts.

A GPU whose roofline needs a view range not drawn before costs its change the axes' new ticks
and numbers (~0.8 ms of the 16.7 ms a frame has at 60 Hz; the ranges step by quarter decades, so
parts of about one peak share one). So, once the window is idle (ui/kit/idle_work.py), the plot
works out one menu GPU per turn of the event loop: the present scenario's estimate on it
(model.physics.estimate.estimates_on) and its batch sweep, the range ``view_range`` gives them,
and each axis's picture for that range (SIAxis.keep_picture_for).
"""
from __future__ import annotations

import math

from model.physics.roofline import attainable_flops
from model.physics.sweep import default_batches, sweep_batch
from model.physics.estimate import estimates_on
from model.readouts import roofline as rr
from ui.state.controller import SWEEP_MAX_BATCH
from ui.kit.idle_work import IdleWork, nearest_first
from ui.plotting.coords import log10


def plot_top(highest: float) -> float:
    """The plot's top: ≥ 4× the highest roof or point, on quarter-decade steps between decades (no tick
    label on the plot's edge), so parts of about one peak share a range and the axes keep their ticks."""
    return 10 ** ((math.ceil(4.0 * log10(highest * 4.0) - 0.5) + 0.5) / 4.0)


def view_range(e, sw, roofs, croof, kp) -> tuple[float, float, float, float]:
    """(x0, x1, y0, y1): the view that holds the operating point, the ridges, the roofs, the batch
    trail ``sw`` (None: none drawn), the comparison's roof and the kernel points ``kp``, with room
    to spare, on whole decades (the top on quarter decades), two decades high at least."""
    top = roofs[0]
    xs = [e.arithmetic_intensity_flops_per_byte, e.ridge_flops_per_byte, top.ridge_flops_per_byte]
    ys = [e.achieved_flops, top.peak_flops]
    if sw is not None:
        xs += [float(sw.arithmetic_intensity_flops_per_byte.min()),
               float(sw.arithmetic_intensity_flops_per_byte.max())]
        ys += [float(sw.achieved_flops.min())]
    if croof is not None:
        ys.append(croof.peak_flops)
    xs += [k[0] for k in kp]
    ys += [k[1] for k in kp]
    x0 = 10 ** math.floor(log10(min(xs) / 1.5))
    x1 = 10 ** math.ceil(log10(max(xs) * 3.0))
    y_low = min(min(ys), float(attainable_flops(x0, top.peak_flops, top.bandwidth_bytes_per_s)))
    y1 = plot_top(max(ys))
    y0 = 10 ** math.floor(log10(min(y_low / 1.5, y1 / 100.0)))    # at least two decades: ticks to read
    x0 = min(x0, 10 ** math.floor(log10(x1 / 1000.0)))
    return x0, x1, y0, y1


def snapshot_range(e, sw, cmp_hw, catalog) -> tuple[float, float, float, float]:
    """``view_range`` of an estimate on its own part as the plot shows it (``sw``: its sweep, used
    in decode only; ``cmp_hw``: the comparison GPU, or None)."""
    croof = rr.comparison_roof(e, cmp_hw, catalog) if cmp_hw is not None else None
    return view_range(e, sw if e.phase == "decode" else None, rr.roofs(e.resolved.hw, e), croof, rr.kernel_points(e))


class AxesWarmer(IdleWork):
    """Makes the roofline's axis pictures ahead, one menu GPU per turn of the event loop."""

    def __init__(self, plot) -> None:
        super().__init__(plot)
        self._plot = plot
        self._batches = default_batches(SWEEP_MAX_BATCH)     # the controller's sweep
        self._todo = None
        self._snap = None

    def forget(self) -> None:
        self._todo = self._snap = None

    def begin(self) -> bool:
        snap = self._plot._snap
        if snap is None or not self._plot.isVisible():
            return False
        e = snap.estimate
        ids = nearest_first([g.id for g in snap.catalog.gpus], e.resolved.hw.id)
        self._snap, self._todo = snap, estimates_on(e.scenario, ids, snap.catalog)
        return True

    def step(self) -> bool:
        """One GPU: its range, and each axis's picture for it (done when none is left)."""
        e = next(self._todo, None) if self._todo is not None and self._plot.isVisible() else None
        if e is None:
            return True
        sw = sweep_batch(e.scenario, self._batches, resolved=e.resolved) if e.phase == "decode" else None
        x0, x1, y0, y1 = snapshot_range(e, sw, self._snap.compare, self._snap.catalog)
        pi = self._plot.plot.getPlotItem()
        pi.getAxis("bottom").keep_picture_for(log10(x0), log10(x1))
        pi.getAxis("left").keep_picture_for(log10(y0), log10(y1))
        return False
