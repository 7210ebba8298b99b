#!/usr/bin/env python3
"""bench_import_dir.py — `mcpp-receipts import google-benchmark FILE --out DIR`
against a plain Python script that does the same kind of work (issue 50 item 1:
the goal is at most 1.5x).

The input is a Google Benchmark --benchmark_out file of N benchmarks x REPS
repetitions (benchmarks/scale/bench_scale.py's generator, the same rows Google
Benchmark writes). Each side is a whole command run from this script, so both
pay a process start:

  import     the CLI, one receipt file per benchmark, durable when it exits
             (every file and the directory synced; docs/import.md)
  baseline   python3 -c: json.load of the file, the rows grouped by run_name,
             one json.dump per benchmark into its own file; no fsync (what a
             competent user writes when asked for "a file per benchmark")
  baseline + os.sync()
             the same followed by one os.sync(), for reference: the cheapest
             way to make the baseline's files durable (it flushes every
             filesystem, not only its own files)

Every run writes into a fresh directory (the previous one removed first and
os.sync() called, so one run's dirty pages are not the next one's bill), the
sides alternated, best of ROUNDS each. It then counts the import's fsync-family
calls once with strace -f -c when strace is installed.

    python3 benchmarks/cli/bench_import_dir.py build/release/scripts/mcpp-receipts [--count 10000] [--reps 3] [--rounds 5]
        [--before OTHER/mcpp-receipts]
"""
from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "scale"))
from bench_scale import write_gbench  # noqa: E402  (the generator shared with the scaling benchmark)

BASELINE = r"""
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
with open(src) as f:
    doc = json.load(f)
runs = {}
for row in doc["benchmarks"]:
    runs.setdefault(row.get("run_name", row["name"]), []).append(row)
for name, rows in runs.items():
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
    with open(os.path.join(out, safe + ".json"), "w") as f:
        json.dump({"context": doc["context"], "name": name, "rows": rows}, f)
if len(sys.argv) > 3:
    os.sync()
"""


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the command's threads summed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def fresh(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
    os.sync()


def count_syncs(cli: str, src: str, out: str) -> str:
    if not shutil.which("strace"):
        return "strace not installed: fsync calls not counted"
    fresh(out)
    p = subprocess.run(["strace", "-f", "-c", "-e", "trace=fsync,fdatasync,syncfs,sync,sync_file_range",
                        cli, "import", "google-benchmark", src, "--out", out, "--quiet"],
                       capture_output=True, text=True, check=True)
    calls = {}
    for line in p.stderr.splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[-1] in ("fsync", "fdatasync", "syncfs", "sync", "sync_file_range"):
            calls[parts[-1]] = int(parts[3])
    return ", ".join(f"{k} {v}" for k, v in sorted(calls.items())) or "none"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cli", help="the mcpp-receipts binary")
    ap.add_argument("--count", type=int, default=10000, help="benchmarks in the file (10000)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per benchmark (3)")
    ap.add_argument("--rounds", type=int, default=5, help="runs of each side, alternated (5)")
    ap.add_argument("--before", help="another mcpp-receipts (the build before a change), alternated with the rest")
    ap.add_argument("--dir", help="where the files go (default: a temporary folder under build/)")
    args = ap.parse_args()
    base = args.dir or tempfile.mkdtemp(prefix="bench-import-dir-", dir=ROOT / "build")
    os.makedirs(base, exist_ok=True)
    src = os.path.join(base, "gbench.json")
    out = os.path.join(base, "out")
    try:
        write_gbench(src, args.count, args.reps, aggregates=False)
        sides = {
            "import": [args.cli, "import", "google-benchmark", src, "--out", out, "--quiet"],
            **({"import, the build before": [args.before, "import", "google-benchmark", src, "--out", out, "--quiet"]}
               if args.before else {}),
            "baseline": [sys.executable, "-c", BASELINE, src, out],
            "baseline + os.sync()": [sys.executable, "-c", BASELINE, src, out, "sync"],
        }
        walls: dict[str, list[float]] = {k: [] for k in sides}
        cpus: dict[str, list[float]] = {k: [] for k in sides}
        loads = []
        for _ in range(args.rounds):
            for name, cmd in sides.items():
                fresh(out)
                loads.append(os.getloadavg()[0])
                wall, cpu = timed(cmd)
                walls[name].append(wall)
                cpus[name].append(cpu)
        best = {k: min(v) for k, v in walls.items()}
        files = len(os.listdir(out))
        size = os.path.getsize(src) / 1e6
        print(f"machine: {os.cpu_count()} cores, load average (1 min) {min(loads):.2f}–{max(loads):.2f} "
              f"during the runs; filesystem of {base}")
        print(f"\n## CLI import into a directory, {args.count:,} benchmarks x {args.reps} repetitions "
              f"({size:.1f} MB, {files:,} files), wall clock, best of {args.rounds} alternated\n")
        print("| command | wall s, best | ratio to the baseline | every run, s | CPU s, best | target |")
        print("|---|---:|---:|---|---:|---|")
        for name in sides:
            target = "<= 1.5x" if name == "import" else ""
            runs = ", ".join(f"{t:.2f}" for t in walls[name])
            print(f"| {name} | {best[name]:.3f} | **{best[name] / best['baseline']:.2f}x** | {runs} | "
                  f"{min(cpus[name]):.3f} | {target} |")
        print(f"\nthe import's sync calls (strace -f -c): {count_syncs(args.cli, src, out)}")
    finally:
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
