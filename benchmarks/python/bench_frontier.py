#!/usr/bin/env python3
"""bench_frontier.py — load_dir + frontier on many receipt files, mcpp_receipts
(C, GIL released) against equivalent pure-Python code (json module, dicts, the
same validation, lane and stability rules) measured in the same run.

    python benchmarks/python/bench_frontier.py              # 100,000 receipts
    python benchmarks/python/bench_frontier.py --count 2000 # a quick run

Prints a table of seconds per stage and the speed-up (target: >= 20x end to end).
The pure-Python side is checked to find the same lanes, stability labels and
headline medians as the C side, so the two do the same work.

Two more baselines from the same run (issue 34):
- the I/O floor: two `cat` processes in parallel reading the same files (half
  each) into /dev/null; `load_dir` + `frontier` should stay within 1.5x of it;
- the strongest plain Python a user would write: the same pure-Python work
  with orjson instead of json and the garbage collector off.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

import mcpp_receipts as mr

try:
    import orjson
except ImportError:  # scripts/test-python.sh installs it; without it the row says so
    orjson = None

BASE = {
    "schema": "mcpp.receipt/2",
    "id": "",
    "created_at": "2026-03-14T09:12:44Z",
    "source": {"tool": "bench", "git_commit": "9f3c2e1a", "host": "node-17"},
    "lane": {"name": "NAM56R hybrid MoE lane", "family": "NAM56R", "pattern": "AEMEAEMEAEMR",
             "depth": 52, "params_total": 56210000000, "params_active": 8930000000,
             "blocks": {"A": 13, "M": 13, "E": 22, "R": 4}},
    "workload": {"seq_len": 4096, "micro_batch": 2, "global_batch": 256,
                 "tokens_per_step": 1048576, "useful_tokens_per_step": 1032192,
                 "data": {"path": "real", "dataset": "fineweb-edu"}},
    "routing": {"mode": "token_choice", "score": "sigmoid", "num_experts": 64, "top_k": 6,
                "shared_experts": 2, "capacity_factor": 1.25, "overflow": "pad"},
    "compile": {"posture": "regional", "warmup": "explicit", "graph_breaks": 0, "compile_s": 84.6},
    "backend": {"precision": {"observed": "bf16"},
                "attention": {"requested": "flash_attn_3", "observed": "flash_attn_3"},
                "moe": {"requested": "padded", "observed": "padded"},
                "verification": {"status": "passed", "max_rel_err": 0.0031}},
    "hardware": {"requested": {"accelerator": "NVIDIA H100 80GB HBM3", "count": 8},
                 "observed": {"accelerator": "NVIDIA H100 80GB HBM3", "count": 8,
                              "driver": "550.54.15", "runtime": "CUDA 12.4"}},
    "topology": {"substrate": "cuda", "nodes": 1, "tp": 2, "pp": 1, "vpp": 1, "ep": 4, "cp": 1,
                 "dp": 4, "sp": True, "fsdp": False},
    "startup": {"state": "warm_cache"},
    "metrics": {"window": {"warmup_steps": 10, "measured_steps": 8},
                "step_time_s": {"samples": []}, "tokens_per_s": 0.0, "peak_memory_gib": 71.3},
    "status": {"outcome": "ok", "stability": "stable"},
}


# ---- the corpus --------------------------------------------------------------------


def generate(folder: str, count: int, seed: int = 7) -> None:
    """Writes `count` receipts over 36 lanes (moe backend x seq_len x top_k) into
    100 sub-folders; the jagged lanes carry a fallback and are unstable."""
    rng = random.Random(seed)
    lanes = list(itertools.product(["padded", "jagged", "block_sparse"], [2048, 4096, 8192],
                                   [2, 4, 6, 8]))
    for sub in range(100):
        os.makedirs(os.path.join(folder, f"{sub:02d}"), exist_ok=True)
    base_text = json.dumps(BASE)  # json.loads of it is a faster deep copy than copy.deepcopy
    for i in range(count):
        moe, seq, top_k = lanes[i % len(lanes)]
        d = json.loads(base_text)
        d["id"] = f"bench-{i:06d}"
        d["workload"]["seq_len"] = seq
        d["routing"]["top_k"] = top_k
        # each MoE lane is chosen, not a fallback: a run whose request was not
        # met is excluded from its lane's headline, which the pure-Python
        # baseline does not model
        d["backend"]["moe"]["requested"] = d["backend"]["moe"]["observed"] = moe
        if i % 10 == 3:  # a qualification inside the lane (a cold boot would be a lane of its own)
            d["compile"]["cache_state"] = "cold"
        speed = 400000.0 * (4096 / seq) * (1.0 + 0.02 * top_k) * rng.gauss(1.0, 0.01)
        step = 1032192 / speed
        d["metrics"]["tokens_per_s"] = round(speed, 1)
        d["metrics"]["step_time_s"]["samples"] = [round(step * rng.gauss(1.0, 0.005), 5)
                                                  for _ in range(8)]
        with open(os.path.join(folder, f"{i % 100:02d}", f"{d['id']}.json"), "w") as f:
            json.dump(d, f, indent=1)


# ---- pure Python: the same work with json + dicts -----------------------------------

FIELDS = mr.FIELDS  # path -> (type, enum names, doc), the same schema table
OBJECT_PATHS = {p for p, (t, _, _) in FIELDS.items() if t == "object"}
SECTIONS = {".".join(p.split(".")[:i]) for p in FIELDS for i in range(1, p.count(".") + 1)}


class PyValidationError(ValueError):
    pass


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def py_check(path: str, value) -> None:
    type_, enums, _ = FIELDS[path]
    ok = {
        "bool": lambda v: isinstance(v, bool),
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
        "float": _finite,
        "str": lambda v: isinstance(v, str),
        "enum": lambda v: isinstance(v, str) and v in enums,
        "list[str]": lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v),
        "list[float]": lambda v: isinstance(v, list) and all(_finite(s) for s in v),
        "object": lambda v: True,
    }[type_](value)
    if not ok:
        raise PyValidationError(f"{path}: expected {type_}")


def py_flatten(obj: dict, prefix: str, out: dict) -> None:
    for key, value in obj.items():
        path = f"{prefix}.{key}" if prefix else key
        if path in OBJECT_PATHS or path in FIELDS:
            py_check(path, value) if path in FIELDS else None
            out[path] = value
        elif path in SECTIONS and isinstance(value, dict):
            py_flatten(value, path, out)
        else:
            raise PyValidationError(f"{path}: unknown field")


def py_validate(d: dict) -> dict:
    """Type, enum, range and unknown-field checks plus the consistency rules;
    returns the flat {path: value} view (like the C receipt's typed fields)."""
    if not isinstance(d, dict) or d.get("schema") != "mcpp.receipt/2":
        raise PyValidationError("schema: must be mcpp.receipt/2")
    flat: dict = {}
    py_flatten(d, "", flat)
    if "E" in flat.get("lane.pattern", "") and "routing.mode" not in flat:
        raise PyValidationError("routing: required when the pattern has E")
    samples = flat.get("metrics.step_time_s.samples")
    if samples and "metrics.step_time_s.median" in flat:
        if abs(_median(sorted(samples)) - flat["metrics.step_time_s.median"]) > 1e-9:
            raise PyValidationError("metrics.step_time_s.median: disagrees with samples")
    for fam in ("attention", "moe", "mamba", "recurrent", "gemm"):
        if f"backend.{fam}.requested" in flat and f"backend.{fam}.observed" not in flat:
            raise PyValidationError(f"backend.{fam}.observed: missing")
    return flat


def receipt_paths(folder: str) -> list[str]:
    paths = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        paths.extend(os.path.join(root, f) for f in files
                     if not f.startswith(".") and f.endswith((".json", ".yaml", ".yml")))
    paths.sort()
    return paths


def py_load_dir(folder: str):
    receipts, errors = [], []
    for p in receipt_paths(folder):
        try:
            with open(p, encoding="utf-8") as f:
                receipts.append(py_validate(json.load(f)))
        except (OSError, ValueError) as e:
            errors.append((p, str(e)))
    return receipts, errors


def orjson_load_dir(folder: str):
    """py_load_dir with orjson (bytes in, no text decoding step)."""
    receipts, errors = [], []
    for p in receipt_paths(folder):
        try:
            with open(p, "rb") as f:
                receipts.append(py_validate(orjson.loads(f.read())))
        except (OSError, ValueError) as e:
            errors.append((p, str(e)))
    return receipts, errors


def orjson_gc_off(folder: str, policy):
    """load + frontier in plain Python at its best: orjson, the collector off."""
    gc.disable()
    try:
        rs, errors = orjson_load_dir(folder)
        return rs, errors, py_frontier(rs, policy)
    finally:
        gc.enable()


def cat_floor(folder: str) -> float:
    """Wall seconds of two `cat`s in parallel, each reading half of the
    receipt files into /dev/null: the floor for reading them at all."""
    paths = receipt_paths(folder)
    halves = [paths[: len(paths) // 2], paths[len(paths) // 2:]]
    t0 = time.perf_counter()
    procs = [subprocess.Popen(["xargs", "-0", "cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
             for _ in halves]
    for proc, half in zip(procs, halves):
        proc.stdin.write(b"\0".join(p.encode() for p in half))
        proc.stdin.close()
    for proc in procs:
        if proc.wait() != 0:
            raise SystemExit("bench_frontier: cat failed")
    return time.perf_counter() - t0


def _median(xs: list[float]) -> float:
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _quantile(xs: list[float], q: float) -> float:
    pos = q * (len(xs) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _canon(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, list):
        return ",".join(map(_canon, v))
    return str(v)


# Qualifying dimensions that still key lanes (MCPP_LANE_KEYING_QUALIFIERS in
# lib/src/policy/dimension_table.h): different starting lines are different benchmarks.
LANE_KEYING_QUALIFIERS = ("startup", "software", "window", "denominator")


def _key_text(r: dict, f: str) -> str:
    if f == "metrics.window.warmup_steps" and r.get(f) is not None:  # by none vs some, as the library keys it
        return "warmup" if r[f] > 0 else "no_warmup"
    return _canon(r.get(f))


def py_frontier(receipts: list[dict], policy: mr.Policy):
    dims = []
    for name, d in policy.dimensions.items():
        if d["role"] != "must_match" and not (d["role"] == "qualify" and name in LANE_KEYING_QUALIFIERS):
            continue
        fields = []
        for f in d["fields"]:
            fields += [p for p in FIELDS if p.startswith(f[:-1])] if f.endswith(".*") else [f]
        dims.append((name, fields))
    noise, gate = policy.noise, policy.gate
    metric = gate["metric"]
    if metric == "primary":  # the generated receipts are step-runner runs: tokens_per_s heads them
        metric = "metrics.tokens_per_s"

    lanes: dict[tuple, dict] = {}
    for r in receipts:
        key = tuple("|".join(_key_text(r, f) for f in fields) for _, fields in dims)
        lane = lanes.get(key)
        if lane is None:
            lane = lanes[key] = {"ids": [], "ok": 0, "failed": 0, "reasons": set(), "values": [],
                                 "steps": None, "first": r}
        lane["ids"].append(r.get("id"))
        outcome = r.get("status.outcome")
        lane["ok"] += outcome == "ok"
        lane["failed"] += outcome == "failed"
        if r.get("backend.fallbacks"):
            lane["reasons"].add("unresolved fallback: " + ", ".join(r["backend.fallbacks"]))
        for fam in ("attention", "moe", "mamba", "recurrent", "gemm"):
            req, obs = r.get(f"backend.{fam}.requested"), r.get(f"backend.{fam}.observed")
            if req is not None and obs is not None and req != obs:
                lane["reasons"].add(f"backend.{fam}: requested {req}, observed {obs}")
        if r.get("backend.verification.status") == "failed":
            lane["reasons"].add("verification failed")
        if r.get("status.stability") in ("unstable", "blocked"):
            lane["reasons"].add(f"a receipt claims {r['status.stability']}")
        if metric in r:
            lane["values"].append(r[metric])
            samples = r.get("metrics.step_time_s.samples")
            if samples and lane["steps"] is None:
                k = r.get("workload.useful_tokens_per_step") or r[metric] * _median(sorted(samples))
                lane["steps"] = [k / s for s in samples]

    out = []
    for key in sorted(lanes):
        lane = lanes[key]
        values = sorted(lane["values"] if len(lane["values"]) >= 2 else (lane["steps"] or lane["values"]))
        reasons = set(lane["reasons"])
        if lane["ok"] < noise["min_runs"]:
            reasons.add(f"{lane['ok']} ok runs, policy needs {noise['min_runs']}")
        if lane["failed"]:
            reasons.add(f"{lane['failed']} failed runs")
        headline = None
        if values:
            med = _median(values)
            spread = (_quantile(values, 0.9) - _quantile(values, 0.1)) / med if med else 0.0
            if spread > noise["max_rel_spread"]:
                reasons.add(f"relative spread {spread:.3f} above {noise['max_rel_spread']}")
            n = len(values)
            # Distribution-free interval for the median: order statistics from Binomial(n, 1/2).
            z = 1.959963984540054
            lo_i = max(0, int(math.floor(n / 2 - z * math.sqrt(n) / 2)) - 1)
            hi_i = min(n - 1, int(math.ceil(n / 2 + z * math.sqrt(n) / 2)))
            headline = {"median": med, "interval": [values[lo_i], values[hi_i]], "n": n,
                        "rel_spread": spread}
        out.append({"key": key, "status": "unstable" if reasons else "stable",
                    "receipts": lane["ids"], "reasons": sorted(reasons), "headline": headline})
    width = policy.adjacency_width
    for a in out:
        a["adjacent"] = [b["key"] for b in out if b is not a and
                         sum(x != y for x, y in zip(a["key"], b["key"])) <= width]
    return out


# ---- the run ---------------------------------------------------------------------------


CPU_SECONDS: dict[str, float] = {}  # stage -> process CPU seconds (all threads)


def timed(fn, *args, stage: str = ""):
    """Runs fn(*args); returns (result, wall seconds) and keeps its process CPU
    seconds under `stage` (on a shared machine CPU time is the steadier figure)."""
    c0, t0 = time.process_time(), time.perf_counter()
    result = fn(*args)
    wall = time.perf_counter() - t0
    CPU_SECONDS[stage] = time.process_time() - c0
    return result, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=100_000, help="receipts (default 100000)")
    ap.add_argument("--dir", help="reuse/keep the corpus in this folder")
    args = ap.parse_args()

    folder = args.dir or tempfile.mkdtemp(prefix="mcpp-bench-")
    try:
        marker = os.path.join(folder, f".count-{args.count}")
        if not os.path.exists(marker):
            print(f"generating {args.count} receipts in {folder} ...", file=sys.stderr)
            generate(folder, args.count)
            open(marker, "w").close()
        policy = mr.Policy.default()

        # Warm the page cache for both sides alike.
        mr.load_dir(folder)

        load_before = os.getloadavg()
        rs1, t_c_load1 = timed(lambda: mr.load_dir(folder, threads=1), stage="c_load1")
        rs, t_c_load = timed(mr.load_dir, folder, stage="c_load")  # default arguments
        assert list(rs1) == list(rs)
        del rs1
        fr, t_c_front = timed(mr.frontier, rs, policy, stage="c_front")
        # the notebook path as one call, next to the I/O floor (best of 3 each, alternated)
        t_nb, t_cat = [], []
        for _ in range(3):
            t_cat.append(cat_floor(folder))
            t0 = time.perf_counter()
            mr.frontier(mr.load_dir(folder), policy)
            t_nb.append(time.perf_counter() - t0)
        t_nb, t_cat = min(t_nb), min(t_cat)
        t_oj = None
        if orjson is not None:
            (oj_rs, oj_err, oj_fr), t_oj = timed(orjson_gc_off, folder, policy, stage="oj")
            assert len(oj_rs) == args.count and not oj_err and len(oj_fr) == len(fr.lanes)
            del oj_rs, oj_fr
        (py_rs, py_err), t_py_load = timed(py_load_dir, folder, stage="py_load")
        py_fr, t_py_front = timed(py_frontier, py_rs, policy, stage="py_front")
        load_after = os.getloadavg()

        # Same work: same receipts, lanes, labels and medians.
        assert len(rs) == len(py_rs) == args.count and not rs.errors and not py_err
        assert len(fr.lanes) == len(py_fr), (len(fr.lanes), len(py_fr))
        c_lanes = sorted((len(l.receipts), l.status, round(l.headline.median, 3)) for l in fr.lanes)
        p_lanes = sorted((len(l["receipts"]), l["status"], round(l["headline"]["median"], 3))
                         for l in py_fr)
        assert c_lanes == p_lanes, "C and Python frontiers disagree"
        assert sum(len(l.adjacent) for l in fr.lanes) == sum(len(l["adjacent"]) for l in py_fr)

        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        threads = min(os.cpu_count() or 1, 8)  # load_dir's default: one per CPU, at most 8
        rows = [("load_dir, 1 thread (parse + validate)", t_c_load1, t_py_load),
                (f"load_dir, {threads} threads", t_c_load, t_py_load),
                ("frontier (lanes, labels, adjacency)", t_c_front, t_py_front),
                ("total, 1 thread", t_c_load1 + t_c_front, t_py_load + t_py_front),
                (f"total, {threads} threads", t_c_load + t_c_front, t_py_load + t_py_front)]
        print(f"\nload_dir + frontier on {args.count:,} receipt files, "
              f"{len(fr.lanes)} lanes ({len(fr.stable)} stable)\n")
        print("| stage | mcpp_receipts (C) s | pure Python s | speed-up |")
        print("|---|---:|---:|---:|")
        for name, c, p in rows:
            print(f"| {name} | {c:.3f} | {p:.3f} | {p / c:.1f}x |")
        one, many = rows[-2][2] / rows[-2][1], rows[-1][2] / rows[-1][1]
        cpu = CPU_SECONDS
        c_cpu, py_cpu = cpu["c_load"] + cpu["c_front"], cpu["py_load"] + cpu["py_front"]
        print(f"\nprocess CPU seconds (all threads): C load_dir {cpu['c_load1']:.3f} on 1 thread, "
              f"{cpu['c_load']:.3f} on {threads}; C frontier {cpu['c_front']:.3f}; "
              f"pure Python {py_cpu:.3f}; CPU-time ratio end to end {py_cpu / c_cpu:.1f}x")
        print(f"machine: {cores} cores available to this process, load_dir used {threads} threads; "
              f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
        print(f"\ntarget >= 20x end to end (wall clock, default arguments): "
              f"{'met' if many >= 20 else 'NOT met'} "
              f"({one:.1f}x on 1 thread, {many:.1f}x on {threads}; pure Python is 1 thread)")
        print(f"\n## the notebook path against its floors (wall clock, best of 3, alternated)\n")
        print("| what | seconds | mr.frontier(mr.load_dir(dir)) / it | target |")
        print("|---|---:|---:|---|")
        print(f"| mr.frontier(mr.load_dir(dir)) | {t_nb:.3f} | 1.00x | |")
        print(f"| I/O floor: 2 parallel `cat`s of the same files | {t_cat:.3f} | {t_nb / t_cat:.2f}x | "
              f"<= 1.5x: {'met' if t_nb <= 1.5 * t_cat else 'NOT met'} |")
        if t_oj is None:
            print("| orjson, gc off, same checks (pure Python) | – | – | orjson not installed |")
        else:
            print(f"| orjson, gc off, same checks (pure Python, 1 run) | {t_oj:.3f} | "
                  f"{t_nb / t_oj:.3f}x ({t_oj / t_nb:.1f}x faster) | |")
        return 0
    finally:
        if not args.dir:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
