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
    assert "| I/O floor: 2 parallel `cat`s of the same files |" in out.stdout


def test_bench_scale_runs_every_step_and_prints_the_slopes(tmp_path):
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "scale" / "bench_scale.py"),
         "--sizes", "50,200", "--check", "50x5", "--peer", "200x3", "--quick", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for step in ("import", "frontier", "gate"):
        assert f"| {step} | 200 |" in out.stdout and f"| {step} | " in out.stdout.split("log-log slope")[1]
    assert "lanes 200, listed_adjacent 800" in out.stdout  # 4 listed per lane, not 199
    assert "| wall | " in out.stdout and "json.load s (same file, same run)" in out.stdout
    # Google's compare.py on the same files (scripts/install-deps.sh and test-python.sh install it and scipy)
    assert "| `compare.py benchmarks BASE CAND` (the whole command; baseline) |" in out.stdout
    assert "failed 2 of 200, 2 made twice as slow" in out.stdout


def test_bench_to_pandas_runs_every_variant():
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "python" / "bench_to_pandas.py"), "--count", "72", "--repeat", "1"],
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "| to_pandas(columns=[]) |" in out.stdout and "72 x 4 |" in out.stdout
    assert "| to_pandas() (every column) |" in out.stdout and "columns=[] / one column:" in out.stdout
