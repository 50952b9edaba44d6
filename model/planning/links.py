"""What crosses the links when prefill and decode are apart (expert parallelism's all-to-alls and
data-parallel attention: model/serving/parallel.py).

Disaggregated serving moves each request's KV cache from the prefill pool to the decode pool:
    KV bytes per request = L × KV values per token × KV bytes (all layers), per GPU ÷ tp_kv
    transfer time = latency + bytes per GPU / link bytes/s per GPU      (one shard per GPU)
"""
from __future__ import annotations

from model.catalog.parts import Link
from model.physics.scenario import ResolvedScenario


def kv_bytes_per_request(rs: ResolvedScenario, prompt_len: float) -> float:
    """The KV cache of one prompt, per GPU of the prefill group (one shard of tp_kv)."""
    shp = rs.llm.shape
    ctx = min(prompt_len, shp.sliding_window) if shp.sliding_window else prompt_len
    return ctx * shp.kv_values_per_token * rs.kv.bytes_per_value / rs.tp_kv


def kv_transfer_s(rs: ResolvedScenario, prompt_len: float, link: Link | None) -> float:
    """Time to move one prompt's KV cache from a prefill GPU to a decode GPU over ``link``
    (None: a link that costs nothing)."""
    if link is None:
        return 0.0
    return link.latency_s + kv_bytes_per_request(rs, prompt_len) / link.bandwidth_bytes_per_s


def pool_link(prefill: ResolvedScenario, decode: ResolvedScenario) -> Link:
    """The link between the pools: the slower of the two parts' networks (separate nodes)."""
    a, b = prefill.hw.network, decode.hw.network
    return a if a.bandwidth_bytes_per_s <= b.bandwidth_bytes_per_s else b
