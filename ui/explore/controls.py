"""The control panel: every input of a Scenario, mirrored from the controller.

Controls only forward the user's choice to the controller; when the controller's scenario
changes (Reset all, restore) they update themselves with signals blocked.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker, QStringListModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (QApplication, QCheckBox, QComboBox, QCompleter, QGridLayout, QHBoxLayout,
                               QLabel, QLineEdit, QPushButton, QSizePolicy, QSlider, QSpinBox, QVBoxLayout, QWidget)

from model import Scenario
from model.readouts.catalog_text import engine_choices, hardware_summary, model_summary, scenario_words
from model.physics.scenario import GPU_COUNTS, INTERCONNECTS, MAX_BATCH, MAX_TOKENS, PHASES
from ui.kit.widgets import Segmented
from ui.kit.dialog_buttons import tip_text

BATCH_MAX = MAX_BATCH          # the model's range: a saved batch 8192 shows as 8192
SLIDER_STEPS_PER_OCTAVE = 100
ID_ROLE = Qt.UserRole + 1


def batch_to_slider(batch: int) -> int:
    return int(round(math.log2(max(1, min(BATCH_MAX, batch))) * SLIDER_STEPS_PER_OCTAVE))


def slider_to_batch(pos: int) -> int:
    return max(1, min(BATCH_MAX, int(round(2 ** (pos / SLIDER_STEPS_PER_OCTAVE)))))


class SearchCombo(QComboBox):
    """A combo box with type-to-search (substring) and non-selectable group headers."""

    chosen = Signal(object)   # id (str) or None

    def __init__(self, parent=None):
        super().__init__(parent)
        # editable through its own line edit: setEditable(True) builds the list's frame while the
        # box is not yet editable, with a popup's two scroll arrows an editable box never shows
        # (hidden widgets the window's style sheet polishes at start)
        self.setLineEdit(QLineEdit(self))
        self.setInsertPolicy(QComboBox.NoInsert)
        self.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(8)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self._model = QStandardItemModel(self)
        self.setModel(self._model)
        self._names = QStringListModel(self)
        comp = QCompleter(self._names, self)
        comp.setFilterMode(Qt.MatchContains)
        comp.setCaseSensitivity(Qt.CaseInsensitive)
        comp.setCompletionMode(QCompleter.PopupCompletion)
        self.setCompleter(comp)
        comp.activated[str].connect(self._pick_name)
        self.activated.connect(self._pick_index)
        self.lineEdit().editingFinished.connect(self._restore_text)
        QApplication.instance().focusChanged.connect(self._focus_changed)
        self._by_name: dict[str, object] = {}
        self._current = None
        self._shown: tuple | None = None       # (id, row, text) last put on show

    def _focus_changed(self, old, new) -> None:
        """Focus left the box (also while the completer's popup was open, when the line edit
        emits no editingFinished): close the popup and show the chosen item's name again."""
        if old is None:
            return                  # the first focus at start: nothing left (and no popup built for nothing)
        mine = (self, self.lineEdit(), self.completer().popup(), self.view())
        if old in mine and new not in mine:
            self.completer().popup().hide()
            self._restore_text()

    def set_items(self, groups: list[tuple[str | None, list[tuple[object, str, str]]]]) -> None:
        """groups: [(header or None, [(id, label, tooltip), …]), …]."""
        self._model.clear()
        self._by_name.clear()
        self._shown = None
        names = []
        for header, items in groups:
            if header:
                h = QStandardItem(f"— {header} —")
                h.setFlags(Qt.NoItemFlags)
                font = h.font()
                font.setBold(True)
                h.setFont(font)
                self._model.appendRow(h)
            for ident, label, tip in items:
                it = QStandardItem(label)
                it.setData(ident, ID_ROLE)
                it.setToolTip(tip_text(tip))
                self._model.appendRow(it)
                self._by_name[label] = ident
                names.append(label)
        self._names.setStringList(names)

    def current_id(self):
        return self._current

    def set_current_id(self, ident) -> None:
        if self._shown is not None and self._shown == (ident, self.currentIndex(), self.lineEdit().text()):
            return                  # already showing it (most scenario changes leave most boxes alone)
        self._shown = None
        with QSignalBlocker(self):
            for row in range(self._model.rowCount()):
                it = self._model.item(row)
                if it.flags() & Qt.ItemIsEnabled and it.data(ID_ROLE) == ident:
                    self.setCurrentIndex(row)
                    self.lineEdit().setText(it.text())
                    self.setToolTip(it.toolTip())
                    self._shown = (ident, row, it.text())
                    break
        self._current = ident

    def ids(self) -> list:
        return [self._model.item(r).data(ID_ROLE) for r in range(self._model.rowCount())
                if self._model.item(r).flags() & Qt.ItemIsEnabled]

    def _pick_index(self, row: int) -> None:
        it = self._model.item(row)
        if it is None or not (it.flags() & Qt.ItemIsEnabled):
            self._restore_text()
            return
        self._emit(it.data(ID_ROLE))

    def _pick_name(self, name: str) -> None:
        if name in self._by_name:
            self._emit(self._by_name[name])

    def _emit(self, ident) -> None:
        self.set_current_id(ident)
        self.chosen.emit(ident)

    def _restore_text(self) -> None:
        text = self.lineEdit().text().strip()
        if text in self._by_name and self._by_name[text] != self._current:
            self._emit(self._by_name[text])
            return
        self.set_current_id(self._current)


def _model_family(name: str) -> str:
    """Group label from a model's display name: 'Llama 3.1 70B' → 'Llama 3.1'."""
    parts = name.split()
    if len(parts) >= 3 and parts[0].lower() == "llama":
        return " ".join(parts[:2])
    return parts[0] if parts else name


class ControlPanel(QWidget):
    theme_toggled = Signal()
    large_text_toggled = Signal(bool)

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.setObjectName("panel")
        self.controller = controller            # where the controls send changes (they read snapshots)
        cat = controller.snapshot.catalog
        self._catalog = cat
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 10, 12, 10)
        lay.setSpacing(5)

        title = QLabel("SCENARIO")
        title.setObjectName("sectionTitle")
        lay.addWidget(title)

        self._lay = lay
        self._build_catalogue(cat)
        self._build_numbers()
        self._build_rest(cat)
        self._wire(controller)

    BATCH_WORDS = {False: ("Batch (sequences decoded together)", ""),
                   True: ("Batch: Explore's only", "Serve and Plan form their own batches from the requests "
                          "(the running batch: Serve's chart; the batch caps: Plan's setups)")}

    def set_serving(self, on: bool) -> None:
        """On the Serve and Plan pages the batch knob is Explore's alone: said, and not to be turned."""
        text, tip = self.BATCH_WORDS[bool(on)]
        self.batch_label.setText(text)
        self.batch_label.setToolTip(tip)
        self.batch_slider.setEnabled(not on)
        self.batch_spin.setEnabled(not on)

    def _label(self, text: str, tip: str = "") -> QLabel:
        lab = QLabel(text)
        lab.setObjectName("controlLabel")
        if tip:
            lab.setToolTip(tip_text(tip))
        self._lay.addWidget(lab)
        return lab

    def _build_catalogue(self, cat) -> None:
        """GPU, model, precision and KV-cache boxes (type to search)."""
        lay, label = self._lay, self._label
        # GPU, grouped by vendor · family
        label("GPU", "Type to search")
        self.gpu = SearchCombo()
        self.gpu.setObjectName("gpuCombo")
        lay.addWidget(self.gpu)

        label("Model", "Type to search")
        self.model = SearchCombo()
        self.model.setObjectName("modelCombo")
        lay.addWidget(self.model)

        self.precision = SearchCombo()
        self.precision.setMinimumContentsLength(5)
        self.precision.set_items([(None, [(p.id, p.name, p.notes or p.name) for p in cat.precisions])])
        self.kv = SearchCombo()
        self.kv.setMinimumContentsLength(5)
        self.kv.set_items([(None, [(None, "auto", "The precision's default KV-cache type")]
                            + [(k.id, k.name, k.notes or k.name) for k in cat.kv_precisions if not k.hidden])])
        row = _labelled_pair(("Precision", self.precision), ("KV cache", self.kv))
        row.setColumnStretch(0, 3)
        row.setColumnStretch(1, 2)
        lay.addLayout(row)

    def _build_numbers(self) -> None:
        """Batch (log slider and box, the model's range), GPUs, interconnect, lengths, phase."""
        lay, label = self._lay, self._label
        # batch: log slider over the model's whole range (1 … BATCH_MAX) + editable number
        self.batch_label = label("Batch (sequences decoded together)")
        brow = QHBoxLayout()
        self.batch_slider = QSlider(Qt.Horizontal)
        self.batch_slider.setRange(0, batch_to_slider(BATCH_MAX))
        self.batch_slider.setToolTip(f"Logarithmic: 1, 2, 4 … {BATCH_MAX:,}")
        self.batch_spin = QSpinBox()
        self.batch_spin.setRange(1, BATCH_MAX)
        self.batch_spin.setKeyboardTracking(False)
        self.batch_spin.setAlignment(Qt.AlignRight)
        brow.addWidget(self.batch_slider, 1)
        brow.addWidget(self.batch_spin)
        lay.addLayout(brow)

        label("GPUs")
        self.gpus = Segmented(GPU_COUNTS)
        lay.addWidget(self.gpus)
        label("Interconnect (tensor-parallel all-reduces)")
        self.interconnect = Segmented(INTERCONNECTS, ["NVLink", "PCIe", "Network"],
                                      ["The part's scale-up fabric (NVLink, Infinity Fabric, ICI…)",
                                       "PCIe between GPUs", "One GPU per node over the network"])
        lay.addWidget(self.interconnect)

        self.input_len = QSpinBox()
        self.output_len = QSpinBox()
        for sp in (self.input_len, self.output_len):
            sp.setRange(1, MAX_TOKENS)
            sp.setKeyboardTracking(False)
            sp.setGroupSeparatorShown(True)
            sp.setAlignment(Qt.AlignRight)
        lay.addLayout(_labelled_pair(("Input tokens", self.input_len), ("Output tokens", self.output_len)))

        label("Phase")
        self.phase = Segmented(PHASES, ["Decode", "Prefill"],
                               ["One token per sequence per step", "The whole prompt in one pass"])
        lay.addWidget(self.phase)

        label("Engine", "Whose realistic numbers the gauges show; ideal = the roofline floor")
        self.engine = SearchCombo()
        self.engine.set_items([(None, engine_choices())])
        self.engine.setObjectName("engineCombo")
        lay.addWidget(self.engine)

    def _build_rest(self, cat) -> None:
        """The comparison GPU, Reset all, theme and larger text."""
        lay, label = self._lay, self._label
        label("Compare with (faint roofline)")
        self.compare = SearchCombo()
        lay.addWidget(self.compare)
        self.fill_selectors(cat)

        lay.addSpacing(6)
        self.reset_button = QPushButton("Reset all")
        self.reset_button.setObjectName("reset")
        self.reset_button.setToolTip(f"Back to {scenario_words(Scenario(), cat)}")
        lay.addWidget(self.reset_button)
        lay.addStretch(1)

        vrow = QHBoxLayout()
        self.theme_button = QPushButton("Light theme")
        self.theme_button.setToolTip("Switch between the dark (projector) and light themes")
        self.large_text = QCheckBox("Larger text")
        vrow.addWidget(self.theme_button)
        vrow.addWidget(self.large_text)
        lay.addLayout(vrow)

    def _wire(self, c) -> None:
        """Controls → controller; the controller's scenario → controls (no signals back)."""
        self.gpu.chosen.connect(lambda v: c.set(gpu=v))
        self.model.chosen.connect(lambda v: c.set(model=v))
        self.precision.chosen.connect(lambda v: c.set(precision=v))
        self.kv.chosen.connect(lambda v: c.set(kv_precision=v))
        self.batch_slider.valueChanged.connect(self._slider_moved)
        self.batch_spin.valueChanged.connect(self._spin_changed)
        self.gpus.chosen.connect(lambda v: c.set(gpus=v))
        self.interconnect.chosen.connect(lambda v: c.set(interconnect=v))
        self.input_len.valueChanged.connect(lambda v: c.set(input_len=v))
        self.output_len.valueChanged.connect(lambda v: c.set(output_len=v))
        self.phase.chosen.connect(lambda v: c.set(phase=v))
        self.engine.chosen.connect(lambda v: c.set(engine=v))
        self.compare.chosen.connect(c.set_compare)
        self.reset_button.clicked.connect(c.reset)
        self.theme_button.clicked.connect(self.theme_toggled)
        self.large_text.toggled.connect(self.large_text_toggled)
        self.show_snapshot(c.snapshot)

    def _slider_moved(self, pos: int) -> None:
        b = slider_to_batch(pos)
        with QSignalBlocker(self.batch_spin):
            self.batch_spin.setValue(b)
        self.controller.set(batch=b)

    def _spin_changed(self, b: int) -> None:
        with QSignalBlocker(self.batch_slider):
            self.batch_slider.setValue(batch_to_slider(b))
        self.controller.set(batch=b)

    def fill_selectors(self, cat) -> None:
        """(Re)list the catalogue's GPUs and models; user entries under "Custom"."""
        def group(ident: str, name: str, kind: str = "hardware") -> str:
            return "Custom" if cat.is_custom(ident, kind) else name
        groups: dict[str, list] = {}
        cgroups: dict[str, list] = {"": [(None, "none", "No comparison")]}
        for g in cat.gpus:
            groups.setdefault(group(g.id, f"{g.vendor} · {g.family}"), []).append((g.id, g.short_name,
                                                                                   hardware_summary(g)))
            cgroups.setdefault(group(g.id, f"{g.vendor} · {g.family}"), []).append((g.id, g.short_name, g.name))
        mgroups: dict[str, list] = {}
        for m in cat.models:
            mgroups.setdefault(group(m.id, _model_family(m.name), "model"), []).append((m.id, m.name, model_summary(m)))
        self.gpu.set_items(list(groups.items()))
        self.model.set_items(list(mgroups.items()))
        self.compare.set_items([(None, cgroups.pop(""))] + list(cgroups.items()))
        for combo in (self.gpu, self.model, self.compare):
            combo.set_current_id(combo.current_id())

    def show_snapshot(self, snap) -> None:
        """Mirror a change: a new catalogue refills the lists; then the request and the comparison."""
        if snap.catalog is not self._catalog:
            self._catalog = snap.catalog
            self.fill_selectors(snap.catalog)
        self.show_scenario(snap.requested)
        self.compare.set_current_id(snap.compare.id if snap.compare else None)

    def show_scenario(self, s: Scenario) -> None:
        """Mirror the controller's scenario (no signals back)."""
        self.gpu.set_current_id(s.gpu)
        self.model.set_current_id(s.model)
        self.precision.set_current_id(s.precision)
        self.kv.set_current_id(s.kv_precision)
        for w, v in ((self.batch_spin, s.batch), (self.input_len, s.input_len), (self.output_len, s.output_len)):
            if w.value() != int(v) or w.cleanText() != w.textFromValue(int(v)):   # (a spin box repaints
                with QSignalBlocker(w):                                           # on every setValue)
                    w.setValue(int(v))
        with QSignalBlocker(self.batch_slider):
            self.batch_slider.setValue(batch_to_slider(int(s.batch)))
        self.gpus.set_value(s.gpus)
        self.interconnect.set_value(s.interconnect)
        self.phase.set_value(s.phase)
        self.engine.set_current_id(s.engine)

    def set_theme(self, t) -> None:
        """The panel protocol's theme hook: the batch box's width follows the type size."""
        self.set_theme_name(t.name, t.px(15))

    def set_theme_name(self, name: str, px: int = 15) -> None:
        self.batch_spin.setFixedWidth(int(px * 4.2) + 16)
        self.theme_button.setText("Light theme" if name == "dark" else "Dark theme")


def _labelled_pair(left: tuple[str, QWidget], right: tuple[str, QWidget]) -> QGridLayout:
    """Two controls side by side, each under its small label."""
    grid = QGridLayout()
    grid.setHorizontalSpacing(6)
    grid.setVerticalSpacing(2)
    for col, (text, widget) in enumerate((left, right)):
        lab = QLabel(text)
        lab.setObjectName("controlLabel")
        grid.addWidget(lab, 0, col)
        grid.addWidget(widget, 1, col)
    return grid
