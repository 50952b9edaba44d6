"""main.py plan: the frontier and the cheapest setups, its exit codes and its CSV."""
import json

from test_cli import run

SMALL = ("plan", "--model", "llama-3.1-8b", "--input-len", "1000", "--output-len", "200",
         "--gpus-available", "h100:2,l40s:2", "--precisions", "fp8", "--engines", "vllm", "--no-disaggregated")


def test_plan_prints_the_frontier_and_the_cheapest_setups():
    out = run(*SMALL, "--ttft-p90-ms", "500", "--tpot-p90-ms", "30")
    assert "on the frontier" in out.stdout and "cheapest meeting TTFT p90 ≤ 500 ms" in out.stdout
    assert "  1. " in out.stdout and "$/Mtok" in out.stdout


def test_plan_json_names_cheapest_setups_that_meet_the_targets():
    data = json.loads(run(*SMALL, "--ttft-p90-ms", "500", "--tpot-p90-ms", "30", "--json").stdout)
    assert data["frontier"] and data["cheapest"]
    for c in data["cheapest"]:
        assert c["meets"] and c["ttft_p90_ms"] <= 500 and c["tpot_p90_ms"] <= 30
    speeds = [p["tokens_per_s_per_user"] for p in data["frontier"]]
    assert speeds == sorted(speeds, reverse=True)


def test_an_unknown_gpu_exits_2_in_one_line():
    out = run("plan", "--model", "llama-3.1-8b", "--gpus-available", "h900:8", ok=False)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "h900" in out.stderr


def test_a_model_config_alone_names_the_model_and_no_model_at_all_is_one_line():
    config = str(__import__("pathlib").Path(__file__).parent / "data" / "hf_configs" / "starcoder2-7b.json")
    rest = SMALL[3:]                                             # SMALL without its --model
    out = run("plan", "--model-config", config, *rest)
    assert "starcoder2-7b" in out.stdout and "on the frontier" in out.stdout
    out = run("plan", *rest, ok=False)
    assert out.returncode == 2 and out.stderr.strip().count("\n") == 0 and "--model" in out.stderr


def test_an_unmet_target_exits_1_naming_the_closest_setup():
    out = run(*SMALL, "--ttft-p90-ms", "1", "--tpot-p90-ms", "0.5", ok=False)
    assert out.returncode == 1                                   # not a mistake (2): an answer of none
    line = out.stderr.strip().splitlines()[-1]                   # after the progress lines
    assert line.startswith("main.py plan: no setup meets") and "closest:" in line and "batch cap" in line


def test_csv_is_written_and_never_replaced_without_force(tmp_path):
    path = tmp_path / "frontier.csv"
    run(*SMALL, "--csv", str(path))
    first = path.read_text()
    assert first.startswith("setup,batch cap") and len(first.splitlines()) > 2
    path.write_text("mine\n")
    out = run(*SMALL, "--csv", str(path), ok=False)
    assert out.returncode == 2 and "--force" in out.stderr
    assert path.read_text() == "mine\n"
    run(*SMALL, "--csv", str(path), "--force")
    assert path.read_text().startswith("setup,batch cap")
