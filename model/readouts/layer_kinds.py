"""What each kind of layer holds and reads, as readouts, for a model that mixes layer kinds
(model/catalog/layers.py): the per-kind numbers its derivations ("Why this number?") add up.

    (the sentence of what each kind holds: model/readouts/kind_words.py)
    kind{i}.*        per kind i: layers, values cached per token (or the state per sequence), the
                     ways its cache splits, the tokens it holds at the end of the output, what it holds
    decode.kind{i}.* per kind i: tokens read per sequence at the mean context, bytes, FLOPs
    prefill.kind{i}.*  per kind i: bytes and FLOPs of the prefill (model/physics/mixers.py's sums)

A model with one kind of layer has no kinds: its numbers stay model/readouts/terms.py's as always.
"""
from __future__ import annotations

import numpy as np

from model.catalog.active import default_efficiency
from model.catalog.layers import LayerKind
from model.physics.mixers import decode_mix, keys_attended, prefill_mix, tokens_held
from model.physics.step import microbatch
from model.readouts.format import si
from model.readouts.kind_words import holds
from model.readouts.numbers import Readout, count_text, mean_context_tokens

def _ro(key: str, label: str, value, unit: str, text: str, help_: str) -> Readout:
    return Readout(key, label, value, unit, text, help_)


def _bytes(key: str, label: str, value: float, help_: str) -> Readout:
    return _ro(key, label, float(value), "B", si(float(value), "B"), help_)


def kind_readouts(e) -> list[Readout]:
    """The per-kind numbers of ``e`` (none for a model with one kind of layer)."""
    rs, s = e.resolved, e.scenario
    kinds = rs.llm.shape.kinds
    if not kinds:
        return []
    kvb, stb = rs.kv.bytes_per_value, rs.llm.shape.state_bytes_per_value
    full, mean = float(s.input_len + s.output_len), mean_context_tokens(s.input_len, s.output_len)
    out: list[Readout] = []
    for i, x in enumerate(kinds, 1):
        k, name = f"kind{i}", f"{x.label} ({x.layers} layers)"
        split = min(rs.tp, x.shards)
        out += [_ro(f"{k}.layers", f"{name}: layers", x.layers, "", f"{x.layers:,}",
                    f"{rs.llm.name}: {x.layers} of its layers are {x.label}"
                    + (f" over {count_text(x.window)} tokens" if x.window else "") + f" ({rs.llm.source})"),
                _ro(f"{k}.splits", f"{name}: ways its cache splits", split, "", f"{split}",
                    "Its heads shard over the tensor-parallel GPUs (a shared latent does not split)")]
        if x.kind == "linear":
            out.append(_ro(f"{k}.state_values", f"{name}: state values per sequence", x.state_values, "values",
                           si(x.state_values, ""), "The recurrent state (and the convolution's last inputs): the same "
                           "size at any context"))
            out.append(_ro(f"{k}.state_bytes_per_value", f"{name}: bytes per state value", stb, "B", f"{stb:g} B",
                           "The model's state type (its config's SSM dtype, else its own weights')"))
            held = x.state_values * stb / split / rs.pp
        else:
            values = x.kv_values_per_token + x.index_values_per_token
            tokens = float(tokens_held(x, full))
            out.append(_ro(f"{k}.values_per_token", f"{name}: cached values per token", values, "values",
                           si(values, ""), "K and V (or the latent" + (" and the indexer's key" if x.index_values_per_token
                                                                       else "") + ") of these layers"))
            out.append(_ro(f"{k}.held_tokens", f"{name}: tokens held", tokens, "tokens", count_text(tokens),
                           f"Input + output tokens, {holds(x, stb)}" if x.kind != "full" else "Input + output tokens"))
            held = tokens * values * kvb / split / rs.pp
        out.append(_bytes(f"{k}.held_bytes", f"{name}: held per sequence", held, "What one sequence keeps in these layers"))
        out += _decode_kind(e, i, x, mean) + _prefill_kind(e, i, x)
    return out


def _decode_kind(e, i: int, x: LayerKind, mean: float) -> list[Readout]:
    rs = e.resolved
    _, b = microbatch(rs, float(e.scenario.batch))
    kv, attn, _ = decode_mix((x,), b, np.asarray(mean), rs.kv.bytes_per_value, rs.llm.shape.state_bytes_per_value,
                             rs.tp, 0.0)
    k, name = f"decode.kind{i}", f"{x.label}"
    out = [_bytes(f"{k}.bytes", f"{name}: bytes per decode step", kv, _read_words(x)),
           _ro(f"{k}.flops", f"{name}: FLOPs per decode step", float(attn) / rs.tp, "FLOP", si(float(attn) / rs.tp, "FLOP"),
               "Its attention (or its state's update and readout) for every sequence of the micro-batch, ÷ tp")]
    if x.kind != "linear":
        keys = float(keys_attended(x, mean)) + 1.0
        out.append(_ro(f"{k}.keys", f"{name}: cached tokens a decode step reads", keys, "tokens", count_text(keys),
                       "At the mean context, + the new token's own entry" + (f" ({holds(x, 0.0)})" if x.window else "")))
    return out


def _read_words(x: LayerKind) -> str:
    if x.kind == "linear":
        return "Each sequence's state read and written back once per step, whatever the context"
    if x.index_values_per_token:
        return "The indexer reads every cached key; attention reads the latents of the keys it picks"
    return "Each sequence reads its own cached tokens of these layers"


def _prefill_kind(e, i: int, x: LayerKind) -> list[Readout]:
    rs, s = e.resolved, e.scenario
    _, b = microbatch(rs, float(s.batch))
    chunk = float(default_efficiency().prefill_chunk(rs.engine))
    kv, attn, _ = prefill_mix((x,), b, float(s.input_len), chunk, rs.kv.bytes_per_value,
                              rs.llm.shape.state_bytes_per_value, rs.tp, 0.0)
    k = f"prefill.kind{i}"
    return [_bytes(f"{k}.bytes", f"{x.label}: bytes of the prefill", kv,
                   "Its state written once per prompt (again at each chunk)" if x.kind == "linear" else
                   "Every prompt token's entry written (each chunk reading the ones before it, within the window)"),
            _ro(f"{k}.flops", f"{x.label}: FLOPs of the prefill", float(attn) / rs.tp, "FLOP", si(float(attn) / rs.tp, "FLOP"),
                "Σ over the prompt of the keys each token attends to × FLOPs per key" if x.kind != "linear" else
                "Prompt tokens × the state's FLOPs per token")]
