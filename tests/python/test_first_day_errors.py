"""The errors a notebook user meets on the first day (issue 29, item 9), each
along the path the user took: every one is an mr.Error that names what was
wrong and, where it can, what was meant."""

from __future__ import annotations

import json
import pickle
import shutil

import pytest

import mcpp_receipts as mr
from conftest import EXAMPLES, REPO


def test_builder_type_errors_are_mr_errors_and_still_type_errors():
    b = mr.Builder()
    with pytest.raises(mr.FieldTypeError, match="workload.seq_len expects an int, got str") as info:
        b.set("workload.seq_len", "4096")
    assert isinstance(info.value, mr.Error) and isinstance(info.value, TypeError)
    assert info.value.field == "workload.seq_len"
    with pytest.raises(mr.Error, match="lane.pattern expects a str"):
        b.update({"lane.pattern": 12})
    with pytest.raises(mr.FieldTypeError, match="expects a list of float"):
        b.set("metrics.step_time_s.samples", [0.1, "slow"])


def test_numpy_scalars_in_extra_are_numbers_and_other_values_name_their_path():
    np = pytest.importorskip("numpy", reason="numpy is a test dependency (scripts/test-python.sh)")
    b = mr.Builder()
    b.set("extra.loss", np.float32(0.5)).set("extra.run", {"steps": np.int64(3), "ok": np.bool_(True)})
    assert b.set("extra.curve", [np.float64(1.5), 2]) is b
    with pytest.raises(mr.FieldTypeError, match=r"extra.when: the value is not JSON \(Object of type set") as info:
        b.set("extra.when", {1, 2})
    assert info.value.field == "extra.when"
    from test_builder import fill

    b2 = fill(mr.Builder()).set("metrics.tokens_per_s", np.float32(1000.0))
    for t in (1.0, 1.2, 1.1):
        b2.add_step_sample(np.float64(t))
    r = b2.set("extra.loss", np.float32(0.5)).set("extra.run", {"steps": np.int64(3)}).finish()
    assert r["extra.loss"] == 0.5 and r["extra.run"] == {"steps": 3}


def test_a_misspelt_metric_name_is_refused_with_the_known_names():
    rs = mr.load_dir(EXAMPLES)
    # (the gate already says "undetermined: METRIC is absent" for each candidate)
    for call in (lambda m: mr.frontier(rs, metric=m),
                 lambda m: mr.claim(rs, lane="family=NAM56R", value=1.0, metric=m)):
        with pytest.raises(mr.ArgumentError, match="did you mean 'tokens_per_s'") as info:
            call("tokens_per_sec")
        assert info.value.field == "tokens_per_sec" and "metrics stated:" in str(info.value)
    # the right name, "primary" and schema paths are taken as before
    assert mr.frontier(rs, metric="tokens_per_s").stable
    mr.frontier(rs, metric="primary")
    mr.frontier(rs, metric="metrics.tokens_per_s")


def test_file_error_keeps_errno_strerror_and_filename_through_pickle(tmp_path):
    with pytest.raises(mr.FileError) as info:
        mr.load(tmp_path / "missing.json")
    e = info.value
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is mr.FileError
    assert (back.errno, back.strerror, back.filename) == (e.errno, e.strerror, e.filename) != (None, None, None)
    assert (back.path, back.kind, back.code) == (e.path, e.kind, e.code)
    assert str(back) == str(e)


def test_another_tools_results_read_as_a_receipt_name_the_tool_and_its_import():
    # Google Benchmark's own JSON where a receipt was expected: once "context:
    # unknown top-level field" and "benchmarks: ... did you mean 'benchmark'?"
    gb = REPO / "tests" / "data" / "google-benchmark" / "base.json"
    hint = r'this is Google Benchmark output; import it first: .*import_results\("google-benchmark", path\)'
    with pytest.raises(mr.Error, match=hint) as info:
        mr.load(gb)
    assert "unknown top-level field" not in str(info.value)
    rs = mr.load_dir(gb.parent, errors="skip")
    assert len(rs) == 0 and "this is Google Benchmark output" in str(rs.errors[0])
    assert len(mr.import_results("google-benchmark", gb)) > 0  # what the message says to do works
    with pytest.raises(ValueError, match=r"unknown import format 'gbench': did you mean google-benchmark\?"):
        mr.import_results("gbench", gb)


def test_frontier_of_a_skipping_load_dir_does_not_raise_what_was_skipped(tmp_path):
    shutil.copy(EXAMPLES / "nam56r_padded.json", tmp_path / "a.json")
    shutil.copy(EXAMPLES / "nam56r_padded_run2.json", tmp_path / "b.json")
    (tmp_path / "broken.json").write_text("{ not json", encoding="utf-8")
    rs = mr.load_dir(tmp_path, errors="skip")
    assert len(rs) == 2 and len(rs.errors) == 1
    fr = mr.frontier(rs)  # the default errors="raise" applies to new failures only
    assert len(fr.errors) == 1 and "broken.json" in str(fr.errors[0])
    assert [s["path"] for s in fr.to_dict()["skipped"]] == [str(tmp_path / "broken.json")]
    assert "broken.json" in fr.to_text()
    with pytest.warns(UserWarning, match="the baselines and the candidates are the same receipts"):
        g = mr.gate(rs, rs)  # by mistake: the same receipts on both sides
    assert len(g.errors) == 2
    with pytest.warns(UserWarning, match="a run is never its own baseline"):
        mr.gate(str(tmp_path), tmp_path, errors="skip")  # the same folder, as a str and a Path


def test_a_section_read_as_a_field_names_its_fields():
    r = mr.load(EXAMPLES / "nam56r_padded.json")
    with pytest.raises(mr.UnknownFieldError, match="'hardware' is a section, not a field") as info:
        r["hardware"]
    assert isinstance(info.value, KeyError) and isinstance(info.value, mr.Error)
    assert "'hardware.requested.accelerator'" in str(info.value)
    assert not str(info.value).startswith('"')  # a sentence, not KeyError's repr of a key
    with pytest.raises(mr.UnknownFieldError, match="did you mean 'routing.top_k'"):
        r["routing.topk"]
    with pytest.raises(mr.UnknownFieldError, match="did you mean 'workload.seq_len'"):
        mr.Builder().set("workload.seqlen", 1)
    assert r.get("hardware") is None  # get() still answers the default


def test_builder_repr_says_what_was_set():
    b = mr.Builder()
    assert repr(b) == "<mcpp_receipts.Builder: no fields set>"
    b.set("lane.pattern", "AEM").set("workload.seq_len", 4096)
    assert repr(b) == "<mcpp_receipts.Builder: 2 fields set: lane.pattern, workload.seq_len>"
    b.unset("lane.pattern")
    assert repr(b) == "<mcpp_receipts.Builder: 1 field set: workload.seq_len>"
    for i in range(10):
        b.set(f"extra.k{i}", i)
    assert repr(b).startswith("<mcpp_receipts.Builder: 11 fields set: extra.k0,") and repr(b).endswith(", ...>")
