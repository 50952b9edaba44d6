"""Read mode's panel, beside a lesson's live chart (ChapterView.set_reading): the lesson as text
(model/lessons/read.py, as HTML by model/lessons/read_html.py) in a QTextBrowser whose term
links scroll to the glossary entries at its end, and an exercise row: a question, a box for a
guess, a Check button and the model's verdict with its derivation (model/lessons/exercises.py).
It draws what the model wrote; it computes and words nothing.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLineEdit, QPushButton, QSizePolicy, QTextBrowser,
                               QVBoxLayout, QWidget)

from model.lessons.exercises import check
from model.lessons.glossary import entry
from model.lessons.read import READ_WORDS, ReadPage, read_page
from model.lessons.read_html import glossary_body, page_html
from ui.kit import theme as th
from ui.kit.steady_label import WrapLabel

MIN_TEXT_PX = 18          # read mode's smallest type: legible on a projector


def read_font_px(t: th.Theme) -> int:
    return max(MIN_TEXT_PX, t.px(17))


def document_style(t: th.Theme) -> str:
    """The browser document's style: the theme's colours, read mode's type."""
    px = read_font_px(t)
    return (f"body {{ font-size: {px}px; color: {t.text}; }} h1 {{ font-size: {t.px(24)}px; }} "
            f"h2 {{ font-size: {max(px, t.px(20))}px; }} p.claim {{ font-size: {max(px, t.px(21))}px; font-weight: 700; }} "
            f"p.der {{ font-family: monospace; color: {t.secondary}; }} p.value {{ color: {t.op_point}; font-weight: 700; }} "
            f"a {{ color: {t.accent}; }}")


class ReadPanel(QWidget):
    """The text of one lesson and its exercises; ``show_page`` redraws both."""

    def __init__(self, catalog_of, theme: th.Theme, parent=None):
        super().__init__(parent)
        self.setObjectName("readPanel")
        self.catalog_of = catalog_of             # a function: the controller's current catalogue
        self.page: ReadPage | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        self.browser = QTextBrowser()
        self.browser.setObjectName("readText")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._follow)
        lay.addWidget(self.browser, 1)
        self.question = QComboBox()
        self.question.setObjectName("readExercise")
        self.question.setToolTip(READ_WORDS["exercise_tip"])
        self.question.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Fixed)
        self.question.currentIndexChanged.connect(self._pick)
        self.question_text = WrapLabel("")
        self.question_text.setObjectName("readQuestion")
        self.question_text.setTextFormat(Qt.PlainText)
        self.question_text.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        top = QHBoxLayout()
        top.addWidget(self.question, 0)
        top.addWidget(self.question_text, 1)
        lay.addLayout(top)
        row = QHBoxLayout()
        self.guess = QLineEdit()
        self.guess.setObjectName("readGuess")
        self.guess.setPlaceholderText(READ_WORDS["guess"])
        self.guess.returnPressed.connect(self.check_guess)
        self.check_button = QPushButton(READ_WORDS["check"])
        self.check_button.setToolTip(READ_WORDS["check_tip"])
        self.check_button.clicked.connect(self.check_guess)
        row.addWidget(self.guess, 1)
        row.addWidget(self.check_button)
        lay.addLayout(row)
        self.verdict = WrapLabel("")
        self.verdict.setObjectName("readVerdict")
        self.verdict.setTextFormat(Qt.PlainText)
        self.verdict.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        lay.addWidget(self.verdict)
        self.set_theme(theme)

    def set_theme(self, t: th.Theme) -> None:
        self.theme = t
        px = read_font_px(t)
        self.browser.document().setDefaultStyleSheet(document_style(t))
        self.setStyleSheet(f"QWidget#readPanel QComboBox, QWidget#readPanel QLineEdit, QWidget#readPanel QPushButton, "
                           f"QLabel#readVerdict, QLabel#readQuestion {{ font-size: {px}px; }}")
        if self.page is not None:
            self.show_page(self.page, self.estimate)

    def show_page(self, page: ReadPage, e) -> None:
        """Lesson ``page`` (with the Estimate its numbers come from: the glossary's entries)."""
        same = self.page is not None and self.page.number == page.number
        self.page, self.estimate = page, e
        bar = self.browser.verticalScrollBar().value()
        terms = tuple(entry(e, k) for k in page.terms)
        body = page_html(page, "", standalone=False, exercises=False)
        self.browser.setHtml(f"<html><body>{body}<hr>{glossary_body(terms)}</body></html>")
        if same:
            self.browser.verticalScrollBar().setValue(bar)      # a live change keeps the reader's place
        if not same:
            self.question.blockSignals(True)
            self.question.clear()
            self.question.addItems([f"{READ_WORDS['exercise']} {i + 1}" for i in range(len(page.exercises))])
            self.question.blockSignals(False)
            self._pick(0)

    def _pick(self, index: int) -> None:
        exercises = self.page.exercises if self.page is not None else ()
        self.question_text.setText(exercises[index].question if 0 <= index < len(exercises) else "")
        self.verdict.setText("")

    def check_guess(self) -> None:
        if self.page is None or not self.page.exercises:
            return
        ex = self.page.exercises[max(0, self.question.currentIndex())]
        c = check(ex, self.guess.text(), self.catalog_of())
        d = c.answer.derivation
        self.verdict.setText("\n".join((c.words, *sorted(d[:-1], key=len)[:1], *d[-1:])))    # its shortest line, the scenario
        self.verdict.setToolTip("\n".join(d))
        self.last_check = c

    def _follow(self, url) -> None:
        if url.fragment():
            self.browser.scrollToAnchor(url.fragment())

    def text(self) -> str:
        """What the browser shows, as plain text (tests, accessibility)."""
        return self.browser.toPlainText()


class ReadMode:
    """Read mode for a chapter view (a mixin of ui.chapters.base.ChapterView: it swaps the view's side
    panel for a ReadPanel in ``self.body``)."""

    def set_reading(self, on: bool) -> None:
        """Read mode: the lesson as text beside the chart, in place of the side panel (the slides'
        layout comes back when it is off)."""
        self.reading = bool(on)
        if self.reading and self.read_panel is None:
            self.read_panel = ReadPanel(lambda: self.catalog, self.theme)
            self.body.addWidget(self.read_panel, 1)
        self.side.setVisible(not self.reading)
        if self.read_panel is not None:
            self.read_panel.setVisible(self.reading)
        if self.reading and self.estimate is not None:
            try:
                self._show_reading(self.estimate)
            except Exception:      # an older estimate, its part since removed: redraw from the current one
                self.refresh()     # (which says any error in one line)

    def _show_reading(self, e) -> None:
        self.read_panel.show_page(read_page(self.chapter, self.state_index, e, self.params, self.catalog), e)

