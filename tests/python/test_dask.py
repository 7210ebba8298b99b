"""mcpp_receipts.dask on a real dask.distributed.LocalCluster (2 worker
processes): the distributed frontier equals frontier() exactly on random
partitionings of generated receipt sets (lanes split across partitions, runs
loaded twice in different partitions, some with different numbers); claims
and the gate on the same basis; errors stop the job naming the file, or are
collected with errors="skip"; fsspec URLs and Bags as inputs; policies
travel to the workers."""

from __future__ import annotations

import json
import pathlib
import random

import pytest

import mcpp_receipts as mr

distributed = pytest.importorskip("dask.distributed", reason="the [dask] extra is not installed")
import dask.bag  # noqa: E402

import mcpp_receipts.dask as md  # noqa: E402
from receipt_sets import receipt_set  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def write_shards(folder: pathlib.Path, runs: list[dict], rng: random.Random) -> list[mr.Receipt]:
    """Writes the runs in order into files of random sizes (JSONL shards,
    single JSON files); returns the receipts in the order the files sort."""
    folder.mkdir(parents=True, exist_ok=True)
    at, k = 0, 0
    while at < len(runs):
        size = rng.choice((1, 3, 7, 12, 20))
        chunk = runs[at:at + size]
        if len(chunk) == 1:
            (folder / f"part-{k:04d}.json").write_text(json.dumps(chunk[0]))
        else:
            (folder / f"part-{k:04d}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chunk))
        at += size
        k += 1
    return [mr.loads(json.dumps(r)) for r in runs]


def lane_files(folder: pathlib.Path) -> dict[tuple[str, str], set[str]]:
    """(lane key, id) -> the files holding it."""
    where: dict[tuple[str, str], set[str]] = {}
    for f in sorted(folder.iterdir()):
        for line in f.read_text().splitlines():
            r = mr.loads(line)
            where.setdefault((mr.lane_key(r)[0], r.id), set()).add(f.name)
    return where


@pytest.mark.parametrize("seed", range(5))
def test_distributed_frontier_equals_frontier(client, tmp_path, seed):
    rng = random.Random(seed)
    runs = receipt_set(seed, n=rng.randrange(60, 200))
    receipts = write_shards(tmp_path / "r", runs, rng)
    want = mr.frontier(receipts)
    # The set really has what the test is about.
    assert want.to_dict()["duplicates"] > 0
    assert any(len(files) > 1 for files in lane_files(tmp_path / "r").values())
    assert any(len(lane.receipts) > 3 for lane in want.lanes) and want.stable and want.unstable
    npartitions = rng.randrange(2, 9)
    # ... and a run loaded twice lies in two partitions (not only two files).
    partition_of = {pathlib.Path(f).name: k for k, part in enumerate(md._partitions(tmp_path / "r", npartitions))
                    for f in part}
    assert any(len({partition_of[f] for f in files}) > 1 for files in lane_files(tmp_path / "r").values())
    got = md.frontier(tmp_path / "r", npartitions=npartitions, split_every=rng.choice((2, 3, 8)))
    assert got.to_dict() == want.to_dict()
    assert got.to_text() == want.to_text()
    assert got.errors == ()


def test_policy_travels_to_the_workers(client, tmp_path):
    policy = mr.Policy.from_string("return { name = 'two_runs', noise = { min_runs = 2, max_rel_spread = 0.2 } }",
                                   "two_runs.lua")
    receipts = write_shards(tmp_path / "r", receipt_set(11), random.Random(11))
    want = mr.frontier(receipts, policy)
    assert want.to_dict() != mr.frontier(receipts).to_dict()
    got = md.frontier(tmp_path / "r", policy, npartitions=4)
    assert got.policy == "two_runs"
    assert got.to_dict() == want.to_dict()
    strict = mr.Policy.shipped("strict")
    assert md.frontier(tmp_path / "r", strict, npartitions=3).to_dict() == mr.frontier(receipts, strict).to_dict()
    # Another object of the same policy: results from the workers must come back under it.
    again = mr.Policy.shipped("strict")
    assert md.frontier(tmp_path / "r", again, npartitions=3).to_dict() == mr.frontier(receipts, again).to_dict()


def test_bag_of_receipts_and_file_urls(client, tmp_path):
    receipts = write_shards(tmp_path / "r", receipt_set(12), random.Random(12))
    want = mr.frontier(receipts).to_dict()
    assert md.frontier(dask.bag.from_sequence(receipts, npartitions=6)).to_dict() == want
    assert md.frontier("file://" + str(tmp_path / "r"), npartitions=3).to_dict() == want
    files = md.receipt_files(tmp_path / "r")
    assert md.frontier(dask.bag.from_sequence(files, npartitions=4)).to_dict() == want
    assert md.frontier(str(tmp_path / "r" / "part-*.json*"), npartitions=5).to_dict() == want


@pytest.mark.parametrize("selector", ["seq_len=2048", "seq_len=4096,top_k=2", "top_k=9", "LANE", "SHORT"])
def test_distributed_claim_equals_claim(client, tmp_path, selector):
    receipts = write_shards(tmp_path / "r", receipt_set(13), random.Random(13))
    fr = mr.frontier(receipts)
    lane = fr.stable[0] if fr.stable else fr.lanes[0]
    selector = {"LANE": lane.key, "SHORT": lane.short_key}.get(selector, selector)
    for value, metric in ((400000.0, None), (lane.headline.median if lane.headline else 1.0, None),
                          (2.6, "metrics.step_time_s.median")):
        want = mr.claim(receipts, lane=selector, value=value, metric=metric)
        got = md.claim(tmp_path / "r", lane=selector, value=value, metric=metric, npartitions=4)
        assert got.to_dict() == want.to_dict()
        assert got.to_text() == want.to_text()


def test_distributed_claim_refuses_what_claim_refuses(client, tmp_path):
    write_shards(tmp_path / "r", receipt_set(14, n=20), random.Random(14))
    with pytest.raises(mr.Error, match="unknown selector key"):
        md.claim(tmp_path / "r", lane="nonsense=1", value=1.0)
    with pytest.raises(mr.Error, match="not KEY=VALUE"):
        md.claim(tmp_path / "r", lane="no-such-lane", value=1.0)
    with pytest.raises(mr.Error, match="not a number field"):
        md.claim(tmp_path / "r", lane="seq_len=2048", value=1.0, metric="lane.name")


def test_distributed_claim_suggests_what_claim_suggests(client, tmp_path):
    """Issue 49 item 8: a misspelt metric (named, or in a policy file) and a
    misspelt selector value get the "did you mean" of mr.claim, though no single
    worker sees every receipt; a value nobody measured stays a verdict."""
    receipts = write_shards(tmp_path / "r", receipt_set(14, n=20), random.Random(14))
    (tmp_path / "team.lua").write_text('return { include = { "default.lua" }, name = "team", '
                                       'gate = { metric = "tokens_per_sec" } }')
    team = mr.Policy.from_file(tmp_path / "team.lua")
    cases = [dict(lane="seq_len=2048", value=1.0, metric="tokens_per_sec"),
             dict(lane="seq_len=2048", value=1.0, policy=team),
             dict(lane="seq_len=2049", value=1.0),
             dict(lane="seq_len=4096,top_k=2,moe=paded", value=1.0)]
    for kw in cases:
        with pytest.raises(mr.ArgumentError, match="did you mean") as want:
            mr.claim(receipts, **kw)
        with pytest.raises(mr.ArgumentError, match="did you mean") as got:
            md.claim(tmp_path / "r", npartitions=4, **kw)
        assert str(got.value) == str(want.value)
    # the frontier and the gate under that policy file: the same suggestion
    with pytest.raises(mr.ArgumentError, match="did you mean") as want:
        mr.frontier(receipts, team)
    with pytest.raises(mr.ArgumentError, match="did you mean") as got:
        md.frontier(tmp_path / "r", team, npartitions=4)
    assert str(got.value) == str(want.value)
    with pytest.raises(mr.ArgumentError, match="policy 'team' gates on the metric 'tokens_per_sec'.*did you mean"):
        md.gate(tmp_path / "r", receipts[:2], team, npartitions=4)
    unmeasured = dict(lane="seq_len=16384", value=1.0)
    assert md.claim(tmp_path / "r", npartitions=4, **unmeasured).verdict == \
        mr.claim(receipts, **unmeasured).verdict == "unsupported"


def test_distributed_gate_equals_gate(client, tmp_path):
    runs = receipt_set(15)
    receipts = write_shards(tmp_path / "r", runs, random.Random(15))
    base = receipts[0]
    candidates = [
        mr.loads(json.dumps({**json.loads(base.to_json()), "id": "cand-slower",
                             "metrics": {**json.loads(base.to_json())["metrics"], "tokens_per_s": 300000.0}})),
        receipts[5],
        mr.loads(json.dumps({**json.loads(base.to_json()), "id": "cand-elsewhere",
                             "workload": {**json.loads(base.to_json())["workload"], "seq_len": 65536}})),
    ]
    want = mr.gate(receipts, candidates)
    got = md.gate(tmp_path / "r", candidates, npartitions=5)
    baselines = [c["baselines"] for c in want.to_dict()["candidates"]]
    assert baselines[0] > 0 and baselines[1] > 0 and baselines[2] == 0
    assert "no comparable baseline among" in want.to_dict()["candidates"][2]["reason"]
    # The same decisions, tallies, pools and metrics. What kept baselines out
    # of an empty pool can only be named from those the workers sent back.
    g, w = got.to_dict(), want.to_dict()
    assert {k: v for k, v in g.items() if k not in ("candidates", "reason")} == \
        {k: v for k, v in w.items() if k not in ("candidates", "reason")}
    for gc, wc in zip(g["candidates"], w["candidates"], strict=True):
        for key in ("id", "lane", "outcome", "reason_code", "baselines", "verdicts", "metric", "metrics"):
            assert gc[key] == wc[key], key
        assert [p["id"] for p in gc["pooled"]] == [p["id"] for p in wc["pooled"]]
        if wc["baselines"]:
            assert gc["reason"] == wc["reason"] and gc["differences"] == wc["differences"]
        else:
            assert gc["reason"].split(":")[0] == wc["reason"].split(":")[0]


def test_a_bad_file_stops_the_job_naming_it(client, tmp_path):
    write_shards(tmp_path / "r", receipt_set(16, n=40), random.Random(16))
    bad = tmp_path / "r" / "part-0002.jsonl"
    lines = bad.read_text().splitlines() if bad.exists() else []
    bad.write_text("\n".join(lines[:1] + ['{"schema": "mcpp.receipt/1", "id": 7}'] + lines[1:]) + "\n")
    with pytest.raises(md.PartitionError) as info:
        md.frontier(tmp_path / "r", npartitions=3)
    assert info.value.path.startswith(str(bad) + ":2")
    assert "id" in str(info.value)


def test_skip_collects_bad_files_and_goes_on(client, tmp_path):
    runs = receipt_set(17, n=50)
    receipts = write_shards(tmp_path / "r", runs, random.Random(17))
    (tmp_path / "r" / "part-0000a.json").write_text("{ not json")
    (tmp_path / "r" / "zz-broken.yaml").write_text("schema: [unclosed\n")
    got = md.frontier(tmp_path / "r", errors="skip", npartitions=4)
    assert got.to_dict() == mr.frontier(receipts).to_dict()
    assert sorted(pathlib.Path(e.path.split(":")[0]).name for e in got.errors) == ["part-0000a.json",
                                                                                  "zz-broken.yaml"]
    assert all(isinstance(e, md.PartitionError) for e in got.errors)
    with pytest.raises(md.PartitionError, match="part-0000a.json|zz-broken.yaml"):  # whichever worker fails first
        md.frontier(tmp_path / "r", npartitions=4)
    with pytest.raises(ValueError, match="errors must be"):
        md.frontier(tmp_path / "r", errors="ignore")


def test_missing_input_and_empty_folder(client, tmp_path):
    with pytest.raises(FileNotFoundError):
        md.frontier(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    empty = md.frontier(tmp_path / "empty")
    assert empty.lanes == [] and empty.receipt_count == 0
