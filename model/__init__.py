"""Floor 7 — Memory Wall's cost model: pure Python + numpy, no Qt.

Everything the window shows is a function here that can be called headless:

    from model import estimate, Scenario
    e = estimate(Scenario(gpu="h100", model="llama-2-70b", precision="fp16"))
    e.decode_floor_ms_per_token   # ≈ 41 ms: 137 GB of weights / 3.35 TB/s

Units are in the names: ``_bytes``, ``_s``, ``_ms``, ``_flops``, ``_bytes_per_s``.
"""
from model.errors import ModelError, ScenarioError, UnknownIdError
from model.catalog.parts import Catalog, Hardware, LLM, Precision, KVPrecision
from model.files.assets import load_catalog
from model.physics.scenario import Scenario, ResolvedScenario, resolve
from model.physics.estimate import Estimate, estimate

__all__ = [
    "ModelError", "ScenarioError", "UnknownIdError",
    "Catalog", "Hardware", "LLM", "Precision", "KVPrecision", "load_catalog",
    "Scenario", "ResolvedScenario", "resolve",
    "Estimate", "estimate",
]
