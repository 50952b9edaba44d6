"""The lesson views' one-source rule, read from their source (AST): a chapter screen draws the
model's strings and places the model's numbers; it formats nothing and computes nothing.

    violations(source, screen=True) -> [Violation(line, kind, text)]
    tree_violations(folder)         -> {file name: [Violation]} for ui/chapters/*.py

Every file of ui/chapters:
  format import   imports model.readouts.format, or si / sig3 / duration / percent / times /
                  pct / ms from anywhere
  format call     calls one of those
  format spec     an f-string field with a format spec ({x:,.0f}, {v:+.1%}, {n:,})
  format method   "…".format(…), format(x, spec), or "%d" % x
A chapter screen (ch*.py) also:
  f-string value  an f-string that puts a value into the text (every text is the model's)
  text of value   str(x) or repr(x)
  arithmetic      + − × ÷ // % ** (also augmented: x += …), or a minus before a name
  number function round, abs, min, max, sum, pow, divmod, math.*, numpy maths (np.array and
                  np.asarray only wrap values)
Plot coordinates (log10, bar places, view ranges, offsets) go through ui.plotting; slider
mappings through ui.kit.slider_maps.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

FORMAT_MODULE = "model.readouts.format"
FORMAT_NAMES = frozenset({"si", "sig3", "duration", "percent", "times", "pct", "ms"})
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)
NUMBER_FUNCTIONS = frozenset({"round", "abs", "min", "max", "sum", "pow", "divmod"})
NUMPY_WRAPPERS = frozenset({"array", "asarray"})
KINDS = ("format import", "format call", "format spec", "format method", "f-string value", "text of value",
         "arithmetic", "number function")


@dataclass(frozen=True)
class Violation:
    line: int
    kind: str
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.kind}: {self.text}"


class _Checker(ast.NodeVisitor):
    def __init__(self, source: str, screen: bool):
        self.source = source
        self.screen = screen
        self.found: list[Violation] = []
        self._spec_depth = 0

    def add(self, node: ast.AST, kind: str) -> None:
        text = ast.get_source_segment(self.source, node) or type(node).__name__
        self.found.append(Violation(getattr(node, "lineno", 0), kind, text.splitlines()[0][:80]))

    # ------------------------------------------------------------ every file
    def visit_Import(self, node: ast.Import) -> None:
        if any(a.name == FORMAT_MODULE for a in node.names):
            self.add(node, "format import")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == FORMAT_MODULE or any(a.name in FORMAT_NAMES for a in node.names) \
                or (node.module == "model.readouts" and any(a.name == "format" for a in node.names)):
            self.add(node, "format import")

    def visit_FormattedValue(self, node: ast.FormattedValue) -> None:
        if node.format_spec is not None:
            self.add(node, "format spec")
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        if self.screen and any(isinstance(v, ast.FormattedValue) for v in node.values):
            self.add(node, "f-string value")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name in FORMAT_NAMES:
            self.add(node, "format call")
        if (isinstance(f, ast.Attribute) and f.attr == "format") or (isinstance(f, ast.Name) and f.id == "format"):
            self.add(node, "format method")
        if self.screen:
            if isinstance(f, ast.Name) and f.id in ("str", "repr"):
                self.add(node, "text of value")
            if isinstance(f, ast.Name) and f.id in NUMBER_FUNCTIONS:
                self.add(node, "number function")
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                module = f.value.id
                if module == "math" or (module in ("np", "numpy") and f.attr not in NUMPY_WRAPPERS):
                    self.add(node, "number function")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            self.add(node, "format method")
        elif self.screen and isinstance(node.op, ARITHMETIC):
            self.add(node, "arithmetic")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if self.screen and isinstance(node.op, ARITHMETIC):
            self.add(node, "arithmetic")
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if self.screen and isinstance(node.op, (ast.USub, ast.UAdd)) and not isinstance(node.operand, ast.Constant):
            self.add(node, "arithmetic")
        self.generic_visit(node)


def violations(source: str, screen: bool = True) -> list[Violation]:
    """What ``source`` breaks of the rules above (``screen``: the stricter rules of a ch*.py)."""
    checker = _Checker(source, screen)
    checker.visit(ast.parse(source))
    return sorted(checker.found, key=lambda v: (v.line, v.kind))


def is_screen(path: Path) -> bool:
    return path.name.startswith("ch") and path.suffix == ".py"


def tree_violations(folder: Path) -> dict[str, list[Violation]]:
    return {p.name: violations(p.read_text(encoding="utf-8"), screen=is_screen(p))
            for p in sorted(folder.glob("*.py"))}
