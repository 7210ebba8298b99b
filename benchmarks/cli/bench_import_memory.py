#!/usr/bin/env python3
"""bench_import_memory.py — peak memory of `mcpp-receipts import` per importer,
as a multiple of the input's size (issue 28: the goal is at most 4x).

Generates one input per importer of about SIZE_MB (pytest-benchmark JSON with
long round-time lists, indented as the plugin writes it and compact; Google
Benchmark JSON with many repetitions, 500 a benchmark and all of one
benchmark; an MLPerf Training log padded with
MLLOG events; go test -bench text and an MLPerf Inference detail log padded
with the lines those tools write between results), runs the importer on each
and reads its peak RSS. The ratio is (peak - baseline) / input size, the
baseline being the peak of `mcpp-receipts --help` measured the same way.

Measured how: Linux keeps a process's peak RSS across fork and exec, so a
child started from this interpreter (tens of MiB after generating the data)
would report this interpreter's size as its own peak: the figures of
2026-11-26 before this note did (MLPerf "4.5x" was 2.1x). Every command
runs under GNU time (`/usr/bin/time -f %M`, ~2 MiB: scripts/install-deps.sh
installs it), whose child starts from time's small size.

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


def pytest_benchmark(path: pathlib.Path, size: int, indent: int | None = 4) -> None:
    rounds = 200_000  # ~7 MB of round times per benchmark indented, ~4.3 MB compact; under the 1,000,000 limit
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
        total += len(json.dumps(benches[-1], indent=indent))
        i += 1
    doc = {"machine_info": {"node": "bench", "processor": "x86_64", "machine": "x86_64",
                            "python_implementation": "CPython", "python_version": "3.11.7",
                            "system": "Linux", "release": "6.1", "cpu": {"brand_raw": "bench cpu", "count": 2}},
           "commit_info": {"id": "9f3c2e1a" * 5, "time": "2026-11-20T10:00:00+00:00", "dirty": False,
                           "project": "bench", "branch": "main"},
           "benchmarks": benches, "datetime": "2026-11-20T10:00:00.000000+00:00", "version": "4.0.0"}
    path.write_text(json.dumps(doc, indent=indent))


def pytest_benchmark_compact(path: pathlib.Path, size: int) -> None:
    pytest_benchmark(path, size, indent=None)


def google_benchmark(path: pathlib.Path, size: int, repetitions: int = 500) -> None:
    rows, total, family = [], 0, 0
    while total < size:
        for rep in range(repetitions):
            row = {"name": f"BM_Sort/{family}", "family_index": family, "per_family_instance_index": 0,
                   "run_name": f"BM_Sort/{family}", "run_type": "iteration", "repetitions": repetitions,
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


def google_benchmark_one_run(path: pathlib.Path, size: int) -> None:
    """One benchmark repeated until the file is `size` (issue 48: a run's
    rows were held as trees, 6x its text)."""
    google_benchmark(path, size, repetitions=size // 330 + 1)


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


def go_bench(path: pathlib.Path, size: int) -> None:
    """tests/data/go/base.txt with b.Log lines between its results, as go test prints them."""
    lines = (ROOT / "tests/data/go/base.txt").read_text().splitlines(keepends=True)
    pad = "    sort_test.go:40: a line the benchmark logged, kept in the output: " + "x" * 60 + "\n"
    path.write_text("".join(lines[:5]) + pad * max(0, size // len(pad)) + "".join(lines[5:]))


def mlperf_inference(path: pathlib.Path, size: int) -> pathlib.Path:
    """One run of tests/data/mlperf-inference with loadgen messages before its result."""
    src = sorted((ROOT / "tests/data/mlperf-inference/base").rglob("mlperf_log_detail.txt"))[0]
    lines = src.read_text().splitlines(keepends=True)
    pad = (':::MLLOG {"key": "generic_message", "value": "' + "y" * 80 + '", "time_ms": 1.5, '
           '"namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, '
           '"is_warning": false, "file": "loadgen.cc", "line_no": 1, "pid": 1, "tid": 1}}\n')
    path.mkdir()
    path = path / "mlperf_log_detail.txt"
    path.write_text("".join(lines[:20]) + pad * max(0, size // len(pad)) + "".join(lines[20:]))
    return path


CASES = [("pytest-benchmark", "pytest-benchmark (indented)", "pytest.json", pytest_benchmark),
         ("pytest-benchmark", "pytest-benchmark (compact)", "pytest-compact.json", pytest_benchmark_compact),
         ("google-benchmark", "google-benchmark", "gbench.json", google_benchmark),
         ("google-benchmark", "google-benchmark (one run, many repetitions)", "gbench-one.json",
          google_benchmark_one_run),
         ("mlperf", "mlperf", "mlperf", mlperf),
         ("go-bench", "go-bench", "go.txt", go_bench),
         ("mlperf-inference", "mlperf-inference", "mlperf-inference", mlperf_inference)]

GNU_TIME = "/usr/bin/time"


def peak_rss(cmd: list[str]) -> tuple[int, int, str]:
    """(exit status, peak RSS in bytes, stderr) of cmd, run under GNU time."""
    p = subprocess.run([GNU_TIME, "-f", "@@peak %M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, errors="replace")
    err, _, peak = p.stderr.rpartition("@@peak ")
    return p.returncode, int(peak) * 1024, err


def make_inputs(folder: pathlib.Path, size: int) -> None:
    for _, _, name, make in CASES:
        made = make(folder / name, size)
        (folder / f"{name}.path").write_text(str(made or folder / name))


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--make":
        make_inputs(pathlib.Path(sys.argv[2]), int(sys.argv[3]))
        return 0
    if not os.access(GNU_TIME, os.X_OK):
        print(f"needs GNU time at {GNU_TIME} (apt package time; scripts/install-deps.sh installs it)")
        return 1
    cli = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/release/scripts/mcpp-receipts")
    size = int(float(sys.argv[2] if len(sys.argv) > 2 else 10) * 1e6)
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    _, base, _ = peak_rss([cli, "--help"])
    print(f"input about {size / 1e6:.0f} MB per importer; load average {load}; "
          f"baseline (mcpp-receipts --help): {base / 2**20:.1f} MiB")
    print(f"| importer | input MB | peak RSS MiB | (peak - baseline) / input |\n|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        subprocess.run([sys.executable, __file__, "--make", tmp, str(size)], check=True)
        for fmt, label, name, _ in CASES:
            path = pathlib.Path((t / f"{name}.path").read_text())
            n = path.stat().st_size
            out = t / f"out-{name}"
            rc, peak, err = peak_rss([cli, "import", fmt, str(path), "--out", str(out), "--quiet"])
            note = "" if rc == 0 else f" (exit {rc}: {err.strip()[:200]})"
            print(f"| {label} | {n / 1e6:.1f} | {peak / 2**20:.1f} | {(peak - base) / n:.2f}x{note} |", flush=True)
            shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
