"""Floor 11 — the eight lessons, one view per chapter (see base.ChapterView)."""
from __future__ import annotations

from ui.chapters.base import SHORT_TITLES, ChapterView


def chapter_class(number: int) -> type[ChapterView]:
    from ui.chapters.ch1_generations import GenerationsChapter
    from ui.chapters.ch2_gpu_shape import GpuShapeChapter
    from ui.chapters.ch3_hierarchy import HierarchyChapter
    from ui.chapters.ch4_roofline import RooflineChapter
    from ui.chapters.ch5_decode import DecodeChapter
    from ui.chapters.ch6_batching import BatchingChapter
    from ui.chapters.ch7_precision import PrecisionChapter
    from ui.chapters.ch8_multi_gpu import MultiGpuChapter
    return {1: GenerationsChapter, 2: GpuShapeChapter, 3: HierarchyChapter, 4: RooflineChapter, 5: DecodeChapter,
            6: BatchingChapter, 7: PrecisionChapter, 8: MultiGpuChapter}[number]


__all__ = ["ChapterView", "SHORT_TITLES", "chapter_class"]
