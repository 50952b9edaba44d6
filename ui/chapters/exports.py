"""A lesson chart's exports: the chart as PNG or SVG, the numbers behind it as CSV.

Mixed into ui.chapters.base.ChapterView (needs ``self.chart``, ``self.chapter``,
``self.ensure_fresh()`` and ``self.csv_rows()``). A folder, FIFO, read-only or missing target
is refused with SafeIOError, in one line, before anything is written.
"""
from __future__ import annotations

import base64
import csv
import math

import numpy as np
from PySide6.QtCore import QBuffer, QIODevice, QPoint, QRect
from PySide6.QtGui import QPainter

from model.files.safe_io import check_writable_target


class ChartExports:
    """export_png / export_svg / export_csv of a lesson view (see the module docstring)."""

    def export_png(self, path: str) -> bool:
        check_writable_target(path)
        self.ensure_fresh()
        return bool(self.chart.grab().save(str(path), "PNG"))

    def export_svg(self, path: str) -> bool:
        """Vector SVG through QtSvg when it is there; otherwise an SVG wrapping the PNG."""
        check_writable_target(path)      # QSvgGenerator would wait forever on a FIFO, and warn on a missing folder
        self.ensure_fresh()
        size = self.chart.size()
        title = f"Memory Wall — chapter {self.chapter.number}: {self.chapter.title}"
        try:
            from PySide6.QtSvg import QSvgGenerator
        except ImportError:
            QSvgGenerator = None
        if QSvgGenerator is not None:
            gen = QSvgGenerator()
            gen.setFileName(str(path))
            gen.setSize(size)
            gen.setViewBox(QRect(0, 0, size.width(), size.height()))
            gen.setTitle(title)
            painter = QPainter()
            if not painter.begin(gen):
                return False
            try:
                self.chart.render(painter, QPoint(0, 0))
            finally:
                painter.end()
            return True
        buf = QBuffer()
        buf.open(QIODevice.WriteOnly)
        self.chart.grab().save(buf, "PNG")
        data = base64.b64encode(bytes(buf.data())).decode("ascii")
        w, h = size.width(), size.height()
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
                     f'width="{w}" height="{h}" viewBox="0 0 {w} {h}"><title>{title}</title>'
                     f'<image width="{w}" height="{h}" xlink:href="data:image/png;base64,{data}"/></svg>\n')
        return True

    def export_csv(self, path: str) -> bool:
        check_writable_target(path)
        self.ensure_fresh()
        header, rows = self.csv_rows()
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            for r in rows:
                w.writerow([_cell(v) for v in r])
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
