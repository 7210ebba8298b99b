"""load_dir's reading path: entry types from readdir, the reused read buffer,
the per-thread cJSON arena and the hand-over of unusual files to the library
must give exactly what load() gives, file by file."""

from __future__ import annotations

import json
import os

import pytest

import mcpp_receipts as mr


def _outcome(path):
    """What load() says about one file: the receipt's canonical JSON, or the
    error's class and message."""
    try:
        return ("ok", mr.load(path).to_json())
    except mr.Error as e:
        return (type(e).__name__, str(e))


def _outcomes(rs):
    got = {r.filename: ("ok", r.to_json()) for r in rs}
    got.update({e.path: (type(e).__name__, str(e)) for e in rs.errors})
    return got


def test_every_file_loads_as_load_reads_it_on_any_thread_count(receipt_dir):
    base = json.loads(mr.load_dir(receipt_dir)[0].to_json())
    for i in range(150):  # several claim batches per thread
        d = dict(base, id=f"copy-{i:03d}")
        (receipt_dir / f"copy-{i:03d}.json").write_text(json.dumps(d))
    (receipt_dir / "broken.json").write_text('{"schema": "mcpp.receipt/2", "id": ')
    (receipt_dir / "empty.json").write_text("")
    (receipt_dir / "not-utf8.json").write_bytes(b'{"id": "\xff"}')
    paths = sorted(str(p) for p in receipt_dir.rglob("*.json"))
    expected = {p: _outcome(p) for p in paths}
    for threads in (1, 2, 5):
        rs = mr.load_dir(receipt_dir, threads=threads, errors="skip")
        assert _outcomes(rs) == expected, f"threads={threads}"
        assert [r.filename for r in rs] == [p for p in paths if expected[p][0] == "ok"]


def test_a_tree_bigger_than_the_arena_loads_the_same(receipt_dir):
    d = json.loads(mr.load_dir(receipt_dir)[0].to_json())
    # ~20k free-form members: a cJSON tree of a few MiB, past the 512 KiB arena
    d["extra"] = {f"k{i:05d}": [i, str(i), {"v": i * 0.5}] for i in range(20000)}
    d["id"] = "big"  # another run: one id with two contents is a conflict
    big = receipt_dir / "big.json"
    big.write_text(json.dumps(d))
    rs = mr.load_dir(receipt_dir)
    assert rs.errors == []
    (got,) = [r for r in rs if r.filename == str(big)]
    assert got == mr.load(big)
    assert got.to_dict()["extra"]["k19999"] == [19999, "19999", {"v": 9999.5}]


def test_a_file_over_the_size_limit_is_refused_as_load_refuses_it(receipt_dir):
    huge = receipt_dir / "huge.json"
    with open(huge, "wb") as f:
        f.truncate(16 * 1024 * 1024 + 1)  # sparse: the size is what is checked
    rs = mr.load_dir(receipt_dir, errors="skip")
    assert len(rs) == 4
    assert [(type(e).__name__, str(e)) for e in rs.errors] == [_outcome(huge)]
    assert rs.errors[0].kind == "limit"


def test_linked_files_and_folders_are_followed(receipt_dir, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    source = sorted(receipt_dir.glob("*.json"))[0]
    d = json.loads(source.read_text())
    d["id"] = "linked-folder-receipt"
    (outside / "r.json").write_text(json.dumps(d))
    (receipt_dir / "linked").symlink_to(outside, target_is_directory=True)
    (receipt_dir / "alias.json").symlink_to(source)
    rs = mr.load_dir(receipt_dir)
    assert rs.errors == []
    ids = [r.id for r in rs]
    assert "linked-folder-receipt" in ids
    assert len(rs) == 6  # 4 + the linked folder's receipt + the linked file


def test_a_fifo_named_like_a_receipt_is_skipped_not_opened(receipt_dir):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    os.mkfifo(receipt_dir / "pipe.json")  # opening it for reading would block
    rs = mr.load_dir(receipt_dir)
    assert len(rs) == 4 and rs.errors == []


def test_files_around_the_read_buffer_size_load_as_load_reads_them(receipt_dir):
    # load_dir reads without fstat: one read into a 16 KiB buffer, and a file
    # that fills it is measured and read on; sizes at the edge must not matter
    d = json.loads(mr.load_dir(receipt_dir)[0].to_json())
    paths = []
    for size in (16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 40 * 1024):
        d["id"] = f"sized-{size}"
        text = json.dumps(d)
        path = receipt_dir / f"sized-{size}.json"
        path.write_text(text + " " * (size - len(text)))  # trailing blanks are allowed
        assert path.stat().st_size == size
        paths.append(str(path))
    for threads in (1, 2):
        rs = mr.load_dir(receipt_dir, threads=threads, errors="skip")
        got = _outcomes(rs)
        assert {p: got[p] for p in paths} == {p: _outcome(p) for p in paths}
        assert all(got[p][0] == "ok" for p in paths)


def test_files_come_in_path_order_across_folders_and_similar_names(receipt_dir):
    # load_dir sorts each folder's names (a folder as "name/") instead of all
    # paths at the end; the result must be the strcmp order of the full paths
    d = json.loads(mr.load_dir(receipt_dir)[0].to_json())
    names = ["a.json", "a/x.json", "a/b/y.json", "a-b.json", "a0.json", "ab/z.json", "a/.json",
             "a.b/w.json", "A.json", "a/b.json", "a/b-c/v.json", "a/b.c.json", "é.json"]
    for i, name in enumerate(names):
        path = receipt_dir / "order" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        d["id"] = f"order-{i}"
        path.write_text(json.dumps(d))
    expected = sorted(
        (str(p) for p in receipt_dir.rglob("*.json") if not p.name.startswith(".")),
        key=os.fsencode)
    for threads in (1, 3):
        rs = mr.load_dir(receipt_dir, threads=threads)
        assert rs.errors == []
        assert [r.filename for r in rs] == expected
