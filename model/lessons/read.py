"""Read mode: each lesson as a short explanation a person can read alone, with this scenario's
numbers. The claim (the state's caption, filled by the chapter's Facts), then one idea after
another, each a paragraph whose numbers are readouts of the Estimate on screen and a derivation
(model/readouts/derivations.py, or the chapter's own for datasheet numbers), the terms linked
to the glossary where they first appear (model/lessons/glossary.py), what to try next, and the
lesson's exercises (model/lessons/exercises.py).

    read_page(chapter, index, e, params, catalog) -> ReadPage
    spans(text, seen)                              text cut where glossary terms appear
"""
from __future__ import annotations

import string

from model.catalog.parts import Catalog
from model.errors import ModelError
from model.lessons.chapters import Chapter
from model.lessons.deck import chapter_facts
from model.lessons.exercises import Exercise, derivation_lines, exercises_for
from model.lessons.glossary import TERMS, term_pattern
from model.readouts.derivations import all_readouts
from model.readouts.vocabulary import memory_word
from model.values import frozen


@frozen
class Span:
    text: str
    term: str = ""                # a glossary key: the span links to its entry


@frozen
class Idea:
    heading: str
    paragraph: tuple[Span, ...]
    derivation: tuple[str, ...]   # the equation in words, then this scenario's arithmetic (or the chapter's lines)


@frozen
class ReadPage:
    number: int
    title: str
    claim: tuple[Span, ...]
    intro: tuple[Span, ...]
    key_number: str               # the chart's key number and its label
    ideas: tuple[Idea, ...]
    try_next: tuple[str, ...]
    exercises: tuple[Exercise, ...]
    terms: tuple[str, ...]        # the glossary keys this page links, in order of appearance


# (heading, paragraph template, the readout whose derivation follows, or "why": the chapter's own lines)
IDEAS: dict[int, tuple[tuple[str, str, str], ...]] = {
    1: (("Compute grew faster than bandwidth",
         "Each generation's matrix units gained FLOP/s faster than its HBM gained bytes per second: the scenario's "
         "{gpu_name} peaks at {peak_flops} against {peak_bandwidth}.", "why"),
        ("The ridge point moves right",
         "Peak FLOP/s ÷ HBM bandwidth is the ridge point, {ridge} here: the arithmetic intensity a kernel needs to "
         "keep the maths busy. Decode, at about one FLOP per byte per sequence, sits far to its left.", "ridge")),
    2: (("Warps hide latency",
         "A GPU does not wait well, it switches: each scheduler keeps many warps in flight, and while one waits for "
         "HBM the others compute. Too few warps and it idles; divergent branches leave lanes of a warp idle.", "why"),
        ("What bounds inference",
         "Decode's thin matrices give the cores little work per byte: the {memory} bandwidth of {peak_bandwidth}, not the "
         "{peak_flops} peak, sets its pace.", "peak_bandwidth")),
    3: (("Every level away is slower",
         "Registers, shared memory, L2, {memory}: each step away from the cores is narrower and answers later. The "
         "weights do not fit on chip, so each decode step reads them from {memory} at {peak_bandwidth}.", "why"),
        ("Capacity is the other wall",
         "The {gpu_name} holds {hbm_capacity} of {memory}: the weights and the KV cache must fit in it.",
         "hbm_capacity")),
    4: (("Arithmetic intensity picks the roof",
         "A kernel does some FLOPs for each byte it moves: its arithmetic intensity. Below the ridge point "
         "({ridge}) its time is bytes ÷ bandwidth and faster compute buys nothing; above it only FLOP/s help.", "ridge"),
        ("The point on the chart", "The chart's point, with its numbers:", "why"),
        ("Where decode sits",
         "Decode of {model_name} at batch {batch} does {arithmetic_intensity}: far left of the ridge, memory-bound.",
         "arithmetic_intensity")),
    5: (("The floor",
         "To make one token, decode reads every weight once: {weights_read_per_step} for {model_name} in "
         "{precision_name}, plus the KV cache. At the datasheet {peak_bandwidth} that is the decode floor, "
         "{decode_floor} per token.", "decode_floor"),
        ("The realistic time",
         "A real engine reaches only part of the bandwidth (its achieved fraction) and adds overhead per step and "
         "per layer: {decode_time} per token, {decode_overhead_time} of it overhead.", "decode_time"),
        ("How close to the wall",
         "MBU is the share of the bandwidth the step uses: {mbu}. MFU, the share of the FLOP/s, is {mfu}: decode "
         "waits on bytes.", "mbu")),
    6: (("One read, many sequences",
         "Every sequence of the batch ({batch} here) shares one weight read, so up to the critical batch throughput "
         "grows almost linearly with it: here {output_tokens_per_s} for the group, {tokens_per_s_per_user} per user.",
         "output_tokens_per_s"),
        ("The critical batch",
         "Each sequence adds FLOPs but few bytes, until the arithmetic intensity reaches the ridge point: the "
         "critical batch at peak numbers, {critical_batch} with the KV cache ({critical_batch_weights_only} on the "
         "weights alone). Beyond it decode is compute-bound; at the achieved fractions it comes sooner.",
         "critical_batch"),
        ("The KV cache runs out first",
         "Each sequence keeps a KV cache of {kv_per_sequence} at full context; the largest batch that fits in "
         "{hbm_capacity} is {max_batch_that_fits}.", "max_batch_that_fits")),
    7: (("Fewer bytes per weight",
         "{precision_name} stores {per_weight}: one GPU holds {weights_resident_per_gpu} of weights.",
         "weights_resident_per_gpu"),
        ("The floor follows the bytes",
         "Decode is memory-bound, so halving the bytes halves the floor: {decode_floor} per token here. W8A8 "
         "formats also use the 8-bit matrix units; weight-only formats only save bytes.", "decode_floor")),
    8: (("Tensor parallelism splits the bytes",
         "On {gpus} GPUs each layer is split {tp} ways (tensor parallelism): each GPU reads "
         "{weights_read_per_step} per token.", "weights_read_per_step"),
        ("The all-reduces do not split",
         "After each layer the GPUs all-reduce over the link: {decode_comm_time} per token, and {decode_overhead_time} "
         "of overhead that does not shrink either. N GPUs never buy N× the speed.", "decode_comm_time")),
}

TRY_NEXT: dict[int, tuple[str, ...]] = {
    1: ("Switch the line to AMD and compare the growth factors.", "Show the ridge: how far right has it moved?"),
    2: ("Add warps until the scheduler is busy every cycle.", "Turn up divergence and watch the lane use fall."),
    3: ("Pick an MI300X or an RTX 4090 and compare the ladder.", "Note how far HBM is from the registers."),
    4: ("Drag the intensity past the ridge and double the compute.", "Try FP8: where does the ridge go?"),
    5: ("Change the GPU to an H200: the floor follows the bandwidth.", "Try Llama 3.1 8B: fewer bytes, lower floor."),
    6: ("Raise the batch past the critical batch and watch the gain flatten.",
        "Lengthen the prompts: the KV cache fills memory first."),
    7: ("Go from BF16 to FP8 to FP4 and watch the floor.", "Try an old GPU without FP8 maths: the bytes still halve."),
    8: ("Switch NVLink to PCIe: how much do the all-reduces take?", "Try 2, 4 and 8 GPUs: where does it stop paying?"),
}


def spans(text: str, seen: set[str]) -> tuple[Span, ...]:
    """``text`` cut into spans, the first mention of each glossary term not in ``seen`` a link
    (``seen`` grows: a term is linked once per page)."""
    out: list[Span] = []
    pos = 0
    while pos < len(text):
        best = None
        for t in TERMS:
            if t.key in seen:
                continue
            m = term_pattern(t).search(text, pos)
            if m and (best is None or m.start() < best[0].start()):
                best = (m, t.key)
        if best is None:
            break
        m, key = best
        if m.start() > pos:
            out.append(Span(text[pos:m.start()]))
        out.append(Span(m.group(0), key))
        seen.add(key)
        pos = m.end()
    if pos < len(text):
        out.append(Span(text[pos:]))
    return tuple(out)


def _values(e, facts) -> dict[str, str]:
    """The names a paragraph may use: the chapter's values, then every readout (with its unit: a
    readout wins over a chapter value of the same name) and the scenario's names."""
    s = e.scenario
    vals = dict(facts.values)
    vals.update({k: r.text for k, r in all_readouts(e).items()})
    vals.update(gpu_name=e.gpu_name, model_name=e.model_name, precision_name=e.precision_name,
                batch=f"{s.batch:,}", gpus=f"{s.gpus}")
    vals["memory"] = memory_word(e.resolved.hw)
    vals["per_weight"] = f"{vals['bytes_per_weight']} per weight" + (
        f" and {vals['expert_bytes_per_weight']} per routed-expert weight" if "expert_bytes_per_weight" in vals else "")
    return vals


def fill(template: str, values: dict[str, str]) -> str:
    """The template with {name} replaced ("—" for a name this scenario has no value for)."""
    out = []
    for literal, name, _spec, _conv in string.Formatter().parse(template):
        out.append(literal)
        if name is not None:
            out.append(str(values.get(name, "—")))
    return "".join(out)


def _derivation(e, key: str, facts) -> tuple[str, ...]:
    if key == "why":
        return tuple(facts.why or facts.details[:2])
    return derivation_lines(e, key)


def read_page(chapter: Chapter, index: int, e, params: dict, catalog: Catalog | None = None) -> ReadPage:
    """Lesson ``chapter`` in its state ``index`` (its knobs ``params``) as read mode shows it, for the
    Estimate ``e`` on screen."""
    if not 0 <= index < len(chapter.states):
        raise ModelError(f"lesson {chapter.number} has no step {index + 1}")
    facts = chapter_facts(chapter.number, e, params, catalog)
    vals = _values(e, facts)
    seen: set[str] = set()
    state = chapter.states[index]
    claim = spans(facts.claim(state.caption), seen)
    intro = spans(chapter.takeaway, seen)
    ideas = tuple(Idea(h, spans(fill(p, vals), seen), _derivation(e, k, facts)) for h, p, k in IDEAS[chapter.number])
    order = [s.term for part in (claim, intro, *(i.paragraph for i in ideas)) for s in part if s.term]
    return ReadPage(chapter.number, chapter.title, claim, intro, f"{facts.key.text}: {facts.key.label}", ideas,
                    TRY_NEXT[chapter.number], exercises_for(chapter.number), tuple(order))


# the words around read mode's controls (ui/chapters/read_view.py, the lessons' toolbar, the speaker view)
READ_WORDS = {
    "button": "Read",
    "button_tip": "Read this lesson as text beside its chart, with its derivations, glossary and exercises (T)",
    "slides": "Slides",
    "exercise_tip": "An exercise of this lesson: predict the number, then check it against the model",
    "guess": "your guess",
    "check": "Check",
    "check_tip": "Compare your number with the model's answer (Enter)",
    "glossary": "Terms in this lesson",
    "exercise": "Exercise",
}
