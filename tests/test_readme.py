"""README.md says only what is true: every number in it is either worked out from the model and
the repository by docs/readme_numbers.py (and must be what that says now), or a measurement that
says when it was made, or one of the few names below that hold a digit. A number in neither
fails here, so a new one cannot slip in unchecked."""
from __future__ import annotations

import pytest

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# Digits that are names, not claims (each one checked where it can be).
NAMES = {
    "Llama 3.1 8B": "a model's name (assets/models.json)",
    "Llama 3.1 70B": "a model's name",
    "70B": "a model's size in its name",
    "8B": "a model's size in its name",
    "V100": "a GPU's name", "H100": "a GPU's name", "H200": "a GPU's name",
    "BF16": "a precision's name", "FP8": "a precision's name", "EXL2": "a weight format's name",
    "Q4_K_M": "a weight format's name", "Q8_0": "a weight format's name", "16-bit": "BF16/FP16, named in words",
    "F5": "a key", "Ctrl+S": "a key", "Ctrl+O": "a key",
    "64-bit": "the Windows installer's architecture (packaging/windows/memory-wall.iss: x64)",
    "Inno Setup 6": "the installer compiler packaging/windows/build-windows.ps1 names",
    "Python 3.11": "the interpreter the Windows and macOS recipes name",
    "x86_64": "an architecture in a file name", "amd64": "an architecture in a file name",
    "arm64": "an architecture in a file name", "x64": "an architecture in a file name",
    "MP4": "a file format", "L2": "a cache's name", "PySide6": "a library's name", "ExLlamaV2": "an engine's name",
    "Lesson 6": "the chapter of the screenshot it captions (ch06-s3)",
    "Lesson 8": "the chapter of the screenshot it captions (ch08-s1)",
    "exit 0": "the exit status of --smoke (tests/test_ui_app.py runs it)",
    "sha256": "a hash's name in the signing command's example",
    "batch 1": "the regime of one sequence per step (model/machine/validate.py batch_regime)",
    "RTX 4090": "a GPU's name", "4090's": "a GPU's name", "g128": "a group size in a format's name",
    "MLX 4-bit": "a weight format's name",
}
MEASURED = re.compile(r"measured on \d{4}-\d{2}-\d{2}")


def _numbers():
    """docs/readme_numbers.py, loaded once (its model runs are cached: the validation takes seconds)."""
    if "readme_numbers" in sys.modules:
        return sys.modules["readme_numbers"]
    spec = importlib.util.spec_from_file_location("readme_numbers", ROOT / "docs" / "readme_numbers.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("readme_numbers", mod)
    spec.loader.exec_module(sys.modules["readme_numbers"])
    return sys.modules["readme_numbers"]


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + re.sub(r"\S", " ", text[start:end]) + text[end:]


def unchecked(text: str, covered) -> list[str]:
    """Each number of ``text`` that no fact covers, no measurement dates and no name explains."""
    for start, end in covered:
        text = _blank(text, start, end)
    for m in reversed(list(re.finditer(r"```.*?```", text, re.S))):
        # in a block of commands the arguments are examples; what its comments say is a claim
        lines = [" " * line.index("#") + line[line.index("#"):] if "#" in line else " " * len(line)
                 for line in m.group().split("\n")]
        text = text[:m.start()] + "\n".join(lines) + text[m.end():]
    for pattern in (r"`[^`]*`", r"\]\([^)]*\)", r"<!--.*?-->"):            # file names, commands, links
        for m in reversed(list(re.finditer(pattern, text, re.S))):
            text = _blank(text, *m.span())
    speed = re.search(r"^## Speed\n.*?(?=^## |\Z)", text, re.S | re.M)
    assert speed and MEASURED.search(speed.group()), "the Speed section says when it was measured"
    text = _blank(text, *speed.span())                   # measurements of a machine, dated
    for m in reversed(list(re.finditer(r"\([^()]*\)", text))):
        if MEASURED.search(m.group()):                    # "(…, measured on DATE …)"
            text = _blank(text, *m.span())
    for name in sorted(NAMES, key=len, reverse=True):
        text = text.replace(name, " " * len(name))
    out = []
    for m in re.finditer(r"\d[\d.,:×x%/–-]*", text):
        line = text.count("\n", 0, m.start()) + 1
        out.append(f"README.md:{line}: {m.group()!r} in {README.read_text(encoding='utf-8').splitlines()[line - 1]!r}")
    return out


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_every_worked_out_number_is_what_the_model_and_the_repository_say():
    mod = _numbers()
    problems = mod.stale(README.read_text(encoding="utf-8"))
    assert problems == [], "stale (python docs/readme_numbers.py rewrites them):\n" + "\n".join(problems)


def test_every_other_number_is_a_dated_measurement_or_a_name():
    mod = _numbers()
    text = README.read_text(encoding="utf-8")
    left = unchecked(text, mod.covered(text))
    assert left == [], "numbers nothing checks (a fact in docs/readme_numbers.py, or 'measured on DATE'):\n" + \
        "\n".join(left)


def test_the_checks_are_not_vacuous():
    mod = _numbers()
    text = README.read_text(encoding="utf-8")
    wrong = text.replace("the catalogue: ", "the catalogue: 1", 1)
    assert any("catalogue counts" in p for p in mod.stale(wrong))
    assert mod.stale(mod.rewrite(wrong)) == []               # and the script puts it right
    extra = text.replace("## Using it", "It runs 12× faster.\n\n## Using it", 1)
    assert any("12×" in p for p in unchecked(extra, mod.covered(extra)))
