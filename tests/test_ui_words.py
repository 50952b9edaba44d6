"""Issue 37: the chip's captions and the gauges' lines are worded in model/readouts/ (chip_words.py,
gauges.py); ui/explore/gauges.py and ui/chip/paint/ only place the strings."""
import ast
import re
from pathlib import Path

import pytest

from model import Scenario, estimate
from model.readouts.chip import packet_scale
from model.readouts.chip_words import SM_BANDS, TENSOR_CORES_WORD, chip_words
from model.readouts.flow import chip_readouts, flow
from model.readouts.gauges import gauges, hbm_legend, notes

ROOT = Path(__file__).resolve().parent.parent
PLACERS = [ROOT / "ui/explore/gauges.py", *sorted((ROOT / "ui/chip/paint").glob("*.py"))]
MARKUP = {"span", "style", "color", "font", "weight", "size", "px", "br", "background", "gt", "lt", "amp"}
KEY = re.compile(r"[a-z][A-Za-z0-9_]*")          # a dict key, a kind, an objectName, a font feature


def _literals(path: Path) -> list[str]:
    """The string literals of a module (f-strings' constant parts too), its docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def _wording(s: str) -> bool:
    """A literal a person would read: letters that are neither a key nor markup or style."""
    runs = re.findall(r"[A-Za-z]{2,}", s)
    if not runs or KEY.fullmatch(s):
        return False
    return not all(r.lower() in MARKUP for r in runs)


@pytest.mark.parametrize("path", PLACERS, ids=lambda p: p.name)
def test_no_wording_is_left_where_the_strings_are_placed(path):
    assert [s for s in _literals(path) if _wording(s)] == []


def test_the_scan_would_find_words():
    assert _wording("upper bound (TDP)") and _wording("TC") and _wording("GAUGES") and _wording("each sequence sees")
    assert not _wording("gaugeTitle") and not _wording("px; font-weight: 700;") and not _wording("<span style='")


CASES = [Scenario(), Scenario(gpus=8, batch=64), Scenario(gpu="m1-max-64gb"), Scenario(model="llama-3.1-70b"),
         Scenario(gpu="mi300x-192gb", gpus=16, batch=256, phase="prefill"),
         Scenario(gpu="l40s-48gb", gpus=4, interconnect="pcie"), Scenario(gpus=2, interconnect="network", batch=512)]


def _allowed(e, v) -> set[str]:
    """Every string the chip may draw for ``e``: its words' forms and its readouts' texts."""
    f = flow(e)
    shown = chip_readouts(e, f, v.hw)
    w = chip_words(e, f, v.hw, shown, packet_scale(f, v.speed), len(v.lay.sms))
    out = {TENSOR_CORES_WORD, *(word for _band, word in SM_BANDS), *(r.text for r in shown.values())}

    def add(x):
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, (tuple, list)):
            for y in x:
                add(y)
    for name in w.__dataclass_fields__:
        add(getattr(w, name))
    return out


@pytest.mark.parametrize("scenario", CASES, ids=lambda s: f"{s.gpu}-{s.gpus}-{s.phase}")
def test_every_word_the_chip_draws_comes_from_the_readouts(shown, scenario):
    from ui.chip.view import HierarchyView
    e = estimate(scenario)
    v = shown(HierarchyView(e), (1200, 700))
    v.set_estimate(e, animate=False)
    drawn = v.shown_texts()
    allowed = _allowed(e, v)
    assert drawn
    for s in drawn:
        whole = s.rstrip("…")
        assert s in allowed or (s.endswith("…") and any(a.startswith(whole) for a in allowed)), s


def test_every_gauge_line_comes_from_the_readouts(main_window):
    e = main_window.controller.estimate
    panel = main_window.gauges
    for g in gauges(e):
        shown = panel.gauges[g.place]
        assert (shown.value.text(), shown.sub.text(), shown.toolTip()) == (g.readout.text, g.sub, g.tip)
        assert shown.title.text() in g.readout.labels
    for _part, words in hbm_legend(e):
        assert words in panel.hbm_text.text()
    assert all(n in panel.notes.text() for n, _warn in notes(e))
