"""Issue 12: what a measurement becomes (a hardware file; measured vs datasheet), for a GPU the
catalogue knows (as the PyTorch path reports it) and for a CPU it does not."""
import pytest

from model.catalog.active import shipped_catalog
from model.files.hardware_file import hardware_from_document
from model.machine.benchmark import DecodeShape, Measurements, best_time_s
from model.readouts.machine_report import comparison_rows, decode_rows, match_catalogue, measured_document, report_text


def _gpu_measurement():
    return Measurements(backend="torch-cuda", device="NVIDIA H200", units=132, unit_name="SM",
                        memory_capacity_bytes=141e9, memory_bandwidth_bytes_per_s=4.1e12, bandwidth_array_bytes=2**31,
                        flops={"bf16": 7.0e14, "fp8": 1.3e15}, flops_fast_path={"bf16": True, "fp8": True},
                        decode_shape=DecodeShape(8, 4096, 32, 8, 128, 14336), decode_dtype="bf16",
                        decode_bytes_per_weight=2.0, decode_s_by_batch={1: 1.0e-3, 64: 1.2e-3}, date="2026-11-30")


def test_devices_match_their_catalogue_entry():
    assert match_catalogue("NVIDIA H200").id == "h200-sxm-141gb"
    assert match_catalogue("NVIDIA H100 80GB HBM3").id.startswith("h100")
    assert match_catalogue("AMD Instinct MI300X").id == "mi300x-192gb"
    assert match_catalogue("Intel(R) Xeon(R) Processor") is None


def test_a_measured_gpu_starts_from_its_datasheet_and_replaces_what_was_measured():
    m = _gpu_measurement()
    doc = measured_document(m)
    hw = hardware_from_document(doc)
    h200 = shipped_catalog().gpu("h200")
    assert doc["based_on"] == "h200-sxm-141gb" and hw.name == "this machine (measured 2026-11-30)"
    assert hw.hbm_bandwidth_bytes_per_s == 4.1e12 and hw.hbm_capacity_bytes == h200.hbm_capacity_bytes
    assert hw.peak("bf16") == 7.0e14 and hw.peak("fp16") == h200.peak("fp16")      # unmeasured: datasheet kept
    assert "calibrate" in hw.source("compute") and "datasheet" in hw.source("compute")
    rows = {r[0]: r for r in comparison_rows(m)}
    assert rows["memory bandwidth"][2] == "4.80 TB/s" and rows["memory bandwidth"][3] == "85.4%"
    assert rows["matmul BF16"][3] == "70.7%"          # 700 of 989.4 TFLOP/s
    floor = m.decode_shape.params * 2 / 4.1e12
    assert m.decode_floor_s == pytest.approx(floor)
    assert [r[0] for r in decode_rows(m)] == ["1", "64"] and "measured/datasheet" in report_text(m)


def test_a_cpu_gets_assumed_links_labelled_as_assumptions():
    m = Measurements(backend="numpy", device="Some CPU (CPU)", units=8, memory_capacity_bytes=64e9,
                     memory_bandwidth_bytes_per_s=5e10, bandwidth_array_bytes=2**28, flops={"fp32": 1e11, "fp16": 1e9},
                     flops_fast_path={"fp32": True, "fp16": False}, date="2026-11-30")
    hw = hardware_from_document(measured_document(m))
    assert hw.dtypes == ("fp32",)                 # numpy's slow loops are reported, not written
    assert "unified" in hw.hbm_kind and hw.hbm_stacks is None and hw.units == 8
    assert "ASSUMPTION" in hw.network.source and hw.scale_up is None and hw.pcie is None
    assert all(r[2] == "—" for r in comparison_rows(m))


def test_best_time_takes_the_fastest_call():
    times = iter([5.0, 3.0, 1.0, 2.0])   # warm-up, then three timed calls
    clock = {"t": 0.0}

    def fn():
        clock["t"] += next(times, 0.0)
    import model.machine.benchmark as mb
    real = mb.time.perf_counter
    mb.time.perf_counter = lambda: clock["t"]
    try:
        assert best_time_s(fn, repeats=3, min_total_s=0) == 1.0
    finally:
        mb.time.perf_counter = real


@pytest.mark.parametrize("torch_module", [None, "no-gpu"])
def test_without_pytorch_or_a_gpu_the_cpu_is_measured_with_numpy(monkeypatch, torch_module):
    import sys
    import types
    from model.machine.measure import gpu_available, plan
    if torch_module == "no-gpu":
        torch_module = types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: False),
                                             backends=types.SimpleNamespace(mps=types.SimpleNamespace(
                                                 is_available=lambda: False)))
    monkeypatch.setitem(sys.modules, "torch", torch_module)     # None: "not installed"
    assert not gpu_available()
    assert [s.label for s in plan(quick=True)][1] == "Memory bandwidth (copying arrays)"
