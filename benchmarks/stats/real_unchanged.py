#!/usr/bin/env python3
"""real_unchanged.py — how often the default gate fails an unchanged merge on
*this* machine, with real suites: the pytest-benchmark file and the Google
Benchmark program of tests/python/test_gate_real_runs.py, run N+1 times with
nothing changed. Each run is gated against the one before it (one run a side),
again with the ten runs before those as history (Store.query(...) in a team's
CI), and the newest three runs against the three before them: once imported
with one commit a side (`import --commit`), so that each side's runs pool (3+3,
as a team whose runs record their commit gets), and once as they come, each run
a candidate of its own against the same three baselines (3 x 3+1);
pytest-benchmark's own rule (--benchmark-compare-fail=median:5%: the stats.median
of any benchmark moved by more than 5%) runs on the same pairs.

    .venv-py/bin/python benchmarks/stats/real_unchanged.py --runs 40

Prints, per suite and rule, the share of unchanged merges that failed.
Google Benchmark runs twice per round: in its default order (all repetitions of
a benchmark back to back) and with --benchmark_enable_random_interleaving, which
spreads a burst of load from other jobs over all benchmarks instead of every
repetition of one (the order docs/import.md recommends).
"""

from __future__ import annotations

import argparse
import functools
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "python"))
import mcpp_receipts as mr  # noqa: E402
from real_runs import run_google_benchmark, run_pytest_benchmark  # noqa: E402
from test_gate_real_runs import BENCH_FILE  # noqa: E402

HISTORY = 10  # earlier runs handed to the gate as history (a store's newest N)
SIDE = 3  # runs a side in the several-runs rule: the newest 3 against the 3 before


@functools.lru_cache(maxsize=256)  # a run serves the ~15 merges whose window holds it: imported once each way
def imported(run: tuple[str, pathlib.Path], commit: str | None = None) -> tuple:
    """The receipts of one run of a suite (format, file), each naming `commit`
    when given (runs of one commit pool as one side); Google Benchmark's
    /real_time variant is left out (it measures wall time on purpose)."""
    fmt, path = run
    return tuple(r for r in mr.import_results(fmt, path, commit=commit)
                 if not r["benchmark.name"].endswith("/real_time"))


def headline(r) -> float:
    """The value of the receipt's primary metric (time_s or cpu_time_s: a run's median)."""
    return r.metric(r.primary_metric)["value"]


def median_rule_fails(base: list, cand: list, threshold: float = 0.05) -> bool:
    """pytest-benchmark's median:5% rule: any benchmark's median slower by more than 5%."""
    by_name = {r["benchmark.name"]: r for r in base}
    for r in cand:
        b = by_name.get(r["benchmark.name"])
        if b is not None and headline(r) > headline(b) * (1 + threshold):
            return True
    return False


def suites(tmp: pathlib.Path, i: int) -> dict[str, tuple[str, pathlib.Path]]:
    """One unchanged run of each suite: its format and output file."""
    gb = lambda name, *extra: ("google-benchmark", run_google_benchmark(
        tmp, f"{name}{i}", {}, repetitions=5, extra_args=extra))
    return {
        "pytest-benchmark": ("pytest-benchmark", run_pytest_benchmark(
            tmp, f"pytest{i}", BENCH_FILE, {"MCPP_SLOW_PERCENT": "0"}, min_rounds=25)),
        "google-benchmark": gb("gb"),
        "google-benchmark, interleaved": gb("gbi", "--benchmark_enable_random_interleaving=true"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=40, help="unchanged merges per suite (default 40)")
    args = ap.parse_args()
    fails: dict[tuple[str, str], int] = {}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = pathlib.Path(tmp_name)
        runs = [suites(tmp, i) for i in range(2 * SIDE - 1)]
        for i in range(1, args.runs + 1):
            runs.append(suites(tmp, len(runs)))
            for suite in runs[-1]:
                base, cand = imported(runs[-2][suite]), imported(runs[-1][suite])
                history = [r for earlier in runs[max(0, len(runs) - 2 - HISTORY):-2] for r in imported(earlier[suite])]
                side = lambda runs_, commit=None: [r for run in runs_ for r in imported(run[suite], commit)]
                rules = {
                    "default gate, 1+1 runs": mr.gate(base, cand).outcome == "failed",
                    f"default gate, 1+1 runs + history ({HISTORY})":
                        mr.gate(base, cand, history=history).outcome == "failed",
                    f"default gate, {SIDE}+{SIDE} runs (one commit a side)":
                        mr.gate(side(runs[-2 * SIDE:-SIDE], "b" * 40),
                                side(runs[-SIDE:], "c" * 40)).outcome == "failed",
                    f"default gate, {SIDE} x {SIDE}+1 runs (no commit)":
                        mr.gate(side(runs[-2 * SIDE:-SIDE]), side(runs[-SIDE:])).outcome == "failed",
                    "pytest-benchmark median:5%": median_rule_fails(base, cand),
                }
                for rule, failed in rules.items():
                    fails[suite, rule] = fails.get((suite, rule), 0) + failed
            print(f"  merge {i}/{args.runs} ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
    print(f"\nunchanged merges failing on this machine ({args.runs} merges per suite, one run a side)\n")
    print(f"| {'suite':<30} | {'rule':<44} | failing |")
    print(f"|{'-' * 32}|{'-' * 46}|---------|")
    for (suite, rule), n in fails.items():
        print(f"| {suite:<30} | {rule:<44} | {100 * n / args.runs:6.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
