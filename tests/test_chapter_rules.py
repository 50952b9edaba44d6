"""The lesson views keep the one-source rule (tests/chapter_rules.py reads their source): no
ui/chapters file formats a number or imports the formatting helpers, and no chapter screen
computes with a number or writes a text of its own; and the checker catches each kind of
violation planted in a small source."""
from __future__ import annotations

from pathlib import Path

import pytest

from chapter_rules import KINDS, is_screen, tree_violations, violations

CHAPTERS = Path(__file__).resolve().parent.parent / "ui" / "chapters"


def test_no_lesson_view_formats_or_computes_a_number():
    found = tree_violations(CHAPTERS)
    assert {"base.py", "ch1_generations.py", "ch8_multi_gpu.py"} <= set(found)
    bad = [f"{name} {v}" for name, vs in found.items() for v in vs]
    assert not bad, "ui/chapters formats or computes numbers itself:\n" + "\n".join(bad)


PLANTED = {
    "format import": "from model.readouts.format import si\n",
    "format call": "text = sig3(peak)\n",
    "format spec": 'text = f"batch {b:,}"\n',
    "format method": 'text = "{} ms".format(t)\n',
    "f-string value": 'text = f"{name} ×"\n',
    "text of value": "text = str(batch)\n",
    "arithmetic": "y = 2 * peak\n",
    "number function": "top = max(a, b)\n",
}


@pytest.mark.parametrize("kind", KINDS)
def test_the_checker_catches_a_planted_violation(kind):
    source = "def update(self, peak, a, b, t, batch, name):\n    " + PLANTED[kind].replace("\n", "\n    ")
    found = violations(source)
    assert kind in {v.kind for v in found}, found
    assert all(v.line == 2 for v in found if v.kind == kind)


def test_the_checker_reads_the_usual_disguises():
    source = '''
from model.readouts import format
from ui.thing import percent as pc
x = "%d GPUs" % n
y = f"{gain:.1%}"
z = -width
k += 1
w = math.log10(v) + np.log10(u)
'''
    kinds = [v.kind for v in violations(source)]
    assert kinds.count("format import") == 2 and "format method" in kinds and "format spec" in kinds
    assert kinds.count("arithmetic") >= 3 and kinds.count("number function") == 2


def test_what_a_screen_may_do():
    source = '''
from ui.plotting.coords import padded, shift
X = padded(0, 32, above=0.5)
LEFT = -0.45
lab.setPos(*shift(axes.point(f.ridge.x, f.ridge.y), dx=0.04))
show_text(lab, f.title, t.text)
flags = Qt.AlignLeft | Qt.AlignTop
ok = f.now.y > other.y and not diverged
xs = np.asarray([m.x for m in marks])
'''
    assert violations(source) == []


def test_a_file_that_is_not_a_screen_may_write_texts_but_not_format_numbers():
    base = 'label = f"{chapter.title}: {n}"\nsize = width * 2\n'
    assert violations(base, screen=False) == []
    assert [v.kind for v in violations('x = f"{v:.3g}"\n', screen=False)] == ["format spec"]
    assert is_screen(Path("ch4_roofline.py")) and not is_screen(Path("base.py"))
