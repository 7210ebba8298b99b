"""mr.Store: receipts kept in SQLite, queries, identity, analyses over the
store, lane history with change points, and its plot."""

from __future__ import annotations

import json
import os
import sqlite3
import sys

import pytest

import mcpp_receipts as mr
from conftest import variant


def receipt(i: int, value: float = 396000.0, commit: str = "9f3c2e1a", **changes) -> mr.Receipt:
    fields = {"metrics.tokens_per_s": value, "source.git_commit": commit}
    fields.update(changes)
    return mr.loads(json.dumps(variant(fields, id=f"run-{i:04d}",
                                       created_at=f"2026-04-01T{i // 60:02d}:{i % 60:02d}:00Z")))


@pytest.fixture
def store(tmp_path):
    return mr.Store(tmp_path / "receipts.db")


def test_add_is_one_call_and_the_same_receipt_twice_is_a_no_op(store):
    rs = [receipt(i) for i in range(5)]
    assert store.add(rs) == mr.AddResult(5, 0, 0)
    assert store.add(rs) == mr.AddResult(0, 5, 0)
    assert len(store) == 5
    back = store.query()
    assert isinstance(back, mr.ReceiptSet)
    assert [r.id for r in back] == [r.id for r in rs]
    assert [r.to_json() for r in back] == [r.to_json() for r in rs]


def test_a_conflicting_id_raises_and_the_call_adds_nothing(store):
    store.add([receipt(0)])
    with pytest.raises(mr.ValidationError, match="conflict: receipt 'run-0000'"):
        store.add([receipt(1), receipt(0, value=1.0)])
    assert len(store) == 1


def test_an_id_given_twice_in_one_add_is_kept_once_or_raises_naming_the_add(store):
    # the same content twice is one row; other content under one id is a
    # conflict within the call, which adds nothing (not even the rows before it)
    assert store.add([receipt(0), receipt(1), receipt(0)]) == mr.AddResult(2, 1, 0)
    with pytest.raises(mr.ValidationError, match="conflict: receipt 'run-0003' is given twice in this add"):
        store.add([receipt(2), receipt(3), receipt(3, value=1.0)])
    assert len(store) == 2
    assert mr.Store(os.fsencode(store.path)).add([receipt(4)]) == mr.AddResult(1, 0, 0)  # a bytes path too


def test_query_filters_and_to_pandas(store):
    store.add([receipt(i, commit="aaaa1111" if i < 6 else "bbbb2222") for i in range(10)])
    assert len(store.query(where={"git_commit": "bbbb"})) == 4
    assert len(store.query(where="id=run-0003")) == 1
    assert len(store.query(lane="family=NAM56R")) == 10
    assert len(store.query(lane="family=OTHER")) == 0
    assert [r.id for r in store.query(limit=2, newest=True)] == ["run-0008", "run-0009"]
    assert len(store.query(since="2026-04-01T00:02:00Z", until="2026-04-01T00:04:00Z")) == 3
    assert len(store.query(until="2026-04-01")) == 10  # a date stands for all of its day
    assert len(store.query(since="2026-04-02")) == 0
    df = store.to_pandas(where={"git_commit": "aaaa"})
    assert list(df["id"]) == [f"run-{i:04d}" for i in range(6)]
    assert set(df["lane"]) == {mr.lane_key(receipt(0))[1]}


def test_a_query_that_would_select_wrongly_without_a_word_is_refused(store):
    # compared as text, "yesterday" selected nothing; a negative limit meant all;
    # a misspelt export argument was ignored and every receipt exported
    store.add([receipt(i) for i in range(3)])
    with pytest.raises(mr.Error, match=r"since: 'yesterday' is not a time: expected RFC 3339 text"):
        store.query(since="yesterday")
    with pytest.raises(mr.Error, match=r"until: '2026/04/01' is not a time"):
        store.export(until="2026/04/01")
    with pytest.raises(ValueError, match="limit must be 0 \\(all\\) or more, got -1"):
        store.query(limit=-1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'sinse'"):
        store.export("jsonl", sinse="2026-04-01")
    assert len(store.export("jsonl", since="2026-04-01").splitlines()) == 3


def test_remove_keeps_a_tombstone(store):
    store.add([receipt(0), receipt(1)])
    store.remove("run-0000", "node was throttled")
    assert [r.id for r in store.query()] == ["run-0001"]
    assert store.removed()[0]["reason"] == "node was throttled"
    assert store.add([receipt(0)]).skipped_removed == 1
    with pytest.raises(mr.Error):
        store.remove("run-0000", "again")


def test_analyses_run_over_the_store(store):
    store.add([receipt(i, value=396000.0 + 100 * i) for i in range(4)])
    fr = store.frontier()
    assert fr.receipt_count == 4
    assert store.claim(lane="family=NAM56R", value=396100.0).supported
    assert store.compare("run-0000", "run-0001").comparable
    assert store.gate("id=run-0000", "id=run-0003").exit_code == 0  # passed, or inconclusive with one run a side
    with pytest.raises(KeyError):
        store.compare("run-0000", "nope")


def test_the_whole_store_frontier_comes_from_lane_summaries_and_equals_the_loaded_one(store):
    store.add([receipt(i, value=396000.0 + 100 * i) for i in range(4)])
    store.add([receipt(10 + i, value=300000.0, **{"workload.seq_len": 8192}) for i in range(3)])
    fast, slow = store.frontier(), mr.frontier(store.query())
    assert len(fast.lanes) == 2
    assert fast.to_json() == slow.to_json()
    assert fast.to_text() == slow.to_text()
    assert fast.to_markdown() == slow.to_markdown()
    store.remove("run-0001", "throttled")       # the summaries go stale, then are rebuilt
    assert store.frontier().to_json() == mr.frontier(store.query()).to_json()
    assert store.frontier().receipt_count == 6


def test_export_round_trips(store):
    store.add([receipt(i) for i in range(3)])
    lines = store.export("jsonl").splitlines()
    assert [mr.loads(line).id for line in lines] == ["run-0000", "run-0001", "run-0002"]
    assert store.export("yaml").count("---\n") == 3


def test_the_file_is_plain_sqlite_python_can_read(store):
    store.add([receipt(i) for i in range(3)])
    with sqlite3.connect(store.path) as db:
        rows = db.execute("SELECT id, metric_value FROM receipts ORDER BY id").fetchall()
        assert rows == [("run-0000", 396000.0), ("run-0001", 396000.0), ("run-0002", 396000.0)]
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_damaged_or_missing_store_raises_clearly(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database at all" * 10)
    with pytest.raises(mr.Error, match="bad.db"):
        mr.Store(bad).query()
    with pytest.raises(mr.FileError, match="missing.db"):
        mr.Store(tmp_path / "missing.db").query()


def test_history_finds_the_step_and_plots(store):
    values = [396000.0 * (0.9 if i >= 20 else 1.0) * (1 + 0.002 * ((i * 37) % 5 - 2)) for i in range(32)]
    store.add([receipt(i, value=v, commit=f"c{i:07d}") for i, v in enumerate(values)])
    h = store.history("family=NAM56R")
    assert len(h.lanes) == 1
    lane = h.lanes[0]
    assert len(lane.runs) == 32
    assert [c.run for c in lane.changes] == [20]
    assert lane.changes[0].before_commit == "c0000019"
    assert lane.changes[0].after_commit == "c0000020"
    assert lane.changes[0].rel_change == pytest.approx(-0.1, abs=0.01)
    assert "change at run 20" in h.to_text()
    assert "| created_at |" in h.to_markdown()
    assert json.loads(h.to_json())["schema"] == "mcpp.history/1"
    assert list(h.to_pandas()["segment"]) == [0] * 20 + [1] * 12
    ax = h.plot()
    assert len(ax.lines) >= 2  # the series and the change marker


def test_history_of_pure_noise_has_no_change(store):
    store.add([receipt(i, value=396000.0 * (1 + 0.003 * ((i * 7919) % 13 - 6) / 6)) for i in range(40)])
    assert store.history().lanes[0].changes == []


def test_history_plot_without_matplotlib_says_what_to_install(store, monkeypatch):
    store.add([receipt(i) for i in range(3)])
    h = store.history()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        h.plot()


def test_check_says_ok_and_reports_a_damaged_store(store, tmp_path):
    store.add([receipt(i) for i in range(200)])
    assert store.check() == "ok\n"
    data = bytearray(open(store.path, "rb").read())
    page = int.from_bytes(data[16:18], "big")  # the header's page size (1 means 65536)
    page = 65536 if page == 1 else page
    assert len(data) > 3 * page
    data[page:3 * page] = bytes((i * 131 + 7) & 0xFF for i in range(2 * page))  # two table roots
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(bytes(data))
    with pytest.raises(mr.Error, match="damaged"):
        mr.Store(damaged).check()


def test_a_damaged_image_warns_on_query_and_check_repair_mends_it(store):
    """Issue 28: the body is the truth. A damaged image is read from its body
    with a RuntimeWarning; check names it; check(repair=True) rewrites it."""
    store.add([receipt(i) for i in range(5)])
    want = [r.to_json() for r in store.query()]
    db = sqlite3.connect(store.path)
    db.execute("UPDATE receipts SET image = X'00' WHERE rowid = 2")
    db.execute("UPDATE receipts SET lane_label = 'forged' WHERE rowid = 3")
    db.commit()
    db.close()
    with pytest.warns(RuntimeWarning, match="1 stored image"):
        got = [r.to_json() for r in store.query()]
    assert got == want
    with pytest.raises(mr.ValidationError) as info:
        store.check()
    assert ": refused (truncated); loads from its body" in str(info.value)
    assert "column lane_label is 'forged'" in str(info.value)
    report = store.check(repair=True)
    assert "repaired: 2 rows rewritten from their bodies" in report
    assert report.endswith("ok\n")
    assert store.check() == "ok\n"
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [r.to_json() for r in store.query()] == want


def test_site_writes_the_pages_and_then_only_what_changed(store, tmp_path):
    values = [396000.0 * (0.9 if i >= 20 else 1.0) * (1 + 0.002 * ((i * 37) % 5 - 2)) for i in range(32)]
    store.add([receipt(i, value=v, commit=f"c{i:07d}") for i, v in enumerate(values)])
    site = tmp_path / "site"
    first = store.site(site, title="Team <history>", commit_url="https://example.org/c/{commit}")
    assert first == {"pages": 4, "written": 4, "unchanged": 0, "removed": 0}
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "<title>Team &lt;history&gt;</title>" in index
    lane_page = next((site / "lanes").glob("lane-*.html")).read_text(encoding="utf-8")
    assert lane_page.count('<circle class="run"') == 32
    assert lane_page.count('<g class="change">') == 1
    assert 'href="https://example.org/c/c0000020"' in lane_page
    assert store.site(site, title="Team <history>", commit_url="https://example.org/c/{commit}")["written"] == 0
    with pytest.raises(mr.FileError, match="not-a-dir"):
        (tmp_path / "not-a-dir").write_text("x")
        store.site(tmp_path / "not-a-dir")


def test_a_password_in_a_store_url_is_never_shown():
    url = "postgresql://alice:s3cret@db.example:5432/receipts?password=hunter2&sslmode=require"
    shown = repr(mr.Store(url))
    assert "s3cret" not in shown and "hunter2" not in shown, shown
    assert "postgresql://alice@db.example:5432/receipts?password=***&sslmode=require" in shown
    assert mr.Store(url).path == url  # as given: what libpq is handed
    assert repr(mr.Store("/tmp/a:b@c.db")) == "<Store '/tmp/a:b@c.db'>"  # a path is not a URL
