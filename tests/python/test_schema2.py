"""Schema 2 from Python: new fields by section and path, named metrics
(Receipt.metric / metric_list / primary_metric), Builder.add_metric, and
schema-1 text still loading."""

from __future__ import annotations

import pytest

import mcpp_receipts as mr
from conftest import EXAMPLES

MLPERF = EXAMPLES / "schema2" / "mlperf_llama2_70b_lora.json"
PYTEST = EXAMPLES / "schema2" / "pytest_benchmark_sorted.yaml"


def test_schema_constant_is_schema_2():
    assert mr.SCHEMA == "mcpp.receipt/2"
    for path in ("benchmark.suite", "metrics.named", "lane.blocks.E", "backend.precision.observed",
                 "hardware.observed.source", "launch.cuda_graphs", "quality.target", "run.seed"):
        assert path in mr.FIELDS, path


def test_new_sections_read_like_the_old_ones():
    r = mr.load(MLPERF)
    assert r.benchmark.suite == "mlperf-training"
    assert r["benchmark.params"] == {"global_batch": 8, "lora_rank": 16}
    assert r.software.components["nemo"] == "24.09"
    assert r.features["fused_rope"] is True and r["features.fused_rope"] is True
    assert r["backend.precision.requested"] == "bf16+fp8"
    assert r.hardware.observed.source == "declared"
    assert r.run.index == 3 and r.run.of == 10
    assert r.quality.achieved == pytest.approx(0.9238)
    assert r.source.not_recorded == ("compile", "startup")


def test_named_metric_as_a_dict():
    r = mr.load(MLPERF)
    m = r.metric("time_to_train")
    assert m == {"name": "time_to_train", "unit": "min", "direction": "lower", "value": 24.31,
                 "aggregate": "single", "sample_kind": "run", "samples": (24.31,),
                 "well_known": False, "path": "metrics.named"}
    assert r.primary_metric == "time_to_train"
    with pytest.raises(KeyError):
        r.metric("tokens_per_s")


def test_well_known_metrics_are_metrics_by_name(base_text):
    base_receipt = mr.loads(base_text)
    tps = base_receipt.metric("tokens_per_s")
    assert (tps["unit"], tps["direction"], tps["well_known"]) == ("tokens/s", "higher", True)
    step = base_receipt.metric("step_time_s")
    assert step["sample_kind"] == "step" and len(step["samples"]) == 8
    assert step["value"] == pytest.approx(2.6135)
    names = [m["name"] for m in base_receipt.metric_list()]
    assert names[:3] == ["step_time_s", "tokens_per_s", "peak_memory_gib"]
    assert base_receipt.primary_metric == "tokens_per_s"


def test_yaml_twin_has_the_same_metrics():
    r = mr.load(PYTEST)
    assert [m["name"] for m in r.metric_list()] == ["round_time_s", "rounds_per_s"]
    assert r.metric("round_time_s")["samples"][0] == pytest.approx(0.00612)
    assert r.to_json() == mr.load(PYTEST.with_suffix(".json")).to_json()


def test_builder_add_metric_and_its_checks():
    b = mr.Builder()
    b.set("benchmark.suite", "google-benchmark").set("benchmark.name", "BM_Sort/1024")
    b.add_metric("real_time_ns", "ns", "lower", 2.0, aggregate="mean", sample_kind="repetition",
                 samples=[1.0, 3.0])
    b.set("metrics.primary", "real_time_ns")
    r = b.finish()
    assert r.metric("real_time_ns")["samples"] == (1.0, 3.0)
    assert r.primary_metric == "real_time_ns"
    with pytest.raises(ValueError):
        b.add_metric("x", "s", "sideways", 1.0)
    with pytest.raises(mr.ValidationError):
        b.add_metric("tokens_per_s", "tokens/s", "higher", 1.0)
    b.add_metric("wrong", "s", "lower", 9.0, aggregate="max", sample_kind="run", samples=[1.0])
    with pytest.raises(mr.ValidationError) as info:
        b.finish()
    assert "expected the max of the 1 samples" in str(info.value)


def test_schema_1_text_still_loads_upgraded():
    r = mr.loads('{"schema": "mcpp.receipt/1", "backend": {"precision": "fp16"}}')
    assert r.schema == "mcpp.receipt/2"
    assert r["backend.precision.observed"] == "fp16"
    assert r["backend.precision"] == "fp16"
