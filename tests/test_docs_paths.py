"""Every file path the README, the docs and the code's docstrings and comments name exists (a room
that moved leaves no sign behind).

A path here is a word that starts at one of the project's top-level folders (``model/``, ``ui/``,
``tests/`` …) and names a file or folder: ``ui/shell/pages.py``, ``model/serving/``,
``docs/serving.md``, or a name in a module: ``model/physics/cost.pass_cost``. Patterns
(``chN_*.py``, ``<id>.json``) are not files of this tree and are left out.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("model", "ui", "cli", "tests", "docs", "assets", "benches", "packaging", ".ci", ".github")
PATH = re.compile(r"(?<![\w./~-])((?:" + "|".join(re.escape(t) for t in TOPS) + r")/[\w./-]*[\w/])")
SKIP = re.compile(r"[*<>{}]|\.\.\.")


# files that name paths of a made-up tree on purpose (the checkers' own tests)
PLANTED = ("tests/test_layers.py", "tests/test_docs_paths.py")


def documents(root: Path = ROOT) -> list[Path]:
    """The README, every Markdown page and every Python file of the project."""
    tops = [root / t for t in TOPS if (root / t).is_dir()]
    files = [root / "README.md", root / "main.py"]
    files += [p for top in tops for p in sorted(top.rglob("*")) if p.suffix in (".md", ".py")]
    return [p for p in files if "__pycache__" not in p.parts and str(p.relative_to(root)) not in PLANTED]


def resolves(path: str, root: Path = ROOT) -> bool:
    """The path is a file or folder of the tree, or a name in one of its modules (``a/b.name``,
    ``a/b.py.name``)."""
    if (root / path).exists():
        return True
    head, dot, _ = path.rpartition(".")
    while dot:
        if (root / head).is_file() or (root / (head + ".py")).is_file():
            return True
        head, dot, _ = head.rpartition(".")
    return False


def named_paths(text: str) -> set[str]:
    """The project paths a text names."""
    out = set()
    for m in PATH.finditer(text):
        path = m.group(1).rstrip(".")
        end = text[m.end():m.end() + 1]
        if SKIP.search(path) or end in "*<{":
            continue
        out.add(path)
    return out


def missing_paths(root: Path = ROOT) -> list[str]:
    bad = []
    for doc in documents(root):
        for path in sorted(named_paths(doc.read_text(encoding="utf-8"))):
            if not resolves(path, root):
                bad.append(f"{doc.relative_to(root)} names {path}, which does not exist")
    return bad


def test_every_path_the_docs_name_exists():
    assert missing_paths() == []


def test_the_reader_finds_paths_and_leaves_patterns_out():
    text = ("see `ui/shell/pages.py`, (docs/serving.md), model/lessons/chN_*.py, ui/nothing_here.py, "
            "model/physics/cost.pass_cost and ui/controller.Snapshot.")
    found = named_paths(text)
    assert found == {"ui/shell/pages.py", "docs/serving.md", "ui/nothing_here.py", "model/physics/cost.pass_cost",
                     "ui/controller.Snapshot"}
    assert sorted(p for p in found if not resolves(p)) == ["ui/controller.Snapshot", "ui/nothing_here.py"]
