"""Where the app keeps its settings, and what it does when it cannot.

Settings are a QSettings INI file at ``<config folder>/MemoryWall/MemoryWall.ini`` (the config
folder is Qt's, ui/kit/folders.py: ``~/.config`` or ``$XDG_CONFIG_HOME`` on Linux). Before Qt opens it, the path is checked with ``os.stat``: with no
usable home (``HOME`` unset, empty or relative), a read-only folder, or an .ini that is a
folder, FIFO or device, nothing is read or written and ``open_settings`` returns one line
for the status bar. A stored scenario is read through ``model.files.safe_io`` and validated by
the model; one that cannot be used is set aside (copied beside the .ini, removed from the
settings, named in one line) and the app starts on defaults. The Serve setup and the Plan settings
are kept beside it ("serving", "planning": their scenario-file objects, read by the same readers as
a file's, ui/state/controller.SECTIONS); one that cannot be used is dropped, named in one line.
"""
from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from ui.kit.folders import APP, ORG, config_dir

MAX_INI_BYTES = 1_000_000
MAX_SCENARIO_CHARS = 100_000


def _writable_dir(path: Path) -> bool:
    """A folder the user can write: the access check and the mode bits (root ignores the bits)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and bool(st.st_mode & 0o200) and os.access(path, os.W_OK | os.X_OK)


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def ini_problem(ini: Path, create: bool = True) -> str | None:
    """Why the .ini cannot be used (one line), or None. Creates its folder when missing and ``create``."""
    folder = ini.parent
    try:
        st = os.stat(ini)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        return f"{ini}: {exc.strerror or exc}"
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            return f"{ini} is a folder"
        if not stat.S_ISREG(st.st_mode):
            return f"{ini} is not a regular file"
        if st.st_size > MAX_INI_BYTES:
            return f"{ini} is too large ({st.st_size:,} bytes)"
        if not (st.st_mode & 0o200) or not os.access(ini, os.W_OK):
            return f"{ini} is read-only"
        return None if _writable_dir(folder) else f"{folder} is read-only"
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        return f"{existing} is not a folder"
    if not _writable_dir(existing):
        return f"{existing} is read-only"
    if not create:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create {folder}: {exc.strerror or exc}"
    return None


def open_settings(create: bool = True):
    """(QSettings, None) — or (None, one line for the status bar) when they cannot be kept.
    ``create=False`` (headless renders) never creates the folder."""
    base, why = config_dir()
    if base is None:
        return None, f"settings are not saved: {why}"
    ini = base / ORG / f"{APP}.ini"
    problem = ini_problem(ini, create)
    if problem:
        return None, f"settings are not saved: {problem}"
    from PySide6.QtCore import QSettings
    return QSettings(str(ini), QSettings.IniFormat), None


def load_scenario(st, set_aside: bool = True):
    """(the stored Scenario or None, a one-line note or None). A stored value the model cannot
    use is set aside (``set_aside``): kept in a file beside the settings, removed from them."""
    if st is None:
        return None, None
    raw = st.value("scenario")
    if raw is None or raw == "":
        return None, None
    try:
        return _parse_stored(raw), None
    except Exception as exc:  # any failure at all: the app must still start
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if not set_aside:
        return None, None
    kept = _set_aside(st, raw)
    where = f"kept in {kept}" if kept else "it could not be kept"
    return None, f"the saved scenario could not be used ({reason[:160]}); {where}; starting on defaults"


def _parse_stored(raw):
    from model.files.safe_io import loads_json
    from model.physics.scenario import Scenario, resolve
    if not isinstance(raw, str):
        raise ValueError(f"it is a {type(raw).__name__}, not JSON text")
    s = Scenario.from_dict(loads_json(raw, "the saved scenario", max_bytes=MAX_SCENARIO_CHARS, unique_keys=True))
    resolve(s)
    return s


def _set_aside(st, raw) -> str | None:
    """Write the bad value beside the .ini and drop it from the settings; the backup's path."""
    from model.files.safe_io import SafeIOError, atomic_write_text
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    backup = Path(st.fileName()).with_name(f"scenario-set-aside-{stamp}.json")
    try:
        atomic_write_text(backup, str(raw)[:MAX_INI_BYTES], overwrite=False)
    except SafeIOError:
        backup = None
    st.remove("scenario")
    st.sync()
    return str(backup) if backup else None


def load_sections(st) -> tuple[dict, str | None]:
    """({"serving": ServingSetup, "planning": PlanSettings} as stored, a one-line note or None).
    A stored value that cannot be used is removed from the settings and named in the note."""
    if st is None:
        return {}, None
    from model.files.safe_io import loads_json
    from ui.state.controller import SECTIONS
    out, bad = {}, []
    for key, read in SECTIONS.items():
        raw = st.value(key)
        if raw is None or raw == "":
            continue
        try:
            if not isinstance(raw, str):
                raise ValueError(f"it is a {type(raw).__name__}, not JSON text")
            out[key] = read(loads_json(raw, f"the saved {key}", max_bytes=MAX_SCENARIO_CHARS, unique_keys=True))
        except Exception as exc:  # any failure at all: the app must still start
            bad.append(f"{key} ({(str(exc).splitlines() or [type(exc).__name__])[0][:160]})")
            st.remove(key)
    if bad:
        st.sync()
    return out, (f"the saved {'; '.join(bad)} could not be used; starting on the defaults" if bad else None)
