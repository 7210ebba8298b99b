#!/usr/bin/env python3
"""bench_cli_memory.py — the memory of `mcpp-receipts frontier` and `gate` per lane.

What a CI job runs over many lanes: N Google Benchmark benchmarks (one lane
each, every lane adjacent to every other, as in bench_scale.py) imported as
receipt files with `mcpp-receipts import`, then

    frontier  mcpp-receipts frontier A --format json           N lanes
    gate      mcpp-receipts gate --baseline A --candidate C     N pairs

each in its own process, its report on stdout (written to a file here). The
figure is the process's peak resident size (the kernel's `ru_maxrss` of the
child) over N: issue 50 item 5 asks <= 4 KB a lane. It counts a gate's lanes
by side: its "~14 KB of RSS per lane in many-lane frontier and gate runs" was
1.45 GB for the frontier's 10^5 lanes and 2.7 GB for a gate of 10^5 pairs,
i.e. 2 x 10^5 lanes, a baseline's and a candidate's (27 KB a pair). The gate's
target column reads its figure the issue's way, a lane a receipt, and shows
the figure a pair beside it. With `--before CLI` the
same commands run with another build's CLI in the same session, one after the
other, and the reports are compared byte for byte (memory does not depend on
the load; the seconds do, so they are only shown).

    .venv-py/bin/python benchmarks/scale/bench_cli_memory.py
    .venv-py/bin/python benchmarks/scale/bench_cli_memory.py --sizes 10000,100000 --before /path/to/old/mcpp-receipts
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_scale import write_gbench  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_measured(cmd: list[str], out_path: pathlib.Path) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of cmd, its stdout written to out_path."""
    with open(out_path, "wb") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t0
        err = p.stderr.read().decode(errors="replace") if p.stderr else ""
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1, 2):  # a gate's verdict is its exit code
        raise SystemExit(f"bench_cli_memory: {' '.join(cmd)} exited {p.returncode}:\n{err}")
    return seconds, usage.ru_maxrss


def digest(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def corpus(folder: pathlib.Path, n: int, cli: str) -> tuple[pathlib.Path, pathlib.Path]:
    """Receipt folders A (baselines) and C (candidates) of n benchmarks each."""
    dirs = []
    for name, seed in (("A", 1), ("C", 2)):
        src = folder / f"gbench_{name}_{n}.json"
        write_gbench(str(src), n, 1, aggregates=False, seed=seed)
        out = folder / f"{name}_{n}"
        subprocess.run([cli, "import", "google-benchmark", str(src), "--out", str(out), "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        dirs.append(out)
    return dirs[0], dirs[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100000", help="comma-separated lane counts (default 100000)")
    ap.add_argument("--cli", default=str(ROOT / "build/release/scripts/mcpp-receipts"))
    ap.add_argument("--before", help="another build's mcpp-receipts, run on the same corpus")
    args = ap.parse_args()
    clis = [("before", args.before)] if args.before else []
    clis.append(("this build", args.cli))
    rows = []
    with tempfile.TemporaryDirectory(prefix="mcpp-bench-cli-") as tmp:
        folder = pathlib.Path(tmp)
        for n in (int(s) for s in args.sizes.split(",")):
            print(f"{n:,} lanes: writing and importing the corpus ...", file=sys.stderr, flush=True)
            a, c = corpus(folder, n, args.cli)
            for step, cmd in (("frontier", ["frontier", str(a), "--format", "json"]),
                              ("gate", ["gate", "--baseline", str(a), "--candidate", str(c), "--format", "json"])):
                digests = set()
                for label, cli in clis:
                    out = folder / f"{step}_{n}.json"
                    seconds, kib = run_measured([cli, *cmd], out)
                    digests.add(digest(out))
                    rows.append((step, n, label, seconds, kib, out.stat().st_size))
                    print(f"  {step} {label}: {seconds:.2f} s, {kib / 1024:,.0f} MiB", file=sys.stderr, flush=True)
                if len(clis) > 1:
                    rows.append((step, n, "same report bytes", None, None, len(digests) == 1))
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"## mcpp-receipts frontier / gate, peak RSS a lane (load average {load})\n")
    print("| step | lanes or pairs | build | s | peak MiB | KiB a lane or pair | KiB a receipt | report MB | target |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    for step, n, label, seconds, kib, size in rows:
        if seconds is None:
            print(f"| {step} | {n:,} | before and after: same report bytes: {'yes' if size else 'NO'} | | | | | | |")
            continue
        per_lane = kib / n
        receipts = n * (2 if step == "gate" else 1)  # a gate's pair: a baseline and a candidate
        per_issue_lane = kib / receipts  # the issue's count: a gate's lanes by side
        target = f"<= 4 KB a lane: {'met' if per_issue_lane * 1024 <= 4000 else 'NOT met'}"
        if step == "gate":
            target += f" (a lane a side, as issue 50 counts; a pair: {per_lane:.2f} KiB)"
        print(f"| {step} | {n:,} | {label} | {seconds:.2f} | {kib / 1024:,.0f} | {per_lane:.2f} | {kib / receipts:.2f} | "
              f"{size / 1e6:,.0f} | {target} |")


if __name__ == "__main__":
    main()
