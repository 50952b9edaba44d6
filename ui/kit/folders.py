"""Where the app keeps what the user owns: one scheme, Qt's QStandardPaths, on every platform.

    settings     config_dir()/MemoryWall/MemoryWall.ini   GenericConfigLocation: ~/.config on Linux
                                                          (or $XDG_CONFIG_HOME), ~/Library/Preferences
                                                          on macOS, %LOCALAPPDATA% on Windows
    own entries  data_dir()/hardware, data_dir()/models   AppDataLocation: ~/.local/share/MemoryWall/
                                                          MemoryWall on Linux (or under $XDG_DATA_HOME)

On Linux and macOS Qt derives both from $HOME; where $HOME is unset, empty, relative or the root
(and no absolute XDG folder is named), there is no such folder: the caller says so in one line and
nothing is written anywhere else. On Windows Qt asks the system for the folders, and $HOME is
not consulted. These are the places earlier versions used, so existing files are found as they are.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ORG = "MemoryWall"
APP = "MemoryWall"


def home_problem() -> str | None:
    """Why $HOME cannot hold the user's files (unset, empty, relative, the file-system root), or None.
    Always None on Windows, where Qt does not derive the folders from $HOME."""
    if sys.platform.startswith("win"):
        return None
    home = os.environ.get("HOME", "")
    if not home:
        return "no home folder ($HOME is not set)"
    if not os.path.isabs(home) or os.path.realpath(home) == os.path.abspath(os.sep):
        return f"$HOME ({home}) is not a proper home folder"
    return None


def _names_set() -> None:  # Qt is imported here: ui/kit/qt_app.py reads ORG and APP before Qt may load
    """The organisation and application names QStandardPaths puts in AppDataLocation (static: no
    QApplication needed, so the command line finds the same folders as the window)."""
    from PySide6.QtCore import QCoreApplication
    if not QCoreApplication.organizationName():
        QCoreApplication.setOrganizationName(ORG)
    if not QCoreApplication.applicationName() or QCoreApplication.applicationName() == "python":
        QCoreApplication.setApplicationName(APP)


def _location(kind: str, xdg: str) -> tuple[Path | None, str | None]:
    why = None if os.path.isabs(os.environ.get(xdg, "")) else home_problem()
    if why:
        return None, why
    from PySide6.QtCore import QStandardPaths
    _names_set()
    where = QStandardPaths.writableLocation(getattr(QStandardPaths.StandardLocation, kind))
    if not where or not os.path.isabs(where):
        return None, "the system names no such folder"
    return Path(where), None


def config_dir() -> tuple[Path | None, str | None]:
    """The user's config folder (the settings go in its MemoryWall/), or (None, why not)."""
    return _location("GenericConfigLocation", "XDG_CONFIG_HOME")


def data_dir() -> tuple[Path | None, str | None]:
    """The app's data folder (your own hardware and models), or (None, why not)."""
    return _location("AppDataLocation", "XDG_DATA_HOME")
