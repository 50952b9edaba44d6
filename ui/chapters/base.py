"""What every lesson view shares: one claim, one chart, one key number, details, exports.

Layout: the chapter's title (small), the state's claim (its caption, a template filled by
the model's Facts: model.lessons.deck.chapter_facts), then the chart beside a side panel
with the key number in large type, its one-line label, the chapter's live controls and a
"Details" toggle (the model's detail lines); the takeaway at the bottom. The chart carries
an accessible name and description (the claim and the key number).

    ChapterView(chapter, controller, theme)
        apply_state(i)      the prepared state's params (its scenario goes to the controller,
                            through the lessons view, so it can glide)
        set_params(**kw)    a live control changed a chapter knob (coalesced: one redraw per turn)
        refresh(estimate)   redraw from the controller's Estimate and the chapter's params; an
                            exception becomes one line in the chapter, never a crash
        export_png/svg/csv  the chart as an image, and the numbers behind it as CSV (a folder,
                            FIFO, read-only or missing target: SafeIOError, one line;
                            ui/chapters/exports.py)

Subclasses implement build() (create every plot item once), update_view(e) (setData only,
from ``self.figure``: the chapter's chart value, model.lessons.deck.chapter_chart, whose items
carry their numbers and their words) and csv_rows() → (header, rows); place_labels() puts the
labels that depend on pixel sizes (ui.plotting.placement), after each update and resize.
Views only draw: every number and every word on the chart comes from model/, every plot
coordinate from ui.plotting (tests/test_chapter_rules.py checks the source).

The look (type sizes, plot axes, fonts, the style sheet) is ui/chapters/look.py.

Every plot from make_plot() carries ``plot.tips`` (MarkerTips): the chapter registers each
data marker with its own tooltip text in update_view(); hovering within CHAPTER_HOVER_PX screen
pixels of a marker shows that marker's text, anywhere else the plot's own setToolTip()
text (the whole-plot summary) is the fallback.
"""
from __future__ import annotations

import html
import re

import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from model.lessons.deck import axis_extent, chapter_chart, chapter_facts, chapter_heading, chart_name
from model.lessons.explain import depends_on, key_why
from ui.kit import theme as th
from ui.chapters.exports import ChartExports
from ui.chapters.read_view import ReadMode
from ui.chapters.side import SidePanel, why_scroll
from ui.chapters.look import PlotParts, chapter_style, style_plot
from ui.kit.deliver import deliver_now
from ui.kit.fit_text import keep_units
from ui.plotting.labels import keep_inside
from ui.kit.steady_label import SteadyLabel, WrapLabel

SHORT_TITLES = {1: "Compute", 2: "GPU shape", 3: "Memory", 4: "Roofline", 5: "Decode", 6: "Batching",
                7: "Precision", 8: "Multi-GPU"}


class ClaimLabel(SteadyLabel):
    """The state's claim: setText takes the caption template; the view's Facts fill in the numbers.
    It keeps room for ``lines`` lines, so a shorter text of the next state moves nothing."""

    def __init__(self, view, lines: int = 1):
        super().__init__(lines)
        self.view = view
        self.template = ""

    def setText(self, template: str) -> None:          # noqa: N802 (Qt name)
        self.template = template
        self.refill()

    def refill(self) -> None:
        f = self.view.facts
        super().setText(f.claim(self.template) if f is not None else
                        re.sub(r"\{[^}]*\}", "…", self.template))



class ChapterView(SidePanel, ReadMode, PlotParts, ChartExports, QWidget):
    """One lesson. ``chart`` is the figure that exports; ``side`` holds the live controls."""

    side_width = 300

    def __init__(self, chapter, controller, theme: th.Theme = th.DARK, parent=None):
        super().__init__(parent)
        self.setObjectName("chapterView")
        self.chapter = chapter
        self.controller = controller
        self.theme = theme
        self.state_index = 0
        self.params: dict = dict(chapter.states[0].params)
        self.error_text = ""
        self._dirty = True
        self.plots: list[pg.PlotWidget] = []

        self.facts = None
        self.estimate = None               # the Estimate drawn
        self.figure = None                 # the chart's values and words (model.lessons.deck.chapter_chart)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 6, 12, 8)
        lay.setSpacing(4)
        self.title_label = QLabel(chapter_heading(chapter))
        self.title_label.setObjectName("chapterTitle")
        self.caption_label = ClaimLabel(self)
        self.caption_label.setObjectName("chapterClaim")
        for w in (self.title_label, self.caption_label):
            w.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
            lay.addWidget(w)

        body = QHBoxLayout()
        body.setSpacing(10)
        self.chart = QWidget()
        self.chart.setObjectName("chapterChart")
        self.chart.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.chart_lay = QVBoxLayout(self.chart)
        self.chart_lay.setContentsMargins(0, 0, 0, 0)
        self.chart_lay.setSpacing(4)
        body.addWidget(self.chart, 1)
        body.addWidget(self._build_side(), 0)
        self.body = body
        self.read_panel = None             # read mode's text beside the chart (ui/chapters/read_view.py), built on first use
        self.reading = False
        lay.addLayout(body, 1)

        self.error_label = WrapLabel()
        self.error_label.setObjectName("chapterError")
        self.error_label.setVisible(False)
        self.takeaway_label = ClaimLabel(self, lines=2)    # the state's caption, filled like its claim
        self.takeaway_label.setObjectName("chapterTakeaway")
        for w in (self.error_label, self.takeaway_label):
            w.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
            lay.addWidget(w)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        self.build()
        self.why_title = QLabel("WHY THIS NUMBER")
        self.why_title.setObjectName("chapterWhyTitle")
        self.why_label = WrapLabel()                       # the key number's derivation, this state's values
        self.why_label.setObjectName("chapterWhy")
        self.why_scroll = why_scroll(self.why_label)
        self.why_scroll.viewport().installEventFilter(self)      # its room known: the derivation fitted to it
        self.side_lay.addWidget(self.why_title)
        self.side_lay.addWidget(self.why_scroll, 1)
        self.side_lay.addWidget(self.details_button)
        self.chart_lay.addWidget(self.details_scroll)      # under the chart, its full width (scrolls past its share)
        self.chart.installEventFilter(self)                # its room known: the details' share of it
        self.set_theme(theme)
        self.caption_label.setText(chapter.states[0].caption)
        self.takeaway_label.setText(chapter.states[0].takeaway or chapter.takeaway)

    @property
    def catalog(self):
        """The controller's current catalogue (custom entries added later included)."""
        return self.controller.catalog

    # ---------------------------------------------------------------- text
    @property
    def title(self) -> str:
        return self.chapter.title

    @property
    def takeaway(self) -> str:
        """The caption on screen: the state's takeaway filled with this screen's numbers."""
        return self.takeaway_label.text()

    @property
    def caption(self) -> str:
        return self.caption_label.text()

    @property
    def state(self):
        return self.chapter.states[self.state_index]

    # ---------------------------------------------------------------- state
    def apply_state(self, state_or_index) -> None:
        """Show a prepared state: its caption and its params (the scenario is the controller's)."""
        if isinstance(state_or_index, int):
            self.state_index = max(0, min(len(self.chapter.states) - 1, state_or_index))
            st = self.chapter.states[self.state_index]
        else:
            st = state_or_index
            if st in self.chapter.states:
                self.state_index = self.chapter.states.index(st)
        self.caption_label.setText(st.caption)
        self.takeaway_label.setText(st.takeaway or self.chapter.takeaway)
        self.params = dict(st.params)
        self._sync_controls_safely()
        self._refresh_unless_coming()

    def set_params(self, **changes) -> None:
        self.params.update(changes)
        self._sync_controls_safely()
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def _sync_controls_safely(self) -> None:
        try:
            self.sync_controls()
        except Exception as exc:   # a control that cannot show a value must not stop the show
            self._show_error(exc)

    # ---------------------------------------------------------------- drawing
    def show_snapshot(self, snap) -> None:
        """A change of the controller (ui/state/controller.Snapshot): redraw from its estimate."""
        self._on_estimate(snap.estimate)

    def _on_estimate(self, e) -> None:
        if self.isVisible():
            self.refresh(e)
        else:
            self._dirty = True

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        if self._dirty:
            self._refresh_unless_coming()

    def _refresh_unless_coming(self) -> None:
        """Redraw now, unless the controller has a recompute posted: its estimate redraws the page
        when it comes, before the next paint (a chapter switch drew its page three times: on
        showing, on taking the state, on the new estimate)."""
        if self.controller.pending:
            self._dirty = True
            if not self._timer.isActive():
                self._timer.start()         # in case the scenario is refused and no estimate comes
        else:
            self.refresh()

    def refresh(self, e=None) -> bool:
        """Redraw from the Estimate (default: the controller's). False (and one line shown) on error."""
        self._timer.stop()
        e = e if e is not None else self.controller.estimate
        self._dirty = False
        try:
            if e is None:
                raise RuntimeError("no estimate yet")
            self.facts = chapter_facts(self.chapter.number, e, self.params, self.catalog)
            self.figure = chapter_chart(self.chapter.number, e, self.params, self.catalog)
            self.estimate = e
            self.update_view(e)             # first: a chapter's extra details come from what it drew
            self._place_inside()
            self._show_facts()
            if self.reading:
                self._show_reading(e)
        except Exception as exc:   # never take the show down: say it in one line, keep going
            self._clear_facts()
            self._show_error(exc)
            return False
        self.chart.setVisible(True)
        if self.error_text:
            self.error_text = ""
            self.error_label.setVisible(False)
        if self.isVisible():               # the last view of the window to take the change
            for plot in self.plots:
                deliver_now(plot)
        return True

    def _show_facts(self) -> None:
        """The claim, the key number and the details from the model's Facts; the chart's accessible text."""
        f = self.facts
        self.caption_label.refill()
        self.takeaway_label.refill()
        self.key_label.setText(f.key.text)
        self._fit_key()
        self.key_caption.setText(keep_units(f.key.label))
        e = self.estimate
        lines = (*key_why(self.chapter.number, e, f, self.params), depends_on(self.chapter.number, e))
        self.why_label.setText(keep_units("\n".join(line for line in lines if line)))
        self._fit_why()
        self.details_label.setText("<br>".join(html.escape(d) for d in (*f.details, *self.extra_details())))
        if self.details_button.isChecked():
            self._fit_details()
        summary = f"{self.caption_label.text()}. {f.key.text}: {f.key.label}"
        self.chart.setAccessibleName(chart_name(self.chapter))
        self.chart.setAccessibleDescription(summary)
        for p in self.plots:
            p.setAccessibleName(self.chart.accessibleName())
            p.setAccessibleDescription(summary)

    def _clear_facts(self) -> None:
        """No Facts for this scenario: the claim's numbers, the key number and the details go
        and the chart (the previous scenario's numbers must not stay beside the error line)."""
        self.facts = None
        self.figure = None
        self.chart.setVisible(False)
        self.caption_label.refill()
        self.takeaway_label.refill()
        self.key_label.setText("—")
        self.key_caption.setText("")
        self.why_label.setText("")
        self.details_label.setText("")

    def axis_extent(self) -> tuple[float, float]:
        """The value axis' (smallest, largest) over the chapter's prepared states (model.lessons.deck)."""
        return axis_extent(self.chapter.number, tuple(st.scenario for st in self.chapter.states))

    def extra_details(self) -> tuple[str, ...]:
        """More detail lines a chapter adds (e.g. published runs); plain text."""
        return ()

    def _show_error(self, exc: BaseException) -> None:
        msg = str(exc).splitlines()[0] if str(exc) else ""
        self.error_text = f"This chapter could not draw: {type(exc).__name__}" + (f": {msg}" if msg else "")
        self.error_label.setText(self.error_text)
        self.error_label.setVisible(True)

    def ensure_fresh(self) -> None:
        if self._dirty or self._timer.isActive():
            self.refresh()

    # ---------------------------------------------------------------- subclass API
    def build(self) -> None:
        raise NotImplementedError

    def update_view(self, e) -> None:
        raise NotImplementedError

    def csv_rows(self) -> tuple[list[str], list[list]]:
        raise NotImplementedError

    def place_labels(self) -> None:
        """Place the labels whose place depends on pixel sizes (after update_view, and when a plot
        is resized)."""

    def _placing(self, *_args) -> None:
        if self.figure is None:
            return
        try:
            self._place_inside()
        except Exception as exc:   # a label that cannot be placed must not stop the show
            self._show_error(exc)

    def _place_inside(self) -> None:
        """The chapter's placing, then every plot text kept inside its plot (wrapped if need be)."""
        self.place_labels()
        for p in self.plots:
            keep_inside(p)
        self.place_labels()

    def sync_controls(self) -> None:
        """Show self.params in the chapter's own controls (signals blocked)."""

    def apply_plot_theme(self, t: th.Theme) -> None:
        """Colours of the plot items (called on a theme change)."""

    # ---------------------------------------------------------------- look
    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        self.setStyleSheet(chapter_style(t))
        self.side.setFixedWidth(int(self.side_width * min(max(t.scale, 0.8), 1.6)))
        self._fit_key()
        for p in self.plots:
            style_plot(p, t)
        if self.read_panel is not None:
            self.read_panel.set_theme(t)
        self.apply_plot_theme(t)
        self._dirty = True
        if self.isVisible():
            self.refresh()
