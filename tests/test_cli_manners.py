"""The command line's manners (issue 37): progress on stderr, fits kept by their inputs, plan's
defaults and exit codes, reports that name what they ran, tables that fit the terminal, "did you
mean …?", the program's own name, warnings, --version, --screenshot names, the licence."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from test_cli import ROOT, run

SMALL_PLAN = ("plan", "--model", "llama-3.1-8b", "--gpus-available", "h100:2,l40s:2", "--precisions", "fp8",
              "--engines", "vllm", "--no-disaggregated")


def run_env(*args, env=None, ok=True, timeout=300):
    """main.py with ``args`` and extra environment variables."""
    out = subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, capture_output=True, text=True,
                         timeout=timeout, env={**os.environ, **(env or {})})
    if ok:
        assert out.returncode == 0, out.stderr
    return out


PROGRESS = re.compile(r"^\S+ \S+: .* \[\d+/\d+\]$")      # "main.py plan: serving … [7/23]" (cli/progress.py)


def one_line(out) -> str:
    """The one line a mistake or a failed search gets on stderr (after any progress lines)."""
    lines = out.stderr.strip().splitlines()
    said = [x for x in lines if not PROGRESS.match(x)]
    assert len(said) == 1 and lines[-1] == said[0], out.stderr
    assert "Traceback" not in out.stderr
    return said[0]


# ---------------------------------------------------------------- 1. progress and the fit cache

@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_validate_shows_a_few_plain_progress_lines_when_stderr_is_not_a_terminal():
    out = run("validate", timeout=900)
    lines = out.stderr.splitlines()
    assert 2 <= len(lines) <= 6, out.stderr
    assert all(line.startswith("main.py validate: ") and re.search(r"\[\d+/\d+\]$", line) for line in lines)
    assert "\r" not in out.stderr and "\x1b" not in out.stderr


def test_on_a_terminal_progress_is_one_line_that_overwrites_itself_and_goes():
    from cli.progress import Progress
    stream = io.StringIO()
    p = Progress("validate", stream=stream, tty=True)
    for k in range(5):
        p(k, 5, f"step {k}")
    text = stream.getvalue()
    assert "\n" not in text and text.count("\r") >= 2 and text.endswith("validate: step 4 [5/5]\x1b[K")
    p(5, 5, "done")                          # finished: the line goes (so stdout starts on a clean line)
    assert stream.getvalue() == text + "\r\x1b[K"


def test_in_a_log_progress_is_the_first_step_and_each_quarter():
    from cli.progress import Progress
    stream = io.StringIO()
    p = Progress("plan", stream=stream, tty=False)
    for k in range(100):
        p(k, 100, "serving")
    lines = stream.getvalue().splitlines()
    assert [line.rsplit(" ", 1)[-1] for line in lines] == ["[1/100]", "[26/100]", "[51/100]", "[76/100]"]


@pytest.fixture
def two_publishers(tmp_path, monkeypatch):
    """A cache folder of this test's own and the rows of two small publishers (two refits, well under a second)."""
    from model.machine import fit_cache
    from model.machine.measured import default_measured
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path))
    fit_cache.forget()
    yield tuple(r for r in default_measured() if r.publisher in ("Jan (Homebrew)", "turboderp (ExLlamaV2)"))
    fit_cache.use_disk(True)
    fit_cache.forget()


def test_cached_fits_give_the_same_numbers_bit_for_bit(two_publishers, monkeypatch):
    from model.machine import calibrate, fit_cache, validate
    fit_cache.use_disk(False)
    fresh = validate.leave_one_publisher_out(two_publishers)
    fit_cache.forget()
    fit_cache.use_disk(True)
    cold = validate.leave_one_publisher_out(two_publishers)          # fits, and writes them
    folder = fit_cache.cache_folder()
    assert folder is not None and len(list(folder.glob("*.npy"))) == 2
    fit_cache.forget()

    def no_fitting(*_a, **_k):
        raise AssertionError("refitted although the fit was cached")
    monkeypatch.setattr(fit_cache, "fit_theta", no_fitting)
    monkeypatch.setattr(calibrate, "fit_theta", no_fitting)
    warm = validate.leave_one_publisher_out(two_publishers)          # from the disk
    again = validate.leave_one_publisher_out(two_publishers)         # from the memo
    assert [c.predicted for c in fresh] == [c.predicted for c in cold] == [c.predicted for c in warm] \
        == [c.predicted for c in again]


def test_a_broken_cache_file_is_refitted_and_replaced(two_publishers):
    from model.machine import fit_cache, validate
    first = validate.leave_one_publisher_out(two_publishers)
    files = sorted(fit_cache.cache_folder().glob("*.npy"))
    files[0].write_bytes(b"not an array")
    np.save(files[1], np.zeros((2, 2)))          # an array of the wrong shape
    fit_cache.forget()
    second = validate.leave_one_publisher_out(two_publishers)
    assert [c.predicted for c in first] == [c.predicted for c in second]
    for f in files:
        theta = np.load(f)
        assert theta.ndim == 2 and theta.shape[1] == 10 and np.isfinite(theta).all()


def test_the_cache_is_never_inside_the_program_folder(monkeypatch):
    from model.machine import fit_cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(ROOT / "assets"))
    assert fit_cache.cache_folder() is None
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/folder")
    monkeypatch.setenv("HOME", "/")
    assert fit_cache.cache_folder() is None


@pytest.mark.slow
def test_validate_prints_the_same_with_and_without_the_cache(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    cold = run_env("validate", "--wide", env=env, timeout=900)
    warm = run_env("validate", "--wide", env=env, timeout=900)
    none = run_env("validate", "--wide", "--no-cache", env={"XDG_CACHE_HOME": str(tmp_path / "unused")}, timeout=900)
    assert cold.stdout == warm.stdout == none.stdout and "m01" in cold.stdout
    assert not (tmp_path / "unused").exists()


def test_plan_and_record_show_progress_on_stderr(tmp_path):
    out = run(*SMALL_PLAN)
    assert out.stderr.startswith("main.py plan: sweeping the configurations")
    gif = tmp_path / "chip.gif"
    rec = run_env("--record", str(gif), "--seconds", "0.5", "--size", "480x270", env={"QT_QPA_PLATFORM": "offscreen"})
    assert gif.exists() and re.match(r"main\.py --record: drawing and encoding the frames \[\d+/\d+\]\n", rec.stderr)


# ---------------------------------------------------------------- 2. plan

def test_plan_lengths_default_to_the_scenarios():
    from model import Scenario
    data = json.loads(run(*SMALL_PLAN, "--json").stdout)
    assert (data["request"]["input_len"], data["request"]["output_len"]) == (Scenario().input_len, Scenario().output_len)


def test_plan_with_targets_nothing_meets_exits_1_with_one_line_saying_how_to_relax_them():
    out = run(*SMALL_PLAN, "--ttft-p90-ms", "1", "--tpot-p90-ms", "0.5", ok=False)
    line = one_line(out)
    assert out.returncode == 1 and line.startswith("main.py plan: no setup meets TTFT p90 ≤ 1 ms")
    assert re.search(r"relax the targets \(the closest setup meets --ttft-p90-ms [\d.]+ --tpot-p90-ms [\d.]+\)", line)


def test_plan_on_gpus_nothing_runs_on_exits_1_with_one_line_and_no_table():
    out = run("plan", "--model", "llama-3.1-405b", "--gpus-available", "l4:1", ok=False)
    assert out.returncode == 1 and out.stdout == ""
    assert "no setup can run Llama 3.1 405B" in one_line(out)


def test_a_rate_too_large_names_the_limit():
    from model.files.limits import ceiling
    out = run("plan", "--model", "llama-3.1-8b", "--gpus-available", "h100:1", "--rate", "1e9", ok=False)
    line = one_line(out)
    assert out.returncode == 2 and f"rate must be at most {ceiling('rate_per_s')[0]:,.0f} requests/s" in line
    assert "more than 0" not in line


# ---------------------------------------------------------------- 3. every report names what it ran

def test_estimate_names_the_engine_gpu_and_model():
    text = run("estimate", "--gpu", "h200", "--engine", "sglang").stdout
    assert re.search(r"^Engine +SGLang$", text, re.M) and "H200" in text and "Llama 3.1 8B" in text
    auto = run("estimate").stdout
    assert re.search(r"^Engine +vLLM \(auto: the engine most used on H100 SXM\)$", auto, re.M)
    data = json.loads(run("estimate", "--gpu", "mi300x", "--json").stdout)
    assert data["ran"].startswith("Llama 3.1 8B in BF16") and "MI300X" in data["ran"] and "vLLM" in data["ran"]


def test_serve_names_gpu_model_precision_count_and_engine():
    first = run("serve", "--gpu", "h200", "--gpus", "2", "--precision", "fp8", "--engine", "sglang", "--rate", "2",
                "--requests", "50", "--output-len", "32").stdout.splitlines()[0]
    assert first.startswith("Llama 3.1 8B in FP8") and "2× NVIDIA H200" in first and "engine SGLang" in first


def test_plan_names_the_model_and_the_targets():
    first = run(*SMALL_PLAN, "--ttft-p90-ms", "500", "--tpot-p90-ms", "30", "--wide").stdout.splitlines()[0]
    assert first.startswith("plan for Llama 3.1 8B, 1,024 in / 1,024 out") and "TTFT p90 ≤ 500 ms" in first


# ---------------------------------------------------------------- 4. tables fit the terminal

@pytest.mark.parametrize("args", [("estimate",), ("estimate", "--model", "llama-3.1-70b", "--gpus", "8"), ("list",),
                                  ("list", "engines"), ("serve", "--rate", "2", "--requests", "50"),
                                  SMALL_PLAN + ("--ttft-p90-ms", "500"), ("validate",)])
@pytest.mark.slow          # ~5–9 s: make test and CI run it, make test-fast leaves it out
def test_tables_fit_100_columns(args):
    out = run_env(*args, env={"COLUMNS": "100"}, timeout=900)
    widest = max(len(line) for line in out.stdout.splitlines())
    assert widest <= 100, [line for line in out.stdout.splitlines() if len(line) > 100][:3]


def test_a_narrow_terminal_gets_narrow_tables_and_wide_gets_every_row_on_one_line():
    narrow = run_env("list", "gpus", env={"COLUMNS": "70"}).stdout.splitlines()
    wide = run_env("list", "gpus", "--wide", env={"COLUMNS": "70"}).stdout.splitlines()
    from model.catalog.active import default_catalog
    assert max(len(x) for x in narrow) <= 70 < max(len(x) for x in wide)
    assert len(wide) == 2 + len(default_catalog().gpus)


@pytest.mark.slow          # ~7–31 s: make test and CI run it, make test-fast leaves it out
def test_validate_wraps_names_at_words_and_never_cuts_one():
    from model.machine.measured import default_measured
    words = set(run("validate", timeout=900).stdout.split())
    for r in default_measured():
        assert set(r.label.split()) <= words and set(r.publisher.split()) <= words, r.row_id


# ---------------------------------------------------------------- 5. manners

@pytest.mark.parametrize("args, start, hint", [
    (("estimat",), "main.py: unknown command 'estimat'", "did you mean estimate?"),
    (("estimate", "--gpuu", "h100"), "main.py estimate: unknown option --gpuu", "did you mean --gpu?"),
    (("estimate", "--gpu", "h10"), "main.py estimate: unknown GPU 'h10'", "did you mean 'h100'?"),
    (("estimate", "--model", "llama-3.1-8"), "main.py estimate: unknown model", "did you mean 'llama-3.1-8b'?"),
    (("serve", "--rates", "4"), "main.py serve: unknown option --rates", "did you mean --rate?"),
])
def test_mistakes_name_the_program_and_the_command_and_guess_well(args, start, hint):
    out = run(*args, ok=False)
    line = one_line(out)
    assert out.returncode == 2 and line.startswith(start) and hint in line


def test_an_unknown_model_suggests_the_import_not_a_poor_guess():
    line = one_line(run("estimate", "--model", "qwen2.5-14b", ok=False))
    assert "qwen2.5-72b" not in line and "qwen2.5-7b" not in line and "--model-config config.json" in line and "Hugging Face" in line


def test_installed_the_program_calls_itself_memory_wall_in_every_hint():
    code = "import sys, main; sys.argv[0] = '/usr/bin/memory-wall'; sys.exit(main.main(sys.argv[1:]))"
    out = subprocess.run([sys.executable, "-c", code, "estimate", "--gpu", "h10"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    line = one_line(out)
    assert line.startswith("memory-wall estimate: unknown GPU") and "memory-wall list gpus" in line
    assert "main.py" not in line


def test_list_engines_shows_ids_versions_platforms_and_what_auto_picks():
    from model.catalog.active import default_efficiency
    table = default_efficiency()
    text = run("list", "engines", "--wide").stdout
    for e in table.engines:
        assert re.search(rf"^  {re.escape(e.id)} ", text, re.M), e.id
    assert all(v in text for v in table.version_ids) and "cuda" in text and "auto picks" in text
    data = json.loads(run("list", "engines", "--json").stdout)
    assert [e["id"] for e in data["engines"]] == [e.id for e in table.engines] and data["auto"]


def test_precision_help_lists_every_precision_in_the_catalogue():
    from model.catalog.active import default_catalog
    help_text = " ".join(run("estimate", "--help").stdout.split())
    for p in default_catalog().precisions:
        assert f" {p.id} " in help_text, p.id


def test_a_prompt_longer_than_the_models_context_is_warned_about():
    out = run("estimate", "--input-len", "200000")
    assert "more than Llama 3.1 8B's context length of 131,072" in one_line(out)
    assert one_line(out).startswith("main.py estimate: warning:") and "Decode" in out.stdout
    assert run("estimate").stderr == ""


def test_version():
    want = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert run("--version").stdout == f"memory-wall {want}\n"


def test_a_screenshot_name_the_image_writer_cannot_follow_is_refused(tmp_path):
    bad = tmp_path / "x.txt"
    out = run("--screenshot", str(bad), ok=False)
    assert out.returncode == 2 and ".png, .jpg, .jpeg or .bmp" in one_line(out) and not bad.exists()


def test_a_screenshot_says_what_it_wrote(tmp_path):
    png = tmp_path / "out.png"
    out = run_env("--screenshot", str(png), "--size", "1280x720", env={"QT_QPA_PLATFORM": "offscreen"})
    assert out.stdout == f"wrote {png} (1280×720)\n" and png.read_bytes()[:4] == b"\x89PNG"


def test_the_licence_is_mit_and_named():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n\nCopyright (c) the Memory Wall authors")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'license = "MIT"' in pyproject and 'license-files = ["LICENSE"]' in pyproject
    assert "[LICENSE](LICENSE)" in (ROOT / "README.md").read_text()


# ---------------------------------------------------------------- 6. README and --model-name

def test_the_readme_names_its_config_model_and_says_where_config_json_comes_from():
    readme = (ROOT / "README.md").read_text()
    line = next(x for x in readme.splitlines() if "--model-config config.json" in x)
    assert "--model-name" in line and "Hugging Face page" in readme and "Files and versions" in readme


def test_model_name_names_the_imported_model(tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text((ROOT / "tests" / "data" / "hf_configs" / "qwen2.5-7b.json").read_text())
    out = run("estimate", "--model-config", str(cfg), "--model-name", "Qwen2.5 7B")
    assert out.stdout.startswith("Scenario         Qwen2.5 7B · BF16")
    bad = run("estimate", "--model-name", "x", ok=False)
    assert "--model-name names the model of a --model-config" in one_line(bad)


# ---------------------------------------------------------------- 7. make test-fast

def test_the_long_walks_are_marked_slow():
    for name in ("test_fuzz_ui.py", "test_consistency.py", "test_consistency_chapters.py", "test_wheel.py",
                 "test_packaging.py"):
        assert re.search(r"^pytestmark = pytest\.mark\.slow", (ROOT / "tests" / name).read_text(), re.M), name
    makefile = (ROOT / "Makefile").read_text()
    assert '-m "not slow"' in makefile and re.search(r"^test: .*\n\t.*pytest \$\(ARGS\)$", makefile, re.M)
