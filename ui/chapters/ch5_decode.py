"""Lesson 5: why decode is memory-bound.

The animated hierarchy (ui.hierarchy_view) with the tensor cores starving, and beside it
the Estimate's floor: every weight read once per token, time ≥ bytes ÷ bandwidth, and the
HBM bar that says whether it even fits.
"""
from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from model.format import duration, percent, si, sig3
from ui import theme as th
from ui.chapters.base import ChapterView
from ui.gauges import HbmBar


def make_hierarchy(controller):
    """The animated hierarchy, or a labelled placeholder if it cannot be built here."""
    try:
        from ui.hierarchy_view import HierarchyView
        return HierarchyView(controller)
    except Exception as exc:   # the lesson still shows its numbers without the animation
        lab = QLabel(f"(the animated hierarchy is unavailable: {type(exc).__name__})")
        lab.setObjectName("chapterNote")
        return lab


class DecodeChapter(ChapterView):
    has_side = False

    def build(self) -> None:
        self.estimate = None
        row = QHBoxLayout()
        row.setSpacing(8)
        self.hierarchy = make_hierarchy(self.controller)
        self.hierarchy.setObjectName("chapterHierarchy")
        row.addWidget(self.hierarchy, 3)
        facts = QWidget()
        facts.setObjectName("chapterFacts")
        fl = QVBoxLayout(facts)
        fl.setContentsMargins(6, 4, 6, 4)
        fl.setSpacing(6)
        self.floor_title = QLabel("FLOOR: TIME PER TOKEN")
        self.floor_title.setObjectName("chartTitle")
        self.floor_value = QLabel("—")
        self.floor_value.setObjectName("chapterBig")
        self.floor_eq = self.note_label(name="chapterValue")
        self.real_value = self.note_label(name="chapterValue")
        self.hbm_title = QLabel("HBM PER GPU")
        self.hbm_title.setObjectName("chartTitle")
        self.hbm = HbmBar()
        self.hbm_note = self.note_label(name="chapterValue")
        self.hint = self.note_label(
            "Change the model, precision, GPU or batch in the controls: the floor follows the bytes read, "
            "not the FLOP/s.")
        for w in (self.floor_title, self.floor_value, self.floor_eq, self.real_value, self.hbm_title, self.hbm,
                  self.hbm_note, self.hint):
            fl.addWidget(w)
        fl.addStretch(1)
        row.addWidget(facts, 2)
        self.facts = facts
        self.chart_lay.addLayout(row, 1)

    def apply_plot_theme(self, t: th.Theme) -> None:
        self.hbm.set_theme(t)
        if hasattr(self.hierarchy, "set_theme"):    # not the placeholder label
            self.hierarchy.set_theme(t)

    def update_view(self, e) -> None:
        self.estimate = e
        s = e.scenario
        self.floor_value.setText(duration(e.decode_floor_ms_per_token / 1e3))
        self.floor_value.setStyleSheet(f"color: {th.ORANGE if e.bound == 'memory' else th.BLUISH_GREEN};")
        read = e.weight_bytes_per_step + e.kv_bytes_per_step + e.activation_bytes_per_step
        self.floor_eq.setText(
            f"{si(read, 'B')} read per step per GPU<br>÷ {si(e.peak_bandwidth_bytes_per_s, 'B/s')} HBM<br>"
            f"weights {si(e.weight_bytes_per_step, 'B')} · KV {si(e.kv_bytes_per_step, 'B')}<br>"
            f"{sig3(e.arithmetic_intensity_flops_per_byte)} FLOP per byte (ridge {sig3(e.ridge_flops_per_byte)})")
        self.real_value.setText(
            f"Realistic: <b>{duration(e.decode_ms_per_token / 1e3)}</b>/token · "
            f"{si(e.output_tokens_per_s, 'tok/s')} at batch {s.batch}<br>"
            f"Tensor cores busy <b>{percent(e.mfu)}</b> · HBM busy <b>{percent(e.mbu)}</b>")
        need, cap = e.memory_needed_bytes_per_gpu, e.hbm_capacity_bytes
        self.hbm.set_values(cap, e.weight_bytes_per_gpu, e.kv_cache_bytes_per_gpu, e.workspace_bytes_per_gpu, e.fits,
                            f"{si(need, 'B')} of {si(cap, 'B')}" + ("" if e.fits else " — DOES NOT FIT"))
        if e.fits:
            self.hbm_note.setText(f"{e.model_name} {e.precision_name} fits: {si(need, 'B')} of {si(cap, 'B')} "
                                  f"on each of {s.gpus} GPU{'s' if s.gpus > 1 else ''}.")
        else:
            self.hbm_note.setText(f"<span style='color:{th.VERMILLION}; font-weight:600'>Does not fit: "
                                  f"{si(need, 'B')} needed, {si(cap, 'B')} on the card.</span> "
                                  f"The floor is what it would take if it did.")

    def csv_rows(self):
        e = self.estimate
        keys = ("decode_floor_ms_per_token", "decode_ms_per_token", "weight_bytes_per_step", "kv_bytes_per_step",
                "activation_bytes_per_step", "peak_bandwidth_bytes_per_s", "arithmetic_intensity_flops_per_byte",
                "ridge_flops_per_byte", "mbu", "mfu", "output_tokens_per_s", "memory_needed_bytes_per_gpu",
                "hbm_capacity_bytes", "fits", "bound")
        s = e.scenario
        return ["quantity", "value"], [["gpu", s.gpu], ["model", s.model], ["precision", s.precision],
                                       ["batch", s.batch], ["gpus", s.gpus]] + [[k, getattr(e, k)] for k in keys]
