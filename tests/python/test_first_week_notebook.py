"""A notebook user's first week (issue 49, item 9): the recorder's finish()
and write() are typed as returning a Receipt, floats in reprs and HTML are
rounded, and a profiled step on a machine without a GPU prints nothing of
the profiler's into the cell's output nor lists CUDA among the run's
software."""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys

import pytest

import mcpp_receipts as mr
from conftest import EXAMPLES, REPO

NUMBER = re.compile(r"(?<![\d:])\d+\.\d+")  # not the seconds of a timestamp


class _LongFloats:
    """Numbers written with more than 7 significant digits."""

    @staticmethod
    def findall(text: str) -> list[str]:
        return [m for m in NUMBER.findall(text) if len(m.replace(".", "").lstrip("0")) > 7]

    def search(self, text: str) -> bool:
        return bool(self.findall(text))


LONG_FLOAT = _LongFloats()


def test_recorder_finish_and_write_are_typed_as_receipts():
    pytest.importorskip("torch", reason="PyTorch is the [torch] extra (scripts/test-python.sh installs it)")
    from mcpp_receipts.torch import Recorder, from_measurement

    for fn in (Recorder.finish, Recorder.write, from_measurement):
        assert inspect.signature(fn).return_annotation == "Receipt", fn


def test_floats_in_reprs_and_html_are_rounded(tmp_path):
    # a real pytest-benchmark run: round times such as 1.3339500355868950e-05
    r = mr.import_results("pytest-benchmark", REPO / "tests/data/pytest-benchmark/base.json")[0]
    assert LONG_FLOAT.search(json.dumps(r.to_dict())), "the run has no long float to round"
    assert not LONG_FLOAT.search(r._repr_html_()), LONG_FLOAT.findall(r._repr_html_())[:5]
    runs = [mr.load(EXAMPLES / n) for n in ("nam56r_padded.json", "nam56r_padded_run2.json",
                                               "nam56r_padded_run3.json")]
    data = REPO / "tests/data/pytest-benchmark"
    imported = [*mr.import_results("pytest-benchmark", data / "base.json"),
                *mr.import_results("pytest-benchmark", data / "before_5.3.0.json")]
    headline = mr.frontier(imported).lanes[0].headline
    assert isinstance(headline.median, float) and LONG_FLOAT.search(str(headline.median))
    assert not LONG_FLOAT.search(repr(headline)) and repr(headline).startswith("Headline(metric='time_s'")
    store = mr.Store(tmp_path / "runs.db")
    store.add(runs)
    lane = store.history().lanes[0]
    assert not LONG_FLOAT.search(repr(lane.runs)), repr(lane.runs)


PROFILED_STEP = """
import sys, torch, mcpp_receipts as mr
model = torch.nn.Linear(8, 8)
rec = mr.torch.Recorder(lane={"name": "cpu"}, model=model, warmup=1, measure=2, profile=True)
x = torch.randn(4, 8)
while not rec.done:
    with rec.step(tokens=4):
        model(x).sum().backward()
print("RECEIPT", rec.write(sys.argv[1]).id)
"""


def test_a_profiled_step_on_a_cpu_prints_no_profiler_noise_and_lists_no_cuda(tmp_path):
    torch = pytest.importorskip("torch", reason="PyTorch is the [torch] extra (scripts/test-python.sh installs it)")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: the CPU-only output is not what this machine gives")
    out = tmp_path / "cpu.json"
    env = {k: v for k, v in __import__("os").environ.items() if k != "KINETO_LOG_LEVEL"}
    r = subprocess.run([sys.executable, "-c", PROFILED_STEP, str(out)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert "RECEIPT" in r.stdout
    for noise in ("gpuGetDeviceCount", "profiler_start", "profiler_stop"):
        assert noise not in r.stderr + r.stdout, r.stderr
    receipt = json.loads(out.read_text(encoding="utf-8"))
    components = receipt["software"]["components"]
    assert "python" in components and "cuda" not in components, components
