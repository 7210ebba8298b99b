#!/usr/bin/env python3
"""bench_to_pandas.py — ReceiptSet.to_pandas with no field columns, one column
and every column, against one another in the same run (issue 29, item 7: a
notebook user found `to_pandas(columns=[])` 4x slower than one column).

    python benchmarks/python/bench_to_pandas.py               # 20,000 receipts
    python benchmarks/python/bench_to_pandas.py --count 2000  # a quick run

Every DataFrame starts with the row columns (id, filename, lane, lane_label),
which need the set's frontier; so the same run also times `mr.frontier` of the
set alone, the floor of any to_pandas. Each variant is the best of --repeat
runs, the variants alternated so that a change in the machine's load hits all
of them. Prints seconds and the ratios to one column (columns=[] should not be
slower than one column).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_frontier import BASE  # noqa: E402  (the same receipt shape as the frontier benchmark)

import mcpp_receipts as mr  # noqa: E402


def receipts(count: int) -> mr.ReceiptSet:
    """`count` receipts in memory over 36 lanes (moe backend x seq_len x top_k)."""
    base_text = json.dumps(BASE)
    out = []
    for i in range(count):
        d = json.loads(base_text)
        moe = ("padded", "jagged", "block_sparse")[i % 3]
        seq = (2048, 4096, 8192)[(i // 3) % 3]
        top_k = (2, 4, 6, 8)[(i // 9) % 4]
        d["id"] = f"pandas-{i:06d}"
        d["workload"]["seq_len"] = seq
        d["routing"]["top_k"] = top_k
        d["backend"]["moe"]["requested"] = d["backend"]["moe"]["observed"] = moe
        speed = 400000.0 * (4096 / seq) * (1.0 + 0.02 * top_k) * (1 + 0.001 * (i % 7))
        d["metrics"]["tokens_per_s"] = round(speed, 1)
        d["metrics"]["step_time_s"]["samples"] = [round(1032192 / speed * (1 + 0.001 * k), 5) for k in range(8)]
        out.append(mr.loads(json.dumps(d)))
    return mr.ReceiptSet(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rs = receipts(args.count)
    variants = {
        "frontier of the set (the floor)": lambda: mr.frontier(rs),
        "to_pandas(columns=[])": lambda: rs.to_pandas(columns=[]),
        "to_pandas(columns=['metrics.tokens_per_s'])": lambda: rs.to_pandas(columns=["metrics.tokens_per_s"]),
        "to_pandas() (every column)": lambda: rs.to_pandas(),
    }
    best = {name: float("inf") for name in variants}
    shapes = {}
    for _ in range(args.repeat):
        for name, fn in variants.items():  # alternated: each round runs every variant once
            result = None  # freed here, not inside the next variant's timing
            gc.collect()
            t0 = time.perf_counter()
            result = fn()
            best[name] = min(best[name], time.perf_counter() - t0)
            shapes[name] = getattr(result, "shape", None)
    load = os.getloadavg()
    print(f"to_pandas of {args.count} receipts in 36 lanes, wall clock, best of {args.repeat} "
          f"(load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
    print()
    one = best["to_pandas(columns=['metrics.tokens_per_s'])"]
    print("| variant | seconds | vs one column | DataFrame |")
    print("|---|---:|---:|---|")
    for name in variants:
        shape = f"{shapes[name][0]} x {shapes[name][1]}" if shapes[name] else "-"
        print(f"| {name} | {best[name]:.4f} | {best[name] / one:.2f}x | {shape} |")
    print()
    print(f"columns=[] / one column: {best['to_pandas(columns=[])'] / one:.2f}x "
          f"(issue 29 measured 4x before the fix)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
