"""A lesson chart's exports: the chart as PNG or SVG, the numbers behind it as CSV.

Mixed into ui.chapters.base.ChapterView (needs ``self.chart``, ``self.chapter``,
``self.ensure_fresh()`` and ``self.csv_rows()``). A folder, FIFO, read-only or missing target
is refused with SafeIOError, in one line, before anything is written; so is an existing file
unless ``overwrite``. Each file is made in memory and written by model/files/safe_io.py
(unique temporary file, fsync, link/rename), so a full disk keeps the old file.
"""
from __future__ import annotations

import base64
import csv
import io
import math

import numpy as np
from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRect
from PySide6.QtGui import QPainter

from model.files.safe_io import SafeIOError, atomic_write_bytes, check_writable_target


def image_bytes(image, fmt: str = "PNG") -> bytes:
    """A QPixmap/QImage encoded in memory (then written by safe_io: a full disk keeps the old file)."""
    buf = QBuffer()
    buf.open(QIODevice.WriteOnly)
    if not image.save(buf, fmt):
        raise SafeIOError(f"the {fmt} image could not be encoded")
    return bytes(buf.data())


class ChartExports:
    """export_png / export_svg / export_csv of a lesson view (see the module docstring). An existing
    file is replaced only with ``overwrite`` (the Export dialog asked)."""

    def export_png(self, path: str, overwrite: bool = False) -> bool:
        check_writable_target(path, overwrite)
        self.ensure_fresh()
        atomic_write_bytes(path, image_bytes(self.chart.grab()), overwrite)
        return True

    def export_svg(self, path: str, overwrite: bool = False) -> bool:
        """Vector SVG through QtSvg when it is there; otherwise an SVG wrapping the PNG. Drawn into
        memory, then written whole (never "exported" for a truncated file)."""
        check_writable_target(path, overwrite)
        self.ensure_fresh()
        size = self.chart.size()
        title = f"Memory Wall — chapter {self.chapter.number}: {self.chapter.title}"
        try:
            from PySide6.QtSvg import QSvgGenerator
        except ImportError:
            QSvgGenerator = None
        if QSvgGenerator is not None:
            buf = QBuffer()
            buf.open(QIODevice.WriteOnly)
            gen = QSvgGenerator()
            gen.setOutputDevice(buf)
            gen.setSize(size)
            gen.setViewBox(QRect(0, 0, size.width(), size.height()))
            gen.setTitle(title)
            painter = QPainter()
            if not painter.begin(gen):
                raise SafeIOError(f"cannot save {path}: the SVG could not be drawn")
            try:
                self.chart.render(painter, QPoint(0, 0))
            finally:
                painter.end()
            data = bytes(buf.data())
        else:
            png = base64.b64encode(image_bytes(self.chart.grab())).decode("ascii")
            w, h = size.width(), size.height()
            data = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
                    f'width="{w}" height="{h}" viewBox="0 0 {w} {h}"><title>{title}</title>'
                    f'<image width="{w}" height="{h}" xlink:href="data:image/png;base64,{png}"/></svg>\n').encode("utf-8")
        if b"</svg>" not in data[-64:]:
            raise SafeIOError(f"cannot save {path}: the SVG came out incomplete")
        atomic_write_bytes(path, data, overwrite)
        return True

    def export_csv(self, path: str, overwrite: bool = False) -> bool:
        check_writable_target(path, overwrite)
        self.ensure_fresh()
        header, rows = self.csv_rows()
        out = io.StringIO(newline="")
        w = csv.writer(out)
        w.writerow(header)
        for r in rows:
            w.writerow([_cell(v) for v in r])
        atomic_write_bytes(path, out.getvalue().encode("utf-8"), overwrite)
        return True


def _cell(v):
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return "" if not math.isfinite(v) else repr(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if v is None:
        return ""
    return v
