"""Render every lesson chapter at 1920×1080 into docs/screenshots/chapters/chNN.png.

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots/make_chapter_shots.py [--presenter] [--size WxH]

Each shot is the Lessons page at the chapter's first prepared state (the same path as
``main.py --screenshot out.png --chapter N``).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presenter", action="store_true")
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshots" / "chapters"))
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    from ui.app import build_window, ensure_app, render_png
    ensure_app()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for n in range(1, 9):
        window = build_window(None, st=None)
        window.show_chapter(n)
        if args.presenter:
            window.enter_presenter(fullscreen=False)
        suffix = "-presenter" if args.presenter else ""
        path = out / f"ch{n:02d}{suffix}.png"
        if not render_png(window, str(path), (w, h)):
            print(f"could not write {path}", file=sys.stderr)
            return 1
        print(path)
        window.close()
        window.deleteLater()
    return 0


if __name__ == "__main__":
    sys.exit(main())
