"""A seeded random walk over the main window: every control, key, page (the Serve and Plan pages
too), resize, export and file action, the hardware editor, model import, Remove, slides and
Record…, as a user (or a cat on the keyboard) would do them.

    with FuzzWalk(window, seed=1, folder=tmp) as walk:
        walk.run(500)                 # raises on the first exception an action raises

Used by tests/test_fuzz_ui.py (≥ 1 500 actions per CI run) and benches/soak_ui.py (`make soak`).

Time: the test's walk (the default) never looks at a clock, so a seed takes the same path on
any machine, busy or not: after each action Qt's queue is delivered with no timer firing
(tests/qt_events.deliver), and a "wait" moves what the app moves by time by hand, by the
chosen milliseconds: the glide's clock, the chip's frames, the page's 0 ms redraw, a chapter
page warmed ahead, a running measurement's poll (the slots those timers call); the Serve and Plan
pages' work on their own threads (ui/kit/background.py) is waited for and handed over after each
action, so the page a seed meets next never depends on how soon a thread finished. The soak
(``real_time=True``) waits for real: its timers fire as they fall, the threads' results come when
they come.
File dialogs are replaced for the walk by a chooser that returns hostile and ordinary paths
(a FIFO named x.json, /dev/zero, 100 000 nested brackets, a 400-digit batch, a missing folder,
a read-only file, an empty path), so Save…/Open…/Export go through the window's real code.
Modal dialogs (QDialog.exec, which would wait for a person) are built, shown, and then
accepted or cancelled at random.
"""
from __future__ import annotations

import os
import random
import string
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (QAbstractButton, QAbstractSlider, QApplication, QComboBox, QDialog,
                               QFileDialog, QSpinBox)

from qt_events import deliver

KEYS = [Qt.Key_Space, Qt.Key_Right, Qt.Key_Left, Qt.Key_Up, Qt.Key_Down, Qt.Key_PageUp, Qt.Key_PageDown,
        Qt.Key_Home, Qt.Key_End, Qt.Key_R, Qt.Key_B, Qt.Key_C, Qt.Key_Escape, Qt.Key_F5, Qt.Key_Tab,
        Qt.Key_Return] + [getattr(Qt, f"Key_{i}") for i in range(0, 10)]
SHORTCUTS = ["Ctrl+H", "Ctrl+S", "Ctrl+O"]
SIZES = [(1024, 600), (1280, 720), (1366, 768), (1600, 900), (1920, 1080), (2560, 1440)]
TEXT = string.ascii_letters + string.digits + " -.,/"      # QTest types ASCII only (qFatal otherwise)
UNICODE = ["×", "→", "é", "😀", "\u202e", "\x00", "Ω" * 300]
# What a hardware editor's field is given: ordinary numbers, the ones that crashed estimates
# (1e-300 FLOP/s), signs, words, markup, empty, long (a name of 300 characters, not 200 000:
# that one is the hostile-file suite's)
FIELD_TEXT = ["1", "0", "-1", "1e-300", "1e300", "nan", "inf", "abc", "", " 2.5 ", "<b>x</b>", "80", "3350",
              "0.001", "9" * 40, "x" * 300, "my-gpu", "my gpu\n", "h100-sxm5-80gb"]
CONFIGS = Path(__file__).resolve().parent / "data" / "hf_configs"
RECORD_WEIGHT = 0.5           # a recording draws frames (the slowest action): rarely


def hostile_files(folder: Path) -> dict[str, str]:
    """Paths a file dialog may hand back: ordinary ones and the ones that broke the app before."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "good": '{"memory_wall_scenario": 1, "scenario": {"gpu": "h200", "model": "llama-3.1-8b", '
                '"precision": "fp8", "batch": 64}, "chapter": 6}',
        "deep": '{"memory_wall_scenario": 1, "scenario": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "huge_int": '{"memory_wall_scenario": 1, "scenario": {"batch": ' + "9" * 400 + "}}",
        "long_int": '{"memory_wall_scenario": 1, "scenario": {"batch": ' + "9" * 5000 + "}}",
        "bool": '{"memory_wall_scenario": true, "scenario": {}}',
        "empty": "",
        "latin1": None,
    }
    paths = {}
    for name, text in files.items():
        p = folder / f"{name}.json"
        if text is None:
            p.write_bytes(b'{"a": "\xe9"}')
        else:
            p.write_text(text)
        paths[name] = str(p)
    ro = folder / "read_only.json"
    if not ro.exists():
        ro.write_text(files["good"])
    ro.chmod(0o444)
    fifo = folder / "x.json"
    if not fifo.exists():
        os.mkfifo(fifo)
    paths.update(read_only=str(ro), fifo=str(fifo), dev_zero="/dev/zero", missing=str(folder / "nope" / "x.json"),
                 folder=str(folder), empty_path="", new=str(folder / "saved.json"))
    return paths


class FuzzWalk:
    """Random actions on ``window`` (a MainWindow), reproducible from ``seed``."""

    def __init__(self, window, seed: int, folder: Path, real_time: bool = False):
        self.w = window
        self.real_time = real_time
        self.app = QApplication.instance()
        self.rng = random.Random(seed)
        self.files = hostile_files(Path(folder))
        self.out = Path(folder) / "exports"
        self.out.mkdir(exist_ok=True)
        self.done = 0
        self.counts: dict[str, int] = {}      # actions taken, by kind
        self._saved = {}
        self.actions = [(6, self.button), (4, self.combo), (4, self.slider), (4, self.spin), (8, self.key),
                        (1, self.shortcut), (2, self.page), (1, self.resize), (1, self.export), (1, self.open_file),
                        (1, self.save_file), (2, self.mouse), (2, self.wait), (1, self.type_text),
                        (2, self.hardware_editor), (1, self.model_import), (1, self.remove_custom),
                        (1, self.slide), (RECORD_WEIGHT, self.record), (1, self.work_page)]
        self._weights = [a[0] for a in self.actions]

    # ---------------------------------------------------------------- set-up
    def __enter__(self):
        rng = self.rng
        files = self.files
        for name in ("getOpenFileName", "getSaveFileName"):
            self._saved[name] = QFileDialog.__dict__.get(name)
        open_choice = lambda *a, **k: (rng.choice(list(files.values())), "")          # noqa: E731
        save_choice = lambda *a, **k: (rng.choice([files["new"], files["read_only"], files["missing"],    # noqa: E731
                                                   files["empty_path"], files["folder"], files["fifo"],
                                                   str(self.out / f"e{rng.randrange(4)}.svg")]), "")
        QFileDialog.getOpenFileName = staticmethod(open_choice)
        QFileDialog.getSaveFileName = staticmethod(save_choice)
        self._saved_exec = QDialog.exec
        from model.catalog import active as catalog
        from ui.custom import store as custom_store
        self._catalog = catalog._active       # the walk may add custom hardware: put it back after
        self._data_dir = custom_store.data_dir
        appdata = self.out.parent / "appdata"
        custom_store.data_dir = lambda: appdata     # and saves it here, not in the user's data folder

        def modal(dialog) -> int:             # shown, then accepted or cancelled: never waits
            dialog.show()
            self._turn()
            done = rng.random() < 0.5
            dialog.accept() if done else dialog.reject()
            return int(done)
        QDialog.exec = modal
        return self

    def __exit__(self, *exc):
        from model.catalog.active import set_default_catalog
        from ui.custom import store as custom_store
        set_default_catalog(self._catalog)
        custom_store.data_dir = self._data_dir
        QDialog.exec = self._saved_exec
        for name, fn in self._saved.items():
            if fn is None:
                delattr(QFileDialog, name)
            else:
                setattr(QFileDialog, name, fn)
        return False

    def run(self, n: int, every=None, every_n: int = 1000) -> None:
        """n actions; ``every(done)`` after each ``every_n`` (memory readings)."""
        for _ in range(n):
            action = self.rng.choices(self.actions, self._weights)[0][1]
            action()
            self.counts[action.__name__] = self.counts.get(action.__name__, 0) + 1
            self._turn()
            for where, shown in (("on Serve", self.w.serve_visible()), ("on Plan", self.w.plan_visible())):
                if shown:                       # actions that ended with the page on screen
                    self.counts[where] = self.counts.get(where, 0) + 1
            self.done += 1
            if every is not None and self.done % every_n == 0:
                every(self.done)

    @property
    def reached_serve(self) -> bool:
        return self.counts.get("on Serve", 0) > 0

    @property
    def reached_plan(self) -> bool:
        return self.counts.get("on Plan", 0) > 0

    # ---------------------------------------------------------------- helpers
    def _turn(self) -> None:
        """One turn of the event loop: with timers (the soak) or without (the test; then the Serve
        and Plan pages' work is finished and handed over, and the queue delivered again)."""
        if self.real_time:
            self.app.processEvents()
            return
        deliver()
        for page in (self.w._serve, self.w._plan):
            if page is not None and page.jobs.busy:
                page.jobs.finish()
                deliver()
        self._views_agree()

    def _views_agree(self) -> None:
        """Every visible Explore panel shows the controller's estimate (a snapshot that reached some
        views and not others left the roofline and gauges on the previous scenario for a change)."""
        c = self.w.controller
        if c.pending:
            return
        for name in ("roofline", "gauges"):
            view = getattr(self.w, name)
            if view.isVisible() and view._snap is not None and view._snap.estimate is not c.snapshot.estimate:
                raise AssertionError(f"the {name} shows snapshot {view._snap.serial}, the controller's is "
                                     f"{c.snapshot.serial} (after {self.done + 1} actions)")

    def _visible(self, kind):
        return [c for c in self.w.findChildren(kind) if c.isVisibleTo(self.w) and c.isEnabled()]

    def _pick(self, kind):
        items = self._visible(kind)
        return self.rng.choice(items) if items else None

    # ---------------------------------------------------------------- actions
    def button(self) -> None:
        self._press(self._pick(QAbstractButton))

    def _press(self, b) -> None:
        if b is None:
            return
        menu = b.menu() if hasattr(b, "menu") else None
        if menu is not None:                 # a menu's popup runs its own event loop: pick an entry instead
            actions = [a for a in menu.actions() if a.isEnabled() and not a.isSeparator()]
            if actions:
                self.rng.choice(actions).trigger()
        else:
            b.click()

    def combo(self) -> None:
        c = self._pick(QComboBox)
        if c is None or c.count() == 0:
            return
        i = self.rng.randrange(c.count())
        c.setCurrentIndex(i)
        c.activated.emit(i)

    def slider(self) -> None:
        s = self._pick(QAbstractSlider)
        if s is None:
            return
        if self.rng.random() < 0.5:
            s.setValue(self.rng.randint(s.minimum(), s.maximum()))
        else:
            QTest.keyClick(s, self.rng.choice([Qt.Key_PageUp, Qt.Key_PageDown, Qt.Key_Home, Qt.Key_End,
                                               Qt.Key_Left, Qt.Key_Right]))

    def spin(self) -> None:
        s = self._pick(QSpinBox)
        if s is None:
            return
        r = self.rng.random()
        if r < 0.4:
            s.setValue(self.rng.choice([s.minimum(), s.maximum(), self.rng.randint(s.minimum(), s.maximum())]))
        else:
            s.lineEdit().selectAll()
            text = self.rng.choice(["0", "-5", "1e9", "32768", "abc", "", "4096", str(self.rng.randint(1, 10 ** 7))])
            QTest.keyClicks(s.lineEdit(), text)
            QTest.keyClick(s.lineEdit(), Qt.Key_Return)

    def type_text(self) -> None:
        c = self._pick(QComboBox)
        if c is None or not c.isEditable():
            return
        text = "".join(self.rng.choice(TEXT) for _ in range(self.rng.randint(1, 8)))
        QTest.keyClicks(c.lineEdit(), text)
        if self.rng.random() < 0.3:
            c.lineEdit().insert(self.rng.choice(UNICODE))
        QTest.keyClick(c.lineEdit(), self.rng.choice([Qt.Key_Return, Qt.Key_Escape, Qt.Key_Tab]))

    def key(self) -> None:
        target = self.app.focusWidget() or self.w
        if not target.isVisible():
            target = self.w
        mods = self.rng.choice([Qt.NoModifier] * 6 + [Qt.ShiftModifier, Qt.ControlModifier])
        QTest.keyClick(target, self.rng.choice(KEYS), mods)

    def shortcut(self) -> None:
        QTest.keySequence(self.w, QKeySequence(self.rng.choice(SHORTCUTS)))

    def page(self) -> None:
        r = self.rng.random()
        if r < 0.3:
            self.w.show_explore()
        elif r < 0.8:
            self.w.show_chapter(self.rng.randint(1, 8), self.rng.randint(0, 4))
        else:
            self.w.toggle_chip_focus()

    def work_page(self) -> None:
        """The Serve or the Plan page (their knobs, keys and presenter mode are then the other
        actions'): each action there asks its thread for a run or a plan."""
        (self.w.show_serve if self.rng.random() < 0.5 else self.w.show_plan)()

    def resize(self) -> None:
        self.w.resize(*self.rng.choice(SIZES))

    def export(self) -> None:
        lessons = self.w.lessons
        kind = self.rng.choice(["PNG", "SVG", "CSV"])
        path = self.rng.choice([str(self.out / f"x.{kind.lower()}"), self.files["missing"], self.files["read_only"],
                                self.files["folder"], self.files["empty_path"]])
        if self.w.lessons_visible():
            lessons.export(kind, path)

    def hardware_editor(self) -> None:
        """The hardware editor: opened from this GPU, or one of its fields given a hostile value,
        a what-if applied, another start chosen, Save, Remove, or closed."""
        actions = self.w.custom_actions
        from shiboken6 import isValid
        from ui.custom.hardware_editor import HardwareEditor
        ed = actions.dialog
        if ed is None or not isValid(ed) or not isinstance(ed, HardwareEditor) or not ed.isVisible():
            actions.new_hardware()
            return
        r = self.rng.random()
        if r < 0.55:
            key = self.rng.choice(list(ed.edits))
            edit = ed.edits[key]
            edit.setText(self.rng.choice(FIELD_TEXT))
            edit.textEdited.emit(edit.text())
        elif r < 0.65:
            ed.apply(self.rng.choice(list(ed.what_if_buttons)))
        elif r < 0.72 and ed.start.count():
            ed.start.setCurrentIndex(self.rng.randrange(ed.start.count()))
        elif r < 0.88:
            ed.save()
        elif r < 0.94 and ed.delete_button.isVisible():
            ed.remove_current()
        else:
            ed.reject()

    def model_import(self) -> None:
        """Add model from config.json: a shipped config, a hostile file, or one made up; a name
        typed; Add or close."""
        actions = self.w.custom_actions
        from shiboken6 import isValid
        from ui.custom.model_import import ModelImportDialog
        dlg = actions.dialog
        if dlg is None or not isValid(dlg) or not isinstance(dlg, ModelImportDialog) or not dlg.isVisible():
            configs = sorted(str(p) for p in CONFIGS.glob("*.json"))
            actions.add_model(self.rng.choice(configs + list(self.files.values()) + [self._made_up_config()]))
            return
        r = self.rng.random()
        if r < 0.4:
            dlg.name.setText(self.rng.choice(["", "My model", "x" * 300, "<i>m</i>", "Llama 3.1 8B"]))
            dlg.name.textEdited.emit(dlg.name.text())
        elif r < 0.8:
            dlg.add()
        else:
            dlg.reject()

    def _made_up_config(self) -> str:
        """A config.json with random (often impossible) sizes: heads that do not divide, zeros."""
        import json
        rng = self.rng
        cfg = {"model_type": "llama", "hidden_size": rng.choice([0, 1, 7, 64, 4096]),
               "num_attention_heads": rng.choice([0, 1, 3, 32, 4097]), "num_hidden_layers": rng.choice([0, 1, 32]),
               "intermediate_size": rng.choice([0, 11008, 14336]), "vocab_size": rng.choice([0, 32000]),
               "num_key_value_heads": rng.choice([1, 5, 8])}
        path = self.out.parent / f"config{rng.randrange(4)}.json"
        path.write_text(json.dumps(cfg))
        return str(path)

    def remove_custom(self) -> None:
        """Remove… one of your own entries (what the Remove menu's entries call)."""
        from model.catalog.active import default_catalog
        cat = default_catalog()
        mine = [g.id for g in cat.gpus if cat.is_custom(g.id)] + [m.id for m in cat.models if cat.is_custom(m.id)]
        if mine:
            self.w.custom_actions.remove(self.rng.choice(mine))

    def slide(self) -> None:
        """Export a slide of the chapter shown (PNG or SVG, dark or light) to an ordinary or hostile path."""
        if not self.w.lessons_visible():
            return
        from ui.present.slides import save_slide
        kind = self.rng.choice(["PNG", "SVG"])
        path = self.rng.choice([str(self.out / f"slide.{kind.lower()}"), self.files["missing"], self.files["read_only"],
                                self.files["folder"], self.files["empty_path"]])
        save_slide(self.w, kind, self.rng.choice(["dark", "light"]), path)

    def record(self) -> None:
        """Record…: the dialog's own recording of a few small frames (the chip, or the chapter
        shown) to an ordinary or hostile path, then closed."""
        from ui.present.record_dialog import SIZES, RecordDialog
        dlg = RecordDialog(self.w)
        try:
            dlg.what.setCurrentIndex(self.rng.randrange(dlg.what.count()))
            dlg.seconds.setValue(0.5)
            dlg.fps.setValue(dlg.fps.minimum())
            dlg.size_box.setCurrentIndex(min(range(len(SIZES)), key=lambda i: SIZES[i][0] * SIZES[i][1]))
            path = self.rng.choice([str(self.out / "r.gif"), str(self.out / "r.png"), self.files["missing"],
                                    self.files["folder"], self.files["read_only"]])
            dlg.record_to(path)
        finally:
            dlg.close()
            dlg.deleteLater()

    def open_file(self) -> None:
        self.w.open_scenario(self.rng.choice(list(self.files.values())))

    def save_file(self) -> None:
        self.w.save_scenario_dialog()

    def mouse(self) -> None:
        w, h = self.w.width(), self.w.height()
        pos = QPoint(self.rng.randrange(w), self.rng.randrange(h))
        child = self.w.childAt(pos) or self.w
        if isinstance(child, QAbstractButton) and getattr(child, "menu", lambda: None)() is not None:
            return self._press(child)        # a mouse press would open its menu's blocking popup
        local = child.mapFrom(self.w, pos)
        if self.rng.random() < 0.25:
            QTest.mouseDClick(child, Qt.LeftButton, Qt.NoModifier, local)
        else:
            QTest.mouseClick(child, Qt.LeftButton, Qt.NoModifier, local)

    def wait(self) -> None:
        ms = self.rng.choice([0, 5, 20])
        if self.real_time:
            QTest.qWait(ms)
            return
        w = self.w
        if w.lessons_built():
            lessons = w.lessons
            anim = lessons.glide.anim
            if lessons.glide.running:                 # paused: only this moves it (tests/qt_events.drive)
                anim.pause()
                anim.setCurrentTime(min(anim.duration(), anim.currentTime() + ms))
            if ms >= 20 and lessons.number < len(lessons.chapters):
                lessons._warm_now(lessons.number + 1)  # what its single shot calls (it waits for a glide)
            for view in lessons.views.values():
                if view._timer.isActive():            # a page's 0 ms redraw: what it calls
                    view.refresh()
        if w.hierarchy.isVisible() and ms:
            w.hierarchy.advance(ms / 1000)            # the chip's frames
            w.hierarchy.canvas.update()
        measurer = getattr(getattr(w, "custom_actions", None), "measurer", None)
        if measurer is not None:
            from shiboken6 import isValid
            if isValid(measurer) and measurer.running:
                measurer._poll()                      # what its 50 ms timer calls
        deliver()
