"""Recordings for slides: main.py --record writes a looping GIF of the asked size, length and
frame count whose frames move; frames are drawn at a fixed time step (the same file twice);
bad requests exit 2 with one line."""
from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest
from PIL import Image, ImageChops

from ui.present.recording import (RecordingError, check_request, frame_count, gif_durations_ms, glide_plan, record)

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main_py(*args):
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def gif_frames(path):
    with Image.open(path) as im:
        frames, durations = [], []
        for k in range(im.n_frames):
            im.seek(k)
            durations.append(im.info["duration"])
            frames.append(im.convert("RGB"))
        return frames, durations, im.size, im.info.get("loop")


def test_record_the_chip_as_a_gif(tmp_path):
    out = tmp_path / "chip.gif"
    r = main_py("--record", str(out), "--view", "hierarchy", "--seconds", "1.5", "--size", "480x270", "--fps", "10")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 1 and "15 frames" in r.stdout
    frames, durations, size, loop = gif_frames(out)
    assert size == (480, 270)
    assert len(frames) == 15 == frame_count(1.5, 10)
    assert sum(durations) == 1500
    assert loop == 0                                                  # loops for ever
    moved = [ImageChops.difference(a, b).getbbox() is not None for a, b in zip(frames, frames[1:])]
    assert all(moved)                                                 # the packets move every frame
    assert out.stat().st_size < 25e6


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_record_a_chapter_gliding_through_its_states(tmp_path):
    out = tmp_path / "ch6.gif"
    r = main_py("--record", str(out), "--chapter", "6", "--seconds", "2", "--size", "480x270", "--fps", "10")
    assert r.returncode == 0, r.stderr
    frames, durations, size, _ = gif_frames(out)
    assert size == (480, 270) and sum(durations) == 2000
    assert 2 < len(frames) <= 20                                      # held states merge into one frame
    assert ImageChops.difference(frames[0], frames[-1]).getbbox() is not None


@pytest.mark.parametrize("args,words", [
    (["--record", "/no/such/folder/x.gif"], "does not exist"),
    (["--record", "{tmp}/x.gif", "--size", "12x3"], "--size"),
    (["--record", "{tmp}/x.gif", "--size", "wide"], "--size"),
    (["--record", "{tmp}/x.png"], ".gif or .mp4"),
    (["--record", "{tmp}/x.gif", "--fps", "0"], "--fps"),
    (["--record", "{tmp}/x.gif", "--seconds", "-1"], "--seconds"),
    (["--record", "{tmp}/x.gif", "--chapter", "9"], "chapter"),
])
def test_a_bad_recording_request_exits_2_with_one_line(tmp_path, args, words):
    r = main_py(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and words in r.stderr, r.stderr
    assert not list(tmp_path.iterdir())                               # nothing half-written


def test_frames_are_drawn_at_a_fixed_time_step(qtbot, tmp_path):
    """The same recording twice is the same file: the clock is the frame counter, not the wall."""
    a, b = tmp_path / "a.gif", tmp_path / "b.gif"
    seen = []
    ra = record(str(a), seconds=0.5, size=(320, 180), fps=10, progress=seen.append)
    record(str(b), seconds=0.5, size=(320, 180), fps=10)
    assert seen == list(range(1, 6)) and ra.frames == 5 and ra.stored_frames == 5
    assert a.read_bytes() == b.read_bytes()


def test_mp4_where_an_encoder_is_installed(qtbot, tmp_path):
    out = tmp_path / "chip.mp4"
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        with pytest.raises(RecordingError, match="imageio-ffmpeg"):
            record(str(out), seconds=0.5, size=(320, 180), fps=10)
        return
    rec = record(str(out), seconds=0.5, size=(320, 180), fps=10)
    assert out.read_bytes()[4:8] == b"ftyp" and rec.bytes == out.stat().st_size > 1000
    with pytest.raises(RecordingError, match="even"):
        check_request(str(out), (321, 180), 1.0, 10)


def test_gif_delays_add_up_to_the_length_at_any_frame_rate():
    for fps in (1, 7, 10, 15, 20, 24, 30, 60):
        n = frame_count(3.0, fps)
        d = gif_durations_ms(n, fps)
        assert len(d) == n and all(x % 10 == 0 and x >= 10 for x in d)
        assert abs(sum(d) - 3000) <= 10 * (fps > 50)


def test_glide_plan_visits_every_state_in_order():
    plan = glide_plan(states=4, frames=80, fps=20)
    assert plan[0] == (0, 0, 1.0) and plan[-1] == (3, 3, 1.0)
    targets = [b for _a, b, _f in plan]
    assert targets == sorted(targets) and set(targets) == {0, 1, 2, 3}
    gliding = [f for a, b, f in plan if a != b]
    assert gliding and all(0 <= f < 1 for f in gliding)
    with pytest.raises(RecordingError):
        check_request("x.gif", (320, 180), 0.0, 10)


def test_recorded_chip_frames_leave_out_the_control_bar(qtbot):
    """A recording is the chip alone: the view reports its Pause/Step/speed bar hidden, and the
    strip where that bar sits in the window differs in a recorded frame."""
    from PySide6.QtCore import QPoint

    from model import Scenario
    from ui.kit import theme as th
    from ui.present.offscreen import OffscreenChip
    from ui.present.recording import chip_frames, to_pil
    size = (640, 360)
    frames = chip_frames(Scenario(), size, 10, 1, "dark")
    recorded = to_pil(next(frames))
    frames.close()
    chip = OffscreenChip(Scenario(), th.get_theme("dark", th.type_scale(size[1], False)), size)
    try:
        assert chip.view.controls_visible
        with_bar = to_pil(chip.image())
        scale = with_bar.height / chip.host.height()
        button = chip.view.pause_button
        x, y = (v * scale for v in (button.mapTo(chip.host, QPoint(0, 0)).x(), button.mapTo(chip.host, QPoint(0, 0)).y()))
        box = tuple(int(v) for v in (x, y, x + button.width() * scale, y + button.height() * scale))
        assert 0.7 * size[1] < box[1] < size[1]                       # the bar is the bottom strip
        chip.view.set_controls_visible(False)
        assert not chip.view.controls_visible
        assert not button.isVisibleTo(chip.host)
    finally:
        chip.close()
    assert recorded.size == size
    diff = ImageChops.difference(recorded.crop(box), with_bar.crop(box)).convert("L")
    area = (box[2] - box[0]) * (box[3] - box[1])
    assert sum(diff.histogram()[16:]) > 0.3 * area, "the Pause button is still in the recorded frame"
