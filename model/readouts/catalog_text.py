"""The catalogue in words: menu entries for GPUs, models and engines, and what a model import shows."""
from __future__ import annotations

from model.catalog.active import default_efficiency
from model.catalog.engines import AUTO, IDEAL_ID
from model.catalog.parts import LLM, Catalog
from model.readouts.format import si, sig3
from model.readouts.kind_words import kinds_sentence


def hardware_summary(hw) -> str:
    """One line about a GPU for its menu entry (catalogue numbers, formatted once)."""
    return (f"{hw.name}: {len(hw.dtypes)} tensor paths, HBM {si(hw.hbm_capacity_bytes, 'B')} at "
            f"{si(hw.hbm_bandwidth_bytes_per_s, 'B/s')}, {hw.tdp_w:.0f} W, ${hw.usd_per_hour:.2f}/h")


def model_summary(m) -> str:
    """One line about a model for its menu entry."""
    return f"{m.name}: {sig3(m.params.total / 1e9)} B parameters, {m.layers} layers, {m.heads} heads"


def engine_choices() -> list[tuple[str, str, str]]:
    """(id, label, tooltip) for an engine picker: auto, each engine (then its older versions), ideal."""
    table = default_efficiency()
    rules = "; ".join(f"{r.contains or 'otherwise'} → {r.engine}" for r in table.auto_rules)
    out = [(AUTO, "auto (most used on this GPU)", f"The engine most people run on the chosen hardware: {rules}")]
    for e in table.engines:
        why = dict(e.why)
        launch = why.get("layer_overhead_us" if e.cuda_graphs else "host_layer_us")
        prompts = why.get("prefill_graphs") if e.cuda_graphs and not e.prefill_graphs else None
        tip = f"{e.name}: " + " ".join(f"{v[0].upper()}{v[1:]}." for v in (launch, prompts, why.get("hbm_fraction")) if v)
        if e.newest:
            tip += f" Factors of its newest releases: {e.newest}."
        out.append((e.id, e.name, tip))
        for v in e.versions:
            out.append((f"{e.id}@{v.id}", v.label, f"{v.label}: {v.why[0].upper()}{v.why[1:]}."))
    out.append((IDEAL_ID, "ideal (roofline floor)", "100% of peak bandwidth and FLOP/s, no overhead: the floor"))
    return out


def model_import_rows(llm: LLM) -> list[tuple[str, str]]:
    """What the import shows, so a user can check it against the model card."""
    p = llm.params
    rows = [("Id", llm.id),
            ("Parameters (derived)", f"{sig3(p.total / 1e9)} billion ({p.total:,.0f})"),
            ("Layers · hidden · FFN", f"{llm.layers} · {llm.hidden:,} · {llm.ffn:,}"),
            ("Attention heads (KV) × dim", f"{llm.heads} ({llm.kv_heads}) × {llm.head_dim}"),
            ("Vocabulary", f"{llm.vocab:,}" + (" (tied embeddings)" if p.tied_embeddings else ""))]
    if llm.is_moe:
        rows.append(("Experts", f"{p.experts} routed, {p.experts_per_token} per token, in {p.moe_layers} layers"))
        rows.append(("Active per token", f"{sig3(p.active_per_token / 1e9)} billion parameters"))
    if llm.shape.kinds:
        rows.append(("Layer kinds", kinds_sentence(llm)))
    elif llm.shape.kv_values_per_token < 2 * llm.layers * llm.kv_heads * llm.head_dim:
        rows.append(("Attention", f"multi-head latent (MLA): {llm.shape.kv_values_per_token / llm.layers:,.0f} "
                                  "values cached per token per layer"))
    if llm.shape.sliding_window:
        rows.append(("Sliding window", f"{llm.shape.sliding_window:,} tokens"))
    if llm.notes:
        rows.append(("Notes", llm.notes))
    return rows


def scenario_words(s, catalog: Catalog) -> str:
    """A scenario in a few words: 'Llama 3.1 8B in BF16 on one H100 SXM, batch 1'."""
    gpus = "one" if s.gpus == 1 else f"{s.gpus}×"
    return (f"{catalog.model(s.model).name} in {catalog.precision(s.precision).name} on {gpus} "
            f"{catalog.gpu(s.gpu).short_name}, batch {s.batch:,}")
