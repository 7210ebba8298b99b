#!/usr/bin/env python3
"""bench_lane_keys.py — what a store written in another lane key format costs on open.

The same N receipts (bench_pg.py's: 16 lanes) in a SQLite file and in a
PostgreSQL database on a throwaway local cluster (tests/store/pg_cluster.py),
same run. For each backend, wall clock of the whole command:

  current    `store ls STORE --limit 1` on the store as written (this
             build's format: one read of store_meta on open), the baseline
  read-only  the same command once every row's lane columns are in an old
             text and no format is recorded: each read-only open derives the
             columns into a temporary table and view of its session
  rewrite    `store init STORE` on that forged store: the one read-write
             open that rewrites the columns in place and records the format
             (forged again before each repeat)

Prints a markdown table with each row's ratio to `current`; each figure is
the best of --repeat runs.

usage: bench_lane_keys.py [--cli PATH] [--count 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "store"))
from bench_pg import base_receipt, lines_for, timed  # noqa: E402
from pg_cluster import Cluster  # noqa: E402

OLD_COLUMNS = ("UPDATE receipts SET lane_key = 'old-format ' || lane_key, lane_label = 'old ' || lane_label,"
               " lane_short = 'lane-0ld'; DELETE FROM store_meta WHERE name = 'lane_key_format'")


def best(cmd: list[str], repeat: int, before=None) -> float:
    times = []
    for _ in range(repeat):
        if before:
            before()
        t, p = timed(cmd)
        if p.returncode != 0:
            sys.exit(f"bench_lane_keys: {' '.join(cmd[:3])}: {p.stderr.strip()[:300]}")
        times.append(t)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=str(ROOT / "build" / "release" / "scripts" / "mcpp-receipts"))
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    why = Cluster.missing()
    if why:
        print(f"bench_lane_keys: {why}")
        return 2
    base = base_receipt()
    receipts = lines_for(base, 1, a.count, 0)
    rows = {}
    with Cluster() as pg:
        database = pg.new_database()
        stores = {"SQLite": str(pathlib.Path(pg.dir) / "bench.db"), "PostgreSQL": pg.url(database)}
        forge = {
            "SQLite": lambda: subprocess.run(["sqlite3", stores["SQLite"], OLD_COLUMNS], check=True),
            "PostgreSQL": lambda: pg.psql(database, OLD_COLUMNS),
        }
        for name, store in stores.items():
            subprocess.run([a.cli, "store", "init", store], check=True, capture_output=True)
            subprocess.run([a.cli, "store", "add", store, "-"], input=receipts, text=True, check=True,
                           capture_output=True)
            ls = [a.cli, "store", "ls", store, "--limit", "1"]
            current = best(ls, a.repeat)
            forge[name]()
            read_only = best(ls, a.repeat)
            rewrite = best([a.cli, "store", "init", store], a.repeat, forge[name])
            after = best(ls, a.repeat)
            rows[name] = (current, read_only, rewrite, after)
    print(f"## {a.count:,} receipts: opening a store whose lane columns are in another key format\n")
    print("| backend | current s | read-only, old columns s | ratio | rewrite (read-write open) s | ratio |"
          " current after the rewrite s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (current, read_only, rewrite, after) in rows.items():
        print(f"| {name} | {current:.3f} | {read_only:.3f} | {read_only / current:.1f}x | {rewrite:.3f} |"
              f" {rewrite / current:.1f}x | {after:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
