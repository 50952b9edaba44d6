"""The Serve page: the snapshot's scenario under a stream of requests.

    ┌ knobs: load · requests · lengths · prefix cache · speculation · replicas · targets ┐
    │ big numbers: TTFT p90 · TPOT p90 · requests/s · queue (or goodput) · preemptions  │
    │ the animated queue (ui/serve/queue_view.py)                                        │
    │ TTFT distribution │ TPOT distribution │ the run over time                          │
    └ one sentence: what the load did (model/readouts/serving.explain)                   ┘

It takes the controller's Snapshot like the other views and simulates (model.serving.run.serve)
the snapshot's scenario with the snapshot's serving setup, once per change and only while it is
shown (a hidden page keeps the latest request and runs it when it shows), on a thread of its own
(ui/kit/background.py): a key press is answered at once, a newer change calls an older run off,
and the last run stays on screen until the new one is drawn. The setup is the
controller's: a knob asks for a new one (``set_setup``), and the knobs mirror the snapshot's. A setup the model refuses (a
target that can never be met, a model that leaves no room for a KV cache) is said in one line and
the last good run stays on screen. Every number is a readout (model/readouts/serving*.py).
"""
from __future__ import annotations

from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from model.readouts.serving import explain
from model.readouts.serving_page import BUSY, distributions, over_time, tiles
from model.serving.results import summarize
from model.serving.run import serve
from ui.kit import theme as th
from ui.kit.background import Background, busy_line
from ui.state.controller import one_line
from ui.serve.charts import DistributionChart, OverTimeChart
from ui.serve.controls import ServeControls
from ui.serve.queue_view import QueueView
from ui.kit.lazy_page import LazyPage
from ui.kit.widgets import problem_line, wrapped_label
from ui.kit.dialog_buttons import tip_text

TILES = 5


class ServePage(LazyPage, QWidget):
    def __init__(self, controller, theme: th.Theme | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("servePage")
        self.theme = theme or th.get_theme("dark")
        self.controller = controller
        self.run = None
        self.summary = None
        self._key = None
        self._snap = controller.snapshot
        self._queued = False
        self.computations = 0

        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.setSpacing(8)
        self.controls = ServeControls()
        outer.addWidget(self.controls)
        self.problem = problem_line()
        outer.addWidget(self.problem)
        self.busy = busy_line(BUSY)
        outer.addWidget(self.busy)
        self.jobs = Background(self, self._take, self.busy)
        tiles_row = QHBoxLayout()
        tiles_row.setSpacing(8)
        self.tile_labels, self.tile_values = [], []
        for _ in range(TILES):
            box = QWidget()
            box.setObjectName("panel")
            lay = QVBoxLayout(box)
            lay.setContentsMargins(12, 6, 12, 8)
            lay.setSpacing(0)
            lab, val = QLabel(""), QLabel("")
            lab.setObjectName("gaugeTitle")
            val.setObjectName("serveNumber")
            lay.addWidget(lab)
            lay.addWidget(val)
            box.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
            tiles_row.addWidget(box, 1)
            self.tile_labels.append(lab)
            self.tile_values.append(val)
        outer.addLayout(tiles_row)
        self.queue = QueueView()
        outer.addWidget(self.queue, 5)
        charts = QGridLayout()
        charts.setSpacing(8)
        self.ttft_chart, self.tpot_chart, self.time_chart = DistributionChart(), DistributionChart(), OverTimeChart()
        for i, c in enumerate((self.ttft_chart, self.tpot_chart, self.time_chart)):
            charts.addWidget(c, 0, i)
            charts.setColumnStretch(i, 1)
        outer.addLayout(charts, 3)
        self.sentence = wrapped_label("serveSentence")
        outer.addWidget(self.sentence)
        self.controls.show_setup(self.setup)
        self.controls.changed.connect(self.set_setup)
        self.controls.pause_toggled.connect(self.queue.pause)
        self.set_theme(self.theme)

    # ---------------------------------------------------------------- the panel protocol
    @property
    def setup(self):
        """The serving setup this page runs: the snapshot's."""
        return self._snap.serving

    def set_setup(self, setup) -> None:
        """Ask the controller for ``setup`` (a knob moved); its snapshot brings it back here."""
        self.controller.set_serving(setup)

    def show_snapshot(self, snap) -> None:
        """A change: the knobs mirror its setup; the run follows when shown."""
        if snap.serving != self.controls.shown_setup:
            self.controls.show_setup(snap.serving)
        super().show_snapshot(snap)

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.setStyleSheet(f"QLabel#serveNumber {{ font-size: {t.px(34)}px; font-weight: 700; }}"
                           f"QLabel#serveSentence {{ font-size: {t.px(19)}px; }}")
        for w in (self.queue, self.ttft_chart, self.tpot_chart, self.time_chart):
            w.set_theme(t)

    # ---------------------------------------------------------------- the run
    def flush(self) -> None:
        """Simulate (on the page's thread) if the scenario or the setup changed since the last run."""
        self._queued = False
        snap = self._snap
        if snap is None:
            return
        est = snap.estimate
        key = (est.scenario, self.setup)
        if key == self._key:
            return
        self._key = key
        scenario, setup, catalog, resolved = est.scenario, self.setup, snap.catalog, est.resolved
        self.jobs.submit(lambda: _served(scenario, setup, catalog, resolved))

    def _take(self, result) -> None:
        """A run is done (on the GUI thread): draw it, or say in one line why it could not run."""
        self.computations += 1
        if isinstance(result, BaseException):
            self.problem.setText(f"Cannot serve this: {one_line(result)}"
                                 + (" — showing the last run that worked." if self.run else ""))
            self.problem.setVisible(True)
            return
        self.problem.setVisible(False)
        self.run, self.summary = result
        self._draw()

    def _draw(self) -> None:
        run, sm = self.run, self.summary
        for lab, val, r in zip(self.tile_labels, self.tile_values, tiles(run, sm)):
            lab.setText(r.label)
            val.setText(r.text)
            lab.parentWidget().setToolTip(tip_text(r.help))
        ttft, tpot = distributions(run, sm)
        self.ttft_chart.set_data(ttft)
        self.tpot_chart.set_data(tpot)
        self.time_chart.set_data(over_time(run))
        self.queue.set_run(run)
        self.sentence.setText(explain(run, sm))

    # ---------------------------------------------------------------- keys and pictures
    def toggle_pause(self) -> None:
        self.controls.pause_button.toggle()

    def settle(self, frames: int = 60, dt: float = 1 / 60) -> None:
        """Run the pending simulation and ``frames`` frames of the queue (screenshots, recordings)."""
        self._queued = False
        self.flush()
        self.jobs.finish()
        self.queue.settle(frames, dt)

    def shown_texts(self) -> list[str]:
        out = [lab.text() for lab in self.tile_labels] + [v.text() for v in self.tile_values]
        out += self.queue.shown_texts() + self.ttft_chart.texts() + self.tpot_chart.texts() + self.time_chart.texts()
        return out + [self.sentence.text()]


def _served(scenario, setup, catalog, resolved):
    """(run, summary): what the page's thread computes (pure model)."""
    run = serve(scenario, setup, catalog=catalog, resolved=resolved)
    return run, summarize(run)
