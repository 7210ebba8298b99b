#!/usr/bin/env python3
"""bench_import_memory.py — peak memory of `mcpp-receipts import` per importer,
as a multiple of the input's size (issue 28: the goal is at most 4x).

Generates one input per importer of about SIZE_MB (pytest-benchmark JSON with
long round-time lists, Google Benchmark JSON with many repetitions, an MLPerf
Training log padded with MLLOG events), runs the importer on each as a child
process and reads the child's peak RSS (wait4). The baseline in the same run
is the peak RSS of `mcpp-receipts --help` (the process itself); the ratio is
(peak - baseline) / input size.

    python3 benchmarks/cli/bench_import_memory.py build/release/scripts/mcpp-receipts [SIZE_MB]
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def pytest_benchmark(path: pathlib.Path, size: int) -> None:
    rounds = 200_000  # ~2.4 MB of round times per benchmark, under the 1,000,000 limit
    benches = []
    total, i = 0, 0
    while total < size:
        data = [1.0e-4 + (k % 997) * 1.0e-8 for k in range(rounds)]
        benches.append({
            "group": None, "name": f"test_sort[{i}]", "fullname": f"tests/test_sort.py::test_sort[{i}]",
            "params": {"n": i}, "param": str(i),
            "stats": {"min": min(data), "max": max(data), "mean": sum(data) / rounds, "stddev": 1e-6,
                      "rounds": rounds, "median": sorted(data)[rounds // 2], "iqr": 1e-6, "q1": 1e-4,
                      "q3": 1e-4, "iqr_outliers": 0, "stddev_outliers": 0, "outliers": "0;0",
                      "ld15iqr": 1e-4, "hd15iqr": 1e-4, "ops": 1e4, "total": sum(data), "data": data,
                      "iterations": 1},
            "options": {"disable_gc": False, "timer": "perf_counter", "min_rounds": 5, "max_time": 1.0,
                        "min_time": 5e-06, "warmup": False},
        })
        total += rounds * 22
        i += 1
    doc = {"machine_info": {"node": "bench", "processor": "x86_64", "machine": "x86_64",
                            "python_implementation": "CPython", "python_version": "3.11.7",
                            "system": "Linux", "release": "6.1", "cpu": {"brand_raw": "bench cpu", "count": 2}},
           "commit_info": {"id": "9f3c2e1a" * 5, "time": "2026-11-20T10:00:00+00:00", "dirty": False,
                           "project": "bench", "branch": "main"},
           "benchmarks": benches, "datetime": "2026-11-20T10:00:00.000000+00:00", "version": "4.0.0"}
    path.write_text(json.dumps(doc))


def google_benchmark(path: pathlib.Path, size: int) -> None:
    rows, total, family = [], 0, 0
    while total < size:
        for rep in range(500):
            row = {"name": f"BM_Sort/{family}", "family_index": family, "per_family_instance_index": 0,
                   "run_name": f"BM_Sort/{family}", "run_type": "iteration", "repetitions": 500,
                   "repetition_index": rep, "threads": 1, "iterations": 1000,
                   "real_time": 1234.5 + rep * 0.01, "cpu_time": 1230.1 + rep * 0.01, "time_unit": "ns"}
            rows.append(row)
            total += 330
        family += 1
    doc = {"context": {"date": "2026-11-20T10:00:00+00:00", "host_name": "bench", "executable": "./bench",
                       "num_cpus": 2, "mhz_per_cpu": 2400, "cpu_scaling_enabled": False,
                       "caches": [], "load_avg": [0.5], "library_build_type": "release"},
           "benchmarks": rows}
    path.write_text(json.dumps(doc))


def mlperf(path: pathlib.Path, size: int) -> pathlib.Path:
    """A copy of one submitter's tree (its system descriptions) with one log
    padded to `size`; returns the log's path."""
    data = ROOT / "tests/data/mlperf-v3.1"
    log = sorted(data.rglob("result_0.txt"))[0]
    submitter = log.relative_to(data).parts[0]
    shutil.copytree(data / submitter, path / submitter)
    path = path / log.relative_to(data)
    lines = log.read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"key": "init_start"' in line) if any(
        '"key": "init_start"' in line for line in lines) else 3
    pad = (':::MLLOG {"namespace": "", "time_ms": 1696398514933, "event_type": "POINT_IN_TIME", '
           '"key": "tracked_stats", "value": {"throughput": 12345.6}, "metadata": {"file": "train.py", '
           '"lineno": 100, "step": 42}}\n')
    n = max(0, (size - sum(map(len, lines))) // len(pad))
    path.write_text("".join(lines[:cut]) + pad * n + "".join(lines[cut:]))
    return path


def peak_rss(cmd: list[str]) -> tuple[int, int]:
    """(exit status, peak RSS in bytes) of a child run to its end."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        print(f"  {cmd[1:3]} exited {proc.returncode}: {err.strip()[:300]}", file=sys.stderr)
    return proc.returncode, usage.ru_maxrss * 1024


def main() -> int:
    cli = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/release/scripts/mcpp-receipts")
    size = int(float(sys.argv[2] if len(sys.argv) > 2 else 10) * 1e6)
    _, base = peak_rss([cli, "--help"])
    print(f"input about {size / 1e6:.0f} MB per importer; baseline (mcpp-receipts --help): {base / 2**20:.1f} MiB")
    print(f"{'importer':18} {'input MB':>9} {'peak RSS MiB':>13} {'(peak-base)/input':>18}")
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        cases = [("pytest-benchmark", t / "pytest.json", pytest_benchmark),
                 ("google-benchmark", t / "gbench.json", google_benchmark),
                 ("mlperf", t / "mlperf", mlperf)]
        for fmt, path, make in cases:
            path = make(path, size) or path
            n = path.stat().st_size
            out = t / f"out-{fmt}"
            rc, peak = peak_rss([cli, "import", fmt, str(path), "--out", str(out), "--quiet"])
            note = "" if rc == 0 else f"  (exit {rc})"
            print(f"{fmt:18} {n / 1e6:9.1f} {peak / 2**20:13.1f} {(peak - base) / n:18.1f}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
