"""main.py serve, trace files, scenario files with a serving setup, and the serving validation."""
import json
import math
import os

import numpy as np
import pytest

import model  # noqa: F401
from model.errors import ScenarioError
from model.files.safe_io import SafeIOError
from model.files.scenario_file import read_scenario_document, save_scenario
from model.machine.measured import default_measured
from model.machine.validate_serving import (METRICS, RUN_KEYS, load_serving_rows, metric_of, predict_rows,
                                            run_inputs)
from model.physics.scenario import Scenario
from model.serving.results import summarize
from model.serving.run import serve
from model.serving.setup import ServingSetup, serving_from_document
from model.serving.workload import parse_trace, read_trace

from test_cli import ROOT, run


def test_serve_json_matches_the_model():
    out = run("serve", "--gpu", "h100", "--model", "llama-3.1-8b", "--rate", "4", "--requests", "300",
              "--input-len", "512", "--output-len", "64", "--ttft-p90-ms", "500", "--tpot-p90-ms", "50", "--json")
    data = json.loads(out.stdout)
    sm = summarize(serve(Scenario(input_len=512, output_len=64),
                         ServingSetup(rate_per_s=4, requests=300, input_len=512, output_len=64,
                                      ttft_p90_ms=500, tpot_p90_ms=50)))
    assert data["readouts"]["ttft_p90"]["value"] == pytest.approx(sm.ttft.p90_ms)
    assert data["readouts"]["request_throughput"]["value"] == pytest.approx(sm.request_throughput_per_s)
    assert data["readouts"]["targets"]["text"] in ("met", "missed") and data["engine"] == "vllm"


def test_serve_table_and_per_request_csv(tmp_path):
    csv_path = tmp_path / "requests.csv"
    out = run("serve", "--concurrency", "16", "--requests", "100", "--output-len", "32", "--per-request", str(csv_path))
    assert "TTFT p90" in out.stdout and "16 clients" in out.stdout
    lines = csv_path.read_text().splitlines()
    assert lines[0].startswith("request,replica,sent_s") and len(lines) == 101
    again = run("serve", "--concurrency", "16", "--requests", "100", "--per-request", str(csv_path), ok=False)
    assert again.returncode == 2 and len(again.stderr.strip().splitlines()) == 1    # never replaced


@pytest.mark.parametrize("args, words", [
    (("--rate", "-2"), "--rate"), (("--rate", "0"), "more than 0"), (("--rate", "nan"), "--rate"),
    (("--burst", "10", "--rate", "3"), "one load"), (("--tpot-p90-ms", "0.5"), "never be met"),
    (("--spec-accept", "0.5"), "draft length"), (("--prefix-hit", "2"), "prefix hit"),
    (("--model", "llama-3.1-70b"), "no room"), (("--lengths", "zipf"), "lengths")])
def test_bad_serve_input_exits_2_with_one_line(args, words):
    out = run("serve", *args, ok=False)
    assert out.returncode == 2 and words in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_broken_and_empty_traces_exit_2(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("\n")
    broken = tmp_path / "broken.csv"
    broken.write_text("arrival_s,input_tokens,output_tokens\n0.0,100,x\n")
    for path, words in ((empty, "no requests"), (broken, "line 2"), (tmp_path / "missing.csv", "no such file")):
        out = run("serve", "--trace", str(path), ok=False)
        assert out.returncode == 2 and words in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_trace_is_replayed_as_written(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n0.0,100,10\n0.5,200,20\n# a comment\n0.25,300,5\n")
    rows = read_trace(trace)
    assert rows == ((0.0, 100, 10), (0.5, 200, 20), (0.25, 300, 5))
    r = serve(Scenario(), ServingSetup(load="trace", trace=rows))
    assert sorted(r.requests.input_len.tolist()) == [100, 200, 300]
    assert np.allclose(np.sort(r.sent_s), [0.0, 0.25, 0.5])


@pytest.mark.skipif(not hasattr(os, "mkfifo"),
                    reason="this OS has no named pipes (os.mkfifo: Windows); Linux, macOS and CI run it")
def test_a_trace_that_is_a_pipe_is_refused(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(SafeIOError, match="not a regular file"):
        read_trace(fifo)


@pytest.mark.parametrize("text, words", [("1,2\n", "3 values"), ("-1,10,10\n", "seconds from 0 to"), ("0,0,10\n", "input tokens"),
                                         ("0,10,2.5\n", "output tokens"), ("a,b,c\n", "header")])
def test_trace_lines_are_checked(text, words):
    with pytest.raises(ScenarioError, match=words):
        parse_trace(text, "t.csv")


def test_scenario_files_keep_the_serving_setup(tmp_path):
    path = tmp_path / "s.json"
    setup = ServingSetup(load="concurrency", concurrency=32, requests=200, spec_k=2, spec_accept=0.6, ttft_p90_ms=400)
    save_scenario(path, Scenario(output_len=128), serving=setup.to_dict())
    back = serving_from_document(read_scenario_document(path))
    assert back == setup
    out = run("serve", str(path), "--json")
    assert json.loads(out.stdout)["setup"]["concurrency"] == 32
    doc = json.loads(path.read_text())
    doc["serving"]["warp"] = 9
    path.write_text(json.dumps(doc))
    with pytest.raises(ScenarioError, match="unknown serving field 'warp'"):
        serving_from_document(read_scenario_document(path), "s.json")


def test_serving_rows_are_valid_and_kept_out_of_the_step_fit():
    rows = load_serving_rows()
    assert len(rows) >= 90 and len({r.row_id for r in rows}) == len(rows)
    assert all(r.metric in METRICS and r.value > 0 and r.source_id for r in rows)
    step_ids = {r.row_id for r in default_measured()}
    assert not step_ids & {r.row_id for r in rows}
    for r in rows:
        sc, setup = run_inputs(r.run)
        assert sc.gpus >= 1 and setup.requests >= 1


def test_serving_rows_are_predicted_under_their_load():
    rows = [r for r in load_serving_rows() if r.source_id == "nvidia-nim-benchmarking"][:6]
    from model.catalog.active import default_efficiency
    cs = predict_rows(rows, default_efficiency())
    assert all(math.isfinite(c.predicted) and c.predicted > 0 for c in cs)
    by_metric = {c.row.metric: c for c in cs}
    assert by_metric["serve_ttft_mean_ms"].predicted < by_metric["serve_ttft_mean_ms"].row.value * 10
    sm = summarize(serve(*run_inputs(rows[0].run)))
    assert metric_of(sm, "serve_output_tokens_per_s") == sm.output_tokens_per_s
    assert metric_of(sm, "serve_ttft_p99_ms") == sm.ttft.p99_ms


def test_an_mlperf_run_is_simulated_for_loadgens_ten_minutes():
    """LoadGen issues queries for at least 600 s; a run of 10 000 llama2-70b queries at 364/s (27 s)
    ends before its running batch has built up (E2E ~30 s near capacity): fewer sequences run per
    step, so each step is quicker, and the steady TPOT comes out too low."""
    import dataclasses
    from model.catalog.active import default_efficiency
    from model.machine.serving_rows import LOADGEN_MIN_S, MAX_SIMULATED_LONG
    rows = [r for r in load_serving_rows() if r.row_id == "s4236"]        # B200 ×8, 364 queries/s
    assert rows and dict(zip(RUN_KEYS, rows[0].run))["metric_tool"] == "mlperf-loadgen"
    sc, setup = run_inputs(rows[0].run)
    assert setup.requests == math.ceil(LOADGEN_MIN_S * setup.rate_per_s) > MAX_SIMULATED_LONG
    tab = default_efficiency()
    ten_minutes = summarize(serve(sc, setup, efficiency=tab))
    short = summarize(serve(sc, dataclasses.replace(setup, requests=MAX_SIMULATED_LONG), efficiency=tab))
    assert ten_minutes.mean_running > 1.3 * short.mean_running
    assert ten_minutes.tpot.p50_ms > 1.1 * short.tpot.p50_ms


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_validate_serving_reads_one_publisher_held_out():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "model.machine.validate_serving", "--publisher", "DataCrunch"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "by 1 publishers" in out.stdout and "s001" in out.stdout and "s2001" not in out.stdout
    bad = subprocess.run([sys.executable, "-m", "model.machine.validate_serving", "--publisher", "Nobody"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert bad.returncode == 2 and "known:" in bad.stderr


@pytest.mark.slow
def test_validate_serving_prints_its_summary():
    out = run("validate", "--serving", timeout=3600)     # only a guard against a hang: minutes on a slow machine
    assert "serving, leave-one-publisher-out" in out.stdout and "throughput" in out.stdout and "s001" in out.stdout
    assert "DeepSeek" in out.stdout and "by engine" in out.stdout and "by load" in out.stdout
