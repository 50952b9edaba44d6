"""Render every lesson chapter state in presenter mode into docs/screenshots/chapters/.

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/make_chapter_shots.py
        [--sizes 1920x1080,1280x720,1024x768] [--chapters 1,2] [--window] [--out DIR]

Each shot is the Lessons page at one prepared state (the path of ``main.py --screenshot
out.png --chapter N --presenter``), named chNN-sK-WxH.png; --window shots the normal
(non-presenter) window instead, named chNN-sK-window-WxH.png. The PNGs are palette-
quantised with Pillow when it is installed, to keep the repository small.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def shrink(path: Path) -> None:
    """Palette-quantise a screenshot (the UI has few colours), when Pillow is there. Octree, not
    median cut: median cut gave a small swatch's colour to a larger neighbour's (lesson 5's pink KV
    cache swatch came out grey at 1024×768)."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=128, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    small.save(path, optimize=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1920x1080,1280x720,1024x768")
    ap.add_argument("--chapters", default="1,2,3,4,5,6,7,8")
    ap.add_argument("--window", action="store_true", help="the normal window, not presenter mode")
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshots" / "chapters"))
    args = ap.parse_args()
    from model.lessons.chapters import default_chapters
    from ui.shell.app import build_window, ensure_app, render_png
    ensure_app()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chapters = {c.number: c for c in default_chapters()}
    for size in args.sizes.split(","):
        w, h = (int(v) for v in size.split("x"))
        for n in (int(v) for v in args.chapters.split(",")):
            for k in range(len(chapters[n].states)):
                window = build_window(None, st=None)
                window.show_chapter(n, k)
                if not args.window:
                    window.enter_presenter(fullscreen=False)
                    window.show_chapter(n, k)
                path = out / f"ch{n:02d}-s{k + 1}{'-window' if args.window else ''}-{w}x{h}.png"
                if not render_png(window, str(path), (w, h)):
                    print(f"could not write {path}", file=sys.stderr)
                    return 1
                shrink(path)
                print(path)
                window.close()
                window.deleteLater()
    return 0


if __name__ == "__main__":
    sys.exit(main())
