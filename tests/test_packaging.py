"""The Linux installers, built from packaging/memory-wall.spec and run for real (slow: ~2-3 min).

packaging/build-linux builds the one-folder bundle, its .tar.gz, the .deb and the one-file
executable; every frozen form then runs `--smoke` offscreen, and the .deb is installed on
this machine with apt-get (which pulls Qt's system libraries named in Depends:), launched
from /usr/bin/memory-wall and removed again. That needs root, as in CI (a throwaway
machine): without root the test fails, it is never skipped.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
BUNDLE = DIST / "memory-wall"
INTERNAL = BUNDLE / "_internal"

# Anything like these on stdout/stderr of a frozen run is a packaging bug.
BAD = [
    re.compile(p) for p in (
        r"ModuleNotFoundError", r"ImportError", r"Traceback", r"Could not find the Qt platform plugin",
        r"(?i)could not load", r"QWidget", r"\bqt\.", r"Warning:", r"cannot open shared object",
    )
]


def _version() -> str:
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def _clean_env(**extra) -> dict:
    """What a desktop user has: no venv, no PYTHONPATH, the repo not on any path."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "QT_QPA_PLATFORM": "offscreen"}
    env.update(extra)
    return env


def run_frozen(cmd: list[str], cwd: Path, timeout: int = 120, **env) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=_clean_env(**env), capture_output=True, text=True,
                          timeout=timeout)
    output = proc.stdout + proc.stderr
    bad = [line for line in output.splitlines() if any(p.search(line) for p in BAD)]
    assert proc.returncode == 0 and not bad, (
        f"{' '.join(cmd)} exited {proc.returncode}\n" + "\n".join(bad or output.splitlines()[-20:]))
    return proc


@pytest.fixture(scope="module")
def built():
    """Run packaging/build-linux once (the same script a release uses) with this venv."""
    for tool in ("objdump", "strip", "dpkg-deb", "tar"):
        assert shutil.which(tool), f"{tool} is missing: apt-get install binutils dpkg tar"
    env = dict(os.environ, PYTHON=sys.executable)
    env.pop("QT_QPA_PLATFORM", None)  # build-linux sets it for its own smoke runs
    proc = subprocess.run([str(ROOT / "packaging" / "build-linux")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"build-linux failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    arch = os.uname().machine
    debarch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    v = _version()
    return {
        "folder": BUNDLE / "memory-wall",
        "tarball": DIST / f"memory-wall-{v}-linux-{arch}.tar.gz",
        "deb": DIST / f"memory-wall_{v}_{debarch}.deb",
        "onefile": DIST / f"memory-wall-{v}-linux-{arch}",
        "log": proc.stdout,
    }


def test_build_linux_makes_three_artifacts(built):
    for key in ("folder", "tarball", "deb", "onefile"):
        assert built[key].is_file(), f"{key}: {built[key]} was not built"
    assert os.access(built["onefile"], os.X_OK)
    assert "Sizes:" in built["log"] and "Times:" in built["log"]


def test_folder_bundle_smoke(built, tmp_path):
    run_frozen([str(built["folder"]), "--smoke"], cwd=tmp_path)


def _ensure_xvfb() -> str:
    """xvfb-run, installed with apt-get if missing (root, as in CI); never skipped."""
    if not shutil.which("xvfb-run"):
        assert os.geteuid() == 0, "xvfb-run is missing: apt-get install xvfb xauth"
        subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", "xvfb", "xauth"],
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"), capture_output=True,
                       timeout=300, check=True)
    return shutil.which("xvfb-run")


def test_folder_bundle_smoke_on_x11(built, tmp_path):
    """The desktop (xcb) platform plugin loads and paints, on a virtual X screen."""
    xvfb_run = _ensure_xvfb()
    run_frozen([xvfb_run, "-a", "-s", "-screen 0 1920x1080x24", str(built["folder"]), "--smoke"],
               cwd=tmp_path, QT_QPA_PLATFORM="xcb", HOME=str(tmp_path))


def test_frozen_app_reads_its_assets(built, tmp_path):
    """model/files/assets.py's ASSETS_DIR (parent of the model package + /assets) resolves inside
    the bundle, away from the repo."""
    assert (INTERNAL / "assets" / "hardware.json").is_file()
    proc = run_frozen([str(built["folder"]), "list", "gpus", "--json"], cwd=tmp_path)
    data = json.loads(proc.stdout)
    gpus = data["gpus"] if isinstance(data, dict) else data
    assert len(gpus) >= 10


def test_bundle_is_trimmed(built):
    names = {p.relative_to(INTERNAL).as_posix() for p in INTERNAL.rglob("*")}
    platforms = {n.rsplit("/", 1)[-1] for n in names if "/plugins/platforms/" in n}
    assert platforms == {"libqoffscreen.so", "libqxcb.so"}, platforms
    plugin_dirs = {n.split("/plugins/", 1)[1].split("/")[0] for n in names if "/plugins/" in n}
    assert plugin_dirs == {"platforms"}, plugin_dirs
    assert not [n for n in names if "translations" in n or n.endswith(".qm")]
    for unused in ("QtNetwork", "QtQml", "QtQuick", "QtTest", "QtSql", "QtPdf", "QtSvgWidgets"):
        assert not [n for n in names if unused in n.rsplit("/", 1)[-1] and ".so" in n], unused
    # QtSvg stays: chapter charts export as vector SVG, and the window icon is drawn from assets/icon.svg
    assert "PySide6/QtSvg.abi3.so" in names and [n for n in names if "libQt6Svg.so" in n]
    # pyqtgraph imports these through importlib: hidden imports in the spec
    assert "PySide6/QtOpenGL.abi3.so" in names and "PySide6/QtOpenGLWidgets.abi3.so" in names
    # nothing stripped that numpy needs: numpy's own libraries are byte-identical to the wheel's
    import numpy
    wheel_libs = Path(numpy.__file__).parent.parent / "numpy.libs"
    for lib in wheel_libs.glob("*.so*"):
        assert (INTERNAL / "numpy.libs" / lib.name).read_bytes() == lib.read_bytes(), lib.name


def test_tarball_unpacks_and_runs(built, tmp_path):
    with tarfile.open(built["tarball"]) as tar:
        tar.extractall(tmp_path, filter="tar")
    exe = tmp_path / "memory-wall" / "memory-wall"
    assert exe.is_file()
    run_frozen([str(exe), "--smoke"], cwd=tmp_path)


def test_onefile_smoke(built, tmp_path):
    run_frozen([str(built["onefile"]), "--smoke"], cwd=tmp_path)


def test_deb_installs_launches_and_removes(built, tmp_path):
    """A real install with dpkg/apt on this machine (root; CI's throwaway clone), not `dpkg -x`."""
    assert os.geteuid() == 0, ("installing the .deb needs root (CI runs as root); run this test as root "
                               "or in a throwaway container")
    deb = built["deb"]
    info = subprocess.run(["dpkg-deb", "--field", str(deb), "Package", "Depends"], capture_output=True,
                          text=True, check=True).stdout
    for lib in ("libgl1", "libegl1", "libfontconfig1", "libxkbcommon0", "libdbus-1-3", "libglib2.0-0",
                "libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1", "libxkbcommon-x11-0"):
        assert lib in info, f"Depends: lacks {lib}"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    proc = subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", str(deb)],
                          capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode != 0:  # offline apt: dpkg alone works when Qt's libraries are already there
        proc = subprocess.run(["dpkg", "-i", str(deb)], capture_output=True, text=True, env=env)
    try:
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        launcher = Path("/usr/bin/memory-wall")
        assert launcher.is_file() and os.access(launcher, os.X_OK)
        assert shutil.which("memory-wall", path="/usr/bin:/bin") == str(launcher)
        desktop = Path("/usr/share/applications/memory-wall.desktop").read_text()
        assert re.search(r"^Exec=memory-wall\b", desktop, re.M) and "Icon=memory-wall" in desktop
        assert "Terminal=false" in desktop and "Type=Application" in desktop
        assert Path("/usr/share/icons/hicolor/256x256/apps/memory-wall.png").is_file()
        assert Path("/usr/share/icons/hicolor/scalable/apps/memory-wall.svg").is_file()
        # every library the desktop (xcb) platform needs is on the system now
        xcb = Path("/opt/memory-wall/_internal/PySide6/Qt/plugins/platforms/libqxcb.so")
        ldd = subprocess.run(["ldd", str(xcb)], capture_output=True, text=True,
                             env={"LD_LIBRARY_PATH": "/opt/memory-wall/_internal:"
                                                     "/opt/memory-wall/_internal/PySide6/Qt/lib"}).stdout
        assert "not found" not in ldd, ldd
        run_frozen(["memory-wall", "--smoke"], cwd=tmp_path, HOME=str(tmp_path))
        run_frozen(["memory-wall", "estimate", "--gpu", "h100", "--model", "llama-3.1-8b",
                    "--precision", "bf16"], cwd=tmp_path, HOME=str(tmp_path))
    finally:
        removed = subprocess.run(["dpkg", "-r", "memory-wall"], capture_output=True, text=True, env=env)
    assert removed.returncode == 0, removed.stderr
    assert not Path("/usr/bin/memory-wall").exists() and not Path("/opt/memory-wall").exists()
