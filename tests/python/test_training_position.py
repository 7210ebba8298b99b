"""The training position (issue 27 item 14), the compile cache's location and
the head count from Python: typed fields, pandas columns, the `position`
dimension, and the 32-bit counts refusing what they cannot hold."""

from __future__ import annotations

import json

import pytest

import mcpp_receipts as mr
from conftest import variant


def at(step: int, tokens: int, **top) -> mr.Receipt:
    return mr.loads(json.dumps(variant({"run.position.step": step, "run.position.tokens_seen": tokens,
                                        "compile.cache": "/var/cache/inductor"}, **top)))


def test_position_fields_read_typed_and_round_trip():
    r = at(20, 20971520, id="a")
    assert r["run.position.step"] == 20 and r.run.position.step == 20
    assert r.run.position.tokens_seen == 20971520
    assert r.compile.cache == "/var/cache/inductor"
    assert mr.loads(r.to_yaml(), "yaml")["run.position.tokens_seen"] == 20971520


def test_position_columns_are_nullable_integers_in_pandas():
    pd = pytest.importorskip("pandas", reason="pandas is the [pandas] extra (scripts/test-python.sh installs it)")
    df = mr.ReceiptSet([at(20, 20971520, id="a"), mr.loads(json.dumps(variant(id="b")))]).to_pandas()
    assert str(df["run.position.step"].dtype) == "Int64"
    assert df["run.position.step"].tolist()[0] == 20 and df["run.position.step"].isna().tolist() == [False, True]
    assert pd.api.types.is_string_dtype(df["compile.cache"]) or df["compile.cache"].dtype == object


def test_a_warmup_window_against_steady_state_is_qualified_by_position():
    c = mr.compare(at(20, 20971520, id="a"), at(6000, 6291456000, id="b"))
    assert c.verdict == "qualified"
    row = next(r for r in c.rows if r.name == "position")
    assert row.status == "qualify" and "run.position.step differs: 20 vs 6000" in row.reason
    # one power-of-two range: the same position
    same = mr.compare(at(5000, 5242880000, id="a"), at(6000, 6291456000, id="b"))
    assert next(r for r in same.rows if r.name == "position").status == "match"


def test_a_count_beyond_32_bits_is_refused_naming_the_field():
    with pytest.raises(mr.ValidationError, match="topology.tp"):
        mr.loads(json.dumps(variant({"topology.tp": 2**31})))
    r = mr.loads(json.dumps(variant({"lane.params_total": 2**40})))
    assert r["lane.params_total"] == 2**40
