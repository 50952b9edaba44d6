"""The package installs whole (slow: a wheel, a fresh virtual environment, ~1–2 min with pip's cache).

The wheel is built from a clean copy of the tree (the files git knows, tracked or new, as a
clean clone has them: no .venv, no build/, no egg-info to lean on), installed with its
dependencies from the package index into a virtual environment of its own, and the installed
``memory-wall`` runs from a folder outside the repository, with nothing of the repository on
any path: ``--smoke`` (every view rendered once) and ``estimate`` (the 41.7 ms floor of a 70B
model in FP16 on an H100). Every module under model/, ui/ and cli/ must be in it, and assets/
beside them, where model/files/assets.py looks (three parents up from model/files/assets.py:
site-packages/assets). A wheel of ``packages = ["model", "ui"]`` fails here.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from model import Scenario, estimate
from model.readouts.format import duration

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("model", "ui", "cli")


def _tree_files() -> list[str]:
    """What a clean clone of this working tree holds: tracked files and new ones git does not ignore."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return sorted(p for p in out.split("\0") if p and (ROOT / p).is_file())


def _run(cmd, cwd, env=None, timeout=600) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (f"{' '.join(map(str, cmd))} exited {proc.returncode}\n"
                                  f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv, wheel, files): the wheel built from a clean copy, installed into a fresh venv."""
    base = tmp_path_factory.mktemp("wheel")
    src, dist, venv = base / "src", base / "dist", base / "venv"
    files = _tree_files()
    for rel in files:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    pip_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, src], cwd=base, env=pip_env)
    wheels = list(dist.glob("memory_wall-*.whl"))
    assert len(wheels) == 1, wheels
    _run([sys.executable, "-m", "venv", venv], cwd=base, env=pip_env)
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheels[0]], cwd=base, env=pip_env)
    return venv, wheels[0], files


def _outside(tmp_path: Path, venv: Path) -> dict:
    """A user's shell: the venv's scripts on PATH, nothing of the repository on any path."""
    return {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(tmp_path),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
            "QT_QPA_PLATFORM": "offscreen"}


def test_the_wheel_holds_every_module_and_every_asset(installed):
    _venv, wheel, files = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    want = {f for f in files if f.split("/")[0] in PACKAGES and f.endswith(".py")}
    want |= {f for f in files if f.startswith("assets/") and f.rsplit(".", 1)[-1] in ("json", "csv", "svg", "md")}
    want.add("main.py")
    assert {f for f in files if f.startswith("assets/")} <= want, "a kind of asset the wheel does not ship"
    assert want - names == set(), f"left out of the wheel: {sorted(want - names)[:20]}"
    assert not [n for n in names if n.startswith(("tests/", "benches/", "docs/", "packaging/"))]


def test_the_installed_app_runs_from_outside_the_repository(installed, tmp_path):
    venv, _wheel, _files = installed
    env = _outside(tmp_path, venv)
    where = _run([venv / "bin" / "python", "-c",
                  "import cli, main, model, ui; from model.files.assets import ASSETS_DIR; "
                  "print(model.__file__); print(ASSETS_DIR)"], cwd=tmp_path, env=env).stdout.splitlines()
    site = Path(where[0]).resolve().parent.parent
    assert venv.resolve() in site.parents and ROOT not in site.parents, where
    assert Path(where[1]).resolve() == site / "assets" and (site / "assets" / "hardware.json").is_file()

    smoke = _run([venv / "bin" / "memory-wall", "--smoke"], cwd=tmp_path, env=env, timeout=300)
    assert "Traceback" not in smoke.stdout + smoke.stderr

    out = _run([venv / "bin" / "memory-wall", "estimate", "--gpu", "h100", "--model", "llama-3.1-70b",
                "--precision", "fp16"], cwd=tmp_path, env=env).stdout
    e = estimate(Scenario(gpu="h100", model="llama-3.1-70b", precision="fp16"))
    floor = duration(e.decode_floor_ms_per_token / 1e3)
    assert floor == "41.7 ms"                      # the README's number, from the model in this process
    assert f"Decode floor: {floor}" in out, out
    listed = json.loads(_run([venv / "bin" / "memory-wall", "list", "gpus", "--json"], cwd=tmp_path, env=env).stdout)
    shipped = json.loads((ROOT / "assets" / "hardware.json").read_text(encoding="utf-8"))
    assert [g["id"] for g in listed["gpus"]] == [g["id"] for g in shipped["gpus"]]     # its own catalogue, whole
