#!/usr/bin/env python3
"""bench_distributed.py — the frontier of many receipts in JSONL shards:
one process (load every shard, mcpp_receipts.frontier) against
mcpp_receipts.dask.frontier on a dask.distributed.LocalCluster, measured in
the same run; plus the cost of one partition and of one merge, from which
the time on N machines is estimated.

    python benchmarks/distributed/bench_distributed.py                  # 10^6 receipts
    python benchmarks/distributed/bench_distributed.py --count 100000   # a quicker run
    python benchmarks/distributed/bench_distributed.py --scheduler tcp://host:8786

Needs the [dask] extra. The distributed result is checked to equal the
single-process frontier (same lanes, statuses, headlines, reasons).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import shutil
import tempfile
import time

import mcpp_receipts as mr
import mcpp_receipts.dask as md

LANE_FIELDS = ("workload.seq_len", "routing.top_k", "routing.num_experts", "workload.micro_batch")
LANE_VALUES = ((1024, 2048, 4096, 8192), (1, 2, 4, 6), (8, 16, 32, 64, 128), (1, 2))


def base_receipt() -> dict:
    """One valid receipt: the first example of the repository."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "examples", "receipts", "nam56r_padded.json")) as f:
        return json.load(f)


def lane_template(base: dict, lane: int) -> tuple[str, str, str]:
    """The JSON text of a receipt of `lane`, cut around its id and its number."""
    d = json.loads(json.dumps(base))
    for path, values in zip(LANE_FIELDS, LANE_VALUES):
        node = d
        *parents, leaf = path.split(".")
        for p in parents:
            node = node[p]
        node[leaf] = values[lane % len(values)]
        lane //= len(values)
    d["id"] = "@ID@"
    d["metrics"]["tokens_per_s"] = 987654321.5
    d.get("status", {}).update({"outcome": "ok", "stability": "stable"})
    text = json.dumps(d, separators=(",", ":"))
    head, rest = text.split('"@ID@"')
    mid, tail = rest.split("987654321.5")
    return head, mid, tail


def generate(folder: str, count: int, shards: int, lanes: int) -> float:
    """Writes `count` receipts over `lanes` lanes into `shards` JSONL files."""
    t0 = time.perf_counter()
    base = base_receipt()
    templates = [lane_template(base, k) for k in range(lanes)]
    # Within 0.5% of the example's stated rate: a receipt's tokens_per_s must
    # agree with its useful tokens per step over its median step time (1%).
    centre = base["metrics"]["tokens_per_s"]
    per = math.ceil(count / shards)
    for s in range(shards):
        lines = []
        for i in range(s * per, min(count, (s + 1) * per)):
            head, mid, tail = templates[(i * 7919) % lanes]
            value = centre * (1 + ((i * 37) % 4000 - 2000) / 400000)
            lines.append(f'{head}"run-{i}"{mid}{value:.1f}{tail}\n')
        with open(os.path.join(folder, f"shard-{s:05d}.jsonl"), "w") as f:
            f.writelines(lines)
    return time.perf_counter() - t0


def single_process(files: list[str]) -> tuple[mr.Frontier, float, float]:
    t0 = time.perf_counter()
    receipts = [r for f in files for r in md._load_file(f)]
    t1 = time.perf_counter()
    fr = mr.frontier(receipts)
    return fr, t1 - t0, time.perf_counter() - t1


def partition_costs(files: list[str], npartitions: int) -> tuple[float, float, float, int, int]:
    """Seconds to summarise one partition, to merge two and to label the
    merged lanes; bytes of one partition's result, and its receipts."""
    part = files[: max(1, len(files) // npartitions)]
    t0 = time.perf_counter()
    a = md._summarise(part, 0, None, None, "raise", None, None)
    t1 = time.perf_counter()
    b = md._summarise(files[len(part): 2 * len(part)] or part, 1, None, None, "raise", None, None)
    t2 = time.perf_counter()
    merged = md._combine([a, b])
    t3 = time.perf_counter()
    mr.Frontier.from_summaries(list(merged.summaries.values()))
    t4 = time.perf_counter()
    return t1 - t0, t3 - t2, t4 - t3, len(pickle.dumps(a)), a.loaded


def distributed_run(folder: str, workers: int, npartitions: int, scheduler: str | None,
                    want: mr.Frontier) -> tuple[float, float, bool]:
    """Seconds to start the cluster and to compute the frontier on it, and
    whether it equals the single-process frontier."""
    from dask.distributed import Client, LocalCluster

    t0 = time.perf_counter()
    cluster = None if scheduler else LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                  dashboard_address=None)
    client = Client(scheduler or cluster)
    t_start = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        got = md.frontier(folder, npartitions=npartitions)
        t_dist = time.perf_counter() - t0
    finally:
        client.close()
        if cluster:
            cluster.close()
    return t_start, t_dist, got.to_dict() == want.to_dict()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--shards", type=int, default=200)
    ap.add_argument("--lanes", type=int, default=160, help="at most 160 distinct lanes")
    ap.add_argument("--workers", default="2", help="LocalCluster worker processes; a list such as 2,4,8 "
                    "measures each size against the same baseline")
    ap.add_argument("--npartitions", type=int, default=None, help="default: 4 per worker")
    ap.add_argument("--scheduler", default=None, help="address of an existing Dask scheduler instead")
    ap.add_argument("--dir", default=None, help="keep the shards here (default: a temporary folder)")
    args = ap.parse_args()

    folder = args.dir or tempfile.mkdtemp(prefix="mcpp-dist-")
    os.makedirs(folder, exist_ok=True)
    try:
        t_gen = generate(folder, args.count, args.shards, args.lanes)
        files = md.receipt_files(folder)
        sizes = [int(w) for w in args.workers.split(",")]
        nparts = args.npartitions or 4 * sizes[0]
        want, t_load, t_frontier = single_process(files)
        t_part, t_merge, t_label, part_bytes, part_receipts = partition_costs(files, nparts)
        runs = [(w, *distributed_run(folder, w, args.npartitions or 4 * w, args.scheduler, want)) for w in sizes]
        same = all(r[3] for r in runs)

        t_single = t_load + t_frontier
        print(f"{args.count} receipts, {len(want.lanes)} lanes, {len(files)} JSONL shards "
              f"(generated in {t_gen:.1f} s); equal frontiers: {same}; {os.cpu_count()} CPUs")
        print(f"{'stage':<58} {'seconds':>9} {'speed-up':>9}")
        rows = [
            ("single process: load all shards", t_load, None),
            ("single process: frontier()", t_frontier, None),
            ("single process: total (baseline)", t_single, 1.0),
        ]
        for w, t_start, t_dist, _ in runs:
            rows.append((f"dask: cluster start ({w} worker processes)", t_start, None))
            rows.append((f"dask: mcpp_receipts.dask.frontier ({w} workers, {args.npartitions or 4 * w} "
                         "partitions)", t_dist, t_single / t_dist))
        rows += [
            (f"one partition ({part_receipts} receipts): load + summarise", t_part, None),
            ("one merge of two partition results", t_merge, None),
            ("client: Frontier.from_summaries of the merge", t_label, None),
        ]
        for name, secs, ratio in rows:
            print(f"{name:<58} {secs:9.3f} {'' if ratio is None else f'{ratio:8.2f}x':>9}")
        per_receipt = t_part / max(1, part_receipts)
        levels = max(1, math.ceil(math.log(max(2, nparts), 8)))
        c, t_dist = sizes[0], runs[0][2]
        compute = args.count * per_receipt / c + levels * t_merge + t_label
        overhead = max(0.0, t_dist - compute)
        print(f"per receipt on a worker: {per_receipt * 1e6:.1f} us; partition result: "
              f"{part_bytes / max(1, part_receipts):.0f} bytes per receipt; overhead beyond that "
              f"work in the {c}-worker run: {overhead:.2f} s")
        print(f"estimated time on N machines of c={c} worker processes (overhead kept constant):")
        print("  T(N) = count * per_receipt / (N * c) + merge levels * merge + labelling + overhead")
        for n in (1, 2, 4, 8, 16):
            est = args.count * per_receipt / (n * c) + levels * t_merge + t_label + overhead
            print(f"  N={n:<3}: {est:8.2f} s  ({t_single / est:5.1f}x the single process)")
        if not same:
            raise SystemExit("the distributed frontier differs from the single-process one")
    finally:
        if not args.dir:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
