"""No traceback and no 300-digit number from any number a user can type, open or pass: every
rate, time, count, length and index has a floor and a ceiling (model/files/limits.py), and a
value outside them is refused in one line (exit 2 on the command line)."""
import re
import sys
from pathlib import Path

import pytest

from model.errors import ScenarioError
from model.planning.settings import PlanSettings
from model.readouts.format import duration, si, sig3
from model.serving.knobs import window_setup
from model.serving.setup import ServingSetup

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import main as entry  # noqa: E402

HOSTILE = ["1e-308", "1e-300", "1e308", "-1", "0", "nan", "inf", "99999999999999999999999", "2.5", ""]
FLAGS = {
    "serve": ["--rate", "--concurrency", "--burst", "--requests", "--range-ratio", "--seed", "--prefix-hit",
              "--prefix-len", "--spec-k", "--spec-accept", "--replicas", "--ttft-p90-ms", "--tpot-p90-ms",
              "--max-running", "--max-tokens-per-step", "--block-tokens", "--scheduler-steps",
              "--gpu-memory-utilization", "--kv-free-fraction", "--ep", "--input-len", "--output-len", "--batch"],
    "plan": ["--rate", "--ttft-p90-ms", "--tpot-p90-ms", "--input-len", "--output-len", "--max-configurations"],
    "estimate": ["--batch", "--gpus", "--input-len", "--output-len", "--depth"],
    "sweep": ["--max-batch", "--batches"],
}
BASE = {"serve": ["--requests", "40"], "plan": ["--model", "llama-3.1-8b", "--gpus-available", "h100:1",
                                                "--no-disaggregated", "--no-spec"], "estimate": [], "sweep": []}
LONG_NUMBER = re.compile(r"\d{20,}|\b\d{1,3}(?:,\d{3}){7,}\b")     # 20 digits, or 22 in groups of three


def run(argv, capsys) -> tuple[int, str, str]:
    rc = entry.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("command, flag", [(c, f) for c, fs in FLAGS.items() for f in fs])
def test_every_number_flag_takes_any_text_without_a_traceback_or_a_long_number(command, flag, capsys):
    for value in HOSTILE:
        argv = [command, *BASE[command], flag, value]
        try:
            rc, out, err = run(argv, capsys)
        except SystemExit as exc:          # argparse's own exits (e.g. --help) would be a bug here too
            pytest.fail(f"{argv}: SystemExit {exc.code}")
        assert rc in (0, 1, 2), (argv, rc, err)
        shown = (out + err).replace(value, "") if value else out + err          # the value typed, echoed, aside
        assert "Traceback" not in err and not LONG_NUMBER.search(shown), (argv, err[-300:], out[-300:])
        if rc:
            lines = [x for x in err.splitlines() if x.startswith(f"memory-wall {command}: ") and "warning" not in x]
            assert lines, (argv, err)


@pytest.mark.parametrize("argv, words", [
    (["serve", "--rate", "1e-308"], "rate must be at least 0.001 requests/s"),
    (["serve", "--rate", "1e-300", "--requests", "20"], "rate must be at least 0.001 requests/s"),
    (["plan", "--model", "llama-3.1-8b", "--gpus-available", "h100:1", "--rate", "1e-300"], "rate must be at least"),
    (["serve", "--ttft-p90-ms", "1e-300"], "TTFT p90 target must be at least 0.001 ms"),
])
def test_the_issues_overflowing_numbers_are_refused_in_one_line(argv, words, capsys):
    rc, out, err = run(argv, capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1 and words in err


def test_a_trace_arriving_past_the_span_is_refused(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n0,10,10\n1e308,10,10\n")
    rc, out, err = run(["serve", "--trace", str(trace)], capsys)
    assert rc == 2 and "arrival time must be a number of seconds from 0 to 1e+09" in err and "\n" not in err.strip()


def test_the_slowest_rate_runs_and_reads_as_numbers_of_a_few_digits(capsys):
    rc, out, err = run(["serve", "--rate", "0.001", "--requests", "20", "--output-len", "16"], capsys)
    assert rc == 0 and not LONG_NUMBER.search(out) and "0 µs" not in out


def test_files_and_the_window_hold_the_same_floors():
    with pytest.raises(ScenarioError, match="at least 0.001"):
        window_setup({"rate_per_s": 1e-300})
    with pytest.raises(ScenarioError, match="at least 0.001"):
        window_setup({"ttft_p90_ms": 1e-300})
    with pytest.raises(ScenarioError, match="at least 0.001"):
        PlanSettings.from_dict({"rate_per_s": 1e-300})
    assert PlanSettings.from_dict({"rate_per_s": 0}).rate_per_s is None           # 0 is "none"
    assert ServingSetup.from_dict({"rate_per_s": 0}).rate_per_s == 0.0             # … and "auto"


def test_a_plan_point_past_the_table_is_one_line():
    from model.planning.explore import point_scenario
    from model.planning.plan import make_plan
    from model.planning.space import PlanRequest, parse_available
    plan = make_plan(PlanRequest("llama-3.1-8b", 1024, 128, parse_available("h100:1")), simulate_frontier=False,
                     disaggregated=False)
    point_scenario(plan, len(plan.table) - 1)
    for bad in (len(plan.table), -1, 10 ** 30, True, 1.5):
        with pytest.raises(ScenarioError, match="no point"):
            point_scenario(plan, bad)


def test_no_readout_is_ever_a_number_of_dozens_of_digits():
    for x in (1e-300, 1e300, 5e-10, 3e16, -1e200, 7e11):
        for text in (sig3(x), si(x, "B"), duration(abs(x))):
            assert len(text) < 16, text
    assert duration(3 * 3600) == "3.00 h" and duration(5 * 86400) == "5.00 days" and duration(1e9) == "31.7 years"
    assert sig3(0.00123) == "0.00123" and sig3(1234.6) == "1235"          # everyday magnitudes unchanged
