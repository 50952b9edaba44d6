"""Why this number? in the window: a gauge, a part of the chip, a point of the roofline or F1 opens
the derivation over the chip; its inputs are links to walk down and Back walks up; a change while
it is open shows the new numbers."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence

from model import Scenario
from model.readouts.derivations import all_readouts
from ui.shell.app import build_window


def _window(qtbot, scenario=None):
    w = build_window(scenario or Scenario(model="llama-3.1-70b", precision="fp16"))
    qtbot.addWidget(w)
    w.resize(1600, 900)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_a_gauge_click_opens_its_numbers_derivation_and_its_inputs_walk(qtbot):
    w = _window(qtbot)
    g = w.gauges.gauges["ms_per_token"]
    qtbot.mouseClick(g, Qt.LeftButton)
    p = w._explain
    assert p is not None and p.isVisible() and p.key == "decode_time"
    r = all_readouts(w.controller.estimate)
    assert r["decode_time"].text in p.body.text() and "published runs" in p.body.text()
    first = "decode.qkv.time"
    assert f"href='{first}'" in p.body.text()
    p.body.linkActivated.emit(first)
    assert p.key == first and p.history == ["decode_time"]
    p.back()
    assert p.key == "decode_time" and not p.history
    p.close_panel()
    assert not p.isVisible()


def test_f1_explains_the_footers_number_and_a_change_refreshes_it(qtbot):
    w = _window(qtbot)
    f1 = [a for a in w.actions() if a.shortcut() == QKeySequence(Qt.Key_F1)]
    assert len(f1) == 1
    f1[0].trigger()
    p = w._explain
    assert p.isVisible() and p.key == w.headline_key() == "decode_floor"
    old = p.body.text()
    w.controller.set(precision="fp8")
    w.controller.flush()
    assert p.body.text() != old and all_readouts(w.controller.estimate)["decode_floor"].text in p.body.text()


def test_the_roofline_point_and_kernels_and_the_chip_ask_for_their_derivations(qtbot):
    w = _window(qtbot, Scenario(batch=64))
    asked = []
    w.roofline.explain_requested.connect(asked.append)
    w.hierarchy.explain_requested.connect(asked.append)
    e = w.controller.estimate
    rp = w.roofline
    assert rp.tips.key_at(rp.scene_pos(e.arithmetic_intensity_flops_per_byte, e.achieved_flops)) == "achieved_flops"
    att = next(k for k in e.decode_kernels if k.name == "attention")
    assert rp.tips.key_at(rp.scene_pos(att.intensity_flops_per_byte, att.attained_flops)) == "decode.attention.time"
    pos = rp.plot.mapFromScene(rp.scene_pos(e.arithmetic_intensity_flops_per_byte, e.achieved_flops))
    qtbot.mouseClick(rp.plot.viewport(), Qt.LeftButton, pos=QPoint(int(pos.x()), int(pos.y())))
    lay = w.hierarchy.scene.lay
    row = next(r for r in lay.ladder if r.key == "hbm")
    qtbot.mouseClick(w.hierarchy.canvas, Qt.LeftButton, pos=QPoint(int(row.box.left + 2), int(row.box.top + 2)))
    assert asked == ["achieved_flops", "mbu"]
