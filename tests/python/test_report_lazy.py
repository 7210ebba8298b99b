"""A frontier and a gate report stay in C and their lanes (candidates) become
Python objects only when read (issue 50 item 5): the same documents as the
whole JSON the C renderer writes, lists that read as lists, and no Python
objects per lane until one is read."""

from __future__ import annotations

import json
import pickle
import shutil
import tracemalloc

import pytest

import mcpp_receipts as mr
from mcpp_receipts import _core

from conftest import EXAMPLES


def _gbench(path, n: int, slower: float = 1.0) -> None:
    """A Google Benchmark --benchmark_out file of n benchmarks x 3 repetitions."""
    rows = [{"name": f"BM_K/{i}", "run_name": f"BM_K/{i}", "run_type": "iteration", "repetitions": 3,
             "repetition_index": r, "threads": 1, "iterations": 1000,
             "real_time": (100.0 + i % 7 + r * 0.5) * slower, "cpu_time": 99.0 + i % 7, "time_unit": "ns"}
            for i in range(n) for r in range(3)]
    context = {"date": "2026-11-29T10:00:00+00:00", "host_name": "ci", "executable": "./bench", "num_cpus": 2,
               "mhz_per_cpu": 2000, "cpu_scaling_enabled": False, "caches": [], "load_avg": [0.5],
               "library_build_type": "release"}
    path.write_text(json.dumps({"context": context, "benchmarks": rows}), encoding="utf-8")


def test_frontier_and_gate_documents_equal_the_whole_json_of_the_c_renderer(tmp_path):
    receipts = list(mr.load_dir(EXAMPLES))
    fr = mr.frontier(receipts)
    whole = json.loads(_core._frontier(tuple(receipts), None, "j")[0])
    assert len(fr.lanes) == len(whole["lanes"]) > 5
    assert fr.to_dict() == whole
    assert fr.to_json() == json.dumps(whole, indent=2)

    # a gate with an input skipped on request: "skipped" follows the candidates
    folder = tmp_path / "cands"
    shutil.copytree(EXAMPLES, folder)
    (folder / "broken.json").write_text("{", encoding="utf-8")
    report = mr.gate(EXAMPLES, folder, errors="skip")
    whole = json.loads(_core._gate(tuple(receipts), tuple(mr.load_dir(folder, errors="skip")), None, "j",
                                   [(str(e.path), str(e)) for e in report.errors])[0])
    assert len(report.candidates) == len(whole["candidates"]) > 5 and whole["skipped"]
    assert report.to_dict() == whole
    assert report.to_json() == json.dumps(whole, indent=2)
    assert pickle.loads(pickle.dumps(report)).to_json() == report.to_json()


def test_write_puts_each_format_in_place_and_streams_the_json(tmp_path):
    """Frontier.write / GateReport.write: the same text as to_json(),
    to_text(), to_markdown(), to_html(), chosen by the suffix or format=; the
    file appears whole or not at all, with the permissions of a new file (or
    of the one it replaces); the JSON is written as it is made (a 2,000-lane
    frontier writes its ~6 MB with at most a tenth of that held by Python at
    once: tracemalloc's peak over a second write, ~0.15 MB; deterministic)."""
    fr = mr.frontier(EXAMPLES)
    with pytest.warns(UserWarning, match="the baselines and the candidates are the same receipts"):
        report = mr.gate(EXAMPLES, EXAMPLES)
    for name, expected in (("f.json", fr.to_json()), ("f.md", fr.to_markdown()), ("f.txt", fr.to_text()),
                           ("f.html", fr.to_html())):
        fr.write(tmp_path / name)
        assert (tmp_path / name).read_text(encoding="utf-8") == expected
    report.write(bytes(tmp_path / "gate.out"), format="json")  # a bytes path too
    assert (tmp_path / "gate.out").read_text(encoding="utf-8") == report.to_json()
    assert (tmp_path / "f.json").stat().st_mode & 0o777 == 0o666 & ~_umask()
    (tmp_path / "f.json").chmod(0o640)
    fr.write(tmp_path / "f.json")
    assert (tmp_path / "f.json").stat().st_mode & 0o777 == 0o640
    with pytest.raises(ValueError, match='format must be "json", "text", "markdown" or "html", got \'yaml\''):
        fr.write(tmp_path / "f.yaml", format="yaml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.html", "f.json", "f.md", "f.txt", "gate.out"]

    _gbench(tmp_path / "wide.json", 2000)
    wide = mr.frontier(mr.import_results("google-benchmark", tmp_path / "wide.json"))
    wide.write(tmp_path / "wide-frontier.json")  # a first write may import and compile modules: not measured
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    wide.write(tmp_path / "wide-frontier.json")
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    size = (tmp_path / "wide-frontier.json").stat().st_size
    assert size > 5_000_000 and peak < size / 10, (size, peak)
    assert json.loads((tmp_path / "wide-frontier.json").read_text(encoding="utf-8")) == wide.to_dict()


def _umask() -> int:
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_lanes_and_candidates_read_as_read_only_lists():
    fr = mr.frontier(EXAMPLES)
    lanes = list(fr.lanes)
    assert fr.lanes == lanes and lanes == fr.lanes and fr.lanes != lanes[1:]
    assert fr.lanes[-1] == lanes[-1] and fr.lanes[1:4] == lanes[1:4] and fr.lanes[::-2] == lanes[::-2]
    assert lanes[2] in fr.lanes and fr.lanes.index(lanes[2]) == 2 and fr.lanes.count(lanes[0]) == 1
    assert list(reversed(fr.lanes)) == lanes[::-1]
    with pytest.raises(IndexError):
        fr.lanes[len(lanes)]
    with pytest.raises(TypeError):
        fr.lanes[0] = lanes[0]  # type: ignore[index]
    for lane in lanes:  # a lane still held is the same object, as in a list
        assert fr.lane(lane.key) is lane and fr.lane(lane.short_key) is lane
    with pytest.raises(KeyError):
        fr.lane("lane-000000000000")
    assert pickle.loads(pickle.dumps(fr)).lanes == lanes
    assert repr(fr) == f"<Frontier {len(lanes)} lanes ({len(fr.stable)} stable) over {fr.receipt_count} receipts>"

    with pytest.warns(UserWarning, match="the baselines and the candidates are the same receipts"):
        report = mr.gate(EXAMPLES, EXAMPLES)
    candidates = list(report.candidates)
    assert report.candidates == candidates and report.candidates[-1] == candidates[-1]
    assert [report.candidate(c["id"]) for c in candidates] == [
        next(d for d in candidates if d["id"] == c["id"]) for c in candidates]
    with pytest.raises(KeyError):
        report.candidate("no-such-id")
    assert report.candidates[0] is candidates[0] and type(candidates[0]).__mro__[1] is dict
    assert type(pickle.loads(pickle.dumps(report.candidates))[0]) is dict


def test_no_python_objects_are_made_per_lane_until_a_lane_is_read(tmp_path):
    n = 2000
    _gbench(tmp_path / "base.json", n)
    _gbench(tmp_path / "cand.json", n, slower=1.01)
    base = mr.import_results("google-benchmark", tmp_path / "base.json")
    cand = mr.import_results("google-benchmark", tmp_path / "cand.json")
    tracemalloc.start()
    try:
        fr = mr.frontier(base)
        report = mr.gate(base, cand)
        _, peak = tracemalloc.get_traced_memory()  # Python's allocations only: the reports stay in C
        # parsed whole, the two reports took ~11 KiB of Python objects a lane (5.7 KiB each)
        assert peak < 100 * n, f"{peak / n:.0f} bytes of Python objects a lane"
        tracemalloc.reset_peak()
        stable = sum(lane.stable for lane in fr.lanes)
        failed = sum(c["outcome"] == "failed" for c in report.candidates)
        _, peak = tracemalloc.get_traced_memory()
        assert peak < 100 * n, f"reading lane by lane held {peak / n:.0f} bytes a lane"
    finally:
        tracemalloc.stop()
    assert len(fr.lanes) == len(report.candidates) == n
    assert stable == fr.to_dict()["stable"] and failed == report.counts["failed"]
