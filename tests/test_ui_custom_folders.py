"""Your own hardware and models when their folder will not do: a removal that cannot delete its file
changes nothing and says so in one line; a data folder whose hardware/ or models/ is a file is one
clear line; the editor's Remove moves Explore off the GPU it removes; and a name that looks like
HTML is shown as it is, never drawn as rich text."""
import errno
from pathlib import Path

import pytest
from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from model.catalog.active import default_catalog
from qt_events import deliver
from ui.custom import store as custom_store

HTML_NAME = "<b>Bold</b> GPU"


@pytest.fixture(autouse=True)
def data_dir(own_data_dir):
    return own_data_dir


def _saved_gpu(window, ident: str = "h100-mine", name: str | None = None) -> str:
    ed = window.custom_actions.new_hardware()
    ed.edit(next(f for f in ed.fields if f.key == "id"), ident)
    if name is not None:
        ed.edit(next(f for f in ed.fields if f.key == "name"), name)
    assert ed.save(), ed.status.text()
    window.controller.flush()
    deliver()
    return ident


def test_a_removal_that_cannot_delete_its_file_changes_nothing(main_window, monkeypatch):
    """A read-only data folder: custom_store.remove raised OSError out of the Remove menu."""
    w = main_window
    ident = _saved_gpu(w)
    assert w.controller.scenario.gpu == ident

    def read_only(self, *_a, **_k):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))
    monkeypatch.setattr(Path, "unlink", read_only)
    assert w.custom_actions.remove(ident, "hardware") is False
    text = w.custom_actions.status.text()
    assert "was not removed" in text and "Permission denied" in text and "\n" not in text
    assert w.controller.scenario.gpu == ident and default_catalog().is_custom(ident, "hardware")


@pytest.mark.parametrize("kind", ["hardware", "models"])
def test_a_folder_that_is_a_file_is_one_clear_line(main_window, data_dir, kind):
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / kind).write_text("not a folder")
    w = main_window
    if kind == "hardware":
        ed = w.custom_actions.new_hardware()
        ed.edit(next(f for f in ed.fields if f.key == "id"), "h100-mine")
        assert not ed.save()
        text = ed.status.text()
    else:
        cfg = Path(__file__).resolve().parent / "data" / "hf_configs"
        dlg = w.custom_actions.add_model(str(sorted(cfg.glob("*.json"))[0]))
        dlg.add()
        text = dlg.status.text()
    assert f"{kind} cannot be kept" in text and "is a file, not a folder" in text and "Errno" not in text, text
    assert any("is a file, not a folder" in p for p in custom_store.load_saved())


def test_the_editors_remove_moves_explore_off_the_gpu_it_removes(main_window):
    w = main_window
    ident = _saved_gpu(w)
    ed = w.custom_actions.new_hardware()                 # opens on the GPU in use: your own
    assert ed.start_id == ident and ed.delete_button.isVisible()
    ed.remove_current()
    w.controller.flush()
    deliver()
    assert w.controller.scenario.gpu != ident and w.controller.snapshot.problem == ""
    assert not default_catalog().is_custom(ident, "hardware")
    assert not (custom_store.data_dir() / "hardware" / f"{ident}.json").exists()


def test_a_name_that_looks_like_html_is_shown_as_it_is(main_window):
    w = main_window
    _saved_gpu(w, name=HTML_NAME)
    w.controller.set_compare(w.controller.scenario.gpu)
    for show in (w.show_serve, w.show_plan, w.show_explore):
        show()
        w.controller.flush()
        deliver()
    w.serve.settle(1)
    w.plan.settle()
    deliver()
    assert any(HTML_NAME in lab.text() for lab in w.findChildren(QLabel))          # it is on screen …
    for lab in w.findChildren(QLabel):                                             # … as text
        rich = lab.textFormat() == Qt.RichText or (lab.textFormat() == Qt.AutoText
                                                   and QtGui.Qt.mightBeRichText(lab.text()))
        assert not (rich and HTML_NAME in lab.text()), (lab.objectName(), lab.text()[:80])
    tips = [wd.toolTip() for wd in w.findChildren(QWidget)]
    tips += [str(c.itemData(i, Qt.ToolTipRole) or "") for c in (w.controls.gpu, w.controls.compare)
             for i in range(c.count())]
    assert not [t for t in tips if HTML_NAME in t], "a tooltip would draw the name as HTML"
    assert any("&lt;b&gt;Bold&lt;/b&gt; GPU" in t for t in tips)                  # escaped where it is a tip
