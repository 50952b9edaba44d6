"""Issue 41: the window enforces the limits its knobs show, for files too — one validation for every
number, in the model (model/serving/knobs.py, model/planning/settings.py); the knobs take their
ranges from the same limits."""
import pytest

from model import Scenario
from model.errors import ScenarioError
from model.planning.settings import LIMITS, PlanSettings
from model.planning.space import parse_available
from model.serving.knobs import DEFAULT, KNOBS, window_setup, within_knobs
from model.serving.setup import ServingSetup


@pytest.mark.parametrize("field,value,limit", [
    ("requests", 1_000_000, "20,000"), ("requests", 5, "10 to"), ("concurrency", 1_000_000, "4,096"),
    ("rate_per_s", 1e6, "100,000"), ("spec_k", 12, "0 to 8"), ("ttft_p90_ms", 700_000, "600,000"),
    ("tpot_p90_ms", 20_000, "10,000")])
def test_a_value_beyond_its_knob_is_refused_in_one_line_naming_the_field_and_the_limit(field, value, limit):
    data = {field: value, **({"load": "concurrency"} if field == "concurrency" else {})}
    ServingSetup.from_dict(data)                                   # the simulator itself takes it
    with pytest.raises(ScenarioError) as exc:
        window_setup(data)
    text = str(exc.value)
    assert KNOBS[field].label in text and limit in text and "\n" not in text


def test_the_window_takes_what_its_knobs_reach():
    s = window_setup({"requests": 20_000, "load": "concurrency", "concurrency": 4096, "replicas": 64, "spec_k": 8,
                      "spec_accept": 0.5, "ttft_p90_ms": 600_000, "tpot_p90_ms": 10_000})
    assert within_knobs(s) is s and within_knobs(DEFAULT) is DEFAULT
    with pytest.raises(ScenarioError, match="replicas"):
        window_setup({"replicas": 65})                             # beyond the simulator's too


def test_plan_settings_round_trip_and_take_the_serve_knobs_limits():
    p = PlanSettings(available="h100:4,h200:2", ttft_p90_ms=800.0, tpot_p90_ms=None, rate_per_s=2.5,
                     speculative=False, disaggregated=True)
    assert PlanSettings.from_dict(p.to_dict()) == p
    assert PlanSettings.from_dict(PlanSettings().to_dict()) == PlanSettings()
    assert PlanSettings.from_dict({"ttft_p90_ms": 0, "rate_per_s": 0}).ttft_p90_ms is None     # 0: none, as on the knob
    for name in ("ttft_p90_ms", "tpot_p90_ms", "rate_per_s"):
        assert LIMITS[name] is KNOBS[name]


@pytest.mark.parametrize("data,needle", [
    ([1], "JSON object"), ("fast", "JSON object"), ({"colour": 1}, "unknown planning field 'colour'"),
    ({"ttft_p90_ms": 1e7}, "600,000"), ({"tpot_p90_ms": -1}, "TPOT"), ({"rate_per_s": "x"}, "rate"),
    ({"available": "h100:8" * 100}, "GPUs available"), ({"available": ""}, "GPUs available"),
    ({"available": ["h100"]}, "GPUs available"), ({"speculative": "yes"}, "speculative"),
    ({"disaggregated": 1}, "disaggregated")])
def test_planning_settings_are_refused_in_one_line(data, needle):
    with pytest.raises(ScenarioError, match=needle) as exc:
        PlanSettings.from_dict(data)
    assert "\n" not in str(exc.value)


def test_plan_settings_ask_the_planning_question_of_a_scenario():
    s = Scenario(model="llama-3.1-70b", input_len=2000, output_len=100)
    r = PlanSettings(available="h100:4", rate_per_s=3.0).request(s)
    assert (r.model, r.input_len, r.output_len, r.gpus_available) == ("llama-3.1-70b", 2000, 100,
                                                                       parse_available("h100:4"))
    assert (r.ttft_p90_ms, r.tpot_p90_ms, r.rate_per_s, r.speculative) == (500.0, 25.0, 3.0, True)
