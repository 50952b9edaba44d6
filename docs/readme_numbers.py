#!/usr/bin/env python3
"""README.md's numbers, worked out from the model and the repository.

    python docs/readme_numbers.py            rewrite every number below in README.md
    python docs/readme_numbers.py --check    list the stale ones, exit 1 if any (tests/test_readme.py)

Each FACT finds its number in its own sentence: a regular expression whose groups are the
numbers, and a function that says what they must be now (from the model, the catalogue, the
measurements file, the lessons, pyproject.toml, the tests). Rewriting replaces only the groups.
Numbers that are measurements of a machine (suite and build times, bundle sizes, the Speed
section) are not worked out here: the README says when and where each was measured, and
tests/test_readme.py fails on any other number that no fact covers (``unchecked``).
"""
from __future__ import annotations

import ast
import re
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
sys.path.insert(0, str(ROOT))


@dataclass(frozen=True)
class Fact:
    name: str
    pattern: str                           # groups: the numbers; the rest: the words around them
    values: Callable[[], tuple[str, ...]]  # what the groups must say
    count: int = 1                         # how many times the sentence is in the README


# ---------------------------------------------------------------- sources
@cache
def _readouts(**scenario):
    from model import Scenario, estimate
    from model.readouts.numbers import readouts
    return readouts(estimate(Scenario(**scenario)))


@cache
def _caption(**scenario) -> str:
    """The chip's caption (the screenshots' "tensor cores idle …")."""
    from model import Scenario, estimate
    from model.catalog.active import default_catalog
    from model.readouts.flow import flow
    return flow(estimate(Scenario(**scenario)), default_catalog()).caption


@cache
def _catalog():
    import model.files.assets  # noqa: F401 (registers the shipped catalogue)
    from model.catalog.active import default_catalog
    return default_catalog()


@cache
def _validation() -> dict:
    from model.machine.measured import default_measured
    from model.machine.validate import report
    return report(default_measured()).as_dict()


def _claim(number: int, index: int) -> str:
    from model.lessons.speaker_notes import state_claim
    return state_claim(number, index)


def _takeaway(number: int, index: int) -> str:
    from model.lessons.speaker_notes import state_takeaway
    return state_takeaway(number, index)


def _search(pattern: str, text: str) -> tuple[str, ...]:
    m = re.search(pattern, text)
    if m is None:
        raise AssertionError(f"{pattern!r} not in {text!r}")
    return m.groups()


def _pct(x: float) -> str:
    from model.readouts.format import percent
    return percent(x)


def _whole_pct(x: float) -> str:
    return f"{round(100 * x)}%"


def _ratio(x: float) -> str:
    return f"{x:.2g}×"


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _module_constant(path: str, name: str):
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"no {name} in {path}")


def _fuzz_seeds() -> int:
    text = (ROOT / "tests" / "test_fuzz_ui.py").read_text(encoding="utf-8")
    return len(ast.literal_eval(_search(r'parametrize\("seed", (\[[^\]]*\])\)', text)[0]))


def _soak_actions() -> str:
    n = int(_search(r"soak_ui\.py --actions (\d+)", (ROOT / "Makefile").read_text(encoding="utf-8"))[0])
    return f"{n:,}".replace(",", " ")


def _by_engine() -> tuple[str, ...]:
    """The two engines the model predicts best and the two it predicts worst, leave-one-publisher-out."""
    from model.catalog.active import default_efficiency
    table = default_efficiency()
    rows = sorted(_validation()["lopo_by_engine"].items(), key=lambda kv: kv[1]["median_abs_error"])
    (a, ra), (b, rb), (c, rc), (d, rd) = rows[0], rows[1], rows[-2], rows[-1]
    name = lambda e: table.engine(e).name.split(" (")[0]                       # noqa: E731 (no parenthesis)
    return (_pct(ra["median_abs_error"]), name(a), str(ra["rows"]), _pct(rb["median_abs_error"]), name(b),
            _pct(rc["median_abs_error"]), name(c), _pct(rd["median_abs_error"]), name(d), str(rd["rows"]))


def _fifth_lesson_first_state() -> tuple[str, ...]:
    """The chapter whose first state is 70B on one H100 that does not fit."""
    from model import estimate
    from model.lessons.chapters import default_chapters
    for ch in default_chapters():
        s = ch.states[0].scenario
        if s.model == "llama-3.1-70b" and s.gpus == 1 and not estimate(s).fits and "h100" in s.gpu:
            return (str(ch.number),)
    raise AssertionError("no chapter opens on 70B that does not fit on one H100")


def _refused(text: str) -> bool:
    import tempfile
    from model.errors import ModelError
    from model.files.scenario_file import load_scenario_with_chapter
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "x.json"
        p.write_text(text, encoding="utf-8")
        try:
            load_scenario_with_chapter(p)
        except ModelError:
            return True
    return False


def _hostile() -> tuple[str, ...]:
    depth, digits = 100_000, 400
    assert _refused('{"memory_wall_scenario": 1, "scenario": ' + "[" * depth + "]" * depth + "}")
    assert _refused('{"memory_wall_scenario": 1, "scenario": {"batch": ' + "9" * digits + "}}")
    return (f"{depth:,}".replace(",", " "), str(digits))


def _screenshot_sizes() -> tuple[str, ...]:
    from model.lessons.chapters import default_chapters
    sizes = sorted({p.stem.rsplit("-", 1)[1] for p in (ROOT / "docs/screenshots/chapters").glob("ch*-s*-*.png")},
                   key=lambda s: -int(s.split("x")[0]))
    states = sum(len(c.states) for c in default_chapters())
    for size in sizes:
        assert len(list((ROOT / "docs/screenshots/chapters").glob(f"ch*-s*-{size}.png"))) == states, size
    return tuple(s.replace("x", "×") for s in sizes)


def _record_defaults() -> tuple[str, ...]:
    text = (ROOT / "cli" / "window.py").read_text(encoding="utf-8")
    seconds = _search(r'"--seconds".*default (\d+)', text)[0]
    fps = _search(r'"--fps".*default (\d+)', text)[0]
    w, h = _module_constant("ui/present/recording.py", "DEFAULT_SIZE")
    return seconds, f"{w}x{h}", fps


def _what_if(key: str) -> str:
    from model.files.hardware_edit import WHAT_IFS
    return next(w.label for w in WHAT_IFS if w.key == key)


def _slide_size() -> tuple[str, ...]:
    w, h = _module_constant("ui/present/slides.py", "SLIDE_SIZE")
    return (f"{w}×{h}",)


def _windows_min() -> tuple[str, ...]:
    return _search(r"MinVersion=(\d+)", (ROOT / "packaging/windows/memory-wall.iss").read_text(encoding="utf-8"))


def _default(name: str) -> str:
    return _readouts()[name].text


# ---------------------------------------------------------------- the facts
C = _catalog

def _stage_sizes() -> tuple[str, ...]:
    """The stage's smallest type and the room under which Explore leaves the chip out (ui/kit/theme.py),
    and the smaller of the two sizes tests/test_stage.py checks Explore, Serve and Plan at."""
    from ui.kit import theme as th
    test = (ROOT / "tests" / "test_stage.py").read_text(encoding="utf-8")
    sizes = re.search(r"parametrize\(\"size\", \[([^\]]*)\]\)\ndef test_explore_serve_and_plan", test).group(1)
    small = min(re.findall(r"\((\d+), (\d+)\)", sizes), key=lambda wh: int(wh[0]))
    return str(th.STAGE_MIN_PX), "{}×{}".format(*th.STAGE_ROOM_PX), "{}×{}".format(*small)


FACTS: list[Fact] = [
    # the opening scenario (the screenshot's caption and "Using it")
    Fact("opening: time per token", r"memory-bound, (\S+ ms) per token with (\w+) \((\S+ ms) floor\)",
         lambda: (_default("decode_time"), _default("engine"), _default("decode_floor"))),
    Fact("opening: tensor cores idle", r"the tensor cores idle ([\d.]+%) of each step\]",
         lambda: _search(r"idle ([\d.]+%)", _caption())),
    Fact("Using it: the opening scenario", r"memory-bound at (\S+ ms) per\s+token with (\w+) \(the floor is (\S+ ms)\)",
         lambda: (_default("decode_time"), _default("engine"), _default("decode_floor"))),
    Fact("lessons: V100 → H100", r"V100 → H100: ([\d.]+×)\s+the FLOP/s, ([\d.]+×) the bandwidth",
         lambda: (lambda a, b: (_ratio(b.peak_flops / a.peak_flops),
                                _ratio(b.peak_bandwidth_bytes_per_s / a.peak_bandwidth_bytes_per_s)))(
             _estimate(gpu="v100", model="llama-3.1-8b", precision="fp16"), _estimate(gpu="h100", precision="bf16"))),
    Fact("lessons: ridge", r"H100 BF16 ridge: (\d+) FLOP/byte",
         lambda: (str(round(_readouts(gpu="h100", precision="bf16")["ridge"].value)),)),
    Fact("lessons: 70B decode", r"16-bit reads (\S+ GB) per token: ≥ (\S+ ms) on an H100",
         lambda: (_readouts(model="llama-3.1-70b", precision="bf16")["weights_read_per_step"].text,
                  _readouts(model="llama-3.1-70b", precision="bf16")["decode_floor"].text)),
    Fact("lesson 5 opens on 70B", r"does not fit, is lesson (\d)'s\s+first state", _fifth_lesson_first_state),
    # the catalogue
    Fact("list: catalogue counts", r"the catalogue: (\d+) accelerators, (\d+) models, (\d+) precisions",
         lambda: (str(len(C().gpus)), str(len(C().models)), str(len(C().precisions)))),
    Fact("assets: hardware.json", r"`hardware\.json` \((\d+) accelerators\)", lambda: (str(len(C().gpus)),)),
    Fact("assets: models.json", r"`models\.json` \((\d+) models\)", lambda: (str(len(C().models)),)),
    Fact("assets: precisions.json", r"`precisions\.json` \((\d+) precisions", lambda: (str(len(C().precisions)),)),
    Fact("assets: measured.csv", r"`measured\.csv` \((\d+) published measurements from (\d+) sources by (\d+) "
         r"publishers", lambda: _rows_and_sources() + (str(len(_validation()["lopo_by_publisher"])),)),
    Fact("assets: serving rows", r"and (\d+) published serving results with their loads\)",
         lambda: (str(_serving()["all"]["rows"]),)),
    Fact("weight formats' bits", r"GGUF Q4_K_M ([\d.]+), Q8_0 ([\d.]+),",
         lambda: tuple(f"{8 * C().precision(p).bytes_per_weight:.3g}" for p in ("q4_k_m", "q8_0"))),
    # lessons and screenshots
    Fact("lessons: chapter count", r"\*\*Lessons\.\*\* (\w+) chapters", lambda: (_word(len(_chapters())),)),
    Fact("presenting: chapter keys", r"(\d)–(\d): jump\s+to a chapter", lambda: ("1", str(len(_chapters())))),
    Fact("presenting: stage type", r"Plan is smaller than (\d+) px; on a\s+projector smaller than (\d+×\d+) \(a "
         r"(\d+×\d+) one\)", _stage_sizes),
    Fact("screenshots: sizes", r"Screenshots of every state at ([^,\s]+), (\S+) and (\S+):", _screenshot_sizes),
    Fact("lesson 6 caption", r"Lesson 6: at batch ([\d,]+) the maths takes over from batch ([\d,]+) \(at peak numbers "
         r"only from ([\d,]+)\)",
         lambda: _search(r"Batch ([\d,]+): the maths takes over from batch (\d[\d,]*\d)", _claim(6, 2))
         + _search(r"at peak numbers only at ([\d,]+)", _takeaway(6, 2))),
    Fact("lesson 8 caption", r"Lesson 8: (\d) H100s over NVLink are ([\d.]+×) faster than one, not (\d)×",
         lambda: (lambda n, x: (n, x, n))(*_search(r"(\d) × H100 SXM: ([\d.]+×) faster than one",
                                                   _claim(8, 0)))),
    Fact("chip caption", r"Llama 3\.1 70B in FP8 on (\d) H100 PCIe, batch (\d+): the tensor cores idle ([\d.]+%) of "
         r"each step, waiting on all-reduces over PCIe \(([\d.]+%) of each step\)",
         lambda: ("8", "256") + _search(r"idle ([\d.]+%) of each step — waiting on all-reduces over PCIe[^(]*\(([\d.]+%)",
                                        _caption(gpu="h100-pcie-80gb", model="llama-3.1-70b", precision="fp8", gpus=8,
                                                 batch=256, interconnect="pcie"))),
    # slides, files, the fuzz walk
    Fact("record: defaults", r"\[--seconds (\d+)\]\s+\[--size (\d+x\d+)\] \[--fps (\d+)\]", _record_defaults),
    Fact("hardware editor: what if", r'"what if (×2 memory bandwidth)"', lambda: (_what_if("hbm_bandwidth_x2"),)),
    Fact("slides: size", r"chart as a (\S+) PNG or SVG", _slide_size),
    Fact("hostile files", r"a pipe or device, ([\d ]+) nested brackets, a\s+(\d+)-digit number", _hostile),
    Fact("fuzz walk", r"the test\s+suite runs (\d+) × (\d+) of them\) for ([\d ]+) actions per seed",
         lambda: (str(_fuzz_seeds()), str(_module_constant("tests/test_fuzz_ui.py", "ACTIONS_PER_SEED")),
                  _soak_actions())),
    # versions the repository states
    Fact("Python", r"Python ≥ (3\.\d+)", lambda: (_pyproject()["project"]["requires-python"].lstrip(">="),)),
    Fact("version in file names", r"memory-wall[_-](\d+\.\d+\.\d+)[_-]",
         lambda: (_pyproject()["project"]["version"],), count=7),
    Fact("Windows", r"\*\*Windows (\d+) or newer \(64-bit\)", _windows_min),
    # how accurate
    Fact("accuracy: rows, documents, publishers", r"\((\d+) rows from (\d+) public documents by (\d+) publishers",
         lambda: _rows_and_sources() + (_publishers(),)),
    Fact("accuracy: leave-one-publisher-out", r"\| leave-one-publisher-out \((\d+) rows, (\d+) publishers\) \| "
         r"([\d.]+%) \| (\d+%) \|", lambda: (_rows_and_sources()[0], _publishers()) + _summary("lopo")),
    Fact("accuracy: batch 1 / batched", r"\| — batch 1 \((\d+) rows\) / batched \((\d+) rows\) \| ([\d.]+%) / ([\d.]+%) \| "
         r"(\d+%) / (\d+%) \|", lambda: _split("lopo_by_batch", ("batch 1", "batched"), rows=True)),
    Fact("accuracy: by phase", r"\| — decode / prefill / end to end \| ([\d.]+%) / ([\d.]+%) / ([\d.]+%) \| "
         r"(\d+%) / (\d+%) / (\d+%) \|", lambda: _split("lopo_by_phase", ("decode", "prefill", "end to end"))),
    Fact("accuracy: leave-one-source-out", r"\| leave-one-source-out \((\d+) documents\) \| ([\d.]+%) \| (\d+%) \|",
         lambda: (_rows_and_sources()[1],) + _summary("loso")),
    Fact("accuracy: in-sample", r"fitted on every row \(in-sample\) \| ([\d.]+%) \| (\d+%) \|",
         lambda: _summary("in_sample")),
    Fact("accuracy: the floor", r"pure roofline floor \(`--engine ideal`\) \| ([\d.]+%) \| (\d+%) \|",
         lambda: _summary("floor")),
    Fact("accuracy: the goal", r"The goal \(median error ≤ (\d+)% and ≥ (\d+)% of rows within ±(\d+)%, "
         r"leave-one-publisher-out, batch 1 and batched each\) is \*\*(not\s+met\s+yet|met)\*\*: ([\d.]+%) and "
         r"(\d+%) overall, ([\d.]+%) / (\d+%) at batch 1 and ([\d.]+%) / (\d+%) batched\.", lambda: _goal()),
    Fact("accuracy: the band", r"\| median absolute error \| within ±(\d+)% \|", lambda: (str(GOAL[2]),)),
    Fact("accuracy: by engine", r"By engine it ranges from ([\d.]+%) \(([^,]+), (\d+) rows\) and ([\d.]+%)\s+"
         r"\(([^)]+)\) to ([\d.]+%) \(([^)]+)\) and ([\d.]+%) \(([^,]+), (\d+) rows\)", _by_engine),
    Fact("weight formats' bits, more", r"AWQ/GPTQ g128 ([\d.]+), MLX 4-bit ([\d.]+),",
         lambda: tuple(f"{8 * C().precision(p).bytes_per_weight:.3g}" for p in ("awq-g128", "mlx-4bit"))),
    Fact("eager hosts", r"Transformers decoding Llama 3\.1 8B at batch 1 takes (\S+ ms) per token on an RTX 4090 and "
         r"(\S+ ms) on an H100, though the H100 has (\S+ TB/s) to the 4090's (\S+ TB/s)",
         lambda: (_readouts(gpu="rtx-4090-24gb", engine="transformers")["decode_time"].text,
                  _readouts(gpu="h100-sxm5-80gb", engine="transformers")["decode_time"].text,
                  _readouts(gpu="h100-sxm5-80gb")["peak_bandwidth"].text,
                  _readouts(gpu="rtx-4090-24gb")["peak_bandwidth"].text)),
    Fact("the opening scenario's band", r"\(`± (\d+)%` beside (\S+ ms) for the opening scenario\)", lambda: _band()),
    Fact("serving validation", r"simulates (\d+) published serving results \((\d+) runs from (\d+) documents by (\d+) "
         r"publishers\) under their\s+published loads, leave-one-publisher-out: median error ([\d.]+%) on throughput "
         r"\((\d+) results\),\s+([\d.]+%) on TPOT/ITL medians and means \((\d+)\), ([\d.]+%) on TTFT medians and "
         r"means \((\d+)\), ([\d.]+%) on\s+TTFT `p90`–`p99` \((\d+)\), ([\d.]+%) end to end \((\d+)\); `DeepSeek-V3`/`R1` "
         r"alone: ([\d.]+%) on throughput, ([\d.]+%) on\s+TPOT \(too (fast|slow)\)", lambda: _serving_facts()),
    Fact("the band's quantile", r"the (\d+)th percentile of the leave-one-publisher-out", lambda: (_quantile(),)),
]

GOAL = (15, 75, 25)                    # median error ≤ 15%, ≥ 75% of rows within ±25% (model/machine/validate.py's
                                       # docstring states the same goal)


def _estimate(**scenario):
    from model import Scenario, estimate
    return estimate(Scenario(**scenario))


def _chapters():
    from model.lessons.chapters import default_chapters
    return default_chapters()


def _word(n: int) -> str:
    return ["Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"][n]


def _rows_and_sources() -> tuple[str, str]:
    from model.machine.measured import default_measured
    rows = default_measured()
    return str(len(rows)), str(len({r.source_id for r in rows}))


@cache
def _serving() -> dict:
    from model.machine.validate_serving import report
    return report()


def _serving_facts() -> tuple[str, ...]:
    rep = _serving()
    g, d = rep["by_family"], rep["deepseek"]
    out = [str(rep["all"]["rows"]), str(rep["runs"]), str(rep["documents"]), str(rep["publishers"])]
    for key in ("throughput", "tpot", "ttft", "ttft_tail", "e2e"):
        out += [_pct(g[key]["median_abs_error"]), str(g[key]["rows"])]
    return tuple(out) + (_pct(d["throughput"]["median_abs_error"]), _pct(d["tpot"]["median_abs_error"]),
                         "fast" if d["tpot"]["mean_log_error"] < 0 else "slow")


def _summary(key: str) -> tuple[str, str]:
    s = _validation()["summary"][key]
    return _pct(s["median_abs_error"]), _whole_pct(s["within_25"])


def _goal() -> tuple[str, ...]:
    median, within, band = GOAL
    v = _validation()
    parts = [v["summary"]["lopo"], v["lopo_by_batch"]["batch 1"], v["lopo_by_batch"]["batched"]]
    met = all(s["median_abs_error"] <= median / 100 and s["within_25"] >= within / 100 for s in parts)
    out = (str(median), str(within), str(band), "met" if met else "not met yet")
    for s in parts:
        out += (_pct(s["median_abs_error"]), _whole_pct(s["within_25"]))
    return out


def _split(key: str, groups: tuple[str, ...], rows: bool = False) -> tuple[str, ...]:
    """Rows (if asked), then medians, then shares within the band, of the validation's groups."""
    d = _validation()[key]
    return ((tuple(str(d[g]["rows"]) for g in groups) if rows else ())
            + tuple(_pct(d[g]["median_abs_error"]) for g in groups) + tuple(_whole_pct(d[g]["within_25"]) for g in groups))


def _publishers() -> str:
    from model.machine.measured import default_measured
    return str(len({r.publisher for r in default_measured()}))


def _band() -> tuple[str, str]:
    from model.readouts.evidence import band
    e = _estimate()
    return f"{100 * band(e, 'decode_time').fraction:.0f}", _default("decode_time")


def _quantile() -> str:
    from model.readouts.evidence import QUANTILE
    return f"{100 * QUANTILE:.0f}"


# ---------------------------------------------------------------- rewriting and checking
@cache
def _regex(pattern: str) -> re.Pattern:
    """The fact's pattern with each space (outside [...]) matching any run of white space: a
    sentence may be wrapped anywhere."""
    out, in_class, escaped = [], False, False
    for ch in pattern:
        if escaped:
            out.append(ch)
            escaped = False
        elif ch == "\\":
            out.append(ch)
            escaped = True
        elif ch == "[":
            in_class = True
            out.append(ch)
        elif ch == "]":
            in_class = False
            out.append(ch)
        elif ch == " " and not in_class:
            out.append(r"\s+")
        else:
            out.append(ch)
    return re.compile("".join(out))


def stale(text: str) -> list[str]:
    """One line per number that is not what its fact says (or a sentence that is missing)."""
    out = []
    for f in FACTS:
        found = list(_regex(f.pattern).finditer(text))
        if len(found) != f.count:
            out.append(f"{f.name}: the sentence is there {len(found)} times, not {f.count} ({f.pattern!r})")
            continue
        want = f.values()
        for m in found:
            said = tuple(" ".join(g.split()) for g in m.groups())        # wrapped or not
            if said != tuple(want):
                out.append(f"{f.name}: README says {said}, it is {tuple(want)}")
    return out


def rewrite(text: str) -> str:
    """``text`` with every fact's numbers put right (the words around them kept)."""
    for f in FACTS:
        want = f.values()

        def put(m, want=want) -> str:
            out, pos = [], m.start()
            for i, value in enumerate(want, start=1):
                out += [m.string[pos:m.start(i)], value]
                pos = m.end(i)
            return "".join(out) + m.string[pos:m.end()]
        text = _regex(f.pattern).sub(put, text)
    return text


def covered(text: str) -> list[tuple[int, int]]:
    """Where the facts' numbers are in ``text`` (spans of their groups)."""
    spans = []
    for f in FACTS:
        for m in _regex(f.pattern).finditer(text):
            spans += [m.span(i) for i in range(1, len(m.groups()) + 1)]
    return spans


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    if "--check" in argv:
        problems = stale(text)
        print("\n".join(problems) if problems else "README.md: every number is up to date")
        return 1 if problems else 0
    new = rewrite(text)
    if new != text:
        README.write_text(new, encoding="utf-8")
    left = stale(new)
    print("\n".join(left) if left else "README.md: every number is up to date")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
