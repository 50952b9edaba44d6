"""The Explore gauges' words: each gauge's readout, the line beneath it and its tooltip, and the
words beside the HBM bar. ui/explore/gauges.py places them; it writes no word of its own.

    gauges(e)        → one Gauge per place, in the grid's order (three a row): its readout
                       (title = the readout's label, the big number = its text), the small line
                       beneath, and the tooltip (its help, the readouts behind it, "click")
    hbm_legend(e)    → (part, words) beside the HBM bar: weights, KV cache, workspace per GPU
    hbm_capacity(e)  → the HBM bar's capacity line, and its tooltip
    notes(e)         → the notes under the gauges, and whether each is a warning
"""
from __future__ import annotations

from model.readouts.numbers import Readout, readouts
from model.readouts.sentences import shown_notes
from model.values import frozen

TITLE = "GAUGES"
CLICK = "Click: how this number is made"
HBM_LEGEND_WORDS = (("weights", "weights", "weights_resident_per_gpu"), ("kv", "KV", "kv_resident_per_gpu"),
                    ("workspace", "workspace", "workspace_per_gpu"))


@frozen
class Gauge:
    """One gauge as the screen shows it."""

    place: str               # the gauge's place in the grid (ms_per_token, tps_user, …)
    readout: Readout         # title = its label (or short label), the big number = its text
    sub: str                 # the small line beneath
    tip: str                 # the tooltip: its help, the readouts behind it, and "click"

    @property
    def key(self) -> str:
        """The readout's key ("Why this number?" opens its derivation)."""
        return self.readout.key


def _gauge(place: str, r: Readout, sub: str, extra: tuple[Readout, ...]) -> Gauge:
    return Gauge(place, r, sub, "\n".join([r.labelled, r.help, *(x.labelled for x in extra), CLICK]))


def gauges(e) -> tuple[Gauge, ...]:
    """The nine gauges of Estimate ``e``, in the grid's order."""
    r = readouts(e)
    s = e.scenario
    engine = (r["engine"],)
    by = f"{r['engine'].text} · "
    return (
        _gauge("ms_per_token", r["decode_time"], f"{by}floor {r['decode_floor'].text}",
               (*engine, r["mean_context"], r["decode_memory_time"], r["decode_compute_time"], r["decode_comm_time"],
                r["decode_overhead_time"], r["decode_floor"])),
        _gauge("tps_user", r["tokens_per_s_per_user"], "each sequence sees", (r["decode_time"],)),
        _gauge("tps_group", r["output_tokens_per_s"], f"batch {s.batch} on {s.gpus} GPU" + ("s" if s.gpus > 1 else ""),
               (r["decode_time"],)),
        _gauge("ttft", r["prefill_time"], f"{by}floor {r['prefill_floor'].text}",
               (*engine, r["prefill_memory_time"], r["prefill_compute_time"], r["prefill_comm_time"],
                r["prefill_overhead_time"], r["prefill_floor"])),
        _gauge("mbu", r["mbu"], f"{e.phase} · of {r['peak_bandwidth'].text}", (r["peak_bandwidth"],)),
        _gauge("mfu", r["mfu"], f"{e.phase} · of {r['peak_flops'].text}",
               (r["achieved_flops"], r["peak_flops"], r["tensor_cores_busy"])),
        _gauge("usd", r["usd_per_million_tokens"], "per million output tokens", (r["output_tokens_per_s"],)),
        _gauge("joules", r["joules_per_token"], "upper bound (TDP)", (r["output_tokens_per_s"],)),
        _gauge("e2e", r["e2e_latency"], f"{s.input_len:,} in → {s.output_len:,} out"
               + (f", {e.waves} waves" if e.waves > 1 else ""), (r["prefill_time"],)),
    )


PLACES = ("ms_per_token", "tps_user", "tps_group", "ttft", "mbu", "mfu", "usd", "joules", "e2e")


def hbm_legend(e) -> tuple[tuple[str, str], ...]:
    """(part, "words size") beside the HBM bar, for the parts weights, kv and workspace."""
    r = readouts(e)
    return tuple((part, f"{word} {r[key].text}") for part, word, key in HBM_LEGEND_WORDS)


def hbm_capacity(e) -> tuple[str, str]:
    """(the capacity line's readout, labelled; its tooltip line) of the HBM bar."""
    text = readouts(e)["hbm_capacity"].labelled
    return text, f"{text} (the line)"


def notes(e) -> tuple[tuple[str, bool], ...]:
    """The notes under the gauges (model.readouts.sentences.shown_notes), each marked, and whether
    it is a warning (the scenario does not fit)."""
    return tuple((f"⚠ {n}", n.startswith("does not fit")) for n in shown_notes(e))


def hbm_legend_tip(e) -> str:
    """The tooltip of the words beside the HBM bar: each part's readout, labelled."""
    r = readouts(e)
    return "\n".join(r[key].labelled for _part, _word, key in HBM_LEGEND_WORDS)
