#!/usr/bin/env python3
"""report_set.py — writes a receipt set for the HTML report: LANES lanes made
from examples/receipts/nam56r_padded.json (sequence length x top-k), most of
them stable (three runs within 0.4%), some unstable (noisy, a failed run, a
fallback, a claimed instability, no headline metric), and one lane whose name
and caveats are hostile strings (markup, quotes, ampersands, non-ASCII).

usage: report_set.py EXAMPLE_RECEIPT OUT_DIR [LANES] [--plain]
--plain leaves the hostile strings out (the README screenshot, docs/report.md)."""

from __future__ import annotations

import copy
import json
import pathlib
import random
import sys

HOSTILE = "<script>alert(\"x\")</script> & 'q' \u2014 \u00fcn\u00efc\u00f8d\u00e9 \u2713"
SEQ_LENS = (1024, 2048, 4096, 8192)


def lane_run(base: dict, lane: int, run: int, rng: random.Random, hostile: bool = True) -> dict:
    r = copy.deepcopy(base)
    r["id"] = f"lane{lane:02d}-run{run}"
    r["workload"]["seq_len"] = SEQ_LENS[lane % 4]
    r["routing"]["top_k"] = 1 + lane // 4
    r["lane"]["name"] = f"NAM56R MoE s{SEQ_LENS[lane % 4]} top{1 + lane // 4}"
    noisy = lane % 6 == 5
    centre = 300000.0 + 9000.0 * lane
    r["metrics"]["tokens_per_s"] = round(rng.gauss(centre, centre * (0.06 if noisy else 0.002)), 1)
    # the varied number no longer follows from the step times: state no denominator
    # (validation checks tokens_per_s against useful_tokens_per_step / median step)
    r["workload"].pop("useful_tokens_per_step", None)
    r["status"] = {"outcome": "ok", "stability": "stable"}
    if lane == 3 and run == 1:
        r["status"] = {"outcome": "failed", "blocker": "padded MoE capacity OOM at capacity_factor 1.25"}
    if lane == 8:
        r["backend"]["moe"]["observed"] = "jagged"
        r["status"]["caveats"] = ["moe fell back from padded to jagged"]
    if lane == 10:
        r["status"]["stability"] = "unstable"
        r["status"]["blocker"] = "NCCL timeout on rank 5"
    if lane == 13:
        del r["metrics"]["tokens_per_s"]
    if lane == 1 and hostile:
        r["lane"]["name"] = HOSTILE
        r["status"]["caveats"] = [HOSTILE, "a second caveat & <b>not bold</b>"]
    return r


def write_set(example: pathlib.Path, out: pathlib.Path, lanes: int, hostile: bool = True) -> int:
    base = json.loads(example.read_text(encoding="utf-8"))
    rng = random.Random(13)
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for lane in range(lanes):
        for run in range(3):
            path = out / f"lane{lane:02d}-run{run}.json"
            path.write_text(json.dumps(lane_run(base, lane, run, rng, hostile), ensure_ascii=False, indent=1), encoding="utf-8")
            n += 1
    return n


HISTORY_RUNS = 24
HISTORY_STEP_AT = 12
HISTORY_COMMIT = "<b>c0mmit</b>&'{:03d}"


def history_commit(run: int) -> str:
    """Run `run`'s git commit: hostile text (the page must escape it) ending in the run number."""
    return HISTORY_COMMIT.format(run)


def write_history(example: pathlib.Path, out: pathlib.Path, hostile: bool = True) -> int:
    """Two lanes over time for the history section: HISTORY_RUNS daily runs each,
    0.3% noise; lane "step" drops 6% from run HISTORY_STEP_AT on, lane "flat"
    does not change. Commits (and the step lane's name) are hostile strings."""
    base = json.loads(example.read_text(encoding="utf-8"))
    rng = random.Random(29)
    out.mkdir(parents=True, exist_ok=True)
    for name, seq_len in (("step", 1024), ("flat", 2048)):
        for run in range(HISTORY_RUNS):
            r = copy.deepcopy(base)
            r["id"] = f"history-{name}-{run:03d}"
            r["created_at"] = f"2026-04-{1 + run:02d}T12:00:00Z"
            r["source"]["git_commit"] = history_commit(run) if hostile else f"{run:040x}"
            r["workload"]["seq_len"] = seq_len
            r["routing"]["top_k"] = 8  # write_set's lanes use top_k 1..6: these are lanes of their own
            r["workload"].pop("useful_tokens_per_step", None)
            r["lane"]["name"] = (HOSTILE if hostile else "NAM56R") + f" history {name}"
            level = 0.94 if name == "step" and run >= HISTORY_STEP_AT else 1.0
            r["metrics"]["tokens_per_s"] = round(rng.gauss(400000.0 * level, 400000.0 * 0.003), 1)
            r["status"] = {"outcome": "ok", "stability": "stable"}
            (out / f"{r['id']}.json").write_text(json.dumps(r, ensure_ascii=False, indent=1), encoding="utf-8")
    return 2 * HISTORY_RUNS


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--plain"]
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    count = write_set(pathlib.Path(args[0]), pathlib.Path(args[1]), int(args[2]) if len(args) == 3 else 24,
                      hostile="--plain" not in sys.argv)
    print(f"wrote {count} receipts to {args[1]}")
