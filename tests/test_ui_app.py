"""Screenshots, pixel checks, settings, and starting without a display."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QImage

from model import Scenario, estimate
from ui.shell import app as uiapp
from ui.kit import theme as th


def _close(c1: QColor, c2: QColor, tol: int = 40) -> bool:
    return all(abs(a - b) <= tol for a, b in ((c1.red(), c2.red()), (c1.green(), c2.green()), (c1.blue(), c2.blue())))


def _shot(qtbot, shown, scenario, size=(1600, 900)):
    w = shown(uiapp.build_window(scenario, st=None), size)
    img = w.grab().toImage()
    return w, img, img.devicePixelRatio()


@pytest.mark.parametrize("scenario", [Scenario(), Scenario(batch=64), Scenario(model="llama-3.1-8b", batch=512),
                                      Scenario(phase="prefill")])
def test_operating_point_is_drawn_where_the_model_puts_it(qtbot, shown, scenario):
    w, img, dpr = _shot(qtbot, shown, scenario)
    e = estimate(scenario)
    p = w.roofline.widget_pos(e.arithmetic_intensity_flops_per_byte, e.achieved_flops, w)
    px = QPoint(round(p.x() * dpr), round(p.y() * dpr))
    assert w.roofline.plot.geometry().contains(w.roofline.plot.mapFrom(w, p.toPoint()))
    got = img.pixelColor(px)
    assert _close(got, QColor(th.DARK.op_point)), (got.name(), px)
    # and not just anywhere: 40 px away the marker colour is absent
    far = img.pixelColor(QPoint(px.x(), px.y() + round(40 * dpr)))
    assert not _close(far, QColor(th.DARK.op_point), 20)


def test_hbm_bar_turns_red_when_it_does_not_fit(qtbot, shown):
    def border_pixel(scenario):
        w, img, dpr = _shot(qtbot, shown, scenario)
        bar = w.gauges.hbm
        p = bar.mapTo(w, QPoint(1, bar.height() // 2))
        colour = img.pixelColor(QPoint(round(p.x() * dpr), round(p.y() * dpr)))
        # the overflowing end of the bar (right edge, inside) is vermillion too
        q = bar.mapTo(w, QPoint(bar.width() - 6, bar.height() // 2))
        end = img.pixelColor(QPoint(round(q.x() * dpr), round(q.y() * dpr)))
        w.close()
        return colour, end
    red, red_end = border_pixel(Scenario(model="llama-3.1-70b"))  # 70B BF16 on one H100: does not fit
    ok, ok_end = border_pixel(Scenario(model="llama-3.1-8b"))     # fits
    assert _close(red, QColor(th.VERMILLION))
    assert not _close(ok, QColor(th.VERMILLION), 25)
    assert red_end.red() > red_end.blue() + 60 and red_end.red() > 150
    assert not _close(ok_end, QColor(th.VERMILLION), 40)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_screenshot_entry_point(tmp_path, qtbot, size):
    out = tmp_path / "shot.png"
    assert uiapp.run(Scenario(batch=8), screenshot=str(out), size=size) == 0
    img = QImage(str(out))
    assert (img.width(), img.height()) == size


def test_smoke_mode(qtbot):
    assert uiapp.run(Scenario(), smoke=True, view="main", chapter=None, presenter=False) == 0


def test_qt_startup_error_is_none_here():
    assert uiapp.qt_startup_error() is None


def test_no_display_says_what_to_do(monkeypatch, capsys):
    for var in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(uiapp.sys, "platform", "linux")
    assert uiapp.run(Scenario()) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--screenshot" in err and "QT_QPA_PLATFORM=offscreen" in err


def test_settings_are_temporary_and_restore(qtbot, _temporary_qt_settings):
    st = uiapp.settings()
    assert st.fileName().startswith(_temporary_qt_settings)
    st.clear()
    w = uiapp.build_window(Scenario(), st=st)
    qtbot.addWidget(w)
    w.resize(1300, 760)
    w.controller.set(batch=48, model="llama-3.1-8b")
    w.controller.flush()
    w.toggle_theme()
    w.close()                              # saves
    st2 = uiapp.settings()
    assert json.loads(st2.value("scenario"))["batch"] == 48
    restored = uiapp.load_scenario(st2)
    assert restored == Scenario(batch=48, model="llama-3.1-8b")
    w2 = uiapp.build_window(restored, st=st2)
    qtbot.addWidget(w2)
    assert w2.theme_name == "light"
    assert w2.restore_geometry()          # (the offscreen screen is 800×600, so Qt clamps the size)
    assert w2.controls.batch_spin.value() == 48
    st2.clear()


def test_broken_saved_scenario_falls_back_to_defaults(qtbot):
    st = uiapp.settings()
    for raw in (json.dumps({"gpu": "no-such-gpu"}), "{not json"):
        st.setValue("scenario", raw)
        s = uiapp.load_scenario(st)            # the model rejects it: set aside (tests/test_ui_stage.py)
        assert s is None and st.value("scenario") is None
        w = uiapp.build_window(s, st=None)
        qtbot.addWidget(w)
        assert w.controller.estimate == estimate(Scenario()) and not w.controller.problem
    st.clear()
