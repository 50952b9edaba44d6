"""What the chip says when the pointer rests on a part: the readouts drawn there, with their help."""
from __future__ import annotations

from ui.chip.layout import Rect
from ui.chip.paint.common import Scene


def _lines(sc: Scene, keys: tuple[str, ...]) -> str:
    out = []
    for key in keys:
        r = sc.shown.get(key)
        if r is not None:
            out.append(f"{r.label}: {r.text} — {r.help}")
    return "\n".join(out)


def _hit(r: Rect | None, x: float, y: float) -> bool:
    return r is not None and r.left <= x <= r.right and r.top <= y <= r.bottom


# chip-only readouts → the readout whose derivation explains them
EXPLAINED_BY = {"level_hbm": "peak_bandwidth", "use_hbm": "mbu", "level_tensor_cores": "peak_flops",
                "memory_block": "hbm_capacity", "chip_rate": "bytes_per_step", "units": "peak_flops"}


def keys_at(sc: Scene | None, x: float, y: float) -> tuple[str, ...]:
    """The chip readouts drawn at (x, y) (what the tooltip lists), by their chip keys."""
    if sc is None:
        return ()
    lay = sc.lay
    for row in lay.ladder:
        if _hit(row.box, x, y):
            use = "use_tensor_cores" if row.key == "tensor_cores" else f"use_{row.key}"
            return (use, f"level_{row.key}") + (("mfu",) if row.key == "tensor_cores" else ())
    if any(_hit(m, x, y) for m in lay.memory):
        return ("use_hbm", "level_hbm", "memory_block")
    if _hit(lay.cluster.box if lay.cluster else None, x, y):
        return ("link_busy", "link_bandwidth")
    if _hit(lay.legend, x, y):
        return ("step_time", "step_weights", "step_kv", "step_activations", "chip_rate", "mfu")
    if any(_hit(s, x, y) for s in lay.sms):
        return ("use_tensor_cores", "level_tensor_cores", "mfu")
    return ()


def explain_key_at(sc: Scene | None, x: float, y: float, known) -> str:
    """The readout to explain for a click at (x, y): the first one drawn there that has a derivation
    (``known``: the keys that do), "" where nothing is."""
    for chip_key in keys_at(sc, x, y):
        r = sc.shown.get(chip_key)
        for key in ((r.key if r is not None else ""), EXPLAINED_BY.get(chip_key, "")):
            if key in known:
                return key
    return ""


def tooltip_at(sc: Scene | None, x: float, y: float) -> str:
    """The tooltip for the point (x, y) of the chip's canvas, or "" where nothing is explained."""
    if sc is None:
        return ""
    lay = sc.lay
    for row in lay.ladder:
        if _hit(row.box, x, y):
            use = "use_tensor_cores" if row.key == "tensor_cores" else f"use_{row.key}"
            extra = ("mfu",) if row.key == "tensor_cores" else ()
            return _lines(sc, (f"level_{row.key}", use, *extra))
    if any(_hit(m, x, y) for m in lay.memory):
        return _lines(sc, ("level_hbm", "memory_block", "use_hbm"))
    if _hit(lay.cluster.box if lay.cluster else None, x, y):
        return _lines(sc, ("link_bandwidth", "link_busy"))
    if _hit(lay.legend, x, y):
        return _lines(sc, ("step_weights", "step_kv", "step_activations", "step_time", "chip_rate", "mfu"))
    if any(_hit(s, x, y) for s in lay.sms):
        return _lines(sc, ("level_tensor_cores", "use_tensor_cores", "mfu"))
    return ""
