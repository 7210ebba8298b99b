"""Verdicts that never overstate the evidence, from Python (issue 11): bad
inputs fail by default and are listed in the report with errors="skip"; two
different runs with one id are a conflict; a broad claim selector is
ambiguous; a run whose request was not met is excluded from its lane."""

from __future__ import annotations

import json

import pytest

import mcpp_receipts as mr
from conftest import variant


@pytest.fixture
def with_bad_file(receipt_dir):
    (receipt_dir / "broken.json").write_text('{"schema": "mcpp.receipt/2",\n  "lane": ')
    return receipt_dir


def test_directory_inputs_fail_on_a_bad_file_by_default(with_bad_file):
    with pytest.raises(mr.ParseError, match="broken.json"):
        mr.load_dir(with_bad_file)
    with pytest.raises(mr.ParseError, match="broken.json"):
        mr.frontier(with_bad_file)
    with pytest.raises(mr.ParseError, match="broken.json"):
        mr.claim(with_bad_file, lane="moe=padded", value=396000.0)
    with pytest.raises(mr.ParseError, match="broken.json"):
        mr.gate(with_bad_file, with_bad_file / "padded-run3.json")
    with pytest.raises(ValueError, match="errors must be"):
        mr.load_dir(with_bad_file, errors="ignore")


def test_skip_lists_every_skipped_file_in_the_report_in_every_format(with_bad_file):
    bad = str(with_bad_file / "broken.json")
    rs = mr.load_dir(with_bad_file, errors="skip")
    assert [e.path for e in rs.errors] == [bad] and len(rs) == 4
    for result in (mr.frontier(with_bad_file, errors="skip"),
                   mr.claim(with_bad_file, lane="moe=padded", value=396000.0, errors="skip"),
                   mr.gate(with_bad_file, [mr.load(with_bad_file / "padded-run3.json")], errors="skip")):
        assert [e.path for e in result.errors] == [bad]
        assert [s["path"] for s in result.to_dict()["skipped"]] == [bad]
        assert json.loads(result.to_json())["skipped"][0]["error"]
        gate = isinstance(result, mr.GateReport)  # the gate lists them in its own report (docs/gate.md)
        text_head = "inputs not gated (1):" if gate else "skipped   1 file (not part of this report):"
        md_head = "**1 input not gated:**" if gate else "**1 file skipped**"
        assert text_head in result.to_text() and bad in result.to_text()
        assert md_head in result.to_markdown() and bad in result.to_markdown()
    # The gate decides on what loaded: padded-run3 against its own lane passes.
    assert mr.gate(with_bad_file, [mr.load(with_bad_file / "padded-run3.json")], errors="skip").outcome in ("passed", "inconclusive")


def test_one_id_with_different_content_is_a_conflict_naming_both_files(receipt_dir):
    other = variant({"metrics.tokens_per_s": 1.0}, id="padded-run2")
    (receipt_dir / "zz-other-run2.json").write_text(json.dumps(other))
    with pytest.raises(mr.ValidationError, match="conflict: receipt 'padded-run2'") as info:
        mr.load_dir(receipt_dir)
    assert "zz-other-run2.json" in str(info.value) and "padded-run2.json" in str(info.value)
    with pytest.raises(mr.ValidationError, match="conflict"):
        mr.frontier(receipt_dir)
    skipped = mr.load_dir(receipt_dir, errors="skip")
    assert [e.field for e in skipped.errors] == ["id"]
    assert sorted(r.id for r in skipped) == ["jagged-fallback", "padded-run1", "padded-run2", "padded-run3"]
    # Receipts given as a list are checked the same way.
    with pytest.raises(mr.ValidationError, match="conflict"):
        mr.frontier([mr.load(receipt_dir / "padded-run2.json"), mr.loads(json.dumps(other))])


def test_ids_are_checked_once_on_the_notebook_path_and_again_for_sets_made_by_hand(receipt_dir, monkeypatch):
    from mcpp_receipts import _inputs

    calls = []
    check = _inputs.without_id_conflicts

    def counted(receipts):
        calls.append(len(receipts))
        return check(receipts)

    monkeypatch.setattr(_inputs, "without_id_conflicts", counted)
    rs = mr.load_dir(receipt_dir)
    mr.frontier(rs)
    mr.frontier(rs[1:])
    mr.gate(rs, rs[:1])
    mr.frontier(receipt_dir)
    assert calls == [4, 4]  # load_dir's own check, and the one of frontier(directory)
    # A set put together by hand is checked where it is used: a conflict still raises.
    other = mr.loads(json.dumps(variant({"metrics.tokens_per_s": 1.0}, id="padded-run2")))
    with pytest.raises(mr.ValidationError, match="conflict"):
        mr.frontier(mr.ReceiptSet(list(rs) + [other]))
    with pytest.raises(mr.ValidationError, match="conflict"):
        mr.frontier(rs + [other])


def test_the_same_run_loaded_twice_is_one_run(receipt_dir):
    first = mr.load(receipt_dir / "padded-run1.json")
    first.write(receipt_dir / "padded-run1.yaml")
    fr = mr.frontier(receipt_dir)
    assert fr.to_dict()["duplicates"] == 1


def test_a_selector_matching_several_lanes_is_ambiguous(receipt_dir):
    result = mr.claim(receipt_dir, lane="family=NAM56R", value=396000.0)
    assert result.verdict == "ambiguous" and not result
    assert len(result.matched) == 2
    for lane in result.matched:
        assert lane["short_key"] in result.reason
    narrowed = mr.claim(receipt_dir, lane="family=NAM56R,moe=padded", value=396000.0)
    assert narrowed.verdict == "supported"


def test_a_run_that_asked_for_an_h200_is_excluded_from_the_h100_lane(receipt_dir):
    asked = variant({"hardware.requested.accelerator": "NVIDIA H200", "metrics.tokens_per_s": 300000.0},
                    id="asked-h200")
    (receipt_dir / "asked-h200.json").write_text(json.dumps(asked))
    fr = mr.frontier(receipt_dir)
    padded = next(lane for lane in fr.lanes if "padded-run1" in lane.receipts)
    assert padded.stable and "asked-h200" not in padded.receipts
    assert [rid for rid, _ in padded.excluded] == ["asked-h200"]
    assert "requested NVIDIA H200" in padded.excluded[0][1]
