#!/usr/bin/env python3
"""bench_scale.py — are import, frontier and gate linear in their input?

Google Benchmark files of 10^3, 10^4 and 10^5 benchmarks (one lane each, all
differing in the benchmark name only: every lane is adjacent to every other,
the case that made the frontier quadratic) go through the Python notebook path:

    import    mr.import_results("google-benchmark", FILE)     N benchmarks
    frontier  mr.frontier(receipts)                            N lanes
    gate      mr.gate(baselines, candidates)                   N pairs (one per benchmark)

Each (step, size) runs in its own process, so its peak RSS is its own; it is
the peak resident size while the step ran (the kernel's high-water mark reset
just before it), above what the process held when the step began. The
frontier and gate steps include reading every lane (candidate) once, as a
user's loop does; what `to_json()` then takes (its text is ~3.2 KB a lane) is
measured after the step, from the resident size before it (notes: to_json_mib,
json_mb); process_kib_a_lane_without_json is the process's peak before it, a
lane, and process_kib_a_lane_with_write the peak once `write()` has put the
JSON in a file (streamed, never whole), a lane. The table ends with the log-log slope of time over size (1.0 is
linear; target <= 1.1).

Then the import check of issue 34: 1,000 benchmarks x 20 repetitions (with
Google Benchmark's four aggregate rows each), `mr.import_results` against
`json.load` of the same file in the same process, best of 3 each, alternated
(target <= 3x).

Then the gate against its peer (issue 34): 3,000 benchmarks x 3 repetitions,
every 100th benchmark of the candidate twice as slow (one run a side cannot establish 30% against the 5%
run-to-run noise default.lua declares for Google Benchmark results), `mr.gate` of the two imported files against Google's
`compare.py benchmarks BASE CAND` (Debian's libbenchmark-tools, run with this
interpreter's scipy), each as the whole command a user runs, best of 3,
alternated (target >= 50x), with the floor of a dict and one batched U test.

    .venv-py/bin/python benchmarks/scale/bench_scale.py
    .venv-py/bin/python benchmarks/scale/bench_scale.py --sizes 1000,10000 --quick

Wall clock on a shared VM: read the slope and the ratio, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

CONTEXT = {
    "date": "2026-11-20T10:00:00+00:00",
    "host_name": "bench-host",
    "executable": "./bench_suite",
    "num_cpus": 16,
    "mhz_per_cpu": 3000,
    "cpu_scaling_enabled": False,
    "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 2}],
    "load_avg": [0.5, 0.4, 0.3],
    "library_build_type": "release",
    "library_version": "v1.8.3",
}


def write_gbench(path: str, n: int, reps: int, aggregates: bool, slower: float = 1.0, seed: int = 1,
                 slow_every: int = 0) -> None:
    """A Google Benchmark --benchmark_out file: n benchmarks x reps repetitions
    (plus mean/median/stddev/cv rows when `aggregates`), streamed to disk;
    every `slow_every`-th benchmark twice as slow still."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write('{"context": ' + json.dumps(CONTEXT) + ', "benchmarks": [\n')
        first = True
        for i in range(n):
            name = f"BM_Kernel/{i}"
            base = (100.0 + i % 997) * slower * (2.0 if slow_every and i % slow_every == 0 else 1.0)
            times = []
            for r in range(reps):
                t = base * rng.gauss(1.0, 0.01)
                times.append(t)
                row = {"name": name, "family_index": 0, "per_family_instance_index": i, "run_name": name,
                       "run_type": "iteration", "repetitions": reps, "repetition_index": r, "threads": 1,
                       "iterations": 1000000, "real_time": t, "cpu_time": t * 0.999, "time_unit": "ns",
                       "items_per_second": 1e9 / t}
                f.write(("" if first else ",\n") + json.dumps(row))
                first = False
            if aggregates:
                mean = sum(times) / reps
                sd = math.sqrt(sum((t - mean) ** 2 for t in times) / max(reps - 1, 1))
                for agg, v in (("mean", mean), ("median", sorted(times)[reps // 2]), ("stddev", sd),
                               ("cv", sd / mean)):
                    row = {"name": f"{name}_{agg}", "family_index": 0, "per_family_instance_index": i,
                           "run_name": name, "run_type": "aggregate", "repetitions": reps, "threads": 1,
                           "aggregate_name": agg, "aggregate_unit": "percentage" if agg == "cv" else "time",
                           "iterations": reps, "real_time": v, "cpu_time": v, "time_unit": "ns"}
                    f.write(",\n" + json.dumps(row))
        f.write("\n]}\n")


# ---- one step in a child process ------------------------------------------------------


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    """Resets the kernel's peak-RSS mark (VmHWM) of this process (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def child(step: str, base: str, cand: str) -> None:
    import mcpp_receipts as mr

    receipts = mr.import_results("google-benchmark", base) if step != "import" else None
    candidates = mr.import_results("google-benchmark", cand) if step == "gate" else None
    start_kib = _status_kib("VmRSS")
    exact = _reset_peak()
    t0 = time.perf_counter()
    extra = {}
    if step == "import":
        out = mr.import_results("google-benchmark", base)
        extra["receipts"] = len(out)
    elif step == "frontier":
        out = mr.frontier(receipts)
        extra["lanes"] = len(out.lanes)
        extra["listed_adjacent"] = sum(len(lane.adjacent) for lane in out.lanes)
    else:
        out = mr.gate(receipts, candidates)
        extra["outcome"] = out.outcome
        extra["failed"] = sum(c["outcome"] == "failed" for c in out.candidates)
    seconds = time.perf_counter() - t0
    peak_kib = _status_kib("VmHWM")
    step_kib = max(peak_kib - start_kib, 0) if exact else None
    if step != "import" and exact:
        extra["kib_a_lane"] = step_kib / len(receipts)
        # the process's peak up to here (the import's earlier peak is lower): what a
        # run that reads the report without rendering all of it holds, a lane
        extra["process_kib_a_lane_without_json"] = peak_kib / len(receipts)
        # the report written to a file with write(), its JSON streamed: the
        # process's peak with the output made, a lane
        _reset_peak()
        with tempfile.TemporaryDirectory() as tmp:
            out.write(os.path.join(tmp, "report.json"))
        extra["process_kib_a_lane_with_write"] = max(peak_kib, _status_kib("VmHWM")) / len(receipts)
        before_kib = _status_kib("VmRSS")
        _reset_peak()
        extra["json_mb"] = len(out.to_json()) / 1e6
        extra["to_json_mib"] = (_status_kib("VmHWM") - before_kib) / 1024
        peak_kib = max(peak_kib, _status_kib("VmHWM"))
    print(json.dumps({"seconds": seconds, "peak_mib": peak_kib / 1024,
                      "step_mib": step_kib / 1024 if exact else None, **extra}))


# ---- the parent -------------------------------------------------------------------------


def run_child(step: str, base: str, cand: str, timeout: float) -> dict | None:
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", step, base, cand],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit(f"bench_scale: the {step} step failed (exit {p.returncode})")
    return json.loads(p.stdout.strip().splitlines()[-1])


def slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(seconds) over log(size)."""
    if len(points) < 2:
        return None
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(s, 1e-9)) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def import_check(folder: str, n: int, reps: int, rounds: int) -> None:
    import mcpp_receipts as mr

    path = os.path.join(folder, f"gbench_check_{n}x{reps}.json")
    write_gbench(path, n, reps, aggregates=True)
    size_mb = os.path.getsize(path) / 1e6
    best_json = best_import = cpu_json = cpu_import = float("inf")
    for _ in range(rounds):
        c0, t0 = time.process_time(), time.perf_counter()
        with open(path) as f:
            json.load(f)
        best_json, cpu_json = min(best_json, time.perf_counter() - t0), min(cpu_json, time.process_time() - c0)
        c0, t0 = time.process_time(), time.perf_counter()
        rs = mr.import_results("google-benchmark", path)
        best_import = min(best_import, time.perf_counter() - t0)
        cpu_import = min(cpu_import, time.process_time() - c0)
    assert len(rs) == n, f"expected {n} receipts, got {len(rs)}"
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"\n## Google Benchmark import, {n:,} benchmarks x {reps} repetitions + 4 aggregates "
          f"({size_mb:.1f} MB), best of {rounds}, load average {load}\n")
    print("| clock | mr.import_results s | json.load s (same file, same run) | ratio | target |")
    print("|---|---:|---:|---:|---|")
    print(f"| wall | {best_import:.3f} | {best_json:.3f} | **{best_import / best_json:.2f}x** | <= 3x |")
    print(f"| process CPU (the import's threads summed) | {cpu_import:.3f} | {cpu_json:.3f} | "
          f"{cpu_import / cpu_json:.2f}x | |")


COMPARE_PY = "/usr/share/benchmark/compare.py"  # Debian's libbenchmark-tools (scripts/install-deps.sh)

OURS = """
import sys, time, mcpp_receipts as mr
t0 = time.perf_counter()
base = mr.import_results("google-benchmark", sys.argv[1])
cand = mr.import_results("google-benchmark", sys.argv[2])
t1 = time.perf_counter()
report = mr.gate(base, cand)
t2 = time.perf_counter()
failed = sum(c["outcome"] == "failed" for c in report.candidates)
print(t1 - t0, t2 - t1, len(report.candidates), report.outcome, failed)
"""

FLOOR = """
import json, sys, time, numpy, scipy.stats
t0 = time.perf_counter()
rows = [{}, {}]
for side, path in enumerate(sys.argv[1:3]):
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") == "iteration":
            rows[side].setdefault(b["name"], []).append(b["cpu_time"])
names = sorted(rows[0].keys() & rows[1].keys())
p = scipy.stats.mannwhitneyu(numpy.array([rows[0][n] for n in names]), numpy.array([rows[1][n] for n in names]),
                             axis=1).pvalue
print(time.perf_counter() - t0, len(p))
"""


def timed(cmd: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"bench_scale: {' '.join(cmd[:3])} failed (exit {p.returncode}):\n{p.stderr[-2000:]}")
    return seconds, p.stdout


def peer_check(folder: str, n: int, reps: int, rounds: int) -> None:
    """The gate of n pairs against Google's compare.py on the same two files,
    each a whole command as a user runs it (interpreter start included), best
    of `rounds`, alternated; with the floor of a dict and one batched U test."""
    print(f"\n## gate of {n:,} pairs ({reps} repetitions each) vs Google Benchmark's compare.py, same files\n")
    try:
        import numpy  # noqa: F401
        import scipy.stats  # noqa: F401
    except ImportError:
        print("skipped: compare.py needs scipy and numpy (scripts/test-python.sh installs them into .venv-py)")
        return
    if not os.path.exists(COMPARE_PY):
        print(f"skipped: {COMPARE_PY} is missing (Debian's libbenchmark-tools; scripts/install-deps.sh installs it)")
        return
    base = os.path.join(folder, f"peer_{n}.json")
    cand = os.path.join(folder, f"peer_{n}_cand.json")
    write_gbench(base, n, reps, aggregates=True)
    write_gbench(cand, n, reps, aggregates=True, seed=2, slow_every=100)
    best = {"ours": float("inf"), "import": 0.0, "gate": float("inf"), "compare": float("inf"), "floor": float("inf")}
    for _ in range(rounds):
        seconds, out = timed([sys.executable, "-c", OURS, base, cand])
        imp, gate, entries, outcome, failed = out.split()
        assert int(entries) == n and outcome == "failed", f"expected {n} candidates failing, got {entries} {outcome}"
        best["failed"] = int(failed)
        if seconds < best["ours"]:
            best["ours"], best["import"] = seconds, float(imp)
        best["gate"] = min(best["gate"], float(gate))
        seconds, out = timed([sys.executable, COMPARE_PY, "benchmarks", base, cand])
        assert out.count("BM_Kernel/") >= n, "compare.py did not compare every benchmark"
        best["compare"] = min(best["compare"], seconds)
        best["floor"] = min(best["floor"], float(timed([sys.executable, "-c", FLOOR, base, cand])[1].split()[0]))
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    c = best["compare"]
    print(f"best of {rounds}, alternated; load average {load}\n")
    print("| what | s | compare.py / this | target |")
    print("|---|---:|---:|---|")
    print(f"| `compare.py benchmarks BASE CAND` (the whole command; baseline) | {c:.2f} | 1.0x | |")
    print(f"| `mr.gate(import BASE, import CAND)` (the whole command; failed {best['failed']} of {n}, "
          f"{n // 100} made twice as slow) | {best['ours']:.2f} | {c / best['ours']:.0f}x | |")
    print(f"| of which the two imports (their own target: <= 3x `json.load`, above) | {best['import']:.2f} | | |")
    g = c / best["gate"]
    print(f"| `mr.gate` of the imported receipts (comparability, lanes, statistics, report) | {best['gate']:.3f} | "
          f"**{g:.0f}x** | >= 50x: {'met' if g >= 50 else 'NOT met'} |")
    print(f"| floor: `json.load`, a dict, one batched `mannwhitneyu` (no comparability) | {best['floor']:.3f} | "
          f"{c / best['floor']:.0f}x | |")
    for p in (base, cand):
        os.remove(p)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(*sys.argv[2:5])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000", help="benchmark counts (default 1000,10000,100000)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per benchmark in the scaling files (3)")
    ap.add_argument("--steps", default="import,frontier,gate", help="which steps (default all three)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds one step may take (300)")
    ap.add_argument("--check", default="1000x20", help="the import check, N x REPS ('' to skip)")
    ap.add_argument("--peer", default="3000x3", help="the gate vs compare.py, N x REPS ('' to skip)")
    ap.add_argument("--quick", action="store_true", help="one round of the import and peer checks")
    ap.add_argument("--dir", help="where the generated files go (default: a temporary folder)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    steps = [s for s in args.steps.split(",") if s]
    folder = args.dir or tempfile.mkdtemp(prefix="mcpp-scale-")
    os.makedirs(folder, exist_ok=True)
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"machine: {os.cpu_count()} cores, load average {load}")
    print(f"\n## scaling (wall clock; each step in its own process; {args.reps} repetitions per benchmark)\n")
    print("| step | size | seconds | µs per item | peak RSS of the step MiB | process peak MiB | notes |")
    print("|---|---:|---:|---:|---:|---:|---|")
    curves: dict[str, list[tuple[int, float]]] = {s: [] for s in steps}
    try:
        for n in sizes:
            base = os.path.join(folder, f"gbench_{n}.json")
            cand = os.path.join(folder, f"gbench_{n}_cand.json")
            write_gbench(base, n, args.reps, aggregates=False)
            if "gate" in steps:
                write_gbench(cand, n, args.reps, aggregates=False, slower=1.002, seed=2)
            for step in steps:
                r = run_child(step, base, cand, args.timeout)
                if r is None:
                    print(f"| {step} | {n:,} | > {args.timeout:.0f} | | | | timed out |")
                    continue
                curves[step].append((n, r["seconds"]))
                notes = ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                                  for k, v in r.items() if k not in ("seconds", "peak_mib", "step_mib"))
                step_mib = "–" if r["step_mib"] is None else f"{r['step_mib']:.0f}"
                print(f"| {step} | {n:,} | {r['seconds']:.3f} | {r['seconds'] / n * 1e6:.1f} | {step_mib} | "
                      f"{r['peak_mib']:.0f} | {notes} |", flush=True)
            for p in (base, cand):
                if os.path.exists(p):
                    os.remove(p)
        print("\n| step | log-log slope of seconds over size | target |\n|---|---:|---|")
        for step, points in curves.items():
            s = slope(points)
            print(f"| {step} | {'–' if s is None else f'{s:.2f}'} | <= 1.1 |")
        if args.check:
            n, reps = (int(x) for x in args.check.split("x"))
            import_check(folder, n, reps, 1 if args.quick else 3)
        if args.peer:
            n, reps = (int(x) for x in args.peer.split("x"))
            peer_check(folder, n, reps, 1 if args.quick else 3)
    finally:
        if not args.dir:
            for name in os.listdir(folder):
                os.remove(os.path.join(folder, name))
            os.rmdir(folder)


if __name__ == "__main__":
    main()
