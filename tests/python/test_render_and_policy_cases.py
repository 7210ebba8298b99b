"""Receipt.render() and Policy.test_file(): the Python face of the library's
mcpp_receipt_render and mcpp_policy_test_file, which the CLI prints too — so
the text here is the CLI's golden text, byte for byte."""

from __future__ import annotations

import json
import pathlib

import pytest

import mcpp_receipts as mr

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "receipts"
GOLDEN = REPO / "tests" / "cli" / "golden"
POLICIES = REPO / "policy"


def test_render_text_equals_the_cli_show_golden_output(monkeypatch: pytest.MonkeyPatch) -> None:
    # the golden files were made from inside the examples directory
    monkeypatch.chdir(EXAMPLES)
    r = mr.load("nam56r_padded.json")
    assert r.render() == (GOLDEN / "show_nam56r_padded.txt").read_text(encoding="utf-8")


def test_render_json_is_the_canonical_json_and_markdown_is_fenced() -> None:
    r = mr.load(EXAMPLES / "nam52_dense.json")
    assert r.render("json") == r.to_json()
    md = r.render(format="markdown")
    assert md.startswith("```text\n") and md.endswith("```\n")
    assert r.render("text") in md


def test_render_refuses_an_unknown_format() -> None:
    r = mr.load(EXAMPLES / "nam52_dense.json")
    with pytest.raises(ValueError, match="format"):
        r.render("html")


def test_policy_test_file_passes_the_shipped_cases() -> None:
    report = mr.Policy.from_file(POLICIES / "default.lua").test_file(POLICIES / "tests" / "default.cases.json")
    assert report["schema"] == "mcpp.policy-test/1"
    assert report["total"] == len(report["cases"]) > 0
    assert report["failed"] == 0 and report["passed"] == report["total"]
    assert all(c["passed"] and c["failures"] is None and c["rows"] == [] for c in report["cases"])


def test_policy_test_file_reports_failing_cases_with_the_rows_that_decided() -> None:
    policy = mr.Policy.from_file(POLICIES / "cross_hardware.lua")
    report = policy.test_file(POLICIES / "tests" / "default.cases.json")
    failed = [c for c in report["cases"] if not c["passed"]]
    assert report["failed"] == len(failed) > 0
    for case in failed:
        assert case["failures"] and case["rows"]
        assert {"name", "status", "reason"} <= set(case["rows"][0])
    text = policy.test_file_text(POLICIES / "tests" / "default.cases.json")
    assert sum(line.startswith("FAIL ") for line in text.splitlines()) == len(failed)


def test_policy_test_file_refuses_a_typo_in_the_case_file(tmp_path: pathlib.Path) -> None:
    cases = tmp_path / "typo.json"
    cases.write_text(json.dumps({"cases": [{"base": "a.json", "cand": "b.json", "expct": "comparable"}]}))
    with pytest.raises(mr.Error, match='unknown member "expct"'):
        mr.Policy.default().test_file(cases)
