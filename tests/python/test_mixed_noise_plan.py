"""The plan of benchmarks/stats/real_mixed_noise.py and the slowdowns of its
suite (benchmarks/stats/mixed_noise/): every benchmark is slowed by each
amount exactly once and left unchanged twice across a campaign's patterns,
and a slowdown of p% adds exactly p% more units of the same work."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
STATS = REPO / "benchmarks" / "stats"


def _module(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lab = _module(STATS / "real_mixed_noise.py", "real_mixed_noise")


def test_each_benchmark_is_slowed_by_each_amount_once_and_unchanged_twice():
    for campaign in ("idle", "loaded"):
        runs = lab.plan(campaign)
        assert [r["role"] for r in runs[:lab.HISTORY]] == ["history"] * lab.HISTORY
        assert [r["index"] for r in runs if r["load"] and r["role"] == "history"] == list(lab.LOADED_BLOCK)
        cands = [r for r in runs if r["role"] == "cand"]
        assert len(cands) == lab.PAIRS and len(runs) == lab.HISTORY + 2 * lab.PAIRS
        for key, names in (("slow_pytest", lab.PYTEST_NAMES), ("slow_gbench", lab.GBENCH_NAMES)):
            for name in names:
                # one pattern per 3 candidate runs: the levels of a benchmark over the patterns
                levels = sorted(c[key][name] for c in cands[::lab.PER_PATTERN])
                assert levels == [0, 0, 5, 10, 30], (name, levels)
        assert all(not r["slow_pytest"] for r in runs if r["role"] != "cand")
    assert not any(r["load"] for r in lab.plan("idle") if r["role"] != "history")


def test_a_slowdown_adds_exactly_its_share_of_units():
    env = dict(os.environ, MCPP_SLOW="test_hash=5,test_join=10,test_sum=30")
    out = subprocess.run([sys.executable, "-c", "import bench_mixed as b; print([len(b.units(n)) for n in "
                          "('test_hash', 'test_join', 'test_sum', 'test_json')])"],
                         cwd=STATS / "mixed_noise", env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[21, 22, 26, 20]"
