"""gate_timing.py — what the gate scale benchmarks share: the best of a few
timed calls, the sizes they run at, and the log-log slope of seconds over N
that says whether a path is linear or quadratic."""

from __future__ import annotations

import argparse
import math
import time
from typing import Callable


def best_of(runs: int, fn: Callable[[], object]) -> float:
    """The least wall-clock seconds of `runs` calls of fn (the machine is shared: the least is the call's own)."""
    best = math.inf
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def arguments(description: str) -> tuple[list[int], int]:
    """--sizes (comma-separated N) and --runs, with the benchmarks' defaults."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--sizes", default="250,500,1000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    return [int(s) for s in args.sizes.split(",")], args.runs


def print_slope(sizes: list[int], times: list[float], what: str) -> None:
    """The log-log slope of times over sizes, first to last (2.0: a verdict per candidate and baseline)."""
    if len(sizes) > 1:
        slope = math.log(times[-1] / times[0]) / math.log(sizes[-1] / sizes[0])
        print(f"\nlog-log slope of {what} over N: {slope:.2f} (2.0: a verdict per candidate and baseline)")
