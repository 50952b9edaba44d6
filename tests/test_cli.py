import json
import pathlib
import subprocess
import sys

import pytest
from model.catalog.active import default_catalog

ROOT = pathlib.Path(__file__).resolve().parent.parent
KEYS = ("decode_ms_per_token decode_floor_ms_per_token prefill_ms e2e_latency_s output_tokens_per_s "
        "tokens_per_s_per_user arithmetic_intensity_flops_per_byte ridge_flops_per_byte bound critical_batch "
        "critical_batch_weights_only mbu mfu weight_bytes_per_gpu kv_cache_bytes_per_gpu fits "
        "max_batch_that_fits usd_per_million_tokens joules_per_token").split()


def run(*args, ok=True, timeout=120):
    """main.py with ``args``; ``timeout`` only guards against a hang (validate refits ~50 times)."""
    out = subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if ok:
        assert out.returncode == 0, out.stderr
    return out


def test_estimate_json_has_every_key_and_matches_the_model():
    from model import Scenario, estimate
    out = run("estimate", "--gpu", "h100", "--model", "llama-2-70b", "--precision", "fp16", "--json")
    data = json.loads(out.stdout)
    for k in KEYS:
        assert k in data, k
    e = estimate(Scenario(gpu="h100", model="llama-2-70b", precision="fp16"))
    assert data["decode_ms_per_token"] == pytest.approx(e.decode_ms_per_token)
    assert 41 <= data["decode_floor_ms_per_token"] <= 43
    assert data["fits"] is False and data["bound"] == "memory"
    assert data["critical_batch"] is None or data["critical_batch"] > 0


def test_estimate_table_is_readable():
    out = run("estimate", "--gpu", "h200", "--model", "llama-3.1-8b", "--precision", "fp8", "--batch", "64")
    assert "ms/token" in out.stdout and "tok/s" in out.stdout and "H200" in out.stdout


@pytest.mark.parametrize("args,needle", [
    (("estimate", "--gpu", "h10"), "did you mean 'h100'"),
    (("estimate", "--batch", "0"), "batch must be between 1"),
    (("estimate", "--batch", "-4"), "batch must be between 1"),
    (("estimate", "--batch", "many"), "whole number"),
    (("estimate", "--gpus", "3"), "cannot be split over 3"),
    (("estimate", "--input-len", "99999999999"), "input length must be between"),
    (("estimate", "--interconnect", "carrier-pigeon"), "interconnect must be one of"),
    (("estimate", "--precision", "fp9"), "unknown precision"),
    (("sweep", "--batches", "1,x"), "comma-separated"),
    (("list", "cats"), "invalid choice"),
])
def test_bad_input_exits_2_with_one_line(args, needle):
    out = run(*args, ok=False)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert needle in lines[0]
    assert "Traceback" not in out.stderr


def test_list_json_names_every_gpu():
    data = json.loads(run("list", "gpus", "--json").stdout)
    assert len(data["gpus"]) == len(default_catalog().gpus) >= 23
    assert any(g["id"] == "h100-sxm5-80gb" and "h100" in g["aliases"] for g in data["gpus"])


def test_sweep_csv_over_batch():
    out = run("sweep", "--gpu", "h100", "--model", "llama-3.1-8b", "--max-batch", "1024")
    rows = out.stdout.strip().splitlines()
    assert rows[0].startswith("batch,decode_ms_per_token")
    assert len(rows) == 1 + 11
    tps = [float(r.split(",")[3]) for r in rows[1:]]
    assert tps == sorted(tps)


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_validate_prints_every_row_and_the_summary():
    out = run("validate", timeout=900)
    from model.machine.measured import default_measured
    for r in default_measured():
        assert r.row_id in out.stdout
    assert "median |error|" in out.stdout and "leave-one-publisher-out" in out.stdout
    assert "leave-one-source-out" in out.stdout and "batch 1, decode" in out.stdout


def test_broken_scenario_file_is_refused_with_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ nope")
    out = run(str(bad), ok=False)
    assert out.returncode == 2 and "not valid JSON" in out.stderr and len(out.stderr.strip().splitlines()) == 1
