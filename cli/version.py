"""``--version``: the installed package's version, else pyproject.toml's beside main.py."""
from __future__ import annotations

import re
import sys
from pathlib import Path


def version() -> str:
    """'0.1.0' from the package metadata (pip, the .deb); from the repository's pyproject.toml when
    run from a checkout without it; 'unknown' when neither is there."""
    try:
        from importlib.metadata import PackageNotFoundError, version as installed
        try:
            return installed("memory-wall")
        except PackageNotFoundError:
            pass
    except ImportError:
        pass
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        found = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"), re.M)
    except OSError:
        found = None
    return found.group(1) if found else "unknown"


def print_version() -> int:
    from model.readouts.command_line import version_line
    print(version_line(version()), file=sys.stdout)
    return 0
