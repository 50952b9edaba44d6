"""Where every part of the chip view sits, from the view's size alone (pure: no Qt).

    ┌ header: scenario line, caption (1–2 lines), "does not fit" note ───────────────┐
    │ ladder   │ package: SMs (tensor cores / registers / shared memory),  │ legend    │
    │ (a row   │          L2, HBM stacks or one unified-memory block       │           │
    │ per      │                                                            ├───────────┤
    │ level)   │ host RAM ┆ note                                            │ cluster   │
    └──────────┴────────────────────────────────────────────────────────────┴───────────┘

Heights are fractions of the body height H (below the header); the type size grows with the
view (``font_px``) and the side columns with the type. ``chip_layout`` returns one frozen
``ChipLayout``; ``chip_routes`` the packet routes through it (pixel polylines).
"""
from __future__ import annotations

import numpy as np

from model.values import frozen

MAX_SMS = 12
LADDER_KEYS = ("tensor_cores", "registers", "smem", "l2", "hbm", "host")
UNIFIED_PIPES = 4     # pipes drawn from a unified-memory block up to L2


@frozen
class Rect:
    """A rectangle in the chip view's pixels."""

    x: float
    y: float
    w: float
    h: float

    @property
    def left(self) -> float:
        return self.x

    @property
    def top(self) -> float:
        return self.y

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def cx(self) -> float:
        return self.x + self.w / 2.0

    @property
    def cy(self) -> float:
        return self.y + self.h / 2.0

    def intersects(self, o: "Rect", tol: float = 0.5) -> bool:
        return (self.left < o.right - tol and o.left < self.right - tol
                and self.top < o.bottom - tol and o.top < self.bottom - tol)

    def inside(self, o: "Rect", tol: float = 0.5) -> bool:
        return (self.left >= o.left - tol and self.right <= o.right + tol
                and self.top >= o.top - tol and self.bottom <= o.bottom + tol)


@frozen
class LadderRow:
    """One level on the ladder: its name, its numbers, and its use bar with the use beside it."""

    key: str
    name: Rect
    numbers: Rect
    bar: Rect
    use: Rect

    @property
    def box(self) -> Rect:
        return Rect(self.name.x, self.name.y, self.name.w, self.use.bottom - self.name.y)


@frozen
class Cluster:
    """The GPUs of a multi-GPU scenario: a row of tiles over a switch, link use below."""

    box: Rect
    title: Rect
    subtitle: Rect
    tiles: tuple[Rect, ...]
    switch: Rect
    foot: Rect


@frozen
class ChipLayout:
    """Where every part of the animated chip goes for one view size: boxes and type sizes."""

    width: float
    height: float
    fs: int                                     # body type size, px
    ladder_fs: int                              # the ladder's type size (smaller on a short view)
    caption_lines: int
    header: Rect
    ladder: tuple[LadderRow, ...]               # LADDER_KEYS order
    bands: tuple[tuple[str, float, float], ...]  # (level, y0, y1): the level's horizontal band
    package: Rect
    package_title: Rect
    sms: tuple[Rect, ...]
    l2: Rect
    memory: tuple[Rect, ...]                    # the HBM stacks, or one unified-memory block
    unified: bool
    memory_pipes_x: tuple[float, ...]           # where the pipes from memory up to L2 start
    host: Rect
    host_note: Rect
    pcie_x: float
    legend: Rect
    cluster: Cluster | None
    memory_pipe_w: float
    sm_pipe_w: float

    def band(self, key: str) -> tuple[float, float]:
        for k, y0, y1 in self.bands:
            if k == key:
                return y0, y1
        raise KeyError(key)

    @property
    def tiles(self) -> tuple[Rect, ...]:
        return self.cluster.tiles if self.cluster else ()

    def parts(self) -> dict[str, Rect]:
        """The parts that must not overlap one another, by name."""
        out = {"header": self.header, "package": self.package, "host": self.host, "host_note": self.host_note,
               "legend": self.legend}
        out.update({f"ladder.{r.key}": r.box for r in self.ladder})
        if self.cluster is not None:
            out["cluster"] = self.cluster.box
        return out



def font_px(w: float, h: float, boost: float = 1.0) -> int:
    """The body type size: grows on 4K screens and projectors, and by ``boost`` for larger text
    (the window's type scale beyond what its size gives: "larger text", presenter mode)."""
    base = max(10, min(28, int(h / 46), int(w / 64)))
    return max(base, min(int(base * max(1.0, boost)), int(h / 30), int(w / 40)))   # room for the picture


def header_height(fs: int, caption_lines: int, fits: bool) -> int:
    """Scenario line + caption, and one more line for the "does not fit" note."""
    return int(fs * ((5.7 if caption_lines == 2 else 4.4) + (0.0 if fits else 1.3)))


def _bands(top: float, H: float, fs: int) -> dict[str, tuple[float, float]]:
    sm_top = top + 0.02 * H + max(0.03 * H, fs * 1.6)
    spans = (("tensor_cores", 0.0, 0.13), ("registers", 0.0, 0.095), ("smem", 0.0, 0.095),
             ("l2", 0.09, 0.075), ("hbm", 0.09, 0.15))
    band, y = {}, sm_top
    for key, gap, height in spans:
        y += gap * H
        band[key] = (y, y + height * H)
        y += height * H
    host_top = y + 0.02 * H + 0.06 * H
    band["host"] = (host_top, min(top + H - 4, host_top + max(0.085 * H, fs * 3.8)))
    return band


def _ladder(x: float, w: float, band: dict, fs: int, room: float, bottom: float) -> tuple[LadderRow, ...]:
    """A row per level, centred on its band (and above ``bottom``): name, numbers, use bar. Rows
    ``room`` px apart at least; when three lines do not fit there, the numbers line goes (they
    are in the tooltip)."""
    three = room >= fs * 3.7 + 2
    lines = 3.7 if three else 2.5
    rows = []
    for key in LADDER_KEYS:
        y0, y1 = band[key]
        top = min((y0 + y1) / 2 - fs * lines / 2, bottom - fs * lines)
        use_y = top + fs * (2.5 if three else 1.3)
        bar = Rect(x, use_y + fs * 0.6 - 2.5, w * (0.22 if key == "tensor_cores" else 0.5), 5.0)
        rows.append(LadderRow(key, Rect(x, top, w, fs * 1.3), Rect(x, top + fs * 1.3, w, fs * 1.2 if three else 0.0),
                              bar, Rect(bar.right + 6, use_y, w - bar.w - 6, fs * 1.2)))
    return tuple(rows)


def _memory(inner0: float, inner1: float, y0: float, y1: float, stacks: int, unified: bool, grow: float):
    """HBM stacks along the package's bottom edge, clustered at both ends like the real parts;
    or one block across the package for unified memory."""
    if unified:
        block = Rect(inner0, y0, inner1 - inner0, y1 - y0)
        step = block.w / UNIFIED_PIPES
        return (block,), tuple(inner0 + step * (i + 0.5) for i in range(UNIFIED_PIPES)), min(92.0, step)
    st_w, st_gap = min(92.0 * grow, ((inner1 - inner0) - 10 * (stacks - 1)) / stacks), 10.0
    left_n = (stacks + 1) // 2
    right_n = stacks - left_n
    xs = [inner0 + i * (st_w + st_gap) for i in range(left_n)]
    xs += [inner1 - (right_n - i) * (st_w + st_gap) + st_gap for i in range(right_n)]
    rects = tuple(Rect(x, y0, st_w, y1 - y0) for x in xs)
    return rects, tuple(r.cx for r in rects), st_w


def _cluster(col: Rect, tiles: int, H: float, fs: int) -> Cluster:
    head = fs * 3.0
    tile_h = max(30.0, min(46.0, H * 0.07))
    pipe_h = max(24.0, min(40.0, H * 0.06))
    sw_h = fs * 1.5
    foot_h = fs * 3.2
    ch = head + tile_h + pipe_h + sw_h + foot_h + 8
    box = Rect(col.left, col.bottom - ch, col.w, ch)
    tgap = 6.0
    tile_w = min(44.0, (box.w - 20 - tgap * (tiles - 1)) / tiles)
    x0 = box.left + (box.w - (tiles * tile_w + (tiles - 1) * tgap)) / 2
    ty = box.top + head
    sw_y = ty + tile_h + pipe_h
    return Cluster(
        box=box, title=Rect(box.left + 10, box.top + 4, box.w - 20, fs * 1.4),
        subtitle=Rect(box.left + 10, box.top + 4 + fs * 1.35, box.w - 20, fs * 1.3),
        tiles=tuple(Rect(x0 + i * (tile_w + tgap), ty, tile_w, tile_h) for i in range(tiles)),
        switch=Rect(box.left + 10, sw_y, box.w - 20, sw_h),
        foot=Rect(box.left + 10, sw_y + sw_h + 4, box.w - 20, foot_h))


def chip_layout(w: float, h: float, *, units: int, stacks: int, tiles: int = 0, caption_lines: int = 1,
                fits: bool = True, unified: bool = False, boost: float = 1.0) -> ChipLayout:
    """Every part's rectangle for a ``w``×``h`` view of a chip with ``units`` SMs (or CUs) and
    ``stacks`` HBM stacks (or one ``unified`` memory block), with ``tiles`` GPUs in the cluster."""
    fs = font_px(w, h, boost)
    header_h = header_height(fs, caption_lines, fits)
    H = h - header_h
    grow = max(1.0, fs / 15.0)          # side columns widen with the type on big screens
    ladder_w = max(150, min(int(260 * grow), int(w * 0.20)))
    legend_w = max(190, min(int(320 * grow), int(w * 0.25)))
    column = Rect(w - legend_w + 6, header_h + 4, legend_w - 16, H - 12)
    cx0, cx1 = float(ladder_w), float(w - legend_w - 6)
    band = _bands(float(header_h), H, fs)
    room = band["smem"][0] - band["registers"][0]
    ladder_fs = fs if room >= fs * 3.7 + 2 else max(9, min(fs, int((room - 2) / 2.5)))
    pkg_top = header_h + 0.02 * H
    package = Rect(cx0, pkg_top, cx1 - cx0, band["hbm"][1] + 0.02 * H - pkg_top)
    inner0, inner1 = cx0 + 14, cx1 - 14
    n_sm = max(1, min(units, MAX_SMS, int((inner1 - inner0) // 42)))
    gap = 8.0 if n_sm > 1 else 0.0
    sm_w = ((inner1 - inner0) - gap * (n_sm - 1)) / n_sm
    sm_y0, sm_y1 = band["tensor_cores"][0], band["smem"][1]
    sms = tuple(Rect(inner0 + i * (sm_w + gap), sm_y0, sm_w, sm_y1 - sm_y0) for i in range(n_sm))
    memory, pipes_x, pipe_basis = _memory(inner0, inner1, *band["hbm"], max(1, stacks), unified, grow)
    host = Rect(inner0, band["host"][0], min(220.0, (cx1 - cx0) * 0.36), band["host"][1] - band["host"][0])
    cluster = _cluster(column, tiles, H, fs) if tiles else None
    legend = Rect(column.left, column.top, column.w, (cluster.box.top - 8 if cluster else column.bottom) - column.top)
    return ChipLayout(
        width=float(w), height=float(h), fs=fs, ladder_fs=ladder_fs, caption_lines=caption_lines,
        header=Rect(12, 6, w - 24, header_h - 6),
        ladder=_ladder(12.0, float(ladder_w - 18), band, ladder_fs, room, h - 4.0),
        bands=tuple((k, y0, y1) for k, (y0, y1) in band.items()),
        package=package, package_title=Rect(package.left + 10, package.top + 1, package.w - 20, fs * 1.5),
        sms=sms, l2=Rect(inner0, band["l2"][0], inner1 - inner0, band["l2"][1] - band["l2"][0]),
        memory=memory, unified=unified, memory_pipes_x=pipes_x,
        host=host, host_note=Rect(host.right + 10, host.top, package.right - host.right - 10, host.h),
        pcie_x=memory[0].left + min(pipe_basis, memory[0].w) / 2, legend=legend, cluster=cluster,
        memory_pipe_w=max(8.0, min(18.0, pipe_basis * 0.32)), sm_pipe_w=max(6.0, min(16.0, sm_w * 0.34)),
    )


def chip_routes(lay: ChipLayout) -> tuple[list[np.ndarray], list[float], list[np.ndarray], list[float]]:
    """Packet routes: every memory pipe → L2 → every SM → shared memory → registers → tensor
    cores (segments as model.readouts.chip.ROUTE_LEVELS), and up and down between each cluster tile and the switch.
    Returns (chip polylines, their lane widths, link polylines, their lane widths)."""
    l2 = lay.l2
    l2_mid = l2.cy
    tc0, tc1 = lay.band("tensor_cores")
    regs1 = lay.band("registers")[1]
    top_of = lay.memory[0].top + 4
    lane = min(lay.memory_pipe_w, lay.sm_pipe_w) * 0.8
    chip = []
    for sx in lay.memory_pipes_x:
        for sm in lay.sms:
            x = sm.cx
            chip.append(np.array([(sx, top_of), (sx, l2.bottom), (sx, l2_mid), (x, l2_mid), (x, l2.top),
                                  (x, sm.bottom), (x, regs1), (x, tc1), (x, tc0 + (tc1 - tc0) * 0.45)]))
    links = []
    if lay.cluster is not None:
        sw_y = lay.cluster.switch.top
        for t in lay.cluster.tiles:
            links.append(np.array([(t.cx - 3, t.bottom), (t.cx - 3, sw_y)]))
            links.append(np.array([(t.cx + 3, sw_y), (t.cx + 3, t.bottom)]))
    return chip, [lane] * len(chip), links, [3.0] * len(links)
