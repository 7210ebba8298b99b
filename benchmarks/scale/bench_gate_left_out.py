#!/usr/bin/env python3
"""bench_gate_left_out.py — is a gate linear when many of its runs failed?

One lane: N candidate runs (no commit, so they pool as one group) against N
baselines their own tool marked failed (status.outcome "failed": left out and
named once, docs/gate.md "Failed runs") plus one ok baseline; beside it, in
the same run, the same gate with all N + 1 baselines ok (the baseline: every
baseline pooled). Each candidate still takes a verdict of every baseline of
its lane (they are counted by verdict), so both grow as N^2; the ratio says
what leaving runs out adds. Before (issue 46 follow-up): each candidate looked
each baseline up in its group of N runs and in the list of those left out,
N^3: 16.6 s at N = 1,000.

    .venv-py/bin/python benchmarks/scale/bench_gate_left_out.py [--sizes 250,500,1000]
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


def receipts(n: int, prefix: str, outcome: str, spread: int) -> list[mr.Receipt]:
    return [mr.loads(json.dumps(variant({"status.outcome": outcome, "metrics.tokens_per_s": 1000.0 + i % spread},
                                        id=f"{prefix}-{i}"))) for i in range(n)]


def main() -> int:
    sizes, runs = arguments(__doc__.splitlines()[0])
    print("| N | failed baselines s | ok baselines s (baseline) | ratio | left out named |")
    print("|---|---|---|---|---|")
    times = []
    for n in sizes:
        cands = receipts(n, "cand", "ok", 7)
        failed = receipts(n, "fail", "failed", 5) + receipts(1, "okb", "ok", 1)
        ok = receipts(n + 1, "base", "ok", 5)
        report = mr.gate(failed, cands)
        t_failed = best_of(runs, lambda: mr.gate(failed, cands))
        t_ok = best_of(runs, lambda: mr.gate(ok, cands))
        times.append(t_failed)
        print(f"| {n} | {t_failed:.3f} | {t_ok:.3f} | {t_failed / t_ok:.2f}x | {len(report.left_out)} |")
    print_slope(sizes, times, "the failed-baselines gate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
