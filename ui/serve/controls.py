"""The Serve page's knobs: the load, the requests, the serving knobs and the targets.

Each knob edits one field of a model.serving.setup.ServingSetup; ``changed`` carries the new setup
(the page asks the controller for it; one snapshot per event-loop turn, however many knobs moved).
The knobs' ranges and the setup they start on are model/serving/knobs.py's (a scenario file is held
to the same); what the fields mean is model/serving/setup.py's.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget)

from model.serving.knobs import DEFAULT, KNOBS
from model.serving.setup import ServingSetup
from ui.kit.flow_layout import FlowLayout

LOADS = (("rate", "Poisson rate (req/s)"), ("concurrency", "Clients (concurrency)"), ("burst", "All at once (burst)"))
LENGTHS = (("fixed", "The scenario's lengths"), ("uniform", "Uniform ±50%"), ("sharegpt", "ShareGPT-like"))


def _range(w, name: str, scale: float = 1.0) -> None:
    """A knob's range: model/serving/knobs.KNOBS[name] (× ``scale`` for a percentage)."""
    k = KNOBS[name]
    w.setRange(type(w.minimum())(k.lo * scale), type(w.maximum())(k.hi * scale))


def _labelled(text: str, field: QWidget, tip: str) -> QWidget:
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(2)
    lab = QLabel(text)
    lab.setObjectName("controlLabel")
    lab.setBuddy(field)
    lay.addWidget(lab)
    lay.addWidget(field)
    field.setToolTip(tip)
    box.setToolTip(tip)
    box.label = lab
    return box


class ServeControls(QWidget):
    changed = Signal(object)          # ServingSetup
    pause_toggled = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("serveControls")
        self._quiet = False
        lay = FlowLayout(self, spacing=10)
        self.load = QComboBox()
        for key, words in LOADS:
            self.load.addItem(words, key)
        self.value = QDoubleSpinBox()
        self.requests = QSpinBox()
        _range(self.requests, "requests")
        self.requests.setSingleStep(100)
        self.lengths = QComboBox()
        for key, words in LENGTHS:
            self.lengths.addItem(words, key)
        self.prefix = QSpinBox()
        _range(self.prefix, "prefix_hit", 100)
        self.prefix.setSuffix(" %")
        self.spec_k = QSpinBox()
        _range(self.spec_k, "spec_k")
        self.spec_k.setSpecialValueText("off")
        self.spec_a = QDoubleSpinBox()
        _range(self.spec_a, "spec_accept")
        self.spec_a.setSingleStep(0.05)
        self.spec_a.setDecimals(2)
        self.replicas = QSpinBox()
        _range(self.replicas, "replicas")
        self.ttft = QSpinBox()
        _range(self.ttft, "ttft_p90_ms")
        self.ttft.setSingleStep(50)
        self.ttft.setSpecialValueText("none")
        self.ttft.setSuffix(" ms")
        self.tpot = QSpinBox()
        _range(self.tpot, "tpot_p90_ms")
        self.tpot.setSingleStep(5)
        self.tpot.setSpecialValueText("none")
        self.tpot.setSuffix(" ms")
        self.pause_button = QPushButton("Pause")
        self.pause_button.setCheckable(True)
        self.pause_button.setToolTip("Pause or play the queue (Space in presenter mode)")
        self.reset_button = QPushButton("Reset serving")
        self.reset_button.setObjectName("reset")
        self.reset_button.setToolTip("Back to the default load and knobs")
        for text, w, tip in (
                ("Load", self.load, "How requests arrive: a Poisson rate, a fixed number of clients, or all at once"),
                ("Rate", self.value, "Requests per second (auto: 80% of what this setup can serve); clients for a concurrency load"),
                ("Requests", self.requests, "How many requests the run sends"),
                ("Lengths", self.lengths, "Prompt and output lengths: the scenario's, spread ±50%, or ShareGPT-like"),
                ("Prefix cache hit", self.prefix, "Share of each prompt already in the prefix cache (not prefilled)"),
                ("Speculative k", self.spec_k, "Draft tokens per step (0: off)"),
                ("Acceptance α", self.spec_a, "Chance each draft token is accepted"),
                ("Replicas", self.replicas, "Copies of this GPU group behind a round-robin router"),
                ("TTFT p90 target", self.ttft, "Goodput counts requests whose time to first token is within this"),
                ("TPOT p90 target", self.tpot, "… and whose time per output token is within this")):
            box = _labelled(text, w, tip)
            lay.addWidget(box)
            if w is self.value:
                self._value_label = box.label
        for b in (self.pause_button, self.reset_button):
            lay.addWidget(_labelled(" ", b, b.toolTip()))
        self.show_setup(DEFAULT)
        for w in (self.load, self.lengths):
            w.currentIndexChanged.connect(self._emit)
        for w in (self.value, self.requests, self.prefix, self.spec_k, self.spec_a, self.replicas, self.ttft, self.tpot):
            w.valueChanged.connect(self._emit)
        self.reset_button.clicked.connect(self.reset)
        self.pause_button.toggled.connect(self._paused)

    def _paused(self, on: bool) -> None:
        self.pause_button.setText("Play" if on else "Pause")
        self.pause_toggled.emit(on)

    def _value_mode(self, load: str) -> None:
        v = self.value
        if load == "rate":
            v.setDecimals(2)
            _range(v, "rate_per_s")
            v.setSingleStep(0.5)
            v.setSpecialValueText("auto")
            self._value_label.setText("Rate (req/s)")
        else:
            v.setDecimals(0)
            v.setRange(1, KNOBS["concurrency"].hi)
            v.setSingleStep(8)
            v.setSpecialValueText("")
            self._value_label.setText("Clients")
        v.setEnabled(load != "burst")

    def show_setup(self, s: ServingSetup) -> None:
        """Mirror ``s`` in the knobs without emitting."""
        self._quiet = True
        try:
            self.load.setCurrentIndex([k for k, _ in LOADS].index(s.load if s.load != "trace" else "rate"))
            self._value_mode(s.load)
            self.value.setValue(s.rate_per_s if s.load == "rate" else max(1, s.concurrency or 64))
            self.requests.setValue(s.requests)
            self.lengths.setCurrentIndex([k for k, _ in LENGTHS].index(s.lengths))
            self.prefix.setValue(int(round(100 * s.prefix_hit)))
            self.spec_k.setValue(s.spec_k)
            self.spec_a.setValue(s.spec_accept)
            self.replicas.setValue(s.replicas)
            self.ttft.setValue(int(s.ttft_p90_ms or 0))
            self.tpot.setValue(int(s.tpot_p90_ms or 0))
        finally:
            self._quiet = False
        self._setup = s

    @property
    def shown_setup(self) -> ServingSetup:
        """The setup the knobs show (the last mirrored or emitted)."""
        return self._setup

    def setup(self) -> ServingSetup:
        load = self.load.currentData()
        v = float(self.value.value())
        lengths = self.lengths.currentData()
        return self._setup.with_(
            load=load, rate_per_s=v if load == "rate" else 0.0,
            concurrency=int(v) if load == "concurrency" else 0, requests=int(self.requests.value()),
            lengths=lengths, range_ratio=0.5 if lengths == "uniform" else 0.0,
            prefix_hit=self.prefix.value() / 100.0, spec_k=int(self.spec_k.value()),
            spec_accept=float(self.spec_a.value()) if self.spec_k.value() else 0.0,
            replicas=int(self.replicas.value()), ttft_p90_ms=float(self.ttft.value()) or None,
            tpot_p90_ms=float(self.tpot.value()) or None)

    def _emit(self, *_args) -> None:
        if self._quiet:
            return
        load = self.load.currentData()
        if self.value.isEnabled() != (load != "burst") or (load == "rate") != (self.value.decimals() == 2):
            self._quiet = True
            self._value_mode(load)
            self.value.setValue(0.0 if load == "rate" else 64)
            self._quiet = False
        self._setup = self.setup()
        self.changed.emit(self._setup)

    def reset(self) -> None:
        self.show_setup(DEFAULT)
        self.changed.emit(DEFAULT)

    def step_load(self, direction: int) -> None:
        """A keyboard step of the load (presenter: ← →): the rate or the clients, one step."""
        self.value.stepBy(int(direction))
