"""Recordings for slides: an animated GIF (Pillow) or an MP4 (imageio-ffmpeg, optional) of
the chip, of a chapter gliding through its prepared states, or of the Serve page's queue.

    python main.py --record chip.gif [--view hierarchy | --chapter N | --page serve] [--seconds S]
                   [--size WxH] [--fps F] [--theme light]

Frames are drawn off screen (ui.present.offscreen) at a fixed time step: frame k shows the picture at
t = k / fps, and the chip's clock moves by exactly 1 / fps between frames, so a recording is
as smooth on a slow laptop as on a fast one (it only takes longer to make).

A chapter's glide: its S seconds are split evenly over its prepared states; each part opens
with the presenter's glide from the previous state (GLIDE_S, eased) and then holds the state.
GIF frame delays are whole centiseconds: frame k lasts round(100(k+1)/fps) − round(100k/fps)
cs, so the whole loop lasts S seconds to the centisecond. Pillow merges identical neighbouring
frames (a held state) into one longer frame; the chip changes every frame.
"""
from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path
from typing import Callable, Iterator

from model.values import frozen

FORMATS = (".gif", ".mp4")
MAX_SIZE = (3840, 2160)
MIN_SIZE = (160, 90)
MAX_SECONDS = 120.0
MAX_FPS = 60
# Frames are encoded as they are drawn (memory does not grow with the length), but drawing takes
# time: at most this many pixels in all, 1920×1080 at 60 frames/s for 120 s (the Record… dialog's
# largest), so a mistyped --size 3840x2160 --fps 60 --seconds 120 is refused, not hours of work.
MAX_TOTAL_PIXELS = 1920 * 1080 * 60 * 120
GLIDE_S = 0.45                 # as the presenter's glide (ui.present.presenter.GLIDE_MS)
DEFAULT_SIZE = (960, 540)
DEFAULT_FPS = 20               # 5 cs per frame: GIF delays are exact
DEFAULT_CHIP_S = 3.0
DEFAULT_STATE_S = 2.0          # per prepared state, for a chapter
SERVE_PREROLL_FRAMES = 300     # the Serve page's queue starts 5 s (at 60 frames/s) into its run


class RecordingError(ValueError):
    """A recording that cannot be made, in one line; ``status``: 2 for what was asked (a path, a
    size), 1 for a write that failed under way (a full disk), as every command's output."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


@frozen
class Recording:
    path: str
    what: str                  # "chip" or "chapter N"
    frames: int                # frames drawn
    stored_frames: int         # frames in the file (a GIF merges identical neighbours: held states)
    seconds: float
    size: tuple[int, int]
    fps: float
    bytes: int

    def summary(self) -> str:
        stored = f" ({self.stored_frames} stored: held states merge)" if self.stored_frames != self.frames else ""
        return (f"wrote {self.path}: {self.what}, {self.frames} frames{stored} at {self.fps:g} fps = "
                f"{self.seconds:g} s, {self.size[0]}×{self.size[1]}, {self.bytes:,} bytes")


# ---------------------------------------------------------------- checks (one line each)

def check_request(path: str, size: tuple[int, int], seconds: float, fps: float) -> str:
    """The format (".gif" or ".mp4") of a valid request; RecordingError otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise RecordingError(f"--record needs a .gif or .mp4 file name, got '{path}'")
    try:
        folder = Path(path).expanduser().resolve().parent
        if not folder.is_dir():
            raise RecordingError(f"cannot write {path}: the folder {folder} does not exist")
        if not os.access(folder, os.W_OK):
            raise RecordingError(f"cannot write {path}: the folder {folder} is not writable")
        if Path(path).is_dir():
            raise RecordingError(f"cannot write {path}: it is a folder")
    except OSError as exc:               # a name too long, a loop of links
        raise RecordingError(f"cannot write {str(path)[:100]}: {exc.strerror or exc}") from None
    w, h = size
    if not (MIN_SIZE[0] <= w <= MAX_SIZE[0] and MIN_SIZE[1] <= h <= MAX_SIZE[1]):
        raise RecordingError(f"a recording must be between {MIN_SIZE[0]}x{MIN_SIZE[1]} and "
                             f"{MAX_SIZE[0]}x{MAX_SIZE[1]}, got {w}x{h}")
    if suffix == ".mp4" and (w % 2 or h % 2):
        raise RecordingError(f"an MP4 needs an even width and height, got {w}x{h}")
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        raise RecordingError(f"--seconds must be more than 0 and at most {MAX_SECONDS:g}, got {seconds:g}")
    if not (math.isfinite(fps) and 1 <= fps <= MAX_FPS):
        raise RecordingError(f"--fps must be between 1 and {MAX_FPS}, got {fps:g}")
    total = w * h * frame_count(seconds, fps)
    if total > MAX_TOTAL_PIXELS:
        raise RecordingError(f"{w}x{h} at {fps:g} frames/s for {seconds:g} s is {total / 1e9:.1f} gigapixels to draw; "
                             f"the limit is {MAX_TOTAL_PIXELS / 1e9:.1f} (1920x1080 at 60 frames/s for 120 s): "
                             "choose a smaller size, rate or length")
    if suffix == ".mp4":
        mp4_encoder()
    else:
        try:
            import PIL.Image  # noqa: F401
        except ImportError:
            raise RecordingError("a GIF needs the Pillow package (pip install Pillow)") from None
    return suffix


def mp4_encoder():
    """imageio-ffmpeg (an optional extra: pip install 'memory-wall[video]'), or RecordingError."""
    try:
        import imageio_ffmpeg
        imageio_ffmpeg.get_ffmpeg_exe()
    except (ImportError, RuntimeError) as exc:
        raise RecordingError("MP4 needs the optional imageio-ffmpeg package (pip install imageio-ffmpeg), "
                             f"which is not usable here ({type(exc).__name__}); a .gif needs nothing extra") from None
    return imageio_ffmpeg


def frame_count(seconds: float, fps: float) -> int:
    return max(1, int(round(seconds * fps)))


def gif_durations_ms(frames: int, fps: float) -> list[int]:
    """Per-frame delays in ms, whole centiseconds, adding up to frames / fps (to the cs)."""
    edges = [int(round(100 * k / fps)) for k in range(frames + 1)]
    return [10 * max(1, b - a) for a, b in zip(edges, edges[1:])]


def glide_plan(states: int, frames: int, fps: float, glide_s: float = GLIDE_S) -> list[tuple[int, int, float]]:
    """For each frame: (from state, to state, linear fraction of the glide), at t = k / fps.
    The recording's time is split evenly over the states; each part but the first opens with
    a glide from the previous state."""
    total_s = frames / fps
    part_s = total_s / max(1, states)
    glide = min(glide_s, part_s / 2)
    plan = []
    for k in range(frames):
        t = k / fps
        j = min(states - 1, int(t // part_s))
        local = t - j * part_s
        if j > 0 and local < glide:
            plan.append((j - 1, j, local / glide))
        else:
            plan.append((j, j, 1.0))
    return plan


# ---------------------------------------------------------------- frames

def chip_frames(scenario, size: tuple[int, int], fps: float, frames: int, theme_name: str) -> Iterator:
    """QImages of the animated chip, one every 1 / fps seconds of chip-view time."""
    from ui.kit import theme as th
    from ui.present.offscreen import OffscreenChip
    chip = OffscreenChip(scenario, th.get_theme(theme_name, th.type_scale(size[1], False)), size)
    chip.view.set_controls_visible(False)          # the frames are the chip, not its Pause/Step/speed bar
    try:
        for _ in range(frames):
            yield chip.image()
            chip.advance(1.0 / fps)
    finally:
        chip.close()


def serve_frames(scenario, serving, size: tuple[int, int], fps: float, frames: int, theme_name: str) -> Iterator:
    """QImages of the Serve page on its own controller: the run simulated once, then its queue
    moving 1 / fps seconds of screen time per frame (the page's own clock, never the wall's)."""
    from ui.kit import theme as th
    from ui.state.controller import Controller
    from ui.present.offscreen import Host
    from ui.serve.page import ServePage
    t = th.get_theme(theme_name, th.type_scale(size[1], False))
    controller = Controller(scenario, serving=serving)
    page = ServePage(controller, t)
    host = Host(page, t, size)
    page.settle(SERVE_PREROLL_FRAMES)           # a few seconds in: the batch has formed
    if page.run is None:
        host.close()
        raise RecordingError(f"the Serve page cannot run this: {page.problem.text()}")
    try:
        for _ in range(frames):
            yield host.image()
            page.queue.advance(1.0 / fps)
    finally:
        host.close()


def chapter_frames(number: int, size: tuple[int, int], fps: float, frames: int, theme_name: str) -> Iterator:
    """QImages of chapter ``number`` gliding through its prepared states (its chip, if it has
    one, moving 1 / fps seconds per frame)."""
    from ui.kit import theme as th
    from ui.present.offscreen import OffscreenChapter, advance_animations, eased
    chapter = OffscreenChapter(number, th.get_theme(theme_name, th.type_scale(size[1], False)), size)
    try:
        chapter.show_state(0)
        for a, b, f in glide_plan(len(chapter.states), frames, fps):
            chapter.show_between(a, b, eased(f))
            yield chapter.image()
            advance_animations(chapter.host, 1.0 / fps)
    finally:
        chapter.close()


def to_pil(image):
    """A QImage as a Pillow RGB image (copied)."""
    from PIL import Image
    from PySide6.QtGui import QImage
    rgb = image.convertToFormat(QImage.Format_RGB888)
    return Image.frombuffer("RGB", (rgb.width(), rgb.height()), bytes(rgb.constBits()), "raw", "RGB",
                            rgb.bytesPerLine(), 1).copy()


# ---------------------------------------------------------------- encoders

def write_gif(path: str, images: Iterator, frames: int, fps: float, progress: Callable[[int], None]) -> None:
    """An endlessly looping GIF, written frame by frame as the frames are drawn (memory does not
    grow with the length: one frame waits, to take the time of identical ones after it, and one
    is kept to compare with). Each frame: a 256-colour octree palette of its own, no dither, so
    the flat colours of the legend survive; stored as the rectangle that changed since the frame
    before (disposal 1: the rest stays); an identical frame lengthens the one before (a held
    state). Pillow's legacy frame-by-frame writer (GifImagePlugin.getheader/getdata) encodes."""
    from PIL import GifImagePlugin, Image, ImageChops

    durations = gif_durations_ms(frames, fps)
    with open(path, "wb") as fp:
        pending = None                     # [palette image (cropped), offset, duration ms, first?]
        shown = None                       # the last frame as a viewer shows it (RGB)
        for k, img in enumerate(images):
            q = to_pil(img).quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
            rgb = q.convert("RGB")
            delay = durations[min(k, len(durations) - 1)]
            box = None if shown is None else ImageChops.difference(shown, rgb).getbbox()
            if shown is not None and box is None:
                pending[2] += delay        # the same picture: the frame before lasts longer
            else:
                if pending is not None:
                    _write_gif_frame(fp, *pending)
                if shown is None:
                    header, _ = GifImagePlugin.getheader(q, None, {"loop": 0})
                    fp.write(b"".join(header))
                    pending = [q, (0, 0), delay, True]
                else:
                    pending = [q.crop(box) if box != (0, 0, *q.size) else q, box[:2], delay, False]
            shown = rgb
            progress(k + 1)
        if pending is None:
            raise RecordingError("no frames were drawn")
        _write_gif_frame(fp, *pending)
        fp.write(b";")                     # the GIF trailer


def _write_gif_frame(fp, image, offset: tuple[int, int], duration_ms: int, first: bool) -> None:
    """One frame: its delay, disposal 1 (keep what is not redrawn); after the first, its own palette."""
    from PIL import GifImagePlugin
    params = {"duration": duration_ms, "disposal": 1}
    if not first:
        params["include_color_table"] = True
    for chunk in GifImagePlugin.getdata(image, offset, **params):
        fp.write(chunk)


def write_mp4(path: str, images: Iterator, size: tuple[int, int], fps: float,
              progress: Callable[[int], None]) -> None:
    """H.264 in an MP4 through imageio-ffmpeg (yuv420p, plays in slide tools and browsers)."""
    iio = mp4_encoder()
    writer = iio.write_frames(path, size, fps=fps, codec="libx264", pix_fmt_in="rgb24", pix_fmt_out="yuv420p",
                              macro_block_size=2, quality=7, output_params=["-movflags", "+faststart"])
    writer.send(None)
    try:
        for k, img in enumerate(images):
            writer.send(to_pil(img).tobytes())
            progress(k + 1)
    finally:
        writer.close()


# ---------------------------------------------------------------- one call

def record(path: str, *, chapter: int | None = None, scenario=None, seconds: float | None = None,
           size: tuple[int, int] = DEFAULT_SIZE, fps: float = DEFAULT_FPS, theme: str = "dark",
           progress: Callable[[int], None] = lambda _k: None, page: str | None = None,
           serving=None, overwrite: bool = False) -> Recording:
    """Draw and encode a recording; RecordingError (one line) when it cannot be made. An existing
    file is replaced only with ``overwrite`` (the dialog asked; --force)."""
    from model.files.safe_io import SafeIOError, atomic_write_with, check_writable_target
    from model.lessons.chapters import default_chapters
    if chapter is not None and not 1 <= int(chapter) <= len(default_chapters()):
        raise RecordingError(f"--chapter must be 1-{len(default_chapters())}, got {chapter}")
    seconds = planned_seconds(chapter, seconds)
    suffix = check_request(path, size, float(seconds), float(fps))
    try:
        check_writable_target(path, overwrite)           # before a single frame is drawn
    except SafeIOError as exc:
        raise RecordingError(f"{exc}{'' if overwrite else ' (add --force to replace it)'}") from None
    frames = frame_count(seconds, fps)
    if page == "serve":
        from model import Scenario
        images, what = serve_frames(scenario or Scenario(), serving, size, fps, frames, theme), "the Serve page"
    elif chapter is None:
        from model import Scenario
        images, what = chip_frames(scenario or Scenario(), size, fps, frames, theme), "the chip"
    else:
        images, what = chapter_frames(int(chapter), size, fps, frames, theme), f"chapter {chapter}"
    try:       # a unique temporary file beside it (model/files/safe_io.py), placed when complete
        atomic_write_with(path, lambda tmp: write_gif(tmp, images, frames, fps, progress) if suffix == ".gif"
                          else write_mp4(tmp, images, size, fps, progress), overwrite=overwrite)
    except SafeIOError as exc:
        raise RecordingError(str(exc), getattr(exc, "status", 2)) from None
    except MemoryError:
        raise RecordingError(f"not enough memory to record {path}; nothing was written") from None
    finally:
        images.close()
    return Recording(str(path), what, frames, stored_frames(path, frames), frames / fps, tuple(size), float(fps),
                     os.path.getsize(path))


def stored_frames(path: str, drawn: int) -> int:
    """How many frames the file holds (read back with Pillow for a GIF)."""
    if Path(path).suffix.lower() != ".gif":
        return drawn
    from PIL import Image
    with Image.open(path) as im:
        return int(getattr(im, "n_frames", 1))


def planned_seconds(chapter: int | None, seconds: float | None) -> float:
    """How long a recording runs: as asked, else 3 s of the chip or 2 s per state of the chapter."""
    if seconds is not None:
        return seconds
    from model.lessons.chapters import default_chapters
    return DEFAULT_CHIP_S if chapter is None else DEFAULT_STATE_S * len(default_chapters()[chapter - 1].states)


def record_cli(path: str, *, chapter: int | None, scenario, seconds: float | None, size: tuple[int, int] | None,
               fps: float | None, theme: str | None, page: str | None = None, serving=None,
               overwrite: bool = False, report: Callable[[int, int, str], None] | None = None, say=None,
               shown_as: str | None = None) -> int:
    """main.py --record: 0 and one line on ``say`` (default stdout; the file named ``shown_as`` when
    given), or 2 (what was asked) or 1 (a write that failed) and one line on stderr; ``report(done,
    total, label)`` after each frame (the command line's progress on stderr)."""
    import sys
    if os.environ.get("QT_QPA_PLATFORM") is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"      # drawn off screen; no display needed
    import signal
    interrupted: list[int] = []

    def progress(k: int) -> None:
        if interrupted:                 # between frames: the temporary file goes, nothing is left
            raise RecordingError("interrupted (Ctrl+C); nothing was written")
        if report is not None:
            try:
                total = frame_count(planned_seconds(chapter, seconds), DEFAULT_FPS if fps is None else fps)
            except (ValueError, IndexError, ZeroDivisionError):
                return
            report(k, total, "drawing and encoding the frames")      # k done; at the last, the line goes
    # Ctrl+C is noted and acted on between frames: an exception raised inside Qt's drawing (where a
    # KeyboardInterrupt would land) can crash the process on its way out
    before = signal.signal(signal.SIGINT, lambda *_: interrupted.append(1))
    try:
        from ui.kit.qt_app import ensure_app
        ensure_app()
        import pyqtgraph as pg
        pg.setConfigOptions(antialias=True, useOpenGL=False)
        from ui.plotting.scatter import let_go_of_spots
        let_go_of_spots()                  # a scatter's points do not outlive its setData (ui/plotting/scatter.py)
        rec = record(path, chapter=chapter, scenario=scenario, seconds=seconds, size=size or DEFAULT_SIZE,
                     fps=DEFAULT_FPS if fps is None else fps, theme=theme or "dark", page=page, serving=serving,
                     overwrite=overwrite, progress=progress)
    except RecordingError as exc:
        print(f"memory-wall: {exc}" if interrupted else f"error: {exc}", file=sys.stderr)
        return 130 if interrupted else exc.status
    finally:
        signal.signal(signal.SIGINT, before)
    print((dataclasses.replace(rec, path=shown_as) if shown_as else rec).summary(), file=say or sys.stdout)
    return 0
