"""Builder: emitting receipts from a training script, with type checks at the
setter that made the mistake."""

from __future__ import annotations

import pytest

import mcpp_receipts as mr
from conftest import BASE


def fill(b: mr.Builder) -> mr.Builder:
    for section in ("lane", "routing", "topology"):
        for k, v in BASE[section].items():
            b.set(f"{section}.{k}", v)
    for k in ("seq_len", "micro_batch", "global_batch", "tokens_per_step"):
        b.set(f"workload.{k}", BASE["workload"][k])
    # 1100 useful tokens over the 1.1 s median step of the tests: 1000 tokens/s.
    b.set("workload.useful_tokens_per_step", 1100)
    b.set("workload.data.path", "synthetic")
    b.set("compile.posture", "eager").set("compile.warmup", "explicit")
    b.set("backend.precision", "bf16")
    b.set("hardware.observed.accelerator", "cpu").set("hardware.observed.count", 1)
    b.set("startup.state", "warm_cache")
    b.set("status.outcome", "ok").set("status.stability", "stable")
    return b


def test_builder_makes_a_receipt_with_derived_statistics():
    b = fill(mr.Builder())
    for t in (1.0, 1.2, 1.1, 1.3, 0.9):
        b.add_step_sample(t)
    b.set("metrics.tokens_per_s", 1000.0)
    r = b.finish()
    assert isinstance(r, mr.Receipt)
    assert r.routing.top_k == 6
    assert r.metrics.step_time_s.samples == (1.0, 1.2, 1.1, 1.3, 0.9)
    assert r.metrics.step_time_s.median == pytest.approx(1.1)
    assert r.id  # derived from a content hash when not set


def test_builder_sets_lists_objects_and_artifacts():
    b = fill(mr.Builder())
    b.set("status.caveats", ["synthetic data"]).append("status.caveats", "cpu only")
    b.set("extra.run", {"seed": 3, "tags": ["a"]})
    b.add_artifact("log", "file:///tmp/log.txt")
    r = b.finish()
    assert r.status.caveats == ("synthetic data", "cpu only")
    assert r.extra == {"run": {"seed": 3, "tags": ["a"]}}
    assert r.artifacts == [{"kind": "log", "uri": "file:///tmp/log.txt"}]


def test_builder_write_creates_a_loadable_file(tmp_path):
    path = tmp_path / "run.json"
    r = fill(mr.Builder()).write(path)
    assert mr.load(path) == r


def test_set_checks_the_schema_type_at_the_call():
    b = mr.Builder()
    with pytest.raises(TypeError, match="routing.top_k"):
        b.set("routing.top_k", "six")
    with pytest.raises(TypeError):
        b.set("topology.sp", 1)  # a bool field does not take an int
    with pytest.raises(TypeError):
        b.set("routing.top_k", True)  # nor an int field a bool
    with pytest.raises(KeyError):
        b.set("routing.top_kk", 6)


def test_set_refuses_out_of_range_values_and_bad_enums():
    b = mr.Builder()
    with pytest.raises(mr.ValidationError):
        b.set("compile.posture", "sometimes")
    with pytest.raises(mr.ValidationError):
        b.set("lane.depth", -1)
    with pytest.raises(mr.ValidationError):
        b.add_step_sample(float("nan"))


def test_finish_reports_inconsistent_receipts():
    b = fill(mr.Builder())
    b.set("lane.pattern", "AEMEAEMEAEMR").unset("routing.mode")
    with pytest.raises(mr.ValidationError) as info:
        b.finish()
    assert info.value.field is not None


def test_set_none_unsets_a_field():
    b = fill(mr.Builder())
    b.set("status.blocker", "x").set("status.blocker", None)
    assert b.finish().status.blocker is None


def test_update_sets_many_paths_and_chains():
    b = fill(mr.Builder())
    assert b.update({"routing.top_k": 2, "status.caveats": ["a"]}) is b
    r = b.finish()
    assert r.routing.top_k == 2 and r.status.caveats == ("a",)
    with pytest.raises(TypeError):
        b.update({"routing.top_k": "two"})


def test_an_empty_receipt_warns_that_it_can_never_be_compared():
    # the builder offers validate's check before finish: what the receipt
    # lacks to be compared at all under the default policy
    b = mr.Builder()
    gaps = b.comparability_gaps()
    assert gaps is not None and "pattern (lane.pattern, lane.depth)" in gaps and "hardware (" in gaps
    b.set("lane.pattern", "A")
    assert "pattern (" not in b.comparability_gaps()
    assert fill(mr.Builder()).comparability_gaps() is None
