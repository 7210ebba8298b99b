"""mr.import_results on real outputs: pytest-benchmark JSON produced in this
test run by the real plugin (a baseline, a repeat of it, and a deliberately
slowed variant), Google Benchmark JSON from a program built here against
Debian's libbenchmark-dev, and the MLPerf Training v3.1 fixtures, through
to the analyses: the gate on each suite's primary named metric and a claim
on MLPerf's time_to_train_s (docs/metrics.md)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys

import pytest

import mcpp_receipts as mr
from real_runs import run_google_benchmark, run_pytest_benchmark

REPO = pathlib.Path(__file__).resolve().parents[2]
MLPERF = REPO / "tests" / "data" / "mlperf-v3.1"


BENCH_FILE = '''
import os
import pytest

# MCPP_SLOW=1 makes test_sorted do its work 5 times: the regression to catch.
REPEAT = 5 if os.environ.get("MCPP_SLOW") == "1" else 1

@pytest.mark.parametrize("n", [2000, 8000])
def test_sorted(benchmark, n):
    data = [(i * 2654435761) % 1000003 for i in range(n)]
    def work():
        for _ in range(REPEAT):
            sorted(data)
    benchmark(work)

def test_join(benchmark):
    parts = [str(i) for i in range(2000)]
    benchmark(",".join, parts)
'''


# CPU time, not the wall clock: time taken by other jobs on the machine is not
# in it (the gate tests below rely on that).
CPU_TIMER = "time.process_time"


@pytest.fixture(scope="module")
def pytest_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pytest_benchmark")
    return {name: run_pytest_benchmark(tmp, name, BENCH_FILE, {"MCPP_SLOW": "1" if name == "slow" else "0"},
                                       timer=CPU_TIMER)
            for name in ("base", "noise", "slow")}


@pytest.fixture(scope="module")
def gbench_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("google_benchmark")
    return {name: run_google_benchmark(tmp, name, {"MCPP_SLOW_SORT": slow})
            for name, slow in (("base", 1), ("noise", 1), ("slow", 4))}


@pytest.fixture(scope="module")
def mlperf_dir():
    # The fixtures are part of the repository: missing ones are a failure, not a skip.
    assert any(MLPERF.rglob("result_*.txt")), f"MLPerf fixtures missing under {MLPERF}"
    return MLPERF


# ---- pytest-benchmark ---------------------------------------------------------------

def test_pytest_benchmark_gives_one_receipt_per_benchmark_with_round_samples(pytest_runs):
    raw = json.loads(pytest_runs["base"].read_text())
    rs = mr.import_results("pytest-benchmark", pytest_runs["base"])
    assert isinstance(rs, mr.ReceiptSet)
    assert [r["benchmark.name"] for r in rs] == [b["fullname"] for b in raw["benchmarks"]]
    for r, b in zip(rs, raw["benchmarks"]):
        m = r.metric("time_s")
        assert (m["unit"], m["direction"], m["sample_kind"]) == ("s", "lower", "round")
        data = b["stats"]["data"]
        if len(data) <= 1001:
            assert list(m["samples"]) == data
        else:  # kept as 1,001 quantiles, the extremes among them (issue 48 item 4)
            assert len(m["samples"]) == 1001 and (m["samples"][0], m["samples"][-1]) == (min(data), max(data))
        assert m["value"] == pytest.approx(statistics.median(b["stats"]["data"]), rel=1e-12)
        assert r.primary_metric == "time_s"
        assert r["benchmark.suite"] == "pytest-benchmark"
        assert r["benchmark.suite_version"] == raw["version"]
        assert r["created_at"] == raw["datetime"]
        assert r["software.version"] == raw["machine_info"]["python_version"]
        assert r["hardware.host.cpu"] == raw["machine_info"]["cpu"]["brand_raw"]
        assert r["extra.pytest_benchmark.stats.rounds"] == b["stats"]["rounds"]
    assert rs[0]["benchmark.params"] == {"n": 2000}


def test_import_is_idempotent_same_ids_and_bytes(pytest_runs, tmp_path):
    a = mr.import_results("pytest-benchmark", [pytest_runs["base"]], out=tmp_path / "a")
    b = mr.import_results("pytest-benchmark", [pytest_runs["base"]], out=tmp_path / "b")
    assert [r.id for r in a] == [r.id for r in b]
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(f"{r.id}.json".replace("[", "_").replace("]", "_").replace("/", "_")
                           .replace(":", "_") for r in a)
    for n in names:
        assert (tmp_path / "a" / n).read_bytes() == (tmp_path / "b" / n).read_bytes()
    # different runs of the same benchmarks get different ids
    c = mr.import_results("pytest-benchmark", pytest_runs["noise"])
    assert not set(r.id for r in a) & set(r.id for r in c)


def test_wrong_tool_json_is_refused_naming_file_and_line(pytest_runs, tmp_path):
    with pytest.raises(mr.ValidationError) as e:
        mr.import_results("google-benchmark", pytest_runs["base"], out=tmp_path / "out")
    assert e.value.path == str(pytest_runs["base"])
    assert e.value.line == 1
    assert "this is pytest-benchmark output" in str(e.value)
    assert not (tmp_path / "out").exists()


def test_truncated_json_fails_the_whole_import_and_writes_nothing(pytest_runs, tmp_path):
    text = pytest_runs["base"].read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    with pytest.raises(mr.ParseError) as e:
        mr.import_results("pytest-benchmark", [pytest_runs["base"], cut], out=tmp_path / "out")
    assert e.value.path == str(cut)
    assert e.value.line == text[: len(text) // 2].count("\n") + 1
    assert not (tmp_path / "out").exists()


def test_unknown_format_is_a_value_error(pytest_runs):
    # '_' never names a format (import.h): a real-looking name would break when it is registered
    with pytest.raises(ValueError, match="unknown import format 'no_such_format'"):
        mr.import_results("no_such_format", pytest_runs["base"])


# ---- Google Benchmark -------------------------------------------------------------

def test_google_benchmark_repetitions_become_samples(gbench_runs):
    raw = json.loads(gbench_runs["base"].read_text())
    rs = mr.import_results("google-benchmark", gbench_runs["base"])
    # the runs interleave repetitions (real_runs.py): receipts come in the order names first appear
    assert [r["benchmark.name"] for r in rs] == list(dict.fromkeys(b["run_name"] for b in raw["benchmarks"]))
    primary = {r["benchmark.name"]: r.primary_metric for r in rs}
    assert primary == {"BM_Sort/256": "cpu_time_s", "BM_Sort/4096": "cpu_time_s", "BM_Accumulate": "cpu_time_s",
                       "BM_Accumulate/real_time": "real_time_s"}
    sort = _sort256(rs)
    rows = [b for b in raw["benchmarks"] if b["run_name"] == "BM_Sort/256" and b["run_type"] == "iteration"]
    real = sort.metric("real_time_s")
    assert len(real["samples"]) == 7 == len(rows)
    assert list(real["samples"]) == pytest.approx([b["real_time"] * 1e-9 for b in rows], rel=1e-15)
    assert sort.metric("items_per_second")["direction"] == "higher"
    assert sort.metric("cpu_time_s")["direction"] == "lower"
    assert sort["hardware.host.cores"] == raw["context"]["num_cpus"]
    assert sort["extra.google_benchmark.context.cpu_scaling_enabled"] == raw["context"]["cpu_scaling_enabled"]


def test_google_benchmark_interleaved_rows_group_by_name_in_file_order(gbench_runs, tmp_path):
    # --benchmark_enable_random_interleaving writes the repetitions of different
    # benchmarks in between one another: each name still gets all of its rows,
    # in file order, and the receipts come in the order the names first appear.
    raw = json.loads(gbench_runs["base"].read_text())
    rows = raw["benchmarks"]
    mixed = rows[1::2] + rows[0::2]
    (tmp_path / "mixed.json").write_text(json.dumps({**raw, "benchmarks": mixed}))
    rs = mr.import_results("google-benchmark", tmp_path / "mixed.json")
    first_seen = list(dict.fromkeys(b["run_name"] for b in mixed))
    assert [r["benchmark.name"] for r in rs] == first_seen
    for r in rs:
        mine = [b for b in mixed if b["run_name"] == r["benchmark.name"] and b["run_type"] == "iteration"]
        assert list(r.metric("real_time_s")["samples"]) == pytest.approx(
            [b["real_time"] * 1e-9 for b in mine], rel=1e-15)
        assert sorted(r["extra.google_benchmark.aggregates"]) == ["cv", "mean", "median", "stddev"]
    # the same file given twice is one set of receipts (equal ids are equal runs)
    twice = mr.import_results("google-benchmark", [tmp_path / "mixed.json", tmp_path / "mixed.json"])
    assert [r.id for r in twice] == [r.id for r in rs]


# Google Benchmark's context has no processor model: the importer states no
# accelerator and says "hardware" is not recorded (docs/import.md). A team that
# gates across machines makes the recorded machine facts a dimension itself.
MACHINE_POLICY = '''return { include = {"default.lua"}, name = "gbench_machine",
  dimensions = { define = { machine = { "hardware.host.cores", "extra.google_benchmark.context.caches",
                                        "extra.google_benchmark.context.cpu_scaling_enabled" } },
                 must_match = { "machine" } } }'''


def _sort256(rs):
    """BM_Sort/256 of an imported run (interleaved runs list their benchmarks in random order)."""
    return next(r for r in rs if r["benchmark.name"] == "BM_Sort/256")


def test_google_benchmark_context_git_commit_names_the_commit_and_the_gate_pools_its_runs(gbench_runs, tmp_path):
    """`--benchmark_context=git_commit=...` (docs/import.md) makes receipts that
    name their commit; two runs of one commit are then one side of the gate."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    args = ("--benchmark_enable_random_interleaving=true", f"--benchmark_context=git_commit={commit}")
    runs = [run_google_benchmark(tmp_path, f"c{i}", {"MCPP_SLOW_SORT": 1}, repetitions=3, extra_args=args)
            for i in range(2)]
    assert json.loads(runs[0].read_text())["context"]["git_commit"] == commit  # Google Benchmark wrote it
    cands = [_sort256(mr.import_results("google-benchmark", p)) for p in runs]
    assert [c["source.git_commit"] for c in cands] == [commit, commit]
    assert "git_commit" not in cands[0]["extra"]["google_benchmark"]["context"]  # mapped, not kept twice
    base = _sort256(mr.import_results("google-benchmark", gbench_runs["base"]))
    assert base["source.git_commit"] is None  # a run without it names no commit
    report = mr.gate([base], cands)
    for c in cands:  # each candidate's result rests on both runs of its commit
        metric = report.candidate(c.id)["metric"]
        assert (metric["n_base"], metric["n_cand"], metric["noise"]["runs_cand"]) == (1, 2, 2)


def test_import_told_the_commit_records_it_and_the_gate_pools_those_runs(gbench_runs, tmp_path):
    """A CI job that runs Google Benchmark three times without recording the
    commit made three runs of one code: `commit=` (`import --commit`) names it,
    so the gate pools them as one candidate side instead of judging each alone."""
    commit = "89abcdef0123456789abcdef0123456789abcdef"
    paths = [gbench_runs["noise"], *(run_google_benchmark(tmp_path, f"c{i}", {"MCPP_SLOW_SORT": 1}, repetitions=3)
                                     for i in range(2))]
    plain = [_sort256(mr.import_results("google-benchmark", p)) for p in paths]
    told = [_sort256(mr.import_results("google-benchmark", p, commit=commit)) for p in paths]
    assert [c["source.git_commit"] for c in told] == [commit] * 3
    assert all(a.id != b.id for a, b in zip(plain, told))  # the commit is part of the content
    base = _sort256(mr.import_results("google-benchmark", gbench_runs["base"], commit="f" * 40))
    apart, pooled = mr.gate([base], plain), mr.gate([base], told)
    assert [apart.candidate(c.id)["metric"]["n_cand"] for c in plain] == [1, 1, 1]
    assert [pooled.candidate(c.id)["metric"]["n_cand"] for c in told] == [3, 3, 3]
    assert "3 candidate runs name no commit and share a lane: each was judged alone" in apart.reason
    assert "no commit" not in pooled.reason
    written = mr.import_results("google-benchmark", paths[0], out=tmp_path / "out", commit=commit)
    on_disk = mr.load_dir(tmp_path / "out")
    assert sorted(r.id for r in on_disk) == sorted(r.id for r in written)
    assert {r["source.git_commit"] for r in on_disk} == {commit}


def test_import_told_another_commit_than_its_input_names_is_refused(tmp_path):
    other = "0123456789abcdef0123456789abcdef01234567"
    run = run_google_benchmark(tmp_path, "named", {"MCPP_SLOW_SORT": 1}, repetitions=2,
                               extra_args=(f"--benchmark_context=git_commit={other}",))
    assert mr.import_results("google-benchmark", run, commit=other)  # the same commit agrees
    with pytest.raises(mr.ValidationError) as e:
        mr.import_results("google-benchmark", run, out=tmp_path / "out", commit="f" * 40)
    assert e.value.path == str(run)
    assert e.value.field == "source.git_commit"
    assert f"the input names commit '{other}'" in str(e.value)
    assert not (tmp_path / "out").exists()


def test_google_benchmark_hardware_is_not_recorded_and_a_policy_can_match_machine_facts(gbench_runs, tmp_path):
    raw = json.loads(gbench_runs["base"].read_text())
    base = _sort256(mr.import_results("google-benchmark", gbench_runs["base"]))
    assert "hardware" in base["source.not_recorded"]
    assert base["hardware.observed.accelerator"] is None
    assert base["source.host"] == raw["context"]["host_name"]
    policy = mr.Policy.from_string(MACHINE_POLICY, str(REPO / "policy" / "gbench_machine.lua"))
    noise = _sort256(mr.import_results("google-benchmark", gbench_runs["noise"]))
    same = mr.compare(base, noise, policy)
    assert same.verdict in ("comparable", "qualified")
    assert {d["name"]: d["status"] for d in same.to_dict()["dimensions"]}["machine"] == "match"
    other = dict(raw, context=dict(raw["context"], caches=[{"type": "Unified", "level": 3, "size": 8388608,
                                                             "num_sharing": 4}]))
    other_path = tmp_path / "other_machine.json"
    other_path.write_text(json.dumps(other))
    moved = mr.compare(base, _sort256(mr.import_results("google-benchmark", other_path)), policy)
    assert moved.verdict == "not_comparable"
    assert {d["name"]: d["status"] for d in moved.to_dict()["dimensions"]}["machine"] == "mismatch"
    assert mr.compare(base, _sort256(mr.import_results("google-benchmark", other_path))).verdict != "not_comparable"


# ---- MLPerf ---------------------------------------------------------------------------

def test_mlperf_tree_gives_one_receipt_per_run(mlperf_dir):
    rs = mr.import_results("mlperf", mlperf_dir)
    assert len(rs) == len(list(mlperf_dir.rglob("result_*.txt")))
    systems = {r["benchmark.system"] for r in rs}
    assert systems == {p.stem for p in mlperf_dir.glob("*/systems/*.json")}
    for r in rs:
        assert r.primary_metric == "time_to_train_s"
        assert r["hardware.observed.source"] == "declared"
        assert r["status.outcome"] == "ok"


# ---- item 3: the default policy on imported receipts ---------------------------------

def _by(rs, system, run):
    return next(r for r in rs if r["benchmark.system"] == system and r["run.index"] == run)


DELL = "2xXE8640x4H100-SXM-80GB"
NVIDIA = "eos_n8_ngc23.09_merlin_hugectr"


def test_two_runs_same_benchmark_same_system_are_comparable(mlperf_dir):
    rs = mr.import_results("mlperf", mlperf_dir)
    c = mr.compare(_by(rs, DELL, 1), _by(rs, DELL, 2))
    assert c.verdict == "comparable", c.rows


def test_same_benchmark_different_count_is_not_comparable_saying_count(mlperf_dir):
    rs = mr.import_results("mlperf", mlperf_dir)
    c = mr.compare(_by(rs, DELL, 1), _by(rs, NVIDIA, 1))
    assert c.verdict == "not_comparable"
    assert any(r.name == "hardware" and "count" in r.reason for r in c.rows_with("mismatch"))


def test_same_benchmark_different_accelerator_is_not_comparable(mlperf_dir, tmp_path):
    # the copy keeps the round in its path (the importer reads suite_version there)
    tree = tmp_path / mlperf_dir.name
    shutil.copytree(mlperf_dir / "ASUSTeK", tree / "ASUSTeK")
    sysfile = tree / "ASUSTeK" / "systems" / "ESC-N8-E11.json"
    os.chmod(sysfile, 0o644)
    desc = json.loads(sysfile.read_text())
    desc["accelerator_model_name"] = "NVIDIA A100-SXM4-80GB"
    sysfile.write_text(json.dumps(desc))
    a100 = mr.import_results("mlperf", tree / "ASUSTeK")[0]
    h100 = mr.import_results("mlperf", mlperf_dir / "ASUSTeK")[0]
    assert a100["hardware.observed.accelerator"] == "NVIDIA A100-SXM4-80GB"
    c = mr.compare(h100, a100)
    assert c.verdict == "not_comparable"
    assert any(r.name == "hardware" for r in c.rows_with("mismatch"))


def test_frontier_groups_imported_runs_by_system(mlperf_dir):
    rs = mr.import_results("mlperf", mlperf_dir)
    f = mr.frontier(rs)
    systems = {r.id: r["benchmark.system"] for r in rs}
    assert len(f.lanes) == len(set(systems.values()))
    for lane in f.lanes:
        assert len({systems[i] for i in lane.receipts}) == 1


# Two runs of a microsecond benchmark on a shared CI machine differ by more
# than the default 3% allowance whenever the load changes between them (seen
# here: +16% and -20% on an unchanged BM_Accumulate), and that shift is real,
# not sampling noise, so the rounds inside a run cannot measure it. default.lua
# declares 5% run-to-run noise for pytest-benchmark and Google Benchmark
# results (3% for other lanes), the shipped micro_benchmark.lua 8% for noisier
# machines (their comments say why, docs/statistics.md); the deliberate
# regression (5x the work) is far beyond both. The default policy's gate on
# these imports is tested below and in test_gate_real_runs.py.


def test_shipped_micro_benchmark_and_mlperf_policies_state_their_tolerances():
    assert {"micro_benchmark", "mlperf"} <= set(mr.Policy.shipped_names())
    micro, mlperf = mr.Policy.shipped("micro_benchmark"), mr.Policy.shipped("mlperf")
    assert micro.name == "micro_benchmark" and mlperf.name == "mlperf"
    assert micro.noise["run_to_run"] == pytest.approx(0.08) and micro.gate["max_regression"] == pytest.approx(0.05)
    assert micro.noise["suites"] == {s: {"run_to_run": 0.08, "run_to_run_df": 10}
                                     for s in ("pytest-benchmark", "google-benchmark")}
    # the default declares 5% for micro-benchmark suites, its 3% for every other lane
    assert mr.Policy.default().noise["suites"]["pytest-benchmark"]["run_to_run"] == pytest.approx(0.05)
    assert mr.Policy.default().noise["run_to_run"] == pytest.approx(0.03)
    assert mlperf.noise["max_rel_spread"] == pytest.approx(0.10)
    assert mlperf.noise["run_to_run"] == pytest.approx(0.056) and mlperf.noise["run_to_run_df"] == 6
    default = mr.Policy.default()
    assert micro.dimensions == default.dimensions
    # mlperf.lua keys lanes on the software stack too (submitter + system + software)
    mlperf_dims, default_dims = dict(mlperf.dimensions), dict(default.dimensions)
    assert mlperf_dims.pop("software")["role"] == "must_match"
    assert default_dims.pop("software")["role"] == "qualify"
    assert mlperf_dims == default_dims


def _gate_failures(report):
    return sorted(c.get("id", "") for c in report.candidates if c.get("outcome") == "failed")


# The four gates below judge real timings of this machine, and each must fail
# by chance less than once in a thousand runs. One run a side under
# micro_benchmark.lua's 5% allowance did not: an unchanged test_join was once
# flagged in a fresh clone (issue #46). So:
#  1. The regressions are huge (5x and 4x the work: +300-400%) and the gate is
#     asked only for regressions beyond 50% (WIDE: micro_benchmark.lua's 8%
#     noise, max_regression 0.5); the runs time CPU (pytest-benchmark's
#     process_time, Google Benchmark's cpu_time), which other jobs do not
#     take. An unchanged benchmark is then flagged only when its one run lands
#     far more than 50% off the baseline's. Measured here (2026-11-29, 16 runs
#     of BENCH_FILE, every other one beside two busy processes of
#     benchmarks/stats/mixed_noise/busy_load.py): the largest move of a median
#     among 120 pairs was 6.3% on CPU time (7.1% on the wall clock); Google
#     Benchmark CPU-time medians of the mixed-noise suite moved at most 22% in
#     702 pairs of unchanged runs, idle and loaded, but for a memory-bound
#     8 MiB copy (75%; benchmarks/stats/data/mixed-noise-*.tar.xz). A false
#     failure needs a move several times the largest seen.
#  2. A merge whose outcome is not the expected one is followed by a second,
#     independent one (fresh runs), its report printed: the test fails only
#     when both go wrong (p squared for a merge's chance p: under 1 in 1000
#     while p is under 1 in 30), and every time on a real fault.
WIDE = mr.Policy.from_string('return { include = {"micro_benchmark.lua"}, name = "micro-wide", '
                             'gate = { max_regression = 0.5 } }', str(REPO / "policy" / "micro_wide.lua"))


def _first_of_two_merges(first: dict, remake, fmt: str, slowed: str, accept):
    """The gate on the fixture's runs (baseline against `slowed`: "noise" or
    "slow"), and when `accept` refuses its report, on a second, independent
    pair that `remake(name)` runs afresh; returns the last report."""
    pairs = [(first["base"], first[slowed]), None]
    for attempt in (0, 1):
        base_path, cand_path = pairs[attempt] or (remake("base2"), remake(f"{slowed}2"))
        report = mr.gate(mr.import_results(fmt, base_path), mr.import_results(fmt, cand_path), WIDE)
        if accept(report):
            return report
        print(f"{fmt}: merge {attempt + 1} was not the expected outcome:\n{report}")
    return report


def _pytest_remake(tmp_path):
    return lambda name: run_pytest_benchmark(tmp_path, name, BENCH_FILE, {"MCPP_SLOW": "1" if "slow" in name else "0"},
                                             timer=CPU_TIMER)


def _gbench_remake(tmp_path):
    return lambda name: run_google_benchmark(tmp_path, name, {"MCPP_SLOW_SORT": 4 if "slow" in name else 1})


def _names_only(word: str):
    return lambda report: len(_gate_failures(report)) == 2 and all(word in i for i in _gate_failures(report))


def test_gate_over_pytest_benchmark_imports_names_the_regressed_benchmarks(pytest_runs, tmp_path):
    report = _first_of_two_merges(pytest_runs, _pytest_remake(tmp_path), "pytest-benchmark", "slow",
                                  _names_only("test_sorted"))
    assert report.outcome == "failed", str(report)
    failed = _gate_failures(report)
    assert len(failed) == 2 and all("test_sorted" in i for i in failed), str(report)
    assert all("on time_s (lower is better)" in c["reason"] for c in report.candidates if c["outcome"] == "failed")


def test_gate_over_pytest_benchmark_imports_passes_on_noise(pytest_runs, tmp_path):
    report = _first_of_two_merges(pytest_runs, _pytest_remake(tmp_path), "pytest-benchmark", "noise",
                                  lambda r: r.outcome in ("passed", "inconclusive"))
    assert report.outcome in ("passed", "inconclusive"), str(report)


def test_gate_over_google_benchmark_imports_names_the_regressed_benchmarks(gbench_runs, tmp_path):
    report = _first_of_two_merges(gbench_runs, _gbench_remake(tmp_path), "google-benchmark", "slow",
                                  _names_only("BM_Sort"))
    assert report.outcome == "failed", str(report)
    failed = _gate_failures(report)
    assert len(failed) == 2 and all("BM_Sort" in i for i in failed), str(report)


def test_gate_over_google_benchmark_imports_passes_on_noise(gbench_runs, tmp_path):
    report = _first_of_two_merges(gbench_runs, _gbench_remake(tmp_path), "google-benchmark", "noise",
                                  lambda r: r.outcome in ("passed", "inconclusive"))
    assert report.outcome in ("passed", "inconclusive"), str(report)


# MLPerf time-to-train varies run to run by more than the default policy's 5%
# (the Dell runs spread 5.4%, NVIDIA's 9%): the shipped mlperf.lua allows 10%,
# so the Dell lane is stable and the claim can be decided against it.


def test_claim_quoting_another_systems_time_to_train_is_contradicted(mlperf_dir):
    rs = mr.import_results("mlperf", mlperf_dir)
    policy = mr.Policy.shipped("mlperf")
    nvidia = _by(rs, NVIDIA, 1)
    nvidia_ttt = nvidia.metric("time_to_train_s")["value"]
    result = mr.claim(rs, lane=f"system={DELL}", value=nvidia_ttt, metric="time_to_train_s", policy=policy)
    assert result.verdict == "contradicted"
    nvidia_lane = next(lane for lane in mr.frontier(rs, policy, metric="time_to_train_s")
                       if nvidia.id in lane.receipts)
    assert nvidia_lane.short_key in result.reason  # where the number really came from
    assert result.to_dict()["unit"] == "s"


def test_a_claim_in_another_unit_is_refused(mlperf_dir):
    rs = mr.import_results("mlperf", mlperf_dir)
    minutes = _by(rs, DELL, 1).metric("time_to_train_s")["value"] / 60
    with pytest.raises(mr.Error, match="the claim states time_to_train_s in 'min'"):
        mr.claim(rs, lane=f"system={DELL}", value=minutes, metric="time_to_train_s", unit="min")


def test_gate_with_metric_gates_on_that_metric(pytest_runs):
    base = mr.import_results("pytest-benchmark", pytest_runs["base"])
    slow = mr.import_results("pytest-benchmark", pytest_runs["slow"])
    report = mr.gate(base, slow, metric="time_s")
    assert {m["name"] for c in report.candidates for m in c["metrics"]} == {"time_s"}
    assert report.outcome == "failed"
    with pytest.raises(mr.ArgumentError, match="no receipt states the metric 'no_such_metric'"):
        mr.gate(base, slow, metric="no_such_metric")  # a misspelling, not an undetermined gate (issue 49)
    default = mr.gate(base, slow)
    assert all(c["metrics"][0]["name"] == "primary" for c in default.candidates)
    assert {c["metric"]["name"] for c in default.candidates if c["metric"]} == {"time_s"}


# ---- the formats added through the importer registry ------------------------------
# hyperfine, pyperf, asv, go-bench and mlperf-inference: the committed outputs of
# the real tools (tests/data/make_import_data.sh; tests/import/import_formats_test.py
# checks their field mapping field by field), and pyperf run here.

DATA = REPO / "tests" / "data"
REGISTRY_INPUTS = [
    ("hyperfine", DATA / "hyperfine" / "base.json", 2, "wall_time_s", "run"),
    ("pyperf", DATA / "pyperf" / "base.json", 2, "time_s", "run"),
    ("asv", DATA / "asv" / "base" / "results", 6, None, None),
    ("go-bench", DATA / "go" / "base.jsonl", 3, "time_per_op_s", "repetition"),
    ("mlperf-inference", DATA / "mlperf-inference" / "base", 2, None, "run"),
]


@pytest.mark.parametrize("fmt,path,count,primary,kind", REGISTRY_INPUTS, ids=[i[0] for i in REGISTRY_INPUTS])
def test_registry_formats_import_through_python(fmt, path, count, primary, kind):
    rs = mr.import_results(fmt, path)
    assert len(rs) == count
    assert all(r["source.tool"] == f"mcpp-receipts import {fmt}" for r in rs)
    for r in rs:
        assert r.primary_metric
        m = r.metric(r.primary_metric)
        assert m["unit"] and m["direction"] in ("lower", "higher")
        if primary:
            assert r.primary_metric == primary
        if kind:
            assert m["sample_kind"] == kind


@pytest.mark.parametrize("fmt,path", [i[:2] for i in REGISTRY_INPUTS], ids=[i[0] for i in REGISTRY_INPUTS])
def test_registry_formats_told_the_commit_record_it_unless_the_input_names_another(fmt, path):
    commit = "0123456789abcdef0123456789abcdef01234567"
    named = {r["source.git_commit"] for r in mr.import_results(fmt, path)}
    if named == {None}:  # the tool never records it: every receipt now names the commit told
        assert {r["source.git_commit"] for r in mr.import_results(fmt, path, commit=commit)} == {commit}
    else:  # asv results name theirs: another one is refused
        with pytest.raises(mr.ValidationError, match="the input names commit"):
            mr.import_results(fmt, path, commit=commit)


def test_registry_format_refuses_another_tools_file_naming_it(tmp_path):
    path = DATA / "go" / "base.txt"
    with pytest.raises(mr.ParseError) as e:
        mr.import_results("asv", path, out=tmp_path / "out")
    assert (e.value.path, e.value.line) == (str(path), 1)
    assert not (tmp_path / "out").exists()


PYPERF_BENCH = DATA / "pyperf" / "bench_sort.py"


@pytest.fixture(scope="module")
def pyperf_runs(tmp_path_factory):
    """The real pyperf (scripts/test-python.sh installs it): 4 worker processes of
    3 values; slow sorts ten times per loop (MCPP_SLOW=10)."""
    tmp = tmp_path_factory.mktemp("pyperf")
    runs = {}
    for name, slow in (("base", "1"), ("slow", "10")):
        out = tmp / f"{name}.json"
        proc = subprocess.run(
            [sys.executable, str(PYPERF_BENCH), "--processes", "4", "--values", "3", "--warmups", "1",
             "--min-time", "0.01", "--inherit-environ", "MCPP_SLOW", "-o", str(out), "-q"],
            env=dict(os.environ, MCPP_SLOW=slow), capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        runs[name] = out
    return runs


def test_pyperf_worker_runs_are_samples_of_kind_run(pyperf_runs):
    raw = json.loads(pyperf_runs["base"].read_text())
    rs = mr.import_results("pyperf", pyperf_runs["base"])
    for r, b in zip(rs, raw["benchmarks"]):
        means = [statistics.fmean(run["values"]) for run in b["runs"] if run.get("values")]
        m = r.metric("time_s")
        assert len(means) == 4 and m["sample_kind"] == "run"
        assert list(m["samples"]) == pytest.approx(means, rel=1e-15)
        assert m["value"] == pytest.approx(statistics.fmean(means), rel=1e-12)
        assert r["hardware.host.cpu"] == raw["metadata"]["cpu_model_name"]


def test_gate_with_the_default_policy_fails_the_pyperf_run_doing_ten_times_the_work(pyperf_runs):
    # pyperf times the wall clock, and the gate reads the noise from the spread
    # of the 4 worker processes: under load (2026-11-29, load average 14 on 2
    # cores) an unchanged sort_5000 spread 630 +- 265 us, and 3x the work once
    # came out "passed" (its interval reached down to +48%). 10x the work is
    # a change of 2.3 in log time, several times what that spread lets pass.
    base = mr.import_results("pyperf", pyperf_runs["base"])
    slow = mr.import_results("pyperf", pyperf_runs["slow"])
    report = mr.gate(base, slow)
    assert report.outcome == "failed"
    assert any("sort_5000" in i for i in _gate_failures(report))
