"""Gauges: big numbers from the Estimate, the binding roof, and the HBM bar per GPU.

Every number is a field of model.Estimate, formatted by model.format (3 significant
figures, units always). Tooltips give the same numbers with their definitions.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (QFrame, QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QToolTip, QVBoxLayout,
                               QWidget)

from model.format import duration, percent, si, sig3
from ui import theme as th


def usd(x: float) -> str:
    return f"${sig3(x)}"


class Gauge(QFrame):
    """A title, one large number (with its unit) and a small line beneath."""

    def __init__(self, key: str, title: str, parent=None):
        super().__init__(parent)
        self.key = key
        self.setObjectName("gauge")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        lay.setSpacing(0)
        self.title = QLabel(title)
        self.title.setObjectName("gaugeTitle")
        self.value = QLabel("—")
        self.value.setObjectName("gaugeValue")
        self.sub = QLabel("")
        self.sub.setObjectName("gaugeSub")
        for w in (self.title, self.value, self.sub):
            w.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
            lay.addWidget(w)
        self.value.setFont(_tabular(self.value.font()))

        self.base_px = 32

    def set(self, value: str, sub: str, tip: str) -> None:
        self.value.setText(value)
        self.sub.setText(sub)
        self.setToolTip(tip)
        self._fit()

    def set_base_px(self, px: int) -> None:
        self.base_px = px
        self._fit()

    def _fit(self) -> None:
        """Largest size up to base_px at which the number fits its column (never clipped)."""
        f = self.value.font()
        f.setPixelSize(self.base_px)
        f.setBold(True)
        from PySide6.QtGui import QFontMetrics
        need = QFontMetrics(f).horizontalAdvance(self.value.text()) + 2
        avail = max(40, self.value.width())
        px = self.base_px if need <= avail else max(12, int(self.base_px * avail / need))
        if px != getattr(self, "_px", None):     # the window's style sheet sets fonts: override per label
            self._px = px
            self.value.setStyleSheet(f"font-size: {px}px; font-weight: 700;")

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self._fit()


def _tabular(f: QFont) -> QFont:
    """Tabular figures, so digits do not jitter as numbers change."""
    try:
        f.setFeature(QFont.Tag("tnum"), 1)
    except (AttributeError, TypeError):
        pass
    return f


class HbmBar(QWidget):
    """Weights | KV cache | workspace | free, per GPU, against the HBM capacity.

    When the need exceeds the capacity the bar spans the need, the capacity is a marked
    line, the overflow is vermillion and the reason is written beneath."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(28)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.theme = th.DARK
        self.capacity = 1.0
        self.segments: list[tuple[str, float, str]] = []   # (name, bytes, colour)
        self.fits = True
        self.status_text = ""
        self.setMouseTracking(True)

    def set_values(self, capacity: float, weights: float, kv: float, workspace: float, fits: bool,
                   status: str = "") -> None:
        self.capacity = capacity
        self.status_text = status
        used = weights + kv + workspace
        t = self.theme
        self.segments = [("Weights", weights, th.ORANGE), ("KV cache", kv, th.REDDISH_PURPLE),
                         ("Workspace (activations, runtime)", workspace, t.workspace)]
        if used < capacity:
            self.segments.append(("Free", capacity - used, t.hbm_free))
        self.fits = fits
        self.update()

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.setFixedHeight(max(26, t.px(30)))
        self.update()

    def _scale(self) -> float:
        total = sum(b for _, b, _ in self.segments)
        return max(self.capacity, total, 1.0)

    def _rects(self):
        w = self.width() - 2
        scale = self._scale()
        x = 1.0
        for name, b, colour in self.segments:
            width = w * b / scale
            yield name, b, colour, QRectF(x, 1, width, self.height() - 2)
            x += width

    def paintEvent(self, _ev) -> None:
        p = QPainter(self)
        t = self.theme
        p.fillRect(self.rect(), QColor(t.hbm_free))
        for _name, _b, colour, r in self._rects():
            p.fillRect(r, QColor(colour))
        w = self.width() - 2
        cap_x = 1 + w * self.capacity / self._scale()
        if not self.fits:
            over = QRectF(cap_x, 1, self.width() - 1 - cap_x, self.height() - 2)
            p.fillRect(over, QBrush(QColor(th.VERMILLION), Qt.BDiagPattern))
            c = QColor(th.VERMILLION)
            c.setAlpha(90)
            p.fillRect(over, c)
            p.setPen(QPen(QColor(th.VERMILLION), 3))
            p.drawRect(QRectF(1.5, 1.5, self.width() - 3, self.height() - 3))
        p.setPen(QPen(QColor(t.text), 2))
        p.drawLine(int(cap_x), 0, int(cap_x), self.height())
        if self.status_text:
            f = p.font()
            f.setPixelSize(max(10, int(self.height() * 0.5)))
            f.setBold(True)
            p.setFont(f)
            fm = p.fontMetrics()
            tw, th_ = fm.horizontalAdvance(self.status_text) + 12, fm.height() + 2
            box = QRectF(self.width() - tw - 6, (self.height() - th_) / 2, tw, th_)
            back = QColor(t.bg)
            back.setAlpha(200)
            p.setPen(Qt.NoPen)
            p.setBrush(back)
            p.drawRoundedRect(box, 3, 3)
            p.setPen(QColor(th.VERMILLION if not self.fits else t.text))
            p.drawText(box, Qt.AlignCenter, self.status_text)
        p.end()

    def segment_at(self, x: float) -> str:
        for name, b, _c, r in self._rects():
            if r.left() <= x <= r.right():
                return f"{name}: {si(b, 'B')} per GPU ({percent(b / self.capacity)} of {si(self.capacity, 'B')})"
        return ""

    def event(self, ev) -> bool:
        if ev.type() == QEvent.ToolTip:
            text = self.segment_at(ev.pos().x())
            cap = f"HBM capacity {si(self.capacity, 'B')} per GPU (the white line)"
            QToolTip.showText(ev.globalPos(), f"{text}\n{cap}" if text else cap, self)
            return True
        return super().event(ev)


class GaugePanel(QWidget):
    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.setObjectName("panel")
        self.controller = controller
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 8)
        lay.setSpacing(4)

        head = QHBoxLayout()
        title = QLabel("GAUGES")
        title.setObjectName("sectionTitle")
        head.addWidget(title)
        head.addStretch(1)
        self.badge = QLabel("MEMORY-BOUND")
        self.badge.setObjectName("badge")
        head.addWidget(self.badge)
        lay.addLayout(head)

        grid = QGridLayout()
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(2)
        spec = [("ms_per_token", "Time per token (decode)"), ("tps_user", "Per user"), ("tps_group", "Whole group"),
                ("ttft", "Time to first token"), ("mbu", "MBU (HBM busy)"), ("mfu", "MFU (tensor cores busy)"),
                ("usd", "Cost per 1M tokens"), ("joules", "Energy per token"), ("e2e", "End-to-end request")]
        self.gauges: dict[str, Gauge] = {}
        for i, (key, name) in enumerate(spec):
            g = Gauge(key, name)
            self.gauges[key] = g
            grid.addWidget(g, i // 3, i % 3)
        for col in range(3):
            grid.setColumnStretch(col, 1)
        lay.addLayout(grid)

        hb = QHBoxLayout()
        hb_title = QLabel("HBM per GPU")
        hb_title.setObjectName("gaugeTitle")
        hb.addWidget(hb_title)
        self.hbm_text = QLabel("")
        self.hbm_text.setObjectName("gaugeSub")
        self.hbm_text.setTextFormat(Qt.RichText)
        self.hbm_text.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        self.hbm_text.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        hb.addWidget(self.hbm_text, 1)
        lay.addLayout(hb)
        self.hbm = HbmBar()
        self.hbm.setObjectName("hbmBar")
        lay.addWidget(self.hbm)
        self.notes = QLabel("")
        self.notes.setObjectName("notes")
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.RichText)
        self.notes.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        lay.addWidget(self.notes)
        lay.addStretch(1)

        controller.estimate_changed.connect(self.update_from)
        if controller.estimate is not None:
            self.update_from(controller.estimate)

    def value_text(self, key: str) -> str:
        return self.gauges[key].value.text()

    def set_theme(self, t: th.Theme) -> None:
        self.hbm.set_theme(t)
        for g in self.gauges.values():
            g.set_base_px(t.px(32))
        if self.controller.estimate is not None:
            self.update_from(self.controller.estimate)

    def update_from(self, e) -> None:
        s = e.scenario
        g = self.gauges
        g["ms_per_token"].set(
            duration(e.decode_ms_per_token / 1e3), f"{e.engine_name} · floor {duration(e.decode_floor_ms_per_token / 1e3)}",
            f"Realistic decode step with {e.engine_name}: {sig3(e.decode_ms_per_token)} ms per token (at the mean context "
            f"{s.input_len + s.output_len // 2:,} tokens)\n"
            f"  HBM traffic {sig3(e.decode_memory_ms)} ms, maths {sig3(e.decode_compute_ms)} ms, "
            f"communication {sig3(e.decode_comm_ms)} ms, overhead {sig3(e.decode_overhead_ms)} ms\n"
            f"Floor (100% of peak, no overhead): {sig3(e.decode_floor_ms_per_token)} ms per token")
        g["tps_user"].set(si(e.tokens_per_s_per_user, "tok/s"), "each sequence sees",
                          f"{sig3(e.tokens_per_s_per_user)} tokens/s per user = 1 / {sig3(e.decode_ms_per_token)} ms")
        g["tps_group"].set(si(e.output_tokens_per_s, "tok/s"), f"batch {s.batch} on {s.gpus} GPU"
                           + ("s" if s.gpus > 1 else ""),
                           f"{sig3(e.output_tokens_per_s)} output tokens/s for the whole group = batch {s.batch} ÷ "
                           f"{sig3(e.decode_ms_per_token)} ms")
        g["ttft"].set(duration(e.prefill_ms / 1e3), f"{e.engine_name} · floor {duration(e.prefill_floor_ms / 1e3)}",
                      f"Prefill of {s.batch} × {s.input_len:,} tokens with {e.engine_name}: {sig3(e.prefill_ms)} ms "
                      f"(floor {sig3(e.prefill_floor_ms)} ms)")
        g["mbu"].set(percent(e.mbu), f"of {si(e.peak_bandwidth_bytes_per_s, 'B/s')}",
                     f"Model bandwidth utilisation ({e.phase}): {percent(e.mbu)} of "
                     f"{si(e.peak_bandwidth_bytes_per_s, 'B/s')} HBM bandwidth per GPU")
        g["mfu"].set(percent(e.mfu), f"of {si(e.peak_flops, 'FLOP/s')}",
                     f"Model FLOP utilisation ({e.phase}): {si(e.achieved_flops, 'FLOP/s')} of "
                     f"{si(e.peak_flops, 'FLOP/s')} {e.compute_dtype.upper()} per GPU = {percent(e.mfu)}")
        g["usd"].set(usd(e.usd_per_million_tokens), "per million output tokens",
                     f"${sig3(e.usd_per_million_tokens)} per 1M output tokens = {s.gpus} GPU × GPU-hour price "
                     f"÷ {sig3(e.output_tokens_per_s)} tok/s")
        g["joules"].set(si(e.joules_per_token, "J"), "upper bound (TDP)",
                        f"{sig3(e.joules_per_token)} J per output token = {s.gpus} × TDP ÷ "
                        f"{sig3(e.output_tokens_per_s)} tok/s (TDP, not measured power)")
        g["e2e"].set(duration(e.e2e_latency_s), f"{s.input_len:,} in → {s.output_len:,} out"
                     + (f", {e.waves} waves" if e.waves > 1 else ""),
                     f"Prefill + {s.output_len:,} decode steps: {sig3(e.e2e_latency_s)} s"
                     + (f" in {e.waves} waves (the batch does not fit at once)" if e.waves > 1 else ""))

        colour = th.BOUND_COLOURS.get(e.bound, th.VERMILLION)
        self.badge.setText(f"{e.bound.upper()}-BOUND")
        self.badge.setStyleSheet(f"background: {colour};")
        self.badge.setToolTip(
            f"The roof that binds this {e.phase} step: {e.bound}\n"
            f"HBM traffic {sig3(e.decode_memory_ms)} ms · maths {sig3(e.decode_compute_ms)} ms · "
            f"communication {sig3(e.decode_comm_ms)} ms per decode step\n"
            + (f"Turns compute-bound at batch ≈ {sig3(e.critical_batch)}" if e.critical_batch
               else "Never turns compute-bound at this context (the KV cache grows with the batch)"))

        t = self.hbm.theme
        need, cap = e.memory_needed_bytes_per_gpu, e.hbm_capacity_bytes
        self.hbm.set_values(cap, e.weight_bytes_per_gpu, e.kv_cache_bytes_per_gpu, e.workspace_bytes_per_gpu, e.fits,
                            f"{si(need, 'B')} of {si(cap, 'B')}" + ("" if e.fits else " — DOES NOT FIT"))
        legend = (f"<span style='color:{th.ORANGE}'>■</span> weights {si(e.weight_bytes_per_gpu, 'B')} "
                  f"<span style='color:{th.REDDISH_PURPLE}'>■</span> KV {si(e.kv_cache_bytes_per_gpu, 'B')} "
                  f"<span style='color:{t.workspace}'>■</span> work {si(e.workspace_bytes_per_gpu, 'B')}")
        self.hbm_text.setText(legend)
        self.hbm.setToolTip("")
        notes = list(e.notes)
        if e.emulated and not any("emulated" in n for n in notes):
            notes.append(f"{e.precision_name} runs emulated in {e.compute_dtype.upper()}")
        html = []
        for n in notes:
            warn = n.startswith("does not fit")
            style = f"color:{th.VERMILLION}; font-weight:600" if warn else ""
            html.append(f"<span style='{style}'>⚠ {_esc(n)}</span>")
        self.notes.setText("<br>".join(html))
        self.notes.setVisible(bool(html))


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
