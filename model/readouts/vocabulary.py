"""One vocabulary per part: what its matrix units and its main memory are called.

    matrix units   NVIDIA: tensor cores · AMD: matrix cores · Apple: the GPU's matrix units ·
                   Intel Gaudi: matrix engines · Google TPU: matrix units (MXU) · a CPU: CPU cores
    main memory    HBM (any HBM generation) · GDDR6/6X/7 as the part has · unified memory
                   (LPDDR5, shared with the CPU) · RAM (a measured machine's system memory)

Every label, sentence and caption that names a part's units or memory takes its words from here,
so an Apple chip is never said to have tensor cores, nor a CPU HBM.
"""
from __future__ import annotations


def is_cpu(hw) -> bool:
    """A machine measured on its CPU (``main.py calibrate`` with numpy): cores, no tensor units."""
    return (hw.tensor_cores == 0 and hw.unit_name.lower() in ("core", "cores", "cpu core")) or \
        "ram" in hw.hbm_kind.lower().split()


def matrix_units(hw) -> str:
    """What does the part's matrix maths, in the plural: 'tensor cores', 'matrix cores' …"""
    vendor = hw.vendor.lower()
    if is_cpu(hw):
        return "CPU cores"
    if vendor.startswith("amd"):
        return "matrix cores"
    if vendor.startswith("apple"):
        return "the GPU's matrix units"
    if vendor.startswith("intel"):
        return "matrix engines"
    if vendor.startswith("google"):
        return "matrix units (MXU)"
    return "tensor cores"


def matrix_unit_adjective(hw) -> str:
    """The same before a noun: 'tensor-core peak', 'matrix-core peak', 'CPU peak' …"""
    units = matrix_units(hw)
    return {"tensor cores": "tensor-core", "matrix cores": "matrix-core", "CPU cores": "CPU",
            "matrix engines": "matrix-engine", "matrix units (MXU)": "MXU"}.get(units, "matrix-unit")


def matrix_units_short(hw) -> str:
    """A short name for narrow places (the chip's ladder): 'Tensor cores', 'Matrix units' …"""
    return {"the GPU's matrix units": "Matrix units", "matrix units (MXU)": "MXU"}.get(matrix_units(hw),
                                                                                      capitalised(matrix_units(hw)))


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def memory_word(hw) -> str:
    """The part's main memory in one word or two: 'HBM', 'GDDR6X', 'unified memory', 'RAM'."""
    kind = hw.hbm_kind.strip()
    low = kind.lower()
    if "unified" in low and "ram" not in low.split():
        return "unified memory"
    if is_cpu(hw) or low.startswith("ram") or "system" in low:
        return "RAM"
    if low.startswith("hbm"):
        return "HBM"
    if low.startswith(("gddr", "lpddr", "ddr")):
        return kind.split()[0]
    return kind or "memory"
