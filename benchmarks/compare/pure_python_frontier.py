#!/usr/bin/env python3
"""pure_python_frontier.py — the frontier of bench_compare.c done the
straightforward way in pure Python (json + dicts), on the same receipts, as
the baseline the C engine is measured against.

It implements the same rules as the library's default policy: lane key from
the must-match fields, stable = at least 3 ok runs, no failed or partial run,
no fallback (backend.fallbacks or requested != observed), verification not
failed, relative spread (p90-p10)/median <= 0.05 of the runs' tokens_per_s
(one run: its per-step values), no run claiming unstable/blocked; headline
median with the binomial order-statistic interval; adjacency by keys that
differ in exactly one dimension (bucketed, not all pairs). It prints one JSON
line: lanes, stable, load_s (json parsing) and frontier_s (the work after
loading), with CPU time like the C benchmark.

usage: pure_python_frontier.py RECEIPTS.jsonl
"""
import json
import sys
import time

KEY_DIMS = [
    ("pattern", ["lane.pattern", "lane.depth"]),
    ("routing", ["routing.mode", "routing.score", "routing.num_experts", "routing.top_k",
                 "routing.shared_experts", "routing.capacity_factor", "routing.overflow"]),
    ("sequence", ["workload.seq_len"]),
    ("batch", ["workload.micro_batch", "workload.global_batch"]),
    ("compile", ["compile.posture", "compile.warmup"]),
    ("topology", ["topology.substrate", "topology.nodes", "topology.tp", "topology.pp", "topology.vpp",
                  "topology.ep", "topology.cp", "topology.dp", "topology.sp", "topology.fsdp"]),
    ("hardware", ["hardware.observed.accelerator", "hardware.observed.count"]),
    ("data", ["workload.data.path", "workload.data.dataset"]),
    ("backend", ["backend.attention.observed", "backend.moe.observed", "backend.mamba.observed",
                 "backend.recurrent.observed", "backend.gemm.observed", "backend.precision.observed"]),
]
FAMILIES = ["attention", "moe", "mamba", "recurrent", "gemm"]
MIN_RUNS, MAX_SPREAD, CONFIDENCE = 3, 0.05, 0.95


def get(r, path):
    for part in path.split("."):
        if not isinstance(r, dict) or part not in r:
            return None
        r = r[part]
    return r


def quantile(s, q):
    pos = q * (len(s) - 1)
    lo = int(pos)
    if lo >= len(s) - 1:
        return s[-1]
    return s[lo] + (pos - lo) * (s[lo + 1] - s[lo])


def median_interval(s):
    n = len(s)
    pk = 0.5 ** n
    cdf = pk
    cut = 0
    for k in range((n + 1) // 2 - 1):
        pk = pk * (n - k) / (k + 1)
        if 1 - 2 * (cdf + pk) < CONFIDENCE:
            break
        cdf += pk
        cut = k + 1
    return s[cut], s[n - 1 - cut]


def has_fallback(r):
    if get(r, "backend.fallbacks"):
        return True
    for fam in FAMILIES:
        req = get(r, "backend.%s.requested" % fam)
        if req is not None and req != get(r, "backend.%s.observed" % fam):
            return True
    hw = r.get("hardware", {})
    req, obs = hw.get("requested", {}), hw.get("observed", {})
    if "accelerator" in req and req["accelerator"] != obs.get("accelerator"):
        return True
    if "count" in req and req["count"] != obs.get("count"):
        return True
    return False


def frontier(receipts):
    lanes = {}
    for r in receipts:
        key = tuple(tuple(get(r, f) for f in fields) for _, fields in KEY_DIMS)
        lane = lanes.get(key)
        if lane is None:
            lane = lanes[key] = {"ids": set(), "ok": 0, "bad": 0, "fallback": False, "verif": False,
                                 "claims": 0, "values": [], "steps": []}
        rid = r.get("id")
        if rid in lane["ids"]:
            continue
        lane["ids"].add(rid)
        outcome = get(r, "status.outcome")
        lane["ok"] += outcome == "ok"
        lane["bad"] += outcome in ("failed", "partial")
        lane["fallback"] |= has_fallback(r)
        lane["verif"] |= get(r, "backend.verification.status") == "failed"
        lane["claims"] += get(r, "status.stability") in ("unstable", "blocked")
        tps = get(r, "metrics.tokens_per_s")
        if tps is not None:
            lane["values"].append(tps)
            samples = get(r, "metrics.step_time_s.samples") or []
            useful = get(r, "workload.useful_tokens_per_step")
            if len(lane["values"]) == 1 and samples and useful:
                lane["steps"] = [useful / t for t in samples if t > 0]
    stable = 0
    for key, lane in lanes.items():
        vals = lane["values"] if len(lane["values"]) >= 2 or not lane["steps"] else lane["steps"]
        reasons = []
        if lane["ok"] < MIN_RUNS:
            reasons.append("too few ok runs")
        if lane["bad"]:
            reasons.append("runs not ok")
        if lane["fallback"]:
            reasons.append("unresolved fallback")
        if lane["verif"]:
            reasons.append("verification failed")
        if vals:
            s = sorted(vals)
            med = quantile(s, 0.5)
            lane["headline"] = (med, median_interval(s), len(s))
            if len(s) >= 2 and med > 0 and (quantile(s, 0.9) - quantile(s, 0.1)) / med > MAX_SPREAD:
                reasons.append("noise over bound")
        else:
            reasons.append("no headline")
        if lane["claims"]:
            reasons.append("claims unstable")
        lane["reasons"] = reasons
        stable += not reasons
    # Adjacency: lanes whose keys agree everywhere but one dimension share a bucket.
    buckets = {}
    for key in lanes:
        for d in range(len(key)):
            buckets.setdefault((d, key[:d] + key[d + 1:]), []).append(key)
    adjacent = 0
    for group in buckets.values():
        adjacent += len(group) * (len(group) - 1)
    return len(lanes), stable, adjacent


def main():
    path = sys.argv[1]
    t0 = time.process_time()
    with open(path) as f:
        receipts = [json.loads(line) for line in f]
    t1 = time.process_time()
    n_lanes, stable, adjacent = frontier(receipts)
    t2 = time.process_time()
    print(json.dumps({"n": len(receipts), "lanes": n_lanes, "stable": stable, "adjacent_pairs": adjacent,
                      "load_s": round(t1 - t0, 4), "frontier_s": round(t2 - t1, 4)}))


if __name__ == "__main__":
    main()
