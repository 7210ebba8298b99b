"""pandas shows what the library computes (issue 29, item 7): a notebook user's
DataFrame agrees with the frontier, the gate and the history."""

from __future__ import annotations

import json

import pytest

import mcpp_receipts as mr
from conftest import EXAMPLES, REPO

pd = pytest.importorskip("pandas", reason="pandas is the [pandas] extra (scripts/test-python.sh installs it)")
MLPERF = REPO / "tests" / "data" / "mlperf-v3.1" / "Dell"


def steps_only(rid: str, scale: float = 1.0) -> mr.Receipt:
    """nam56r_padded with only its step samples: no median, no tokens_per_s."""
    d = json.loads((EXAMPLES / "nam56r_padded.json").read_text(encoding="utf-8"))
    d["id"] = rid
    d["metrics"].pop("tokens_per_s")
    d["metrics"]["step_time_s"] = {"samples": [s * scale for s in d["metrics"]["step_time_s"]["samples"]]}
    return mr.loads(json.dumps(d))


def test_a_receipt_with_only_step_samples_has_its_derived_metrics():
    rs = mr.ReceiptSet([steps_only("s1"), steps_only("s2", 1.01), steps_only("s3", 0.99)])
    df = rs.to_pandas()
    assert df["metrics.step_time_s.median"].dtype == "float64"
    assert df["metrics.tokens_per_s"].dtype == "float64"
    lane = mr.frontier(rs).lanes[0]
    # the frontier's headline is the median of the runs' derived tokens per second
    assert df["metrics.tokens_per_s"].median() == pytest.approx(lane.headline.median, rel=1e-9)
    first = rs[0]
    assert df["metrics.tokens_per_s"][0] == pytest.approx(
        first["workload.useful_tokens_per_step"] / df["metrics.step_time_s.median"][0])
    only = rs.to_pandas(columns=["metrics.tokens_per_s"])
    assert list(only.columns[4:]) == ["metrics.tokens_per_s"]
    assert only["metrics.tokens_per_s"].tolist() == df["metrics.tokens_per_s"].tolist()


def test_store_to_pandas_has_derived_tokens_and_the_primary_metric(tmp_path):
    store = mr.Store(tmp_path / "runs.db")
    store.add([steps_only("s1"), steps_only("s2", 1.01)])
    df = store.to_pandas()
    assert df["tokens_per_s"].dtype == "float64" and df["tokens_per_s"].notna().all()
    assert set(df["metric"]) == {steps_only("x").primary_metric} and df["value"].notna().all()


def test_imported_receipts_have_a_column_for_their_primary_metric_and_named_lanes():
    if not MLPERF.is_dir():
        pytest.fail(f"the MLPerf fixtures are missing: {MLPERF}")
    rs = mr.import_results("mlperf", MLPERF)
    df = rs.to_pandas()
    assert rs[0].primary_metric == "time_to_train_s"
    assert df["metrics.time_to_train_s"].dtype == "float64" and df["metrics.time_to_train_s"].notna().all()
    assert rs.to_pandas(columns=["metrics.time_to_train_s"]).shape == (len(rs), 5)
    # lanes read as the benchmark on the system, not lane-21efb3a4aae9
    assert all(label.startswith("dlrm_dcnv2 on ") for label in df["lane_label"]), df["lane_label"].tolist()
    assert not any(label.startswith("lane-") for label in df["lane_label"])
    with pytest.raises(mr.ArgumentError, match="unknown column 'metrics.time_to_trian_s'"):
        rs.to_pandas(columns=["metrics.time_to_trian_s"])


def test_bool_columns_are_boolean_not_object():
    df = mr.load_dir(EXAMPLES).to_pandas()
    for column in ("topology.sp", "topology.fsdp"):
        assert str(df[column].dtype) == "boolean", (column, df[column].dtype)


def test_no_field_columns_gives_the_row_columns_only():
    rs = mr.load_dir(EXAMPLES)
    df = rs.to_pandas(columns=[])
    assert list(df.columns) == ["id", "filename", "lane", "lane_label"] and len(df) == len(rs)


# The newer importers label their lanes too (issue 29, item 7's lane labels for
# hyperfine, pyperf, asv, go-bench and mlperf-inference): the notebook user's
# DataFrame and frontier read the benchmark (and, for MLPerf, the system), not
# lane-21efb3a4aae9.
DATA = REPO / "tests" / "data"
LABELLED = [
    ("hyperfine", DATA / "hyperfine" / "base.json", "sh "),
    ("pyperf", DATA / "pyperf" / "base.json", ""),
    ("asv", DATA / "asv" / "base" / "results", "benchmarks."),
    ("go-bench", DATA / "go" / "base.jsonl", "example.com/mcppbench.Benchmark"),
    ("mlperf-inference", DATA / "mlperf-inference" / "base", ""),
]


@pytest.mark.parametrize("fmt,path,prefix", LABELLED, ids=[i[0] for i in LABELLED])
def test_imported_lanes_are_labelled_by_their_benchmark(fmt, path, prefix):
    rs = mr.import_results(fmt, path)
    df = rs.to_pandas(columns=["benchmark.name"])
    assert not any(label.startswith("lane-") for label in df["lane_label"]), df["lane_label"].tolist()
    for label, name in zip(df["lane_label"], df["benchmark.name"]):
        assert label.startswith(prefix) and name in label, (label, name)
    if fmt == "mlperf-inference":
        # the benchmark, its scenario and the system under test, as MLPerf Training's "X on SYSTEM"
        r = rs[0]
        params = r["benchmark.params"]
        scenario = (params if isinstance(params, dict) else json.loads(params))["scenario"]
        want = f"{r['benchmark.name']} {scenario} on {r['benchmark.system']}"
        assert df["lane_label"][0].startswith(want), (df["lane_label"][0], want)
    # the frontier shows the same labels (lane_label is its display label)
    lanes = mr.frontier(rs).lanes
    assert {lane.display_label for lane in lanes} == set(df["lane_label"])
    assert all(not lane.label.startswith("lane-") for lane in lanes)
