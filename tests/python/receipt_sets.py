"""Random receipt sets for the lane-summary and Dask tests: many lanes (one
with a single run, some noisy, some with failures, claims of instability,
fallbacks or no headline metric, the rest stable), and runs loaded twice — the same id and the same
content in the same lane (the same id with other content is a conflict, refused on loading)."""

from __future__ import annotations

import json
import random

from conftest import scaled_samples, variant

SEQ_LENS = (1024, 2048, 4096, 8192)


def _run(rng: random.Random, lane: int, rid: str) -> dict:
    noisy = lane % 3 == 1
    changes = {
        "workload.seq_len": SEQ_LENS[lane % 4],
        "routing.top_k": 1 + lane // 4,
        "metrics.tokens_per_s": round(rng.gauss(400000.0, 400000.0 * (0.08 if noisy else 0.004)), 1),
        "metrics.step_time_s.samples": scaled_samples(rng.uniform(0.97, 1.03)),
        "status.outcome": rng.choice(("ok",) * 5 + ("failed", "partial")) if lane % 5 == 2 else "ok",
    }
    if lane % 7 == 3 and rng.random() < 0.3:
        changes["status.stability"] = "unstable"
        changes["status.blocker"] = rng.choice(("NCCL timeout", "padded capacity OOM"))
    if lane == 4 and rng.random() < 0.3:
        changes["backend.fallbacks"] = ["gemm:cutlass->cublas"]
    drop = ("metrics.tokens_per_s",) if lane == 9 else ()
    return variant(changes, drop=drop, id=rid)


def receipt_set(seed: int, n: int = 120, lanes: int = 14, twice: int = 8) -> list[dict]:
    """n runs over `lanes` lanes (lane 13 holds exactly one run), plus `twice`
    runs loaded a second time at a later random position."""
    rng = random.Random(seed)
    runs = [_run(rng, rng.randrange(lanes - 1), f"run-{seed}-{i}") for i in range(n)]
    runs.append(_run(rng, lanes - 1, f"run-{seed}-single"))
    rng.shuffle(runs)
    for _ in range(twice):
        at = rng.randrange(len(runs) // 2)
        copy = json.loads(json.dumps(runs[at]))
        runs.insert(rng.randrange(at + 1, len(runs) + 1), copy)
    return runs
