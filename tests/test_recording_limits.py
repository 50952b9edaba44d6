"""Recordings are bounded: a GIF is written as its frames are drawn (the frames held in memory do
not grow with the length), a request beyond the stated limit is refused with one line, an
existing file is replaced only with --force, and the temporary file is a name of our own."""
from __future__ import annotations

import gc
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import ui.present.recording as rec

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _pictures(n: int):
    """n different 160×90 pictures, made one at a time (as the offscreen chip draws them)."""
    rng = np.random.default_rng(1)
    for k in range(n):
        a = (rng.random((90, 160, 3)) * 255).astype(np.uint8)
        a[k % 90, :] = 255
        yield Image.fromarray(a)


def _images_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Image.Image))


def test_a_gif_holds_the_same_few_frames_however_long_it_is(tmp_path, monkeypatch):
    monkeypatch.setattr(rec, "to_pil", lambda image: image)            # the frames are Pillow images here
    held = {}
    for n in (10, 60):
        alive: list[int] = []
        rec.write_gif(str(tmp_path / f"{n}.gif"), _pictures(n), n, 20, lambda k: alive.append(_images_alive()))
        held[n] = max(alive)
        with Image.open(tmp_path / f"{n}.gif") as im:
            assert im.n_frames == n                                   # every frame is in the file
    assert max(held.values()) <= 8, held                              # the same few for 6× the frames


def test_a_gif_keeps_held_states_as_one_longer_frame(tmp_path, monkeypatch):
    monkeypatch.setattr(rec, "to_pil", lambda image: image)
    pics = list(_pictures(3))
    frames = [pics[0], pics[1], pics[1], pics[1], pics[2]]
    rec.write_gif(str(tmp_path / "held.gif"), iter(frames), 5, 10, lambda k: None)
    with Image.open(tmp_path / "held.gif") as im:
        durations = []
        for k in range(im.n_frames):
            im.seek(k)
            durations.append(im.info["duration"])
    assert durations == [100, 300, 100]


@pytest.mark.parametrize("size,fps,seconds", [((3840, 2160), 60, 120), ((1920, 1080), 60, 121), ((2560, 1440), 60, 90)])
def test_a_recording_beyond_the_limit_is_refused_in_one_line(tmp_path, size, fps, seconds):
    with pytest.raises(rec.RecordingError) as exc:
        rec.check_request(str(tmp_path / "x.gif"), size, seconds, fps)
    assert "\n" not in str(exc.value)
    assert not list(tmp_path.iterdir())


def test_the_largest_the_dialog_offers_is_within_the_limit(tmp_path):
    from ui.present.record_dialog import SIZES
    w, h = max(SIZES, key=lambda s: s[0] * s[1])
    assert rec.check_request(str(tmp_path / "x.gif"), (w, h), rec.MAX_SECONDS, rec.MAX_FPS) == ".gif"


def main_py(*args):
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_record_refuses_an_oversized_request_from_the_command_line(tmp_path):
    r = main_py("--record", str(tmp_path / "big.gif"), "--size", "3840x2160", "--fps", "60", "--seconds", "120")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "gigapixels" in r.stderr, r.stderr
    assert not list(tmp_path.iterdir())


def test_record_never_replaces_a_file_without_force_nor_touches_a_part_file(tmp_path):
    out, part = tmp_path / "chip.gif", tmp_path / "chip.gif.part.gif"
    out.write_bytes(b"my own file")
    part.write_bytes(b"someone else's file")
    args = ("--record", str(out), "--seconds", "0.2", "--size", "320x240", "--fps", "10")
    r = main_py(*args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--force" in r.stderr, r.stderr
    assert out.read_bytes() == b"my own file"
    r = main_py(*args, "--force")
    assert r.returncode == 0, r.stderr
    with Image.open(out) as im:
        assert im.n_frames == 2
    assert part.read_bytes() == b"someone else's file"                # never used as our temporary
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chip.gif", "chip.gif.part.gif"]
