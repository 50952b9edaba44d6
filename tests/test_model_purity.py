"""model/ is pure Python + numpy: it must import and run with Qt and ui/ made unimportable."""
import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "shiboken6", "ui")

BLOCKER = f"""
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {FORBIDDEN!r}:
            raise ImportError('blocked in this test: ' + name)
sys.meta_path.insert(0, Block())
import pkgutil, importlib, model
names = [m.name for m in pkgutil.walk_packages(model.__path__, 'model.')]
assert len(names) > 40, names          # every wing's modules, not just the top level
for name in names:
    importlib.import_module(name)
from model import estimate, Scenario
from model.machine.validate import compare
e = estimate(Scenario())
assert e.decode_floor_ms_per_token > 0
assert len(compare()) > 0
bad = [n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r}]
assert not bad, bad
print('pure')
"""


def test_model_imports_and_runs_without_qt():
    out = subprocess.run([sys.executable, "-c", BLOCKER], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("pure")


def test_no_model_file_imports_qt_or_ui():
    for path in (ROOT / "model").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"
