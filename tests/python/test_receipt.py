"""Receipt objects: loading from files and text, reading fields by section and
by path, canonical JSON/YAML, equality, and the read-only contract."""

from __future__ import annotations

import json
import pathlib

import pytest

import mcpp_receipts as mr
from conftest import BASE, variant


def test_loads_json_gives_a_receipt_with_the_stated_id(base_text):
    r = mr.loads(base_text)
    assert isinstance(r, mr.Receipt)
    assert r.id == "base-run1"


def test_load_accepts_str_and_pathlike(tmp_path, base_text):
    p = tmp_path / "r.json"
    p.write_text(base_text)
    assert mr.load(str(p)) == mr.load(p)
    assert mr.load(p).filename == str(p)


def test_attribute_access_by_section_reads_typed_values(base_text):
    r = mr.loads(base_text)
    assert r.routing.top_k == 6 and isinstance(r.routing.top_k, int)
    assert r.routing.capacity_factor == 1.25
    assert r.backend.moe.observed == "padded"
    assert r.hardware.observed.count == 8
    assert r.topology.sp is True and r.topology.fsdp is False
    assert r.lane.pattern == "AEMEAEMEAEMR"


def test_path_access_matches_attribute_access(base_text):
    r = mr.loads(base_text)
    assert r["routing.top_k"] == r.routing.top_k == 6
    assert r["backend.moe.observed"] == "padded"
    assert r.get("routing.top_k") == 6


def test_lists_come_back_as_tuples_and_free_form_objects_as_dicts(base_text):
    r = mr.loads(base_text)
    samples = r.metrics.step_time_s.samples
    assert isinstance(samples, tuple) and samples[0] == pytest.approx(2.617)
    assert r.extra == {"team": "perf-moe"}
    assert r["extra.team"] == "perf-moe"


def test_absent_field_reads_none_and_unknown_path_raises_keyerror(base_text):
    r = mr.loads(base_text)
    assert r.status.blocker is None
    assert r["status.blocker"] is None
    assert "status.blocker" not in r and "routing.top_k" in r
    with pytest.raises(KeyError):
        r["routing.top_kk"]
    assert r.get("routing.top_kk", "dflt") == "dflt"
    with pytest.raises(AttributeError, match="top_kk"):
        r.routing.top_kk
    with pytest.raises(AttributeError):
        r.not_a_section


def test_receipt_is_read_only(base_text):
    r = mr.loads(base_text)
    with pytest.raises(AttributeError):
        r.routing = None
    with pytest.raises(AttributeError):
        r.routing.top_k = 8
    with pytest.raises(TypeError):
        r["routing.top_k"] = 8  # type: ignore[index]
    d = r.to_dict()
    d["routing"]["top_k"] = 99
    assert r.routing.top_k == 6


def test_section_to_dict_and_keys_list_only_present_fields(base_text):
    r = mr.loads(base_text)
    assert r.routing.to_dict() == BASE["routing"]
    assert "blocker" not in r.status.keys()
    assert r.backend.moe.to_dict() == {"requested": "padded", "observed": "padded"}


def test_to_dict_round_trips_to_an_equal_receipt(base_text):
    r = mr.loads(base_text)
    assert mr.loads(json.dumps(r.to_dict())) == r


def test_canonical_json_round_trip_is_byte_identical(base_text):
    text = mr.loads(base_text).to_json()
    assert mr.loads(text).to_json() == text


def test_yaml_and_json_of_the_same_receipt_are_equal_and_hash_alike(base_text):
    r = mr.loads(base_text)
    y = mr.loads(r.to_yaml(), format="yaml")
    assert y == r and hash(y) == hash(r)
    assert len({r, y}) == 1
    assert mr.loads(r.to_yaml(), format="auto") == r


def test_different_receipts_are_not_equal(base_text):
    a = mr.loads(base_text)
    b = mr.loads(json.dumps(variant({"routing.top_k": 2})))
    assert a != b
    assert a != "not a receipt"


def test_repr_and_html_name_the_receipt(base_text):
    r = mr.loads(base_text)
    assert "base-run1" in repr(r) and "AEMEAEMEAEMR" in repr(r)
    page = r._repr_html_()
    assert "<table" in page and "routing.top_k" in page and "base-run1" in page


def test_flat_dict_uses_dotted_paths_in_schema_order(base_text):
    flat = mr.loads(base_text).to_flat_dict()
    assert flat["routing.top_k"] == 6
    assert list(flat).index("schema") < list(flat).index("routing.top_k")


def test_write_then_load_gives_the_same_receipt(tmp_path, base_text):
    r = mr.loads(base_text)
    r.write(tmp_path / "out.yaml")
    assert mr.load(tmp_path / "out.yaml") == r
    r.write(str(tmp_path / "out.json"), format="json")
    assert (tmp_path / "out.json").read_text().strip() == r.to_json().strip()


def test_receipts_cannot_be_constructed_directly():
    with pytest.raises(TypeError):
        mr.Receipt()


def test_schema_fields_are_exposed():
    assert "routing.top_k" in mr.FIELDS
    assert mr.FIELDS["routing.top_k"][0] == "int"
    assert "softmax" in mr.FIELDS["routing.score"][1]
