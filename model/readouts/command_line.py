"""The command line's own words: what a report ran, "did you mean …?", errors that name the program
and the command, warnings, the engine table and one-line results (cli/ prints them).

    error_line(exc, prog, command)    "memory-wall estimate: unknown GPU 'h10'; did you mean 'h100'? …"
    estimate_ran(e) / serve_ran(run) / plan_ran(request)      what a report ran, in one line
    context_warning(scenario, catalog)                        a prompt longer than the model was built for
    no_plan_line(plan, prog)          why a plan found nothing, and how to ask for less
    engine_rows(table) / auto_lines(table)                    ``list engines``
"""
from __future__ import annotations

import difflib
import math
import re
from typing import Iterable

from model.catalog.active import default_catalog
from model.catalog.engines import AUTO, IDEAL_ID, EfficiencyTable
from model.catalog.parts import Catalog
from model.errors import UnknownIdError
from model.readouts.format import sig3

OPTION_CUTOFF = 0.7          # "--gpuu" → "--gpu"; "--colour" → nothing
ID_CUTOFF = 0.5              # the catalogue's own guess for a GPU, precision …
MODEL_CUTOFF = 0.8           # a model guess must be close *and* have the same numbers (qwen2.5-7b is not qwen2.5-72b)
LIST_OF = {"GPU": "gpus", "model": "models", "precision": "precisions", "KV-cache precision": "precisions"}
HF_CONFIG = ("for a model not listed, download its config.json from its Hugging Face page (Files tab) and give "
             "--model-config config.json --model-name NAME")


def suggestion(word: str, choices: Iterable[str], cutoff: float = OPTION_CUTOFF) -> str | None:
    """The one choice close enough to ``word`` to be what was meant, or None."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return close[0] if close else None


def unknown_option_text(word: str, options: Iterable[str]) -> str:
    """'unknown option --gpuu; did you mean --gpu?' (an argument that is not an option: 'unexpected …')."""
    if not word.startswith("-"):
        return f"unexpected argument '{word}'"
    close = suggestion(word.split("=", 1)[0], options)
    return f"unknown option {word}" + (f"; did you mean {close}?" if close else "")


def unknown_command_text(word: str, commands: Iterable[str]) -> str:
    commands = list(commands)
    close = suggestion(word, commands, 0.6)
    hint = f"did you mean {close}?" if close else f"commands are {', '.join(commands)}, or give a saved .json"
    return f"unknown command '{word}'; {hint}"


def _numbers(text: str) -> list[str]:
    """A model name's numbers — version and size: qwen2.5-7b → 2.5, 7 (what makes two names two models)."""
    return re.findall(r"\d+(?:\.\d+)?", text)


def unknown_id_text(what: str, key: str, known: Iterable[str], prog: str) -> str:
    """An id the catalogue lacks: the near miss when it is one, where to list them, and for a
    model how to bring in one of your own."""
    known = list(known)
    where = f"list them with: {prog} list {LIST_OF.get(what, '')}".rstrip()
    if what != "model":
        close = suggestion(str(key).strip().lower(), known, ID_CUTOFF)
        return f"unknown {what} '{key}'" + (f"; did you mean '{close}'?" if close else "") + f" ({where})"
    wanted = str(key).strip().lower()
    close = next((c for c in difflib.get_close_matches(wanted, known, n=3, cutoff=MODEL_CUTOFF)
                  if _numbers(c) == _numbers(wanted)), None)
    if close:
        return f"unknown model '{key}'; did you mean '{close}'? ({where})"
    return f"unknown model '{key}' ({where}); {HF_CONFIG}"


def with_program(text: str, prog: str) -> str:
    """A model message's 'main.py …' hint in the program's own name (memory-wall when installed)."""
    return re.sub(r"\bmain\.py(?= )", prog, text) if prog != "main.py" else text


def error_line(exc: Exception, prog: str, command: str | None = None) -> str:
    """One line for a mistake: '<prog> <command>: what, and what to do'."""
    head = f"{prog} {command}" if command else prog
    if isinstance(exc, UnknownIdError) and exc.what:
        return f"{head}: {unknown_id_text(exc.what, exc.key, exc.known, prog)}"
    return f"{head}: {with_program(str(exc), prog)}"


def engine_words(engine_id: str, engine_name: str, asked: str, gpu_short_name: str) -> str:
    """'vLLM (auto: the engine most used on H100 SXM)', 'TensorRT-LLM', 'the roofline floor (ideal)'."""
    if engine_id == IDEAL_ID:
        return "the roofline floor (ideal: 100% of peak, no overhead)"
    if asked == AUTO:
        return f"{engine_name} (auto: the engine most used on {gpu_short_name})"
    return engine_name


def estimate_ran(e) -> str:
    """What an estimate ran: model, precision, GPUs and engine."""
    s, hw = e.scenario, e.resolved.hw
    return (f"{e.model_name} in {e.precision_name} (KV {e.kv_precision_name}) on {s.gpus}× {e.gpu_name}, "
            f"engine {engine_words(e.engine_id, e.engine_name, s.engine, hw.short_name)}")


def serve_ran(run, engine_name: str) -> str:
    """What a serving run ran: model, precision, GPU count and kind, engine, replicas."""
    rs, s = run.resolved, run.scenario
    reps = int(run.setup.replicas)
    copies = f" × {reps} replicas" if reps > 1 else ""
    return (f"{rs.llm.name} in {rs.precision.name} (KV {rs.kv.name}) on {s.gpus}× {rs.hw.name}{copies}, "
            f"engine {engine_words(rs.engine, engine_name, s.engine, rs.hw.short_name)}")


def plan_ran(r, catalog: Catalog) -> str:
    """What a plan was asked: model, lengths, GPUs on hand, targets."""
    gpus = ", ".join(f"{n}× {catalog.gpu(g).short_name}" for g, n in r.gpus_available)
    bits = [f"TTFT p90 ≤ {r.ttft_p90_ms:g} ms" if r.ttft_p90_ms is not None else "",
            f"TPOT p90 ≤ {r.tpot_p90_ms:g} ms" if r.tpot_p90_ms is not None else "",
            f"{r.rate_per_s:g} requests/s" if r.rate_per_s else ""]
    targets = ", ".join(b for b in bits if b) or "none (the frontier only)"
    return (f"plan for {catalog.model(r.model).name}, {r.input_len:,} in / {r.output_len:,} out, on up to {gpus}; "
            f"targets: {targets}")


def context_warning(model_name: str, context_tokens: int | None, input_len: int, output_len: int) -> str | None:
    """A sentence when prompt + output is longer than the model was built for, else None."""
    total = int(input_len) + int(output_len)
    if not context_tokens or total <= context_tokens:
        return None
    return (f"warning: {input_len:,} in + {output_len:,} out = {total:,} tokens, more than {model_name}'s context "
            f"length of {context_tokens:,}; the numbers are for a sequence it cannot hold")


def _looser(ms: float) -> str:
    """A target a little above ``ms``, in two significant figures (what the closest setup meets)."""
    if not math.isfinite(ms) or ms <= 0:
        return "—"
    step = 10 ** (math.floor(math.log10(ms)) - 1)
    return f"{math.ceil(ms * 1.05 / step) * step:.6g}"


def no_plan_line(p, prog: str) -> str:
    """Why a plan has nothing to offer, and what to ask instead (one line)."""
    from model.readouts.planning import setup_text, targets_text
    r = p.request
    if p.closest is None or not len(p.table):
        return (f"no setup can run {default_catalog().model(r.model).name} on the GPUs given ({len(p.table.dropped)} replica shapes cannot run); "
                f"give more or larger GPUs with --gpus-available, a smaller precision with --precisions "
                f"(e.g. fp8,int4), or shorter --input-len / --output-len")
    c = p.closest
    relax = []
    if r.ttft_p90_ms is not None and math.isfinite(c.ttft_p90_ms) and c.ttft_p90_ms > r.ttft_p90_ms:
        relax.append(f"--ttft-p90-ms {_looser(c.ttft_p90_ms)}")
    if r.tpot_p90_ms is not None and math.isfinite(c.tpot_p90_ms) and c.tpot_p90_ms > r.tpot_p90_ms:
        relax.append(f"--tpot-p90-ms {_looser(c.tpot_p90_ms)}")
    how = (f"relax the targets (the closest setup meets {' '.join(relax)})" if relax
           else "relax the targets or give more GPUs with --gpus-available")
    return (f"no setup meets {targets_text(p)}; closest: {setup_text(p, c.index)} "
            f"(TTFT p90 {sig3(c.ttft_p90_ms)} ms, TPOT p90 {sig3(c.tpot_p90_ms)} ms); {how}")


def engine_rows(table: EfficiencyTable, catalog: Catalog) -> list[tuple[str, ...]]:
    """``list engines``: header, then one row per engine: id, name, versions, platforms with their
    own fitted factors, aliases."""
    rows = [("id", "name", "versions (engine@version)", "platforms fitted", "aliases")]
    for e in table.engines:
        newest = f"newest: {e.newest}" if e.newest else "newest"
        older = "; ".join(f"{e.id}@{v.id}: {v.label}" for v in e.versions)
        plats = ", ".join(sorted({p.split("@")[0] for p, f in e.fitted if f.calibrated_on})) or "prior only"
        rows.append((e.id, e.name, newest + (f"; {older}" if older else ""), plats, ", ".join(e.aliases) or "—"))
    rows.append((AUTO, "the engine most used on the GPU", "see below", "all", "—"))
    rows.append((IDEAL_ID, "the roofline floor: 100% of peak, no overhead", "—", "all", "—"))
    return rows


def auto_lines(table: EfficiencyTable) -> list[str]:
    """What ``auto`` picks, rule by rule (the first that matches a GPU wins)."""
    out = ["auto picks, for a GPU whose … (the first rule that matches):"]
    for rule in table.auto_rules:
        match = f"{rule.field} contains '{rule.contains}'" if rule.contains else "anything else"
        out.append(f"  {match}: {rule.engine} — {rule.reason}")
    return out


def precision_help(catalog: Catalog, prog: str) -> str:
    """The --precision help: every precision id in the catalogue."""
    return " ".join(p.id for p in catalog.precisions) + f" (what each is: {prog} list precisions)"


def wrote_image(path: str, width_px: int, height_px: int) -> str:
    return f"wrote {path} ({width_px}×{height_px})"


def smoke_passed() -> str:
    return "smoke test passed: the window started and every view rendered"


def version_line(version: str) -> str:
    return f"memory-wall {version}"
