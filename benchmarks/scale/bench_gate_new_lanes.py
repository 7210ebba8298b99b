#!/usr/bin/env python3
"""bench_gate_new_lanes.py — what a gate costs when its candidates are new lanes.

N candidates, each of a lane of its own, against N baselines of N other lanes
(a suite whose benchmarks were all renamed, or added): no candidate has a
comparable baseline, so each takes a verdict of every baseline (the counts by
verdict) and the rows of the first 256 (what kept them out). Beside it, in the
same run, the same N candidates against N baselines of their own lanes (the
baseline: every candidate compared). Before (2026-11-29), each candidate of a
new lane listed up to 1,000 baselines with their rows and the default policy's
digest was written out for every comparison: 1,000 new lanes 18 s, 526 MB,
a 210 MB report.

    .venv-py/bin/python benchmarks/scale/bench_gate_new_lanes.py [--sizes 250,500,1000]
"""

from __future__ import annotations

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests" / "python"))

import mcpp_receipts as mr  # noqa: E402
from conftest import variant  # noqa: E402  (the test suite's base receipt)
from gate_timing import arguments, best_of, print_slope  # noqa: E402


def receipts(n: int, prefix: str, seq_from: int) -> list[mr.Receipt]:
    """n receipts, each in the lane of sequence length seq_from + i."""
    return [mr.loads(json.dumps(variant({"workload.seq_len": seq_from + i}, id=f"{prefix}-{i}"))) for i in range(n)]


def main() -> int:
    sizes, runs = arguments(__doc__.splitlines()[0])
    print("| N | new lanes s | own lanes s (baseline) | ratio | report of new lanes, bytes a candidate |")
    print("|---|---|---|---|---|")
    times = []
    for n in sizes:
        cands = receipts(n, "cand", 1024)
        strangers = receipts(n, "other", 1024 + n)
        own = receipts(n, "base", 1024)
        report = mr.gate(strangers, cands)
        assert all(c["outcome"] == "undetermined" for c in report.candidates)
        t_new = best_of(runs, lambda: mr.gate(strangers, cands))
        t_own = best_of(runs, lambda: mr.gate(own, cands))
        times.append(t_new)
        size = len(report.to_json()) / n
        print(f"| {n} | {t_new:.3f} | {t_own:.3f} | {t_new / t_own:.2f}x | {size:,.0f} |")
    print_slope(sizes, times, "the new-lanes gate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
