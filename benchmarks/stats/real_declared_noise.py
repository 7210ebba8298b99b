#!/usr/bin/env python3
"""real_declared_noise.py — how the run-to-run noise default.lua declares for
pytest-benchmark and Google Benchmark results was chosen, on *this* machine.

Runs the pytest-benchmark file and the Google Benchmark program of
tests/python/test_gate_real_runs.py N times unchanged and M times with their
sort benchmarks doing 30% more work (real extra work), in a shuffled order so
that the machine's moods touch both alike. Prints each benchmark's run-to-run
standard deviation, then gates every run one against the unchanged run before
it (one run a side, as a CI job gates a merge) under the declared figures 3%
to 8%: unchanged merges failing, and slowed merges failing exactly the slowed
benchmarks.

    .venv-py/bin/python benchmarks/stats/real_declared_noise.py --unchanged 70 --slowed 40
"""

from __future__ import annotations

import argparse
import math
import pathlib
import random
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "python"))
import mcpp_receipts as mr  # noqa: E402
from real_runs import run_google_benchmark, run_pytest_benchmark  # noqa: E402
from test_gate_real_runs import BENCH_FILE, EXPECTED_SLOWED  # noqa: E402

FIGURES = (0.03, 0.04, 0.05, 0.06, 0.08)


def one_run(tmp: pathlib.Path, i: int, slow_percent: int) -> dict[str, list]:
    """One run of each suite, imported (Google Benchmark's deliberate /real_time benchmark left out)."""
    py = run_pytest_benchmark(tmp, f"py{i}", BENCH_FILE, {"MCPP_SLOW_PERCENT": str(slow_percent)}, min_rounds=25)
    gb = run_google_benchmark(tmp, f"gb{i}", {"MCPP_SLOW_PERCENT": slow_percent}, repetitions=5)
    return {"pytest-benchmark": list(mr.import_results("pytest-benchmark", py)),
            "google-benchmark": [r for r in mr.import_results("google-benchmark", gb)
                                 if not r["benchmark.name"].endswith("/real_time")]}


def policy_declaring(folder: pathlib.Path, figure: float) -> mr.Policy:
    """default.lua with `figure` for both suites."""
    path = folder / f"declared_{round(figure * 100)}.lua"
    suites = ", ".join(f'["{s}"] = {{ run_to_run = {figure} }}' for s in EXPECTED_SLOWED)
    path.write_text(f'return {{ include = {{ "default.lua" }}, name = "declared_{round(figure * 100)}",\n'
                    f'  noise = {{ suites = {{ {suites} }} }} }}\n')
    return mr.Policy.from_file(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--unchanged", type=int, default=70, help="unchanged runs of each suite (default 70)")
    ap.add_argument("--slowed", type=int, default=40, help="runs with 30%% more sort work (default 40)")
    ap.add_argument("--seed", type=int, default=5, help="the order of the runs (default 5)")
    args = ap.parse_args()
    plan = [0] * args.unchanged + [30] * args.slowed
    random.Random(args.seed).shuffle(plan)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = pathlib.Path(tmp_name)
        runs = []
        for i, slow in enumerate(plan):
            runs.append((slow, one_run(tmp, i, slow)))
            print(f"  run {i + 1}/{len(plan)} ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
        policies = {f: policy_declaring(tmp, f) for f in FIGURES}
        print(f"\nrun-to-run standard deviation of log time, {args.unchanged} unchanged runs\n")
        print("| suite | benchmark | sd | largest move from the run before |")
        print("|---|---|---|---|")
        for suite in EXPECTED_SLOWED:
            logs: dict[str, list[float]] = {}
            for slow, run in runs:
                for r in run[suite] if not slow else ():
                    logs.setdefault(r["benchmark.name"], []).append(math.log(r.metric(r.primary_metric)["value"]))
            for name, v in logs.items():
                moves = [abs(b - a) for a, b in zip(v, v[1:])]
                print(f"| {suite} | {name} | {100 * statistics.stdev(v):.1f}% | {100 * math.expm1(max(moves)):.1f}% |")
        print(f"\none run against the unchanged run before it: unchanged merges failing, slowed merges failing "
              f"exactly the slowed benchmarks\n")
        print("| suite | declared | unchanged failing | 30% slowdowns found exactly |")
        print("|---|---|---|---|")
        for suite, expected in EXPECTED_SLOWED.items():
            for figure, policy in policies.items():
                base, unchanged, false_pos, slowed, exact = None, 0, 0, 0, 0
                for slow, run in runs:
                    if base is not None:
                        report = mr.gate(base, run[suite], policy)
                        names = {r.id: r["benchmark.name"] for r in run[suite]}
                        failed = sorted(names[c["id"]] for c in report.candidates if c["outcome"] == "failed")
                        if slow:
                            slowed, exact = slowed + 1, exact + (failed == expected)
                        else:
                            unchanged, false_pos = unchanged + 1, false_pos + bool(failed)
                    if not slow:
                        base = run[suite]
                print(f"| {suite} | {100 * figure:.0f}% | {false_pos} of {unchanged} | {exact} of {slowed} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
