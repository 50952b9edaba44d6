"""The parts the model knows, as frozen values: memory levels, links, accelerators, models,
precisions, and the catalogue that resolves ids and aliases to them.

Every number is SI (bytes, bytes/s, FLOP/s, Hz, seconds): model/files/assets.py converts the
data files' readable units once, at load. Each value keeps the source string of its section so
a screen can say where a number came from. Nothing here reads a file.
"""
from __future__ import annotations

from dataclasses import field, replace
from typing import Any, Iterable

from model.catalog.architecture import ParamBreakdown, Shape
from model.errors import UnknownIdError
from model.values import frozen


@frozen
class MemoryLevel:
    """One level of the memory hierarchy, whole-chip totals."""

    key: str                            # registers | smem | l2 | hbm | host
    label: str
    capacity_bytes: float | None
    bandwidth_bytes_per_s: float | None
    latency_s: float | None
    derived: tuple[str, ...]            # which of the numbers are derived, not published/measured
    source: str
    notes: str = ""


@frozen
class Link:
    """A GPU-to-GPU (or GPU-to-host) link: bandwidth per direction per GPU, call latency."""

    kind: str                           # nvlink | infinity-fabric | ici | roce | pcie | network
    name: str
    bandwidth_bytes_per_s: float
    latency_s: float
    max_gpus: int
    source: str
    notes: str = ""


@frozen
class Hardware:
    """One accelerator from assets/hardware.json: memory levels, dense peak FLOP/s per data type,
    links (scale-up, PCIe, network), power and price, each number with its source."""

    id: str
    name: str
    short_name: str
    aliases: tuple[str, ...]
    vendor: str
    family: str
    year: int
    unit_name: str
    units: int
    tensor_cores: int
    clock_hz: float | None
    peak_flops: tuple[tuple[str, float], ...]   # (dtype, dense FLOP/s), tensor paths only
    hbm_kind: str
    hbm_stacks: int | None
    hbm_capacity_bytes: float
    hbm_bandwidth_bytes_per_s: float
    stream_bandwidth_bytes_per_s: float | None  # measured STREAM, if any
    levels: tuple[MemoryLevel, ...]             # registers → smem → l2 → hbm → host
    scale_up: Link | None
    pcie: Link | None                           # None: no PCIe path between chips (GB200, TPU)
    network: Link
    tdp_w: float
    usd_per_hour: float
    sources: tuple[tuple[str, str], ...] = field(compare=False)

    def peak(self, dtype: str) -> float | None:
        for key, value in self.peak_flops:
            if key == dtype:
                return value
        return None

    @property
    def dtypes(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.peak_flops)

    def level(self, key: str) -> MemoryLevel:
        for lvl in self.levels:
            if lvl.key == key:
                return lvl
        raise KeyError(key)

    def source(self, section: str) -> str:
        return dict(self.sources).get(section, "")


@frozen
class LLM:
    """One model's architecture (assets/models.json or a config.json): layers, widths, heads,
    vocabulary, and the parameter counts that follow from them."""

    id: str
    name: str
    aliases: tuple[str, ...]
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    params: ParamBreakdown
    shape: Shape
    published_params: float
    source: str
    notes: str

    @property
    def is_moe(self) -> bool:
        return self.params.experts > 0


@frozen
class Precision:
    """A weight/activation precision (assets/precisions.json): bits per weight and the data type
    the maths runs in, with fallbacks where a GPU lacks it."""

    id: str
    name: str
    weight_bits: float
    activation_bits: float
    compute: str
    fallbacks: tuple[str, ...]
    default_kv: str
    notes: str
    source: str
    # mixed formats (gpt-oss: MXFP4 experts, BF16 the rest): the routed experts' own bits per weight
    # (0: the same as every other weight's)
    expert_weight_bits: float = 0.0
    aliases: tuple[str, ...] = ()
    # the rows an expert's grouped GEMM computes in at least (its tokens padded up to a multiple):
    # 1 where the kernels take any count (Triton's fused MoE at small batches), 128 for DeepGEMM's
    # block-FP8 and Blackwell's FP4 grouped GEMMs (model/catalog/architecture.expert_rows)
    moe_tile_rows: int = 1
    # kernels launched per linear layer to quantise its input activations (block FP8: each 1 × 128
    # tile scaled in a kernel of its own before the GEMM), 0 where the GEMM takes them as they are
    activation_quant_kernels: int = 0

    @property
    def bytes_per_weight(self) -> float:
        return self.weight_bits / 8.0

    @property
    def mixed(self) -> bool:
        """Whether the routed experts are stored in a format of their own."""
        return bool(self.expert_weight_bits) and self.expert_weight_bits != self.weight_bits

    @property
    def expert_bytes_per_weight(self) -> float:
        return (self.expert_weight_bits or self.weight_bits) / 8.0

    @property
    def activation_bytes(self) -> float:
        # Activations crossing kernels and links are at least 8-bit; FP4 runs keep FP8 between kernels.
        return max(self.activation_bits, 8) / 8.0

    @property
    def comm_bytes(self) -> float:
        # Tensor-parallel all-reduces sum partial results in 16-bit (FP32 runs: 32-bit).
        return max(self.activation_bits, 16) / 8.0


@frozen
class KVPrecision:
    """A KV-cache precision: bits per cached value."""

    id: str
    name: str
    bits: float
    hidden: bool
    notes: str
    source: str

    @property
    def bytes_per_value(self) -> float:
        return self.bits / 8.0


@frozen
class Catalog:
    """The GPUs, models and precisions the app knows: the shipped ones plus the user's own."""

    gpus: tuple[Hardware, ...]
    models: tuple[LLM, ...]
    precisions: tuple[Precision, ...]
    kv_precisions: tuple[KVPrecision, ...]
    # user entries (hardware files, Hugging Face configs): (kind "hardware" | "model", id, JSON text)
    custom_documents: tuple[tuple[str, str, str], ...] = ()

    def with_hardware(self, hw: Hardware, document: str = "") -> "Catalog":
        """A new catalogue with ``hw`` added as a custom entry (replacing a custom one of the same id)."""
        gpus = tuple(g for g in self.gpus if g.id != hw.id) + (hw,)
        docs = self._docs_without(hw.id, "hardware") + (("hardware", hw.id, document),)
        return replace(self, gpus=gpus, custom_documents=docs)

    def with_model(self, llm: LLM, document: str = "") -> "Catalog":
        """A new catalogue with ``llm`` added as a custom entry (replacing a custom one of the same id)."""
        models = tuple(m for m in self.models if m.id != llm.id) + (llm,)
        docs = self._docs_without(llm.id, "model") + (("model", llm.id, document),)
        return replace(self, models=models, custom_documents=docs)

    # Hardware and models are two name spaces: ``kind`` ("hardware" | "model") picks one; None: either.
    def without_custom(self, ident: str, kind: str | None = None) -> "Catalog":
        """A new catalogue without the custom entry ``ident`` of ``kind`` (shipped entries stay)."""
        kinds = {k for k, i, _ in self.custom_documents if i == ident and kind in (None, k)}
        if not kinds:
            return self
        return replace(self, gpus=tuple(g for g in self.gpus if not ("hardware" in kinds and g.id == ident)),
                       models=tuple(m for m in self.models if not ("model" in kinds and m.id == ident)),
                       custom_documents=self._docs_without(ident, kind))

    def is_custom(self, ident: str, kind: str | None = None) -> bool:
        return any(i == ident and kind in (None, k) for k, i, _ in self.custom_documents)

    def custom_document(self, ident: str, kind: str | None = None) -> str:
        """The JSON text a custom entry was read from ("" if none)."""
        return next((doc for k, i, doc in self.custom_documents if i == ident and kind in (None, k)), "")

    def _docs_without(self, ident: str, kind: str | None = None) -> tuple[tuple[str, str, str], ...]:
        return tuple(d for d in self.custom_documents if not (d[1] == ident and kind in (None, d[0])))

    def gpu(self, key: str) -> Hardware:
        return _resolve(self.gpus, key, "GPU")

    def model(self, key: str) -> LLM:
        return _resolve(self.models, key, "model")

    def precision(self, key: str) -> Precision:
        return _resolve(self.precisions, key, "precision")

    def kv_precision(self, key: str) -> KVPrecision:
        return _resolve(self.kv_precisions, key, "KV-cache precision")


def _resolve(items: Iterable[Any], key: str, what: str) -> Any:
    wanted = str(key).strip().lower()
    names: list[str] = []
    for item in items:
        ids = (item.id, *getattr(item, "aliases", ()))
        if wanted in ids:
            return item
        names.extend(ids)
    import difflib        # only for a mistyped id: not on the start path
    close = difflib.get_close_matches(wanted, names, n=1, cutoff=0.5)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise UnknownIdError(f"unknown {what} '{key}'{hint} (list them with: main.py list)", what=what, key=str(key),
                         known=tuple(names))
