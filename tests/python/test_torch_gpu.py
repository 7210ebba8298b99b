"""mcpp_receipts.torch on a CUDA device: the probes the CPU tests cannot reach
(device name and accelerator id, CUDA runtime and driver, the flash kernel,
bf16 GEMMs, synchronised step times, peak device memory, device busy time).
Skips, saying why, without PyTorch or without a CUDA device."""

from __future__ import annotations

import pathlib
import sys

import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (scripts/test-python.sh installs it from PyPI)")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device: the GPU probes of mcpp_receipts.torch are not exercised here",
                allow_module_level=True)

import mcpp_receipts as mr  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "torch"))
import tiny_transformer as tt  # noqa: E402


def test_a_cuda_run_records_the_device_flash_bf16_and_device_time():
    r = tt.train(tt.parse(["--device", "cuda", "--attention", "flash", "--autocast", "bf16",
                           "--d-model", "256", "--seq-len", "256", "--warmup", "3", "--measure", "10"]))
    hw = r.hardware.observed
    assert hw.source == "probed" and r.topology.substrate == "cuda"
    assert hw.accelerator == torch.cuda.get_device_name(0)
    assert hw.runtime == f"CUDA {torch.version.cuda}" and hw.memory_gib > 1
    assert r.extra["torch"]["hardware"]["accelerator_known"], hw.accelerator
    assert r.backend.attention.observed == "flash", r.extra["torch"]["profile"]["attention_ops"]
    assert r.backend.precision.observed == "bf16" and not r.backend.fallbacks
    assert 0 < r.metrics.peak_memory_gib < hw.memory_gib
    assert r.extra["torch"]["profile"]["busy_source"] == "device kernels"
    g = r.metrics.goodput
    assert 0 < g.kernel_busy_s <= g.allocated_s
    assert r.software.components["cudnn"]


def test_a_cuda_efficient_request_runs_efficient():
    r = tt.train(tt.parse(["--device", "cuda", "--attention", "efficient", "--warmup", "2",
                           "--measure", "4"]))
    assert r.backend.attention.observed == "efficient" and not r.backend.fallbacks
