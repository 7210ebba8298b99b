"""Real benchmark runs for the tests: the pytest-benchmark plugin on a small
benchmark file, and a Google Benchmark program built here against Debian's
libbenchmark-dev (tests/import/gbench_sort.cc). A slowed run does more work
(an environment variable or a -D define), never edited numbers."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
GBENCH_SOURCE = REPO / "tests" / "import" / "gbench_sort.cc"


def run_pytest_benchmark(tmp: pathlib.Path, name: str, bench_source: str, env: dict[str, str],
                         min_rounds: int = 15, timer: str | None = None) -> pathlib.Path:
    """Runs the real pytest-benchmark plugin on `bench_source`; returns its JSON.
    `timer` (e.g. "time.process_time") is its --benchmark-timer: the wall clock by default."""
    bench = tmp / "bench_cases.py"
    bench.write_text(bench_source)
    out = tmp / f"{name}.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(bench),
         f"--benchmark-json={out}", f"--benchmark-min-rounds={min_rounds}", "--benchmark-max-time=0.2",
         "--benchmark-disable-gc", *([f"--benchmark-timer={timer}"] if timer else [])],
        cwd=tmp, env=dict(os.environ, **env), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def run_google_benchmark(tmp: pathlib.Path, name: str, defines: dict[str, int], repetitions: int = 7,
                         extra_args: tuple[str, ...] = ("--benchmark_enable_random_interleaving=true",)
                         ) -> pathlib.Path:
    """Builds gbench_sort.cc with `defines` (once per set of defines), runs it; returns its JSON.
    By default the repetitions of all benchmarks interleave in random order, as
    docs/import.md recommends: a burst of load from another job then touches a
    few repetitions of several benchmarks, which each one's median rides out,
    instead of every repetition of one (benchmarks/stats/real_unchanged.py)."""
    cxx = shutil.which("c++") or shutil.which("g++")
    assert cxx, "a C++ compiler is needed to build the Google Benchmark program"
    tag = "_".join(f"{k}{v}" for k, v in sorted(defines.items())) or "plain"
    exe = tmp / f"gbench_{tag}"
    if not exe.exists():
        subprocess.run([cxx, "-O2", *(f"-D{k}={v}" for k, v in defines.items()), "-o", str(exe),
                        str(GBENCH_SOURCE), "-lbenchmark", "-lpthread"], check=True)
    out = tmp / f"{name}.json"
    subprocess.run([str(exe), f"--benchmark_repetitions={repetitions}", "--benchmark_min_time=0.02",
                    f"--benchmark_out={out}", "--benchmark_out_format=json", *extra_args],
                   check=True, capture_output=True, timeout=300)
    return out
