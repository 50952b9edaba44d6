"""The floors of the house, as import contracts (the way napari declares its own).

Every import counts, those inside functions too: they hide a circle from Python, not from a
reader. The floors, lowest first, are ``FLOORS`` below; docs/architecture.md draws them and each
package's docstring opens with its own ("Floor 4 — …"): a test holds all three together.

A module imports only from its own floor or below; nothing forms a circle; model never imports
Qt, pyqtgraph, ui or cli; the chip and the chapters use the toolkit (ui.kit, ui.plotting) and
never a page.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("model", "ui", "cli")
FLOORS = {
    "model.errors": 0, "model.units": 0, "model.values": 0, "model.work": 0,
    "model.catalog": 1, "model.physics": 2, "model.files": 3,
    "model.machine": 4, "model.serving": 4, "model.planning": 4,
    "model.readouts": 5, "model.lessons": 6, "model": 7,
    "ui": 8, "ui.kit": 8, "ui.plotting": 9, "ui.state": 10, "ui.chip": 11, "ui.chapters": 11,
    "ui.explore": 12, "ui.serve": 12, "ui.plan": 12, "ui.lessons": 12, "ui.custom": 12,
    "ui.present": 13, "ui.shell": 14, "cli": 15,
}
QT = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "shiboken6")
# what ui/chip and ui/chapters may use besides themselves and model/: the drawing toolkit, not a page
UI_TOOLKIT = ("ui.kit", "ui.plotting")


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name → file, for every module of model/, ui/ and cli/."""
    out = {}
    for top in TOPS:
        for p in sorted((root / top).rglob("*.py")):
            parts = p.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules ``name`` imports (anywhere in the file), as the longest known module name, plus
    outside top-level packages as they are written (PySide6, numpy …)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            cands = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                bits = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join(bits + ([base] if base else []))
            # `from pkg import mod` imports pkg.mod; `from pkg import name` imports pkg itself
            cands = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for c in cands:
            m = c
            while m and m not in known:
                m = m.rpartition(".")[0]
            if m:
                if m != name:
                    out.add(m)
            elif c.split(".")[0] not in TOPS:
                out.add(c.split(".")[0])
    return out


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    files = module_files(root)
    return {n: imports_of(n, p, set(files)) for n, p in files.items()}


def floor(name: str) -> int | None:
    """The floor of a module of ours (the longest prefix in FLOORS)."""
    m = name
    while m:
        if m in FLOORS:
            return FLOORS[m]
        m = m.rpartition(".")[0]
    return None


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in g:
        if start in index:
            continue
        work = [(start, iter(sorted(g[start] & g.keys())))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(g[nxt] & g.keys()))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def violations(g: dict[str, set[str]]) -> list[str]:
    """Every broken contract, one line each."""
    bad = [f"circle: {' → '.join(c)}" for c in circles(g)]
    for mod, deps in sorted(g.items()):
        f = floor(mod)
        for d in sorted(deps):
            fd = floor(d)
            if mod.startswith("model") and (d.split(".")[0] in QT or d.split(".")[0] in ("ui", "cli")):
                bad.append(f"{mod} imports {d}: the model never imports Qt, ui or cli")
            elif f is not None and fd is not None and fd > f:
                bad.append(f"{mod} (floor {f}) imports {d} (floor {fd}): floors never point upward")
            if mod.startswith(("ui.chip", "ui.chapters")) and d.startswith("ui.") and \
                    not d.startswith(("ui.chip", "ui.chapters")) and not d.startswith(UI_TOOLKIT):
                bad.append(f"{mod} imports {d}: the chip and the chapters use the toolkit, never a page")
    return bad


def test_the_house_keeps_its_floors():
    assert violations(graph()) == []


def test_every_module_has_a_floor():
    assert [m for m in module_files() if floor(m) is None] == []


@pytest.mark.parametrize("planted, expected", [
    ({"model/physics/a.py": "from model.readouts import b\n", "model/readouts/b.py": ""},
     "floors never point upward"),
    ({"model/physics/a.py": "def f():\n    from model.files import c\n", "model/files/c.py": ""},
     "floors never point upward"),
    ({"model/catalog/a.py": "import PySide6\n"}, "never imports Qt"),
    ({"ui/x.py": "from ui import y\n", "ui/y.py": "def f():\n    import ui.x\n"}, "circle"),
    ({"ui/chapters/k.py": "from ui.shell.main_window import MainWindow\n", "ui/shell/main_window.py": ""}, "never a page"),
])
def test_the_checker_catches_each_kind_of_break(tmp_path, planted, expected):
    for top in TOPS:
        (tmp_path / top).mkdir()
        (tmp_path / top / "__init__.py").write_text("")
    for rel, text in planted.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        for parent in p.relative_to(tmp_path).parents:
            if str(parent) != ".":
                (tmp_path / parent / "__init__.py").touch()
        p.write_text(text)
    found = violations(graph(tmp_path))
    assert any(expected in v for v in found), found


def stated_in_architecture(text: str) -> dict[str, int]:
    """The floors docs/architecture.md draws: ``floor N  path/`` lines and the lines under them."""
    out, current = {}, None
    block = text.split("```")[1]
    for line in block.splitlines():
        m = re.match(r"^floor (\d+)\s+(\S+)", line) or re.match(r"^\s{9}(\S+)", line)
        if not m:
            continue
        if line.startswith("floor"):
            current = int(m.group(1))
        path = m.group(m.lastindex)
        name = path.removesuffix("/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        out[name] = current
    return out


def stated_in_docstrings(root: Path = ROOT) -> dict[str, int | None]:
    """Each package's floor as its docstring states it ("Floor N — …"); None where it states none."""
    out = {}
    for name in FLOORS:
        path = root / name.replace(".", "/")
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        m = re.match(r"Floor (\d+) — ", doc)
        out[name] = int(m.group(1)) if m else None
    return out


def test_floors_are_stated_once_and_agree():
    """FLOORS, the map in docs/architecture.md and the packages' docstrings say the same."""
    drawn = stated_in_architecture((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert drawn == FLOORS
    assert stated_in_docstrings() == FLOORS


def test_the_floor_readers_see_a_disagreement():
    drawn = stated_in_architecture("```\nfloor 3  model/files/   x\n         model/serving/  y\n```")
    assert drawn == {"model.files": 3, "model.serving": 3} != {k: FLOORS[k] for k in drawn}
