"""Bounded work: a serving run or a plan too large to compute is refused in one line before it
starts (counted, not timed: nothing is simulated or built first), and repeats are collapsed."""
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from model import Scenario
from model.errors import ScenarioError
from model.planning.plan import make_plan
from model.planning.size import MAX_SIZE, PlanTooLarge, count
from model.planning.space import PlanRequest, check_request, groups, parse_available
from model.serving import budget
from model.serving.run import serve
from model.serving.setup import ServingSetup

ROOT = Path(__file__).resolve().parent.parent
EIGHT_KINDS = "h100:64,h200:64,mi300x:64,a100-sxm4-80gb:64,l40s:64,b200:64,rtx-4090:64,l4:64"


def _never(*_a, **_k):
    raise AssertionError("ran, though the work was past its limit")


# ---------------------------------------------------------------- the serving simulator
def test_a_load_past_the_budget_is_refused_before_one_step_is_simulated(monkeypatch):
    """serve --burst 1000000 --input-len 200000 --output-len 200000 --gpu b200 --gpus 8 ran for
    minutes before its budget refused it: its prompts alone need ≥ 24 million steps."""
    from model.serving import simulate
    monkeypatch.setattr(simulate._Sim, "run", _never)
    with pytest.raises(ScenarioError) as err:
        serve(Scenario(gpu="b200", gpus=8), ServingSetup(load="burst", requests=1_000_000, input_len=200_000,
                                                         output_len=200_000))
    text = str(err.value)
    assert "at least 24," in text and "8,200,000 allowed" in text and "\n" not in text


SHAPES = [dict(prefill=p, load=load, input_len=L, output_len=O, spec_k=k)
          for p in ("chunked", "mixed", "separate") for load in ("burst", "rate", "concurrency")
          for L, O in ((64, 5000), (3000, 300), (20000, 2)) for k in (0, 3)]


@pytest.mark.parametrize("shape", SHAPES[::3] + SHAPES[1::7], ids=str)
def test_the_least_steps_a_load_needs_never_exceed_what_it_runs(shape, monkeypatch):
    """The bound is a lower bound: a load it lets through is never one the run would not log."""
    import threading
    from model.serving import simulate
    seen, me = [], threading.get_ident()
    real = simulate.least_events

    def spy(*a, **k):                  # this test's run only: an earlier test's page may still simulate
        value = real(*a, **k)
        if threading.get_ident() == me:
            seen.append(value)
        return value
    monkeypatch.setattr(simulate, "least_events", spy)
    k = shape["spec_k"]
    run = serve(Scenario(), ServingSetup(**shape, rate_per_s=20.0 if shape["load"] == "rate" else 0.0,
                                         concurrency=16 if shape["load"] == "concurrency" else 0, requests=120,
                                         spec_accept=0.7 if k else 0.0, prefix_hit=0.3, max_tokens_per_step=2048))
    assert 0 < seen[0] <= run.log_start_s.size


def test_a_recomputed_prompt_fits_the_step_table_in_mixed_prefill():
    """Whole prompts (mixed, separate): a preempted request's prompt and what it made come back
    whole, beyond the step's token budget; the table covers them (IndexError before)."""
    for prefill in ("mixed", "separate"):
        run = serve(Scenario(), ServingSetup(load="burst", requests=150, input_len=64, output_len=5000,
                                             prefill=prefill, max_tokens_per_step=2048, prefix_hit=0.3))
        assert run.preemptions.sum() > 0


def test_the_pace_of_a_run_that_cannot_finish_refuses_it_early():
    n = 1_000_000
    assert budget.over_budget(budget.PACE_FROM - 1, 1, n) is None          # too early to judge
    assert budget.over_budget(budget.PACE_FROM + 1, 1, n) is None          # only at a checkpoint
    line = budget.over_budget(budget.PACE_FROM, 1_347, n)
    assert line and "at its pace" in line and "\n" not in line
    assert budget.over_budget(budget.PACE_FROM, n // 20, n) is None         # an ordinary pace runs on
    assert "more than" in budget.over_budget(budget.budget(n) + 1, 0, n)


# ---------------------------------------------------------------- the planner
def _request(available: str, **kw) -> PlanRequest:
    return check_request(PlanRequest("llama-3.1-8b", 1024, 1024, parse_available(available), 500.0, 25.0, **kw))


def test_a_plan_past_the_limit_is_refused_before_anything_is_built(monkeypatch):
    from model.planning import frontier
    monkeypatch.setattr(frontier, "group_points", _never)
    with pytest.raises(PlanTooLarge) as err:
        make_plan(_request(EIGHT_KINDS), disaggregated=True)
    assert err.value.configurations == 8_441_400 and "narrow it" in str(err.value) and "\n" not in str(err.value)


def test_the_count_is_what_the_sweep_looks_at():
    for available, dis in (("h100:8,h200:8,mi300x:8", False), ("h100:2,l40s:2", True)):
        r = _request(available)
        plan = make_plan(r, simulate_frontier=False, disaggregated=dis)
        assert plan.table.swept == count(r, groups(r), dis)


def test_repeats_are_collapsed_before_they_are_counted():
    once = groups(_request("h100:8", precisions=("fp8",), engines=("vllm",)))
    many = groups(_request("h100:8", precisions=("fp8",) * 5000 + ("FP8",), engines=("vllm", "vLLM") * 100))
    assert many == once


def test_the_limit_is_the_callers_to_raise():
    r = _request("h100:8,h200:8")
    small = count(r, groups(r), True)
    with pytest.raises(PlanTooLarge):
        make_plan(r, simulate_frontier=False, limit=small)
    assert MAX_SIZE > small + 1000 * len(groups(r))


def _capped(limit_bytes: int):
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return cap


def test_the_command_line_refuses_under_a_memory_cap_where_it_ran_out_before():
    """8 GPU kinds × 64 with disaggregated pools took 2.3–3.4 GB (16 kinds: a MemoryError traceback
    under a cap); under a 1 GB cap it is refused in one line, exit 2, with the flag that raises the limit."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "main.py", "plan", "--model", "llama-3.1-8b", "--gpus-available",
                          EIGHT_KINDS], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env,
                         preexec_fn=_capped(1 << 30))
    last = out.stderr.strip().splitlines()[-1]
    assert out.returncode == 2 and "Traceback" not in out.stderr and out.stdout == ""
    assert last.startswith("main.py plan: this plan would sweep 8,441,400 configurations")
    assert "--max-configurations" in last


def test_the_flag_sets_the_limit():
    out = subprocess.run([sys.executable, "main.py", "plan", "--model", "llama-3.1-8b", "--gpus-available",
                          "h100:2", "--no-disaggregated", "--no-spec", "--max-configurations", "100"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "more than a plan may (100," in out.stderr
