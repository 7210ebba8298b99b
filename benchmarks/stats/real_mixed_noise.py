#!/usr/bin/env python3
"""real_mixed_noise.py — every gate rule on real suites whose benchmarks differ
in noise (1% to 40% run to run), on this machine idle and under a load of our
own: the mixed-noise suite (benchmarks/stats/mixed_noise/: ten pytest-benchmark
and ten Google Benchmark benchmarks, 12 us to 40 ms a call), slowed by exactly
5%, 10% or 30% by real extra work (MCPP_SLOW adds units of the same work).

    .venv-py/bin/python benchmarks/stats/real_mixed_noise.py record [--campaign idle|loaded|idle-late]
    .venv-py/bin/python benchmarks/stats/real_mixed_noise.py table [--campaign idle|loaded|idle-late]

`record` makes the runs of a campaign (42 runs of each suite, 15-20 minutes) and
packs the tools' own JSON into benchmarks/stats/data/mixed-noise-CAMPAIGN.tar.xz;
`table` re-makes the table from those files without running anything. A
campaign: 12 history runs of unchanged code (runs 4-6 of them under our load:
the busy hour a real history holds), then 15 pairs of a baseline run of
unchanged code and a candidate run in which 2 benchmarks are slowed by 5%,
2 by 10% and 2 by 30% (the pattern turns every 3 pairs, so each benchmark is
slowed by each amount once and unchanged twice). "loaded": each of the 30
measured runs is made under the load with probability 1/2 (the other jobs of
a shared CI machine come and go); "idle": no load of ours (other sessions may
still share the machine: their load average is in the saved meta.json);
"idle-late": made like "idle" after the gate's last changes (2026-11-29 16:41), runs
that never tuned it (`table` leaves it out unless asked for).

`table` imports every run with the CLI (`mcpp-receipts import`, with --commit
for the 3-runs-a-side rule), keeps the 12 history runs in a store (`store
add`), and scores on the same pairs, per suite:
  * the gate, default policy, 1 run a side (each candidate against the
    baseline run made just before it), without and with `--history` (the store);
  * the gate, 3 runs a side, `import --commit` and `--history` (a pattern's three
    candidate runs against the three baseline runs made between them);
  * conbench's rule: z = (candidate - mean of the 12 history runs) / their sd > 5
    (on the mean of the candidate runs for 3 a side);
  * Google's compare.py U test (p < 0.05 and more than 5% slower on CPU time;
    Google Benchmark suite, 1 run a side: the repetitions are its samples);
  * pytest-benchmark's --benchmark-compare-fail=median:5% (the median of any
    benchmark more than 5% slower);
  * lanes moved since the history: two candidate runs of one slowdown pattern
    gated against each other with the history (and conbench's z of the second):
    unchanged merges in which six lanes lie 5-30% off their history, as after
    a slowdown main accepted once its history was made.
Unchanged tests are every unchanged benchmark of a candidate run, plus every
benchmark of each baseline run gated against the baseline run before it.
A benchmark's own noise is the robust sd (1.4826 MAD) of the log of its
headline over the campaign's unchanged runs; "quiet" means at most 5%.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
SUITE = HERE / "mixed_noise"
DATA = HERE / "data"
HISTORY, PAIRS, PER_PATTERN = 12, 15, 3
LOADED_BLOCK = range(4, 7)  # history runs made under our load
LEVELS = [0, 0, 0, 0, 5, 5, 10, 10, 30, 30]  # percent, turned by 2 places each pattern
PYTEST_NAMES = ["test_hash", "test_numpy_sort", "test_join", "test_dict_build", "test_alloc", "test_sum",
                "test_sorted", "test_regex", "test_json", "test_numpy_matmul"]
GBENCH_NAMES = ["BM_Hash", "BM_SortLarge", "BM_CopyLarge", "BM_StringJoin", "BM_MapBuild", "BM_TreeBuild",
                "BM_Alloc", "BM_Accumulate", "BM_SortSmall", "BM_Sqrt"]


def slow_pattern(pattern: int, names: list[str]) -> dict[str, int]:
    """The slowdown (percent) of each benchmark in the candidate runs of `pattern`."""
    return {name: LEVELS[(i + 2 * pattern) % len(LEVELS)] for i, name in enumerate(names)}


def plan(campaign: str) -> list[dict]:
    """The runs of a campaign, in order: role, pair, pattern, slowdowns and whether our load is on."""
    rng = random.Random(f"mixed-noise-{campaign}")
    runs = [{"role": "history", "load": i in LOADED_BLOCK} for i in range(HISTORY)]
    for k in range(PAIRS):
        for role in ("base", "cand"):
            runs.append({"role": role, "pair": k, "pattern": k // PER_PATTERN,
                         "load": campaign == "loaded" and rng.random() < 0.5})
    for i, r in enumerate(runs):
        r["index"] = i
        p = r.get("pattern")
        r["slow_pytest"] = slow_pattern(p, PYTEST_NAMES) if r["role"] == "cand" else {}
        r["slow_gbench"] = slow_pattern(p, GBENCH_NAMES) if r["role"] == "cand" else {}
    return runs


# ---- record ------------------------------------------------------------------------------------------

def start_load(seconds: float) -> list[subprocess.Popen]:
    """One busy process per core, each stopping by itself after `seconds`."""
    return [subprocess.Popen([sys.executable, str(SUITE / "busy_load.py"), "--seconds", str(seconds)])
            for _ in range(os.cpu_count() or 2)]


def stop_load(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(timeout=30)


def spec(slow: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in slow.items() if v)


def record(campaign: str, work: pathlib.Path) -> pathlib.Path:
    out = work / campaign
    out.mkdir(parents=True)
    exe = work / "bench_mixed"
    subprocess.run([shutil.which("c++") or "g++", "-O2", "-o", str(exe), str(SUITE / "bench_mixed.cc"),
                    "-lbenchmark", "-lpthread"], check=True)
    shutil.copy(SUITE / "bench_mixed.py", work / "bench_mixed.py")
    runs, started = plan(campaign), time.monotonic()
    # single-threaded BLAS: the numpy benchmarks are noisy from memory traffic, not thread fights
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    for r in runs:
        r["loadavg_before"] = open("/proc/loadavg").read().split()[0]
        load = start_load(300) if r["load"] else []
        try:
            if load:
                time.sleep(1.0)  # let the load reach the caches
            subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "bench_mixed.py",
                            f"--benchmark-json={out}/run{r['index']:02d}-pytest.json", "--benchmark-min-rounds=15",
                            "--benchmark-max-time=0.1", "--benchmark-disable-gc"],
                           cwd=work, env=dict(env, MCPP_SLOW=spec(r["slow_pytest"])), check=True,
                           capture_output=True, timeout=600)
            subprocess.run([str(exe), "--benchmark_repetitions=9", "--benchmark_min_time=0.02",
                            "--benchmark_enable_random_interleaving=true",
                            f"--benchmark_out={out}/run{r['index']:02d}-gbench.json", "--benchmark_out_format=json"],
                           env=dict(env, MCPP_SLOW=spec(r["slow_gbench"])), check=True, capture_output=True,
                           timeout=600)
        finally:
            stop_load(load)
        print(f"  {campaign}: run {r['index'] + 1}/{len(runs)} ({r['role']}{', loaded' if r['load'] else ''}) "
              f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    meta = {"campaign": campaign, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": os.uname().nodename, "cores": os.cpu_count(), "runs": runs}
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    DATA.mkdir(exist_ok=True)
    packed = DATA / f"mixed-noise-{campaign}.tar.xz"
    with tarfile.open(packed, "w:xz", preset=9) as tar:
        tar.add(out, arcname=campaign)
    return packed


# ---- table -------------------------------------------------------------------------------------------

CLI = REPO / "build" / "release" / "scripts" / "mcpp-receipts"
COMPARE_PY = pathlib.Path("/usr/share/benchmark/compare.py")  # Debian's libbenchmark-tools
SUITES = {"pytest-benchmark": ("pytest", PYTEST_NAMES), "google-benchmark": ("gbench", GBENCH_NAMES)}
Z_LIMIT = 5.0  # conbench's default threshold


def cli(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=600)
    if proc.returncode not in (0, 1):  # 1: the gate found a regression
        raise SystemExit(f"mcpp-receipts {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}{proc.stdout[:2000]}")
    return proc


def short_name(label: str) -> str:
    return label.split("::")[-1]


def headlines(folder: pathlib.Path) -> dict[str, float]:
    """Each receipt's headline (its primary metric's value) by benchmark name."""
    out = {}
    for f in folder.glob("*.json"):
        r = json.loads(f.read_text())
        primary = r["metrics"]["primary"]
        out[short_name(r["benchmark"]["name"])] = next(m["value"] for m in r["metrics"]["named"]
                                                       if m["name"] == primary)
    return out


def gate(base: list[pathlib.Path], cand: list[pathlib.Path], history: pathlib.Path | None) -> dict[str, str]:
    """The default gate's outcome for each benchmark (failed, passed, inconclusive...)."""
    args = [a for b in base for a in ("--baseline", str(b))] + [a for c in cand for a in ("--candidate", str(c))]
    if history:
        args += ["--history", str(history)]
    report = json.loads(cli("gate", *args, "--format", "json").stdout)
    out: dict[str, str] = {}
    rank = {"failed": 2, "inconclusive": 1}  # a benchmark is one test, even when its runs are several candidates
    for c in report["candidates"]:
        name = short_name(c["lane"]["label"])
        if rank.get(c["outcome"], 0) >= rank.get(out.get(name, ""), 0):
            out[name] = c["outcome"]
    return out


def compare_py(base: pathlib.Path, cand: pathlib.Path) -> dict[str, bool] | None:
    """compare.py's U test on one run a side: p < 0.05 and more than 5% slower on CPU time."""
    if not COMPARE_PY.exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        dump = pathlib.Path(tmp) / "dump.json"
        subprocess.run([sys.executable, str(COMPARE_PY), "-d", str(dump), "benchmarks", str(base), str(cand)],
                       check=True, capture_output=True, timeout=300)
        rows = json.loads(dump.read_text())
    pvalue = {r["name"]: r["utest"].get("cpu_pvalue", 1.0) for r in rows if r.get("run_type") == "iteration"}
    change = {r["name"][:-len("_median")]: r["measurements"][0]["cpu"] for r in rows
              if r.get("aggregate_name") == "median"}
    return {name: pvalue[name] < 0.05 and change[name] > 0.05 for name in pvalue}


class Score:
    """Tests flagged, by the slowdown they carried (0 for unchanged code), and on quiet benchmarks."""

    def __init__(self) -> None:
        self.flagged: dict[tuple[int, bool], int] = {}
        self.total: dict[tuple[int, bool], int] = {}
        self.inconclusive = 0
        self.unchanged_merges = [0, 0]  # failing, all (merges of unchanged code only)

    def add(self, level: int, quiet: bool, flagged: bool, outcome: str = "") -> None:
        self.flagged[level, quiet] = self.flagged.get((level, quiet), 0) + flagged
        self.total[level, quiet] = self.total.get((level, quiet), 0) + 1
        self.inconclusive += outcome == "inconclusive"

    def add_merge(self, names: list[str], slow: dict, quiet: dict, flags: dict, outcomes: dict) -> None:
        """One merge's tests: each benchmark's slowdown, whether this rule flagged it."""
        for n in names:
            self.add(slow.get(n, 0), quiet[n], flags[n], outcomes.get(n, ""))
        if not slow:
            self.unchanged_merges[0] += any(flags.values())
            self.unchanged_merges[1] += 1

    def cell(self, level: int, quiet_only: bool = False) -> str:
        keys = [(level, True)] + ([] if quiet_only else [(level, False)])
        n = sum(self.total.get(k, 0) for k in keys)
        return f"{sum(self.flagged.get(k, 0) for k in keys)}/{n}" if n else "-"


def robust_sd(values: list[float]) -> float:
    med = statistics.median(values)
    return 1.4826 * statistics.median(abs(v - med) for v in values)


def score_suite(folder: pathlib.Path, meta: dict, suite: str, work: pathlib.Path) -> tuple[dict, dict]:
    tag, names = SUITES[suite]
    runs = meta["runs"]
    fmt_file = lambda r: folder / f"run{r['index']:02d}-{tag}.json"
    plain, pooled = work / suite / "plain", work / suite / "pooled"
    for r in runs:  # every run on its own, and (measured runs) with the commit of its side
        cli("import", suite, str(fmt_file(r)), "--out", str(plain / f"run{r['index']:02d}"), "--quiet")
        if r["role"] != "history":
            sha = f"{'b' if r['role'] == 'base' else 'c'}{r['pattern']:039x}"
            cli("import", suite, str(fmt_file(r)), "--out", str(pooled / f"run{r['index']:02d}"), "--commit", sha,
                "--quiet")
    history = [r for r in runs if r["role"] == "history"]
    store = work / suite / "history.db"
    cli("store", "init", str(store))
    cli("store", "add", str(store), *(str(plain / f"run{r['index']:02d}") for r in history))
    values = {r["index"]: headlines(plain / f"run{r['index']:02d}") for r in runs}
    hist_logs = {n: [math.log(values[r["index"]][n]) for r in history] for n in names}
    unchanged = [r for r in runs if r["role"] != "cand"]
    noise = {n: robust_sd([math.log(values[r["index"]][n]) for r in unchanged]) for n in names}
    quiet = {n: noise[n] <= 0.05 for n in names}
    bases = [r for r in runs if r["role"] == "base"]
    cands = [r for r in runs if r["role"] == "cand"]
    # 1 run a side: each candidate against the baseline just before it; each baseline against the one before
    merges1 = [(b, c, c["slow_" + tag]) for b, c in zip(bases, cands)]
    merges1 += [(b0, b1, {}) for b0, b1 in zip(bases, bases[1:])]
    rules1 = ["gate, 1 run a side", "gate --history (12 runs), 1 run a side", "conbench z > 5 over the history",
              "compare.py U test (p < 0.05, > 5%)", "pytest-benchmark median:5%"]
    scores = {rule: Score() for rule in rules1}
    z_merges: list[tuple[dict, dict[str, float]]] = []
    d = lambda r: plain / f"run{r['index']:02d}"

    def z_scores(cand_logs: dict[str, float]) -> dict[str, float]:
        return {n: (cand_logs[n] - statistics.mean(hist_logs[n])) / statistics.stdev(hist_logs[n]) for n in names}

    def z_flags(cand_logs: dict[str, float], limit: float = Z_LIMIT) -> dict[str, bool]:
        return {n: z > limit for n, z in z_scores(cand_logs).items()}

    for b, c, slow in merges1:
        outcomes = {"gate, 1 run a side": gate([d(b)], [d(c)], None),
                    "gate --history (12 runs), 1 run a side": gate([d(b)], [d(c)], store)}
        flags = {rule: {n: o == "failed" for n, o in out.items()} for rule, out in outcomes.items()}
        flags["conbench z > 5 over the history"] = z_flags({n: math.log(values[c["index"]][n]) for n in names})
        if suite == "google-benchmark":
            u = compare_py(fmt_file(b), fmt_file(c))
            if u is not None:
                flags["compare.py U test (p < 0.05, > 5%)"] = u
        flags["pytest-benchmark median:5%"] = {n: values[c["index"]][n] > 1.05 * values[b["index"]][n]
                                               for n in names}
        for rule, f in flags.items():
            scores[rule].add_merge(names, slow, quiet, f, outcomes.get(rule, {}))
        z_merges.append((slow, z_scores({n: math.log(values[c["index"]][n]) for n in names})))
    # Lanes that moved since the history: two candidate runs of one pattern, both slowed alike (a
    # slowdown main accepted after its history was made), gated against each other: unchanged merges
    # whose moved lanes lie off their history, where a rule that trusts the history's level fails
    moved_gate, moved_z = ("gate --history, 1 run a side, lanes moved since the history",
                           "conbench z > 5, lanes moved since the history")
    scores[moved_gate], scores[moved_z] = Score(), Score()
    by_pattern: dict[int, list[dict]] = {}
    for c in cands:
        by_pattern.setdefault(c["pattern"], []).append(c)
    for same in by_pattern.values():
        for c0, c1 in zip(same, same[1:]):
            out = gate([d(c0)], [d(c1)], store)
            flags = {n: o == "failed" for n, o in out.items()}
            scores[moved_gate].add_merge(names, {}, quiet, flags, out)
            scores[moved_z].add_merge(names, {}, quiet, z_flags({n: math.log(values[c1["index"]][n]) for n in names}),
                                      {})
    # conbench's z at the gate's false positives: the least limit (steps of 0.5) that flags no more
    # unchanged tests than the gate with the history did on the same merges
    gate_flagged = scores["gate --history (12 runs), 1 run a side"].flagged.get((0, True), 0) + \
        scores["gate --history (12 runs), 1 run a side"].flagged.get((0, False), 0)
    limit = next(k / 2 for k in range(10, 2001)
                 if sum(z > k / 2 for slow, zs in z_merges for n, z in zs.items() if not slow.get(n)) <= gate_flagged)
    tuned = scores[f"conbench z > {limit:g} (tuned to the gate's false positives)"] = Score()
    for slow, zs in z_merges:
        tuned.add_merge(names, slow, quiet, {n: z > limit for n, z in zs.items()}, {})
    # 3 runs a side, one commit a side: a pattern's candidates against its baselines; baselines of
    # one pattern against those of the one before (unchanged)
    patterns = sorted({r["pattern"] for r in cands})
    side = lambda role, p: [r for r in runs if r["role"] == role and r.get("pattern") == p]
    merges3 = [(side("base", p), side("cand", p), side("cand", p)[0]["slow_" + tag]) for p in patterns]
    merges3 += [(side("base", p0), side("base", p1), {}) for p0, p1 in zip(patterns, patterns[1:])]
    rules3 = ["gate --commit --history, 3 runs a side", "conbench z > 5 (mean of 3 runs)"]
    for rule in rules3:
        scores[rule] = Score()
    for b, c, slow in merges3:
        out = gate([pooled / f"run{r['index']:02d}" for r in b], [pooled / f"run{r['index']:02d}" for r in c], store)
        flags = {rules3[0]: {n: o == "failed" for n, o in out.items()},
                 rules3[1]: z_flags({n: statistics.mean(math.log(values[r["index"]][n]) for r in c)
                                     for n in names})}
        for rule, f in flags.items():
            scores[rule].add_merge(names, slow, quiet, f, out if rule == rules3[0] else {})
    return scores, noise


def table(campaigns: list[str]) -> int:
    if not CLI.exists():
        raise SystemExit(f"{CLI} is missing: build first (cmake --build build/release)")
    totals: dict[str, list[Score]] = {}
    for campaign in campaigns:
        packed = DATA / f"mixed-noise-{campaign}.tar.xz"
        if not packed.exists():
            print(f"{campaign}: {packed} is missing: run `record --campaign {campaign}` first", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = pathlib.Path(tmp_name)
            with tarfile.open(packed) as tar:
                tar.extractall(tmp, filter="data")
            folder = tmp / campaign
            meta = json.loads((folder / "meta.json").read_text())
            loaded = sum(r["load"] for r in meta["runs"] if r["role"] != "history")
            print(f"\n### {campaign}: runs of {meta['date']} on {meta['machine']} ({meta['cores']} cores), "
                  f"{loaded} of {2 * PAIRS} measured runs under our load, history runs "
                  f"{LOADED_BLOCK.start + 1}-{LOADED_BLOCK.stop} under it; load average before the runs "
                  f"{min(float(r['loadavg_before']) for r in meta['runs']):.1f}-"
                  f"{max(float(r['loadavg_before']) for r in meta['runs']):.1f}\n")
            for suite in SUITES:
                scores, noise = score_suite(folder, meta, suite, tmp / "work")
                quiet = sorted(n for n, s in noise.items() if s <= 0.05)
                print(f"{suite}: own run-to-run noise "
                      + ", ".join(f"{n} {100 * s:.1f}%" for n, s in sorted(noise.items(), key=lambda x: x[1]))
                      + f" ({len(quiet)} quiet, <= 5%)\n")
                print("| rule | unchanged merges failing | unchanged tests flagged | 5% caught | 10% caught "
                      "| 30% caught | 30% caught, quiet | inconclusive |")
                print("|---|---|---|---|---|---|---|---|")
                for rule, s in scores.items():
                    if not s.total:
                        continue
                    totals.setdefault(rule.split(" (tuned")[0] if "tuned" not in rule else
                                      "conbench z tuned to the gate's false positives", []).append(s)
                    gate_rule = rule.startswith("gate")
                    print(f"| {rule} | {s.unchanged_merges[0]}/{s.unchanged_merges[1]} | {s.cell(0)} | {s.cell(5)} "
                          f"| {s.cell(10)} | {s.cell(30)} | {s.cell(30, quiet_only=True)} "
                          f"| {s.inconclusive if gate_rule else '-'} |")
                print()
    print_totals(totals)
    return 0


def print_totals(totals: dict[str, list[Score]]) -> None:
    """Each rule summed over every campaign and suite of the table."""
    print("### all campaigns and suites\n")
    print("| rule | unchanged merges failing | unchanged tests flagged | 30% caught | 30% caught, quiet |")
    print("|---|---|---|---|---|")
    for rule, cells in totals.items():
        def total(level: int, quiet_only: bool = False) -> str:
            keys = [(level, True)] + ([] if quiet_only else [(level, False)])
            n = sum(c.total.get(k, 0) for c in cells for k in keys)
            return f"{sum(c.flagged.get(k, 0) for c in cells for k in keys)}/{n}" if n else "-"
        print(f"| {rule} | {sum(c.unchanged_merges[0] for c in cells)}/{sum(c.unchanged_merges[1] for c in cells)} "
              f"| {total(0)} | {total(30)} | {total(30, quiet_only=True)} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=("record", "table"))
    ap.add_argument("--campaign", choices=("idle", "loaded", "idle-late"), action="append",
                    help="one campaign (repeatable; default idle and loaded; idle-late: recorded like idle after "
                         "the gate's last changes, never used to tune them)")
    args = ap.parse_args()
    campaigns = args.campaign or ["idle", "loaded"]
    if args.action == "record":
        with tempfile.TemporaryDirectory() as tmp:
            for campaign in campaigns:
                print(f"wrote {record(campaign, pathlib.Path(tmp))}", file=sys.stderr)
        return 0
    return table(campaigns)


if __name__ == "__main__":
    sys.exit(main())
