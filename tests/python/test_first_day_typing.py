"""The typing stubs give an editor what the library returns (issue 29, item 10):
section fields are typed from the schema (`r.workload.seq_len` is
`int | None`, not Any) and the gate's candidates are typed dicts. Checked the
way an editor reads them, with mypy, and the generated part of the stubs is
checked against the schema so it never drifts."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from conftest import REPO

PROGRAM = '''
import mcpp_receipts as mr

r = mr.load("x.json")
reveal_type(r.workload.seq_len)
reveal_type(r.workload.data.path)
reveal_type(r.metrics.step_time_s.samples)
reveal_type(r.backend.moe.observed)
reveal_type(r.hardware.observed.accelerator)
g = mr.gate([r], [r])
c = g.candidates[0]
reveal_type(c["outcome"])
reveal_type(c["lane"]["display_label"])
m = c["metric"]
if m is not None:
    reveal_type(m["rel_delta"])
reveal_type(g.candidate("x")["metrics"][0]["result"])
reveal_type(mr.frontier([r]).lanes[0].headline)
seq: int = r.workload.seq_len  # an error: it may be None
'''


def test_the_generated_sections_match_the_schema():
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "gen_pyi_sections.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_mypy_sees_typed_sections_and_gate_results(tmp_path):
    api = pytest.importorskip("mypy.api", reason="mypy is a test dependency (scripts/test-python.sh installs it)")
    program = tmp_path / "editor.py"
    program.write_text(PROGRAM, encoding="utf-8")
    thresholds = gc.get_threshold()
    try:
        out, err, _ = api.run([str(program), "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                               "--python-version", "3.11"])
    finally:
        # mypy raises the collector's thresholds to (200000, 30, 30) for its own run and leaves them:
        # the tests after it would hold their cyclic garbage far longer than a user's process does
        gc.set_threshold(*thresholds)
    notes = [line.split(": note: Revealed type is ", 1)[1].strip('"') for line in out.splitlines()
             if "Revealed type is" in line]
    assert notes[:5] == ["int | None", "Literal['real'] | Literal['synthetic'] | None", "tuple[float, ...] | None",
                         "str | None", "str | None"], out
    assert notes[5] == "Literal['passed'] | Literal['failed'] | Literal['undetermined'] | Literal['inconclusive']", notes[5]
    assert notes[6] == "str" and notes[7] == "float", notes
    assert "GateMetricResult" in notes[8] and "Headline" in notes[9], notes
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "seq: int = r.workload.seq_len" in PROGRAM.splitlines()[
        int(errors[0].split(":")[1]) - 1], out + err
