"""mr.Store(url): a store in PostgreSQL through the same Python API, against a
throwaway cluster (tests/store/pg_cluster.py); skipped, with the reason, where
no PostgreSQL server binaries exist (scripts/install-deps.sh installs them)."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

import mcpp_receipts as mr
from test_store import receipt

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "store"))
from pg_cluster import Cluster  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    why = Cluster.missing()
    if why:
        pytest.skip(why)
    with Cluster() as pg:
        yield pg


def test_store_url_answers_as_the_sqlite_file(cluster, tmp_path):
    values = [396000.0 * (0.9 if i >= 20 else 1.0) * (1 + 0.002 * ((i * 37) % 5 - 2)) for i in range(32)]
    rs = [receipt(i, value=v, commit=f"c{i:07d}") for i, v in enumerate(values)]
    pg, lite = mr.Store(cluster.new_store_url()), mr.Store(tmp_path / "same.db")
    for store in (pg, lite):
        assert store.add(rs) == mr.AddResult(32, 0, 0)
        assert store.add(rs[:3]) == mr.AddResult(0, 3, 0)
        with pytest.raises(mr.ValidationError, match="conflict: receipt 'run-0001'"):
            store.add([receipt(40), receipt(1, value=1.0)])
        store.remove("run-0002", "bad node")
    assert len(pg) == len(lite) == 31
    assert [r.to_json() for r in pg.query(where={"git_commit": "c000001"})] == \
        [r.to_json() for r in lite.query(where={"git_commit": "c000001"})]
    assert pg.export("jsonl") == lite.export("jsonl")
    assert json.loads(pg.history().to_json()) == json.loads(lite.history().to_json())
    assert [c.run for c in pg.history().lanes[0].changes] == [19]
    assert pg.frontier().to_json() == lite.frontier().to_json()
    assert [t["id"] for t in pg.removed()] == ["run-0002"]
    assert pg.check().endswith("ok\n") or "ok\n" in pg.check()
    counts = pg.site(tmp_path / "site")
    assert counts["pages"] == 4 and counts["written"] == 4


def test_a_url_without_a_store_is_a_file_error(cluster):
    with pytest.raises(mr.FileError, match="no receipt store"):
        mr.Store(cluster.new_store_url()).query()
