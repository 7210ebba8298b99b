#!/usr/bin/env python3
"""bench_pg.py — the store in PostgreSQL against the SQLite file, same receipts, same run.

On a throwaway local cluster (tests/store/pg_cluster.py: Unix socket, default
settings, fsync on) and a SQLite file in the same temporary directory:

  writers   W processes each `store add STORE -` N receipts (JSON lines) at
            once; wall clock until the last returns, then the count (nothing
            lost: W x N) and `store check` of the PostgreSQL store
  history   `history --store STORE --lane SHORT --format json` of one lane of
            H runs (after the writers' receipts: the lane is found among them)
  gate      `gate --store STORE --baseline git_commit=A --candidate git_commit=B
            --history STORE`: the last two commits of that lane, its history

Prints a markdown table; each figure is the best of --repeat runs of the
read commands (the writes run once: a second add would be a no-op).

usage: bench_pg.py [--cli PATH] [--writers 8] [--per-writer 10000] [--lane-runs 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import json
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "store"))
from pg_cluster import Cluster  # noqa: E402


def base_receipt() -> dict:
    """The example receipt the PostgreSQL benchmarks vary, without its denominator
    (without it any tokens_per_s is consistent with the step times)."""
    base = json.loads((ROOT / "examples" / "receipts" / "nam52_dense.json").read_text(encoding="utf-8"))
    base["workload"].pop("useful_tokens_per_step", None)
    return base


def lines_for(base: dict, writer: int, n: int, lane_runs: int) -> str:
    """Writer w's receipts: 16 lanes (seq_len x batch); writer 0's first
    lane_runs receipts all in one lane, a commit every 10 runs."""
    out = []
    for i in range(n):
        r = copy.deepcopy(base)
        r["id"] = f"w{writer}-{i:06d}"
        t = writer * n + i
        r["created_at"] = f"2026-{1 + (t // 2419200) % 12:02d}-{1 + (t // 86400) % 28:02d}T{(t // 3600) % 24:02d}:{(t // 60) % 60:02d}:{t % 60:02d}Z"
        one_lane = writer == 0 and i < lane_runs
        r["source"]["git_commit"] = f"{(i // 10) if one_lane else (1000000 + t // 100):040x}"
        r["workload"]["seq_len"] = 777 if one_lane else 512 * (1 + i % 4)
        r["workload"]["global_batch"] = 256 if one_lane else 64 * (1 + (i // 4) % 4)
        r["metrics"]["tokens_per_s"] = 500000.0 + (i * 37) % 997
        out.append(json.dumps(r, separators=(",", ":")))
    return "\n".join(out) + "\n"


def timed(cmd: list[str], **kw) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return time.perf_counter() - t, p


def best(cmd: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t, p = timed(cmd)
        if p.returncode not in (0, 1, 2):
            sys.exit(f"bench_pg: {' '.join(cmd[:3])}: {p.stderr.strip()[:300]}")
        times.append(t)
    return min(times)


def writers(cli: str, store: str, batches: list[str]) -> float:
    t = time.perf_counter()
    procs = [subprocess.Popen([cli, "store", "add", store, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in batches]
    for p, text in zip(procs, batches):
        p.stdin.write(text)
        p.stdin.close()
    for p in procs:
        if p.wait() != 0:
            sys.exit(f"bench_pg: a writer failed: {p.stderr.read().strip()[:300]}")
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=str(ROOT / "build" / "release" / "scripts" / "mcpp-receipts"))
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--per-writer", type=int, default=10000)
    ap.add_argument("--lane-runs", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    why = Cluster.missing()
    if why:
        print(f"bench_pg: {why}")
        return 2
    base = base_receipt()
    batches = [lines_for(base, w, a.per_writer, min(a.lane_runs, a.per_writer)) for w in range(a.writers)]
    total = a.writers * a.per_writer
    with Cluster() as pg:
        stores = {"SQLite": str(pathlib.Path(pg.dir) / "bench.db"), "PostgreSQL": pg.new_store_url()}
        rows = {}
        for name, store in stores.items():
            subprocess.run([a.cli, "store", "init", store], check=True, capture_output=True)
            add_s = writers(a.cli, store, batches)
            count = subprocess.run([a.cli, "store", "check", store], capture_output=True, text=True)
            stored = int(count.stdout.strip().splitlines()[-1].split()[0]) if count.returncode == 0 else -1
            hist = json.loads(subprocess.run([a.cli, "history", "--store", store, "--format", "json"],
                                             capture_output=True, text=True, check=True).stdout)
            lane = max(hist["lanes"], key=lambda l: len(l["runs"]))
            commits = sorted({r["git_commit"] for r in lane["runs"]})
            history_s = best([a.cli, "history", "--store", store, "--lane", lane["short_key"], "--format", "json"], a.repeat)
            gate_s = best([a.cli, "gate", "--store", store, "--baseline", f"git_commit={commits[-2]}", "--candidate",
                           f"git_commit={commits[-1]}", "--history", store], a.repeat)
            rows[name] = (add_s, stored, len(lane["runs"]), history_s, gate_s)
    print(f"## {a.writers} concurrent writers x {a.per_writer:,} receipts, then one lane's history and a gate with history\n")
    print("| backend | concurrent add s | receipts/s | stored (want %d) | lane runs | history s | gate --history s |" % total)
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (add_s, stored, runs, hist_s, gate_s) in rows.items():
        print(f"| {name} | {add_s:.2f} | {total / add_s:,.0f} | {stored:,} | {runs:,} | {hist_s:.3f} | {gate_s:.3f} |")
    pg_row, lite = rows["PostgreSQL"], rows["SQLite"]
    print(f"\nPostgreSQL / SQLite: add {pg_row[0] / lite[0]:.2f}x, history {pg_row[3] / lite[3]:.2f}x, "
          f"gate {pg_row[4] / lite[4]:.2f}x")
    return 0 if all(r[1] == total for r in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
