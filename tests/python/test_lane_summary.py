"""LaneSummary (build, merge, serialize/deserialize, equality, pickling),
Frontier.from_summaries against frontier(), and pickling of every analysis
result and of policies, also through a real process pool."""

from __future__ import annotations

import json
import pickle
import random
import shutil
from concurrent.futures import ProcessPoolExecutor

import pytest

import mcpp_receipts as mr
from conftest import EXAMPLES, variant
from receipt_sets import receipt_set


def _receipts(seed: int) -> list[mr.Receipt]:
    return [mr.loads(json.dumps(d)) for d in receipt_set(seed)]


def test_summaries_of_receipts_are_the_frontier_lanes():
    rs = _receipts(1)
    summaries, duplicates = mr.LaneSummary.of_receipts(rs)
    fr = mr.frontier(rs)
    assert duplicates == fr.to_dict()["duplicates"] == 8
    assert [s.key for s in summaries] == [lane.key for lane in fr.lanes]
    for s, lane in zip(summaries, fr.lanes):
        assert s.status == lane.status
        assert s.reasons == lane.reasons
        assert s.receipt_count == len(lane.receipts) + len(lane.excluded)  # excluded runs count too
        if lane.headline is None:
            assert s.headline is None
        else:
            assert s.headline["median"] == lane.headline.median
            assert s.headline["n"] == lane.headline.n


@pytest.mark.parametrize("seed", range(6))
def test_merged_partitions_equal_the_whole(seed):
    rng = random.Random(seed)
    by_lane: dict[str, list] = {}
    for r in _receipts(seed):
        by_lane.setdefault(mr.lane_key(r)[0], []).append(r)
    rs = max(by_lane.values(), key=len)
    assert len(rs) >= 8
    whole = mr.LaneSummary()
    parts = [mr.LaneSummary() for _ in range(rng.randrange(1, 5))]
    seen = set()
    for r in rs:
        if (mr.lane_key(r)[0], r.id) in seen:
            continue  # a summary is a multiset: leave the second copies out
        seen.add((mr.lane_key(r)[0], r.id))
        whole.add(r)
        rng.choice(parts).add(r)
    merged = mr.LaneSummary()
    for p in rng.sample(parts, len(parts)):
        merged.merge(p)
    assert merged == whole
    assert not merged != whole
    assert merged.serialize() == whole.serialize()
    assert merged.duplicate_ids() == []
    twice = mr.LaneSummary()
    twice.merge(whole)
    twice.merge(parts[0] if parts[0].receipt_count else whole)
    assert twice != whole
    assert twice.duplicate_ids() != []


def test_serialize_round_trip_and_pickle():
    for s in mr.LaneSummary.of_receipts(_receipts(2))[0]:
        back = mr.LaneSummary.deserialize(s.serialize())
        assert back == s and back.serialize() == s.serialize()
        assert isinstance(back, mr.LaneSummary)
        un = pickle.loads(pickle.dumps(s))
        assert un == s and un.status == s.status and un.reasons == s.reasons


def test_summary_refuses_other_lanes_bad_text_and_other_policies():
    a, b = (mr.loads(json.dumps(variant({"workload.seq_len": n}, id=f"x{n}"))) for n in (1024, 2048))
    s = mr.LaneSummary()
    s.add(a)
    with pytest.raises(mr.Error, match="another lane"):
        s.add(b)
    t = mr.LaneSummary()
    t.add(b)
    with pytest.raises(mr.Error, match="different lanes"):
        s.merge(t)
    with pytest.raises(TypeError):
        s.merge("not a summary")
    with pytest.raises(mr.Error, match="not a JSON object"):
        mr.LaneSummary.deserialize("{")
    text = s.serialize()
    with pytest.raises(mr.Error, match="ok must be a count"):
        mr.LaneSummary.deserialize(text.replace('"ok": 1', '"ok": -1'))
    lenient = mr.Policy.from_string("return { name = 'one_run', noise = { min_runs = 1 } }", "one_run.lua")
    assert s.status == "unstable"
    with pytest.raises(mr.Error, match="another policy"):
        mr.LaneSummary.deserialize(text, lenient)
    with pytest.raises(mr.Error, match="another policy or metric"):
        mr.Frontier.from_summaries([s, mr.LaneSummary.of_receipts([a], lenient)[0][0]])


def test_frontier_from_summaries_equals_frontier():
    for policy in (None, mr.Policy.shipped("strict")):
        rs = _receipts(3)
        summaries, duplicates = mr.LaneSummary.of_receipts(rs, policy)
        got = mr.Frontier.from_summaries(reversed(summaries), duplicates=duplicates)
        want = mr.frontier(rs, policy)
        assert got.to_dict() == want.to_dict()
        assert got.to_text() == want.to_text()
        assert got.to_markdown() == want.to_markdown()


def _example_results():
    rs = mr.load_dir(EXAMPLES)
    return [
        mr.frontier(rs),
        mr.compare(rs[0], rs[1]),
        mr.claim(rs, lane="family=NAM56R", value=380000),
        mr.gate(rs[2:], rs[:2]),
    ]


def test_results_pickle_with_their_renderings():
    for result in _example_results():
        back = pickle.loads(pickle.dumps(result))
        assert type(back) is type(result)
        assert back.to_dict() == result.to_dict()
        assert back.to_text() == result.to_text()
        assert back.to_markdown() == result.to_markdown()
        assert back.errors == ()


def test_policies_pickle_as_their_recipe(tmp_path):
    text = "return { include = { 'default.lua' }, name = 'mine', noise = { min_runs = 2 } }"
    shutil.copy(mr.Policy.shipped("default").source, tmp_path / "default.lua")
    (tmp_path / "mine.lua").write_text(text)
    made = [mr.Policy.default(), mr.Policy.shipped("strict"), mr.Policy.from_file(tmp_path / "mine.lua"),
            mr.Policy.from_string("return { name = 'inline', gate = { max_regression = 0.2 } }")]
    for p in made:
        back = pickle.loads(pickle.dumps(p))
        assert back is p  # the pickling process gets its own object back
        assert (back.name, back.noise, back.gate) == (p.name, p.noise, p.gate)
    assert made[2].noise["min_runs"] == 2
    again = mr.Policy.shipped("strict")  # a second object of the same recipe
    assert pickle.loads(pickle.dumps(again)) is again
    assert pickle.loads(pickle.dumps(made[1])) is made[1]


def _in_worker(blob: bytes) -> tuple:
    """Runs in another process: unpickles policies and results, and reports."""
    policies, frontier, summary = pickle.loads(blob)
    again = pickle.loads(pickle.dumps(policies[0]))
    return ([(p.name, p.noise, p.gate) for p in policies], again is policies[0], frontier.to_text(),
            summary.serialize(), summary.policy is policies[0])


def test_process_pool_round_trip(tmp_path):
    shutil.copy(mr.Policy.shipped("default").source, tmp_path / "default.lua")
    (tmp_path / "mine.lua").write_text("return { include = { 'default.lua' }, name = 'mine', "
                                       "noise = { min_runs = 2 } }")
    policies = [mr.Policy.shipped("strict"), mr.Policy.from_file(tmp_path / "mine.lua"),
                mr.Policy.from_string("return { name = 'inline', gate = { max_regression = 0.2 } }")]
    rs = _receipts(4)
    fr = mr.frontier(rs, policies[0])
    summary = mr.LaneSummary.of_receipts(rs, policies[0])[0][0]
    with ProcessPoolExecutor(max_workers=1) as pool:
        settings, same, text, serialized, shares = pool.submit(
            _in_worker, pickle.dumps((policies, fr, summary))).result()
    assert settings == [(p.name, p.noise, p.gate) for p in policies]
    assert settings[1][1]["min_runs"] == 2 and settings[2][2]["max_regression"] == 0.2
    assert same and shares
    assert text == fr.to_text()
    assert serialized == summary.serialize()
