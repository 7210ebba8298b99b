"""load_dir and ReceiptSet: directory walking, per-file errors, pandas."""

from __future__ import annotations

import pytest

import mcpp_receipts as mr


def test_load_dir_walks_recursively_in_sorted_order(receipt_dir):
    rs = mr.load_dir(receipt_dir)
    assert isinstance(rs, mr.ReceiptSet)
    ids = [r.id for r in rs]
    assert sorted(ids) == ["jagged-fallback", "padded-run1", "padded-run2", "padded-run3"]
    assert [r.filename for r in rs] == sorted(r.filename for r in rs)
    assert rs.errors == []


def test_a_receipt_set_is_indexed_by_position_slice_or_id(receipt_dir):
    rs = mr.load_dir(receipt_dir)
    assert rs["padded-run2"].id == "padded-run2" and rs["padded-run2"] is rs[[r.id for r in rs].index("padded-run2")]
    with pytest.raises(KeyError, match=r"no receipt with id 'padded-run' among these 4; did you mean .*'padded-run1'"):
        rs["padded-run"]
    with pytest.raises(TypeError, match="ReceiptSet indices are positions, slices or receipt ids, not float"):
        rs[1.0]
    np = pytest.importorskip("numpy", reason="numpy is a test dependency (scripts/test-python.sh)")
    assert rs[np.int64(1)] is rs[1] and rs[-1] is rs[3] and len(rs[1:3]) == 2
    with pytest.raises(IndexError):
        rs[4]


def test_load_dir_without_recursion_skips_subfolders(receipt_dir):
    ids = {r.id for r in mr.load_dir(receipt_dir, recursive=False)}
    assert "jagged-fallback" not in ids and len(ids) == 3


def test_bad_files_are_reported_with_locations_and_do_not_stop_the_rest(receipt_dir):
    (receipt_dir / "broken.json").write_text('{"schema": "mcpp.receipt/1",\n  "lane": {,}\n}')
    (receipt_dir / "notes.txt").write_text("ignored: not a receipt extension")
    (receipt_dir / ".hidden.json").write_text("{")
    with pytest.raises(mr.ParseError, match="broken.json"):
        mr.load_dir(receipt_dir)  # failing is the default
    rs = mr.load_dir(receipt_dir, errors="skip")
    assert len(rs) == 4
    assert len(rs.errors) == 1
    err = rs.errors[0]
    assert isinstance(err, mr.ParseError)
    assert err.path.endswith("broken.json")
    assert err.line == 2


def test_missing_directory_raises_file_error(tmp_path):
    with pytest.raises(mr.FileError) as info:
        mr.load_dir(tmp_path / "nope")
    assert isinstance(info.value, OSError)


def test_receipt_set_is_a_sequence(receipt_dir):
    rs = mr.load_dir(receipt_dir)
    assert len(rs[1:]) == 3 and isinstance(rs[1:], mr.ReceiptSet)
    assert rs[0] in rs
    assert "4 receipts" in repr(rs)
    assert "ReceiptSet" in rs._repr_html_()


def test_to_pandas_gives_one_row_per_receipt_with_dotted_columns(receipt_dir):
    df = mr.load_dir(receipt_dir).to_pandas()
    assert len(df) == 4
    assert df.columns[0] == "id"
    assert "routing.top_k" in df.columns and "backend.moe.observed" in df.columns
    assert set(df["backend.moe.observed"]) == {"padded", "jagged"}
    small = mr.load_dir(receipt_dir).to_pandas(columns=["metrics.tokens_per_s"])
    assert list(small.columns) == ["id", "filename", "lane", "lane_label", "metrics.tokens_per_s"]


def test_threaded_loading_gives_the_same_set_in_the_same_order(tmp_path):
    import json
    from conftest import variant

    for i in range(120):
        (tmp_path / f"r{i:03d}.json").write_text(json.dumps(variant(id=f"r{i:03d}")))
    (tmp_path / "r050.json").write_text("{oops")
    one = mr.load_dir(tmp_path, threads=1, errors="skip")
    many = mr.load_dir(tmp_path, threads=4, errors="skip")
    assert list(one) == list(many) and len(many) == 119
    assert [r.id for r in many] == sorted(r.id for r in many)
    assert [e.path for e in many.errors] == [str(tmp_path / "r050.json")]
    with pytest.raises(ValueError):
        mr.load_dir(tmp_path, threads=0)


def test_unique_drops_json_and_yaml_twins_of_one_receipt(receipt_dir):
    first = mr.load(receipt_dir / "padded-run1.json")
    first.write(receipt_dir / "padded-run1.yaml")
    rs = mr.load_dir(receipt_dir)
    assert len(rs) == 5
    u = rs.unique()
    assert len(u) == 4 and sorted(r.id for r in u) == sorted({r.id for r in rs})


def test_unreadable_subdirectory_is_reported_not_skipped(receipt_dir):
    import os

    locked = receipt_dir / "locked"
    locked.mkdir()
    (locked / "x.json").write_text("{}")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running with privileges that ignore directory permissions")
        rs = mr.load_dir(receipt_dir, errors="skip")
        assert len(rs) == 4
        assert [e.path for e in rs.errors] == [str(locked)]
        assert isinstance(rs.errors[0], mr.FileError)
    finally:
        locked.chmod(0o755)


def test_dangling_link_named_like_a_receipt_is_reported(receipt_dir):
    (receipt_dir / "gone.json").symlink_to(receipt_dir / "does-not-exist.json")
    rs = mr.load_dir(receipt_dir, errors="skip")
    assert len(rs) == 4
    assert [e.path for e in rs.errors] == [str(receipt_dir / "gone.json")]
    assert isinstance(rs.errors[0], mr.FileError)
