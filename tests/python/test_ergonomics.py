"""Notebook ergonomics (issue 19): numpy numbers in the Builder, the derived
tokens/s, pandas tables with real dtypes, frontier plots at many lanes, the
exception classes, the extras' ImportErrors, and lanes told apart by what
differs from their neighbours in every interface."""

from __future__ import annotations

import errno
import json
import subprocess
import sys

import numpy as np
import pytest

import mcpp_receipts as mr
from conftest import BASE, scaled_samples, variant
from test_builder import fill


# ---- 4: numbers from numpy and friends -------------------------------------------


class Seven:
    """Not an int, but usable as one (__index__)."""

    def __index__(self) -> int:
        return 7


class Half:
    def __float__(self) -> float:
        return 0.5


@pytest.mark.parametrize("value", [np.int64(6), np.int32(6), np.uint8(6), np.float32(6.0), np.float64(6.0)])
def test_builder_takes_numpy_integers_and_integral_floats_for_int_fields(value):
    r = fill(mr.Builder()).set("routing.top_k", value).finish()
    assert r.routing.top_k == 6 and type(r.routing.top_k) is int


def test_builder_takes_numpy_floats_and_dunder_numbers():
    b = fill(mr.Builder())
    r = (b.set("routing.capacity_factor", np.float32(1.5)).set("routing.num_experts", Seven())
         .set("compile.compile_s", Half()).set("topology.sp", np.bool_(True)).finish())
    assert r.routing.capacity_factor == 1.5
    assert r.routing.num_experts == 7
    assert r.compile.compile_s == 0.5
    assert r.topology.sp is True


def test_builder_still_refuses_non_numbers_and_fractions_for_ints():
    b = fill(mr.Builder())
    with pytest.raises(TypeError, match="routing.top_k expects an int, got str"):
        b.set("routing.top_k", "6")
    with pytest.raises(TypeError):
        b.set("routing.top_k", True)
    with pytest.raises(mr.ValidationError, match="expected integer"):
        b.set("routing.top_k", np.float32(6.5))
    # the failures were raised at once, so the builder still finishes
    assert b.set("routing.top_k", np.int64(2)).finish().routing.top_k == 2


def test_builder_derives_tokens_per_s_as_frontier_does():
    samples = [1.0, 2.0, 4.0]
    useful = 1100  # the denominator fill() states, which the rate is derived from
    b = fill(mr.Builder())
    for t in samples:
        b.add_step_sample(t)
    built = b.finish()
    assert built.metrics.tokens_per_s == pytest.approx(useful / 2.0)
    # a file without the rate: the frontier's headline over one run's steps is
    # the median of useful/step, i.e. useful / median step for an odd count
    d = json.loads(built.to_json())
    del d["metrics"]["tokens_per_s"]
    loaded = mr.loads(json.dumps(d))
    assert loaded.metrics.tokens_per_s is None
    h = mr.frontier([loaded]).lanes[0].headline
    assert h.from_steps and h.median == pytest.approx(built.metrics.tokens_per_s)


# ---- 8: exceptions -----------------------------------------------------------------


def test_unknown_builder_field_says_did_you_mean():
    with pytest.raises(KeyError, match="did you mean 'workload.seq_len'"):
        mr.Builder().set("workload.seqlen", 4096)
    with pytest.raises(KeyError, match="did you mean 'routing.top_k'"):
        mr.Builder().set("routing.topk", 2)


def test_unknown_shipped_policy_is_an_mr_error_and_a_value_error():
    with pytest.raises(mr.Error) as info:
        mr.Policy.shipped("nope")
    assert isinstance(info.value, ValueError) and isinstance(info.value, mr.ArgumentError)
    assert "shipped" in str(info.value)


def test_bad_claim_selector_is_a_value_error_subclass(receipt_dir):
    with pytest.raises(ValueError, match="unknown selector key") as info:
        mr.claim(mr.load_dir(receipt_dir), lane="sequence_length=4096", value=1.0)
    assert isinstance(info.value, mr.ArgumentError) and isinstance(info.value, mr.Error)


def test_file_error_is_an_os_error_with_errno(tmp_path):
    missing = tmp_path / "no-such.json"
    with pytest.raises(OSError) as info:
        mr.load(missing)
    e = info.value
    assert isinstance(e, mr.FileError)
    assert e.errno == errno.ENOENT and e.strerror and e.filename == str(missing)
    with pytest.raises(mr.FileError) as info:
        mr.load(tmp_path)  # a directory
    assert info.value.errno == errno.EISDIR


def test_file_error_of_a_failed_write_names_its_cause_never_errno_none(tmp_path, receipt_dir):
    """Issue 48 item 7: a write that fails on a full disk (here: a 1 KiB file
    size limit with SIGXFSZ ignored, in a child process) was
    "[Errno None] None: 'path'"; it names the cause the library reports."""
    src = next(iter(sorted(receipt_dir.glob("*.json"))))
    code = (
        "import resource, signal, sys, mcpp_receipts as mr\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "r = mr.load(sys.argv[1])\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))\n"
        "try:\n"
        "    r.write(sys.argv[2])\n"
        "except mr.FileError as e:\n"
        "    print(repr(str(e)), e.errno, e.filename == sys.argv[2])\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(src), str(tmp_path / "out.json")],
                         capture_output=True, text=True, check=True).stdout
    assert "Errno None" not in out and "None: " not in out, out
    assert f" {errno.EFBIG} True" in out and "File too large" in out, out


# ---- 5: pandas ----------------------------------------------------------------------


def test_receipt_set_to_pandas_has_filename_lane_and_nullable_ints(receipt_dir):
    rs = mr.load_dir(receipt_dir)
    df = rs.to_pandas()
    assert list(df.columns[:4]) == ["id", "filename", "lane", "lane_label"]
    assert all(str(f).endswith(".json") for f in df["filename"])
    fr = mr.frontier(rs)
    jagged = df.set_index("id").loc["jagged-fallback"]
    assert jagged["lane"] in {lane.short_key for lane in fr.lanes}
    assert "moe=jagged" in jagged["lane_label"]
    assert str(df["workload.seq_len"].dtype) == "Int64"
    assert str(df["routing.top_k"].dtype) == "Int64"
    assert str(df["metrics.tokens_per_s"].dtype) == "float64"


def test_receipt_set_to_pandas_refuses_unknown_columns_and_keeps_columns_when_empty(receipt_dir):
    rs = mr.load_dir(receipt_dir)
    with pytest.raises(mr.ArgumentError, match="did you mean 'workload.seq_len'"):
        rs.to_pandas(columns=["workload.seqlen"])
    df = rs.to_pandas(columns=["workload.seq_len", "topology.ep"])
    assert list(df.columns) == ["id", "filename", "lane", "lane_label", "workload.seq_len", "topology.ep"]
    assert str(df["topology.ep"].dtype) == "Int64"
    empty = mr.ReceiptSet().to_pandas()
    assert "id" in empty.columns and len(empty) == 0
    assert list(mr.ReceiptSet().to_pandas(columns=["routing.top_k"]).columns)[-1] == "routing.top_k"


def test_int_column_with_missing_values_stays_integer():
    a = mr.loads(json.dumps(variant(id="a")))
    b = mr.loads(json.dumps(variant(id="b", drop=("routing.shared_experts",))))
    df = mr.ReceiptSet([a, b]).to_pandas(columns=["routing.shared_experts"])
    assert str(df["routing.shared_experts"].dtype) == "Int64"
    assert df["routing.shared_experts"].isna().tolist() == [False, True]


def test_frontier_to_pandas_has_dimension_columns_and_int64_counts(receipt_dir):
    df = mr.frontier(mr.load_dir(receipt_dir)).to_pandas()
    for column in ("dim.pattern", "dim.routing", "dim.sequence", "dim.backend", "display_label",
                   "differences", "n_counts"):
        assert column in df.columns
    assert set(df["dim.sequence"]) == {"4096"}
    assert str(df["n"].dtype) == "Int64" and str(df["receipts"].dtype) == "Int64"
    assert set(df["n_counts"].dropna()) <= {"runs", "steps"}  # lanes without a headline: none


# ---- 6: plots at many lanes -----------------------------------------------------------


def many_lanes(n: int = 24) -> mr.Frontier:
    receipts = []
    for i in range(n):
        receipts.append(mr.loads(json.dumps(variant(
            {"workload.seq_len": 1024 * (i + 1),
             "metrics.step_time_s.samples": scaled_samples(1 + ((i * 7) % n) / 100)},
            id=f"lane{i}"))))
    return mr.frontier(receipts)


def test_plot_options_hide_adjacency_sort_by_metric_and_ellipsise_labels():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.patches import FancyArrowPatch

    fr = many_lanes()
    ax = fr.plot(adjacency=False, sort="metric", label_width=30)
    assert not [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 24 and all(len(t) <= 30 for t in labels)
    assert any("… (lane-" in t for t in labels)  # the label is cut, never the short key
    assert all(t.endswith(f"({lane.short_key})") for t, lane in zip(labels, sorted(
        fr.lanes, key=lambda lane: -lane.headline.median)))
    best_first = sorted(fr.lanes, key=lambda lane: -lane.headline.median)  # higher is better
    full = [t.get_text() for t in fr.plot(adjacency=False, sort="metric", label_width=500).get_yticklabels()]

    def tick(lane):  # what tells the lane apart first, then its name (issue 29)
        head = ", ".join(p if len(p) <= 22 else p[:21] + "…" for p in lane.differences.split(", ") if p)
        return (f"{head} · {lane.label}" if head else lane.label) + f" ({lane.short_key})"

    assert full == [tick(lane) for lane in best_first]
    assert full != [tick(lane) for lane in fr.lanes]  # key order differs
    with_arcs = fr.plot(adjacency=True)  # by default only up to 20 lanes
    assert [p for p in with_arcs.patches if isinstance(p, FancyArrowPatch)]
    with pytest.raises(ValueError):
        fr.plot(sort="name")


def test_plot_notes_sit_outside_the_axes_and_legend_says_what_n_counts():
    import matplotlib

    matplotlib.use("Agg")
    one_run = mr.loads(json.dumps(variant({"workload.seq_len": 8192}, id="steps-only")))
    runs = [mr.loads(json.dumps(variant(id=f"r{i}"))) for i in range(3)]
    ax = mr.frontier([one_run, *runs]).plot()
    notes = [t for t in ax.texts if t.get_text().startswith("n=")]
    assert notes and all(t.xy[0] > 1.0 for t in notes)  # axes fraction: right of the plot area
    assert any("steps" in t.get_text() for t in notes)
    legend = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "n = runs, or steps of one run" in legend
    ax = mr.frontier(runs).plot()
    assert "n = runs" in " ".join(t.get_text() for t in ax.get_legend().get_texts())


# ---- 9: extras -------------------------------------------------------------------------


def test_missing_extras_raise_import_errors_that_say_what_to_install(monkeypatch, receipt_dir):
    rs = mr.load_dir(receipt_dir)
    fr = mr.frontier(rs)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install 'mcpp_receipts\[pandas\]'"):
        rs.to_pandas()
    with pytest.raises(ImportError, match=r"mcpp_receipts\[pandas\]"):
        fr.to_pandas()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'mcpp_receipts\[plot\]'"):
        fr.plot()


# ---- 10: lanes told apart everywhere ------------------------------------------------------


def test_lanes_sharing_a_name_show_what_differs_in_every_interface():
    receipts = [
        mr.loads(json.dumps(variant(id="padded"))),
        mr.loads(json.dumps(variant({"backend.moe.observed": "jagged", "backend.moe.requested": "jagged"},
                                    id="jagged"))),
        mr.loads(json.dumps(variant({"workload.seq_len": 8192}, id="long"))),
    ]
    fr = mr.frontier(receipts)
    labels = sorted(lane.display_label for lane in fr.lanes)
    assert labels == sorted([
        "NAM56R hybrid MoE lane (seq_len=4096, moe=jagged)",
        "NAM56R hybrid MoE lane (seq_len=4096, moe=padded)",
        "NAM56R hybrid MoE lane (seq_len=8192, moe=padded)",
    ])
    assert all(lane.label == "NAM56R hybrid MoE lane" for lane in fr.lanes)
    for label in labels:
        assert label in fr.to_text()
        assert label in fr.to_markdown()
        assert label in fr._repr_html_()
        assert label in set(fr.to_pandas()["display_label"])
        assert any(d["display_label"] == label for d in json.loads(fr.to_json())["lanes"])
    import matplotlib

    matplotlib.use("Agg")
    ticks = [t.get_text() for t in fr.plot(label_width=200).get_yticklabels()]
    # the plot leads with what differs: "seq_len=4096, moe=jagged · NAM56R hybrid MoE lane (lane-…)"
    assert all(any(t.startswith(f"{lane.differences} · {lane.label} (") for t in ticks) for lane in fr.lanes)
    lane = fr.lanes[0]
    assert lane.differences in lane.display_label and lane.differences in lane._repr_html_()
