"""Every word the chip view draws, made once per scene (a scenario, a speed, a layout's drawn units).

ui/chip/paint/*.py place these strings and pick, where a list of forms is given, the first (longest)
that fits its room; they write none of their own. The numbers inside come from the chip's
readouts (model.readouts.flow.chip_readouts) and its packets (model.readouts.chip.packet_texts).

    header      the scenario in one line; the caption (what the tensor cores wait on); the fit warning
    package     the part's name and its units; the SM bands; each memory block; the host and its link
    legend      packets, their kinds, the bits, the busy swatch, what one step moves
    cluster     the GPUs and their split, the link and its switch, how busy the link is
    ladder      each level's name and how much of it is used
"""
from __future__ import annotations

from model.readouts.chip import MAX_TILES, packet_texts, shorter_sizes, step_word
from model.readouts.flow import Flow, is_unified, link_title
from model.values import frozen

Forms = tuple[str, ...]          # one text, longest form first
SM_BANDS = (("registers", "RF"), ("smem", "SMEM"))      # (band, word) inside the first SM: the same on every part
TENSOR_CORES_WORD = "TC"                                  # over the first SM's tensor cores (drawn each frame)


@frozen
class ChipWords:
    """The chip's words for one scene (compared by its words: a scene drawn ahead is found again)."""

    header: Forms                                # the scenario line
    caption: str                                 # what the tensor cores wait on: head — tail
    caption_head: str                            # its head, with the dash when a tail follows
    caption_tail: str                            # its tail (drawn in the bottleneck's colour), or ""
    unfit: Forms                                 # the warning under the caption; () when the scenario fits
    package: tuple[tuple[str, str], ...]         # (left, right) title pairs, the first that fits
    memory: Forms                                # each memory block's words
    host: Forms                                  # the host box's name
    host_note: Forms                             # the host link's note
    legend_title: str
    packet: str                                  # what one packet is at this speed
    kinds: tuple[tuple[str, str, Forms], ...]    # (kind, name, its sub-line's forms): weights, kv, activations, all_reduce
    bits_title: str
    bits: tuple[tuple[int, str], ...]            # (bits per weight, words)
    busy: str                                    # the busy swatch's words
    idle: str
    crowded: str                                 # what a crowded link means
    step_title: str
    step: tuple[tuple[Forms, bool], ...]         # (forms, strong) lines of what one step moves
    cluster: Forms                               # the GPUs and their split
    link: str                                    # the link and its bandwidth
    switch: str                                  # the word on the switch
    link_busy: Forms
    bottleneck: Forms                            # beside the link bar when the link is the bottleneck
    levels: tuple[tuple[str, Forms, Forms], ...]  # (level key, name forms, use forms), the ladder

    def level(self, key: str) -> tuple[Forms, Forms]:
        """(name forms, use forms) of ladder level ``key``."""
        for k, names, use in self.levels:
            if k == key:
                return names, use
        return (key,), ("use n/a",)


def _header(e, f: Flow, hw) -> Forms:
    pp = f", pp {f.pp}" if f.pp > 1 else ""
    gpus = f"{f.gpus} GPUs (tp {f.tp}{pp})" if f.gpus > 1 else "1 GPU"
    tp = f" · tp {f.tp}{' pp ' + str(f.pp) if f.pp > 1 else ''}" if f.gpus > 1 else ""
    return (f"{e.gpu_name} · {e.model_name} · {e.precision_name} weights · KV {e.kv_precision_name} · "
            f"batch {f.batch} · {gpus} · {f.phase}",
            f"{e.gpu_name} · {e.model_name} · {e.precision_name} · KV {e.kv_precision_name} · batch {f.batch} · {gpus}",
            f"{hw.short_name} · {e.model_name} · {e.precision_name} · batch {f.batch} · {f.gpus}×{tp}",
            f"{hw.short_name} · {e.model_name} · batch {f.batch} · {f.gpus}×")


def _unfit(e, f: Flow) -> Forms:
    if f.fits:
        return ()
    note = next((n for n in e.notes if n.startswith("does not fit")), "does not fit in HBM")
    return ("⚠ " + note + " — shown as if it did", "⚠ " + note)


def _package(hw, shown: dict, drawn_units: int) -> tuple[tuple[str, str], ...]:
    units = shown["units"].text
    full = f"{units} ({drawn_units} drawn)"
    name = f"{hw.short_name} package"
    return ((name, full), (hw.short_name, full), (name, units), (hw.short_name, units), ("", full), ("", units))


def _memory(shown: dict, unified: bool) -> Forms:
    cap = shown["memory_block"].text
    forms = tuple(shorter_sizes(cap))
    if unified:
        name = shown["level_hbm"].label
        return (f"{name} · {cap}", name, *forms)
    return forms


def _host(f: Flow, hw, unified: bool) -> tuple[Forms, Forms]:
    if unified:
        return ("CPU cores", "CPU"), ("CPU and GPU share the unified memory: no copy over PCIe",
                                      "CPU and GPU share this memory", "shared memory")
    link = f"PCIe {hw.pcie.name}" if hw.pcie else "host link"
    when = "steady decode" if f.phase == "decode" else "prefill"
    return ("Host RAM", "Host", "RAM"), (f"{link}: idle in {when} (weights already in HBM)", f"{link}: idle in {when}",
                                        f"{link}: idle", "idle")


def _kinds(e, pt: dict) -> tuple[tuple[str, str, Forms], ...]:
    wp = pt["weights_per_packet"]
    rows = [("weights", "weights", (f"{wp} per packet", f"{wp}/packet", wp)),
            ("kv", "KV cache", (e.kv_precision_name,)),
            ("activations", "activations", ("layer in/out", "in/out"))]
    if "link_packet" in pt:
        lp = pt["link_packet"]
        rows.append(("all_reduce", "all-reduce", (f"1 packet = {lp}", f"{lp} a packet", lp)))
    return tuple(rows)


def _step(f: Flow, sh: dict) -> tuple[tuple[Forms, bool], ...]:
    prefill = f.phase == "prefill"
    w, kv = sh["step_weights"].text, sh["step_kv"].text
    lines = [((f"reads {w} weights, writes {kv} KV",) if prefill else
              (f"reads {w} weights · {kv} KV cache", f"reads {w} weights · {kv} KV"), True),
             ((f"+ {sh['step_activations'].text} activations, in {sh['step_time'].text}",), True)]
    if not prefill:
        ctx = sh["mean_context"].text
        lines.append(((f"KV read at the mean context, {ctx}", f"KV at the mean context, {ctx}", f"KV at {ctx}"), False))
    lines.append(((f"{sh['chip_rate'].text} {sh['chip_rate'].label}",), False))
    lines.append(((f"{sh['step_flops'].text} · MFU {sh['mfu'].text} of peak FLOP/s",
                   f"{sh['step_flops'].text} · MFU {sh['mfu'].text}"), False))
    return tuple(lines)


def _cluster(f: Flow, shown: dict) -> tuple[Forms, str, str]:
    split = f"tp {f.tp} × pp {f.pp}" if f.pp > 1 else f"tensor parallel {f.tp}"
    short = f"tp {f.tp} pp {f.pp}" if f.pp > 1 else f"tp {f.tp}"
    more = f" · {MAX_TILES} drawn" if f.gpus > MAX_TILES else ""
    title = link_title(f.link_kind, f.link_name)
    bw = shown["link_bandwidth"].text if "link_bandwidth" in shown else ""
    switch = "Thunderbolt" if title.startswith("Thunderbolt") else \
        {"pcie": "PCIe switch", "network": "network"}.get(f.link_kind, "switch")
    return ((f"×{f.gpus} GPUs · {split}{more}", f"×{f.gpus} GPUs · {short}{more}", f"×{f.gpus} GPUs · {short}"),
            f"{title} · {bw}", switch)


def _use(shown: dict, key: str) -> Forms:
    r = shown.get(f"use_{key}")
    if r is None or r.value is None:
        return ("use n/a",)
    if key == "tensor_cores":
        return (f"busy {r.text} of step time", f"{r.text} of step time", f"{r.text} of step", r.text)
    return (f"{r.text} used", r.text)


def _levels(shown: dict) -> tuple[tuple[str, Forms, Forms], ...]:
    out = []
    for k, r in shown.items():
        if k.startswith("level_"):
            key, name = k[len("level_"):], r.label
            names = (name, name.split(" (")[0]) if " (" in name else (name,)
            out.append((key, names, _use(shown, key)))
    return tuple(out)


def chip_words(e, f: Flow, hw, shown: dict, scale, drawn_units: int) -> ChipWords:
    """The chip's words for Estimate ``e`` (its flow ``f`` on ``hw``; ``shown``: its chip readouts,
    model.readouts.flow.chip_readouts) at packet scale ``scale`` (model.readouts.chip.packet_scale),
    with ``drawn_units`` SMs drawn."""
    unified = is_unified(hw)
    head, _, tail = f.caption.partition(" — ")
    host, host_note = _host(f, hw, unified)
    cluster, link, switch = _cluster(f, shown)
    busy = shown["link_busy"].text if "link_busy" in shown else ""
    pt = packet_texts(scale)
    return ChipWords(
        header=_header(e, f, hw), caption=f.caption, caption_head=head + (" — " if tail else ""), caption_tail=tail,
        unfit=_unfit(e, f), package=_package(hw, shown, drawn_units),
        memory=_memory(shown, unified), host=host, host_note=host_note,
        legend_title="Packets of bytes", packet=f"1 packet = {pt['packet']} (at this speed)", kinds=_kinds(e, pt),
        bits_title="Same bytes, more weights:", bits=((16, "16-bit 1×"), (8, "8-bit 2×"), (4, "4-bit 4×")),
        busy=shown["busy_words"].text, idle="idle",
        crowded="Packets slow to the speed of their link: a crowded link is a busy link.",
        step_title=f"Per GPU, each {step_word(f)}", step=_step(f, shown),
        cluster=cluster, link=link, switch=switch,
        link_busy=(f"link busy {busy} of each step", f"link busy {busy} of a step", f"link busy {busy}"),
        bottleneck=("the bottleneck", "bottleneck"), levels=_levels(shown))
