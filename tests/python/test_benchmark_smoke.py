"""The Python benchmark runs on a small corpus and its two sides agree (it asserts
that the C and pure-Python frontiers find the same lanes, labels and medians).
Nothing about speed is checked here: speed lives in benchmarks/."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_bench_frontier_runs_and_both_sides_agree(tmp_path):
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "python" / "bench_frontier.py"),
         "--count", "360", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "load_dir + frontier on 360 receipt files, 36 lanes" in out.stdout
    assert "| total, 1 thread |" in out.stdout and "CPU-time ratio" in out.stdout
