"""The window's command line: open it, render it offscreen, record it (the window only when asked).

    main.py [scenario.json] [scenario flags] [--screenshot PNG --size WxH] [--chapter N]
            [--page explore|serve|plan|lessons] [--presenter] [--record OUT.gif] [--smoke]
Qt and ui/ are imported only here, inside ``run_app``, after the flags were checked.
"""
from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager

from cli.args import COMMANDS, Parser, UsageError, add_scenario_flags, positive_int, prog_name, scenario_from_args
from cli.custom import add_custom_flags, apply_custom_flags
from cli.output import STDOUT, report_stream, target, write_bytes
from model import estimate
from model.files.scenario_file import load_scenario_with_chapter


def build_app_parser() -> argparse.ArgumentParser:
    p = Parser(prog=prog_name(), description="Memory Wall: open the window (or render it offscreen).",
               epilog=f"Commands: {', '.join(COMMANDS)} ({prog_name()} COMMAND --help)")
    p.add_argument("scenario_file", nargs="?", help="a saved scenario (.json) to open")
    add_scenario_flags(p, defaults=False)
    p.add_argument("--screenshot", metavar="PNG", help="render offscreen and write an image (.png, .jpg, .jpeg "
                                                        "or .bmp: the name's ending picks the format; -: a PNG on "
                                                        "standard output), then exit")
    p.add_argument("--size", default=None, help="window size for --screenshot, e.g. 1600x900")
    p.add_argument("--view", default="main", choices=("main", "hierarchy"))
    p.add_argument("--page", default=None, choices=("explore", "serve", "plan", "lessons"),
                   help="open on this page (serve: the scenario under a stream of requests; plan: the frontier "
                        "and the cheapest setup; --record: explore, serve or lessons)")
    p.add_argument("--chapter", type=positive_int("chapter"), default=None, help="open lesson N (1-8)")
    p.add_argument("--presenter", action="store_true", help="start in presenter mode")
    p.add_argument("--theme", choices=("dark", "light"), default=None)
    p.add_argument("--large-text", action="store_true")
    p.add_argument("--smoke", action="store_true", help="start, render every view once, exit 0")
    p.add_argument("--first-paint", action="store_true", help=argparse.SUPPRESS)  # benches: paint once, exit
    p.add_argument("--record", metavar="OUT.gif", help="record the chip (or --chapter N gliding through its "
                   "states) as a looping GIF or an MP4, then exit (ui/present/recording.py; -: a GIF on standard "
                   "output)")
    p.add_argument("--force", action="store_true", help="let --record replace an existing file")
    p.add_argument("--seconds", type=float, default=None, help="length of --record (default 3; 2 per state)")
    p.add_argument("--fps", type=float, default=None, help="frames per second of --record (default 20)")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    add_custom_flags(p)
    return p


SCREENSHOT_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")     # what ui/shell/app.py writes, by the name's ending


def check_screenshot_name(path: str) -> None:
    """A screenshot's name must say an image format Qt writes (never PNG bytes in a .txt; "-":
    a PNG on standard output)."""
    if path != STDOUT and not path.lower().endswith(SCREENSHOT_SUFFIXES):
        raise UsageError(f"--screenshot {path}: the name must end in {', '.join(SCREENSHOT_SUFFIXES[:-1])} or "
                         f"{SCREENSHOT_SUFFIXES[-1]} (the ending picks the image format)")


def parse_size(text: str | None):
    if not text:
        return None
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size must look like 1600x900, got '{text}'") from None
    if not (320 <= w <= 7680 and 240 <= h <= 4320):
        raise UsageError(f"--size must be between 320x240 and 7680x4320, got '{text}'")
    return w, h


def run_app(argv: list[str]) -> int:
    args = build_app_parser().parse_args(argv)
    if args.version:
        from cli.version import print_version
        return print_version()
    if args.screenshot is not None:
        check_screenshot_name(args.screenshot)
        target(args.screenshot, "--screenshot", overwrite=True)     # before anything is drawn
    if args.record is not None and not args.record.strip():
        raise UsageError("--record needs a file name ('-' for standard output)")
    apply_custom_flags(args, argv)
    base, chapter, serving, planning = None, args.chapter, None, None
    if args.scenario_file:
        _not_a_command_typo(args.scenario_file)
        base, saved_chapter = load_scenario_with_chapter(args.scenario_file)
        chapter = chapter or saved_chapter
        from model.files.scenario_file import read_scenario_document
        from model.planning.settings import PlanSettings
        from model.serving.setup import serving_from_document
        doc = read_scenario_document(args.scenario_file)
        serving = serving_from_document(doc, args.scenario_file)
        planning = PlanSettings.from_dict(doc["planning"]) if doc.get("planning") is not None else None
    if chapter is not None and not 1 <= chapter <= 8:
        raise UsageError(f"--chapter must be 1-8, got {chapter}")
    flags_given = any(getattr(args, k) is not None for k in ("gpu", "model", "precision", "kv_precision", "batch",
                                                              "gpus", "interconnect", "input_len", "output_len", "phase",
                                                              "engine"))
    scenario = scenario_from_args(args, base) if (base or flags_given) else None
    if scenario is not None:
        estimate(scenario)  # validate before any window opens: bad flags exit 2 with one line
    if args.screenshot or args.smoke or args.first_paint:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from ui.kit.qt_app import qt_startup_error
    except ImportError as exc:
        print(f"{prog_name()}: the window needs PySide6 and pyqtgraph ({exc}); run `make run` to set them up",
              file=sys.stderr)
        return 2
    problem = qt_startup_error()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if args.record is not None:
        from ui.kit import quick_start
        quick_start.end()       # no main window paints here
        from cli.progress import progress
        from ui.present.recording import record_cli
        with progress("--record") as p, _through_stdout(args.record, ".gif") as path:
            return record_cli(path, chapter=chapter, scenario=scenario, seconds=args.seconds,
                              size=parse_size(args.size), fps=args.fps, theme=args.theme, page=args.page,
                              serving=serving, overwrite=args.force or path != args.record, report=p,
                              say=report_stream(args.record), shown_as=_shown(args.record))
    from ui.shell.app import run
    with _through_stdout(args.screenshot, ".png") as shot:
        rc = run(scenario, screenshot=shot, size=parse_size(args.size), view=args.view,
                 chapter=chapter, presenter=args.presenter, smoke=args.smoke, theme=args.theme,
                 large_text=args.large_text, first_paint=args.first_paint,
                 page=args.page or ("serve" if serving is not None and chapter is None else None), serving=serving,
                 planning=planning)
        if rc == 0 and (args.smoke or args.screenshot):
            _say_done(shot if not args.smoke else None, report_stream(args.screenshot), _shown(args.screenshot))
    return rc


@contextmanager
def _through_stdout(path: str | None, suffix: str):
    """An output flag's path to write to: itself, or for "-" a file in a temporary folder whose
    bytes go to standard output once it is written (a GIF, a PNG)."""
    if path != STDOUT:
        yield path
        return
    import tempfile
    with tempfile.TemporaryDirectory(prefix="memory-wall-") as folder:
        tmp = os.path.join(folder, "output" + suffix)
        yield tmp
        if os.path.isfile(tmp):
            with open(tmp, "rb") as fh:
                write_bytes(STDOUT, fh.read())


def _shown(path: str | None) -> str | None:
    """How an output flag's target is named in the line that says it was written."""
    return "standard output" if path == STDOUT else path


def _say_done(screenshot: str | None, say=None, shown_as: str | None = None) -> None:
    """One line on success (on ``say``, default stdout): the image written (named ``shown_as``)
    and its size, or that every view rendered."""
    from model.readouts.command_line import smoke_passed, wrote_image
    if screenshot is None:
        print(smoke_passed(), file=say)
        return
    from PySide6.QtGui import QImageReader
    size = QImageReader(screenshot).size()
    print(wrote_image(shown_as or screenshot, size.width(), size.height()), file=say)


def _not_a_command_typo(word: str) -> None:
    """`main.py estimat` is a mistyped command, not a missing scenario file."""
    if os.path.lexists(word) or word.lower().endswith(".json"):
        return
    from model.readouts.command_line import unknown_command_text
    raise UsageError(unknown_command_text(word, COMMANDS))
