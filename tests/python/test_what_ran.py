"""The receipt says what ran (issue 47), as a Python user sees it: each derived
goodput fraction is its own column (item 9), and the seconds are never a metric
of an analysis (docs/verdicts.md)."""

from __future__ import annotations

import json

import pytest

import mcpp_receipts as mr
from conftest import EXAMPLES

pd = pytest.importorskip("pandas", reason="pandas is the [pandas] extra (scripts/test-python.sh installs it)")


def with_goodput(rid: str, allocated: float, busy: float, useful: float, compile_s: float) -> mr.Receipt:
    d = json.loads((EXAMPLES / "nam56r_padded.json").read_text(encoding="utf-8"))
    d["id"] = rid
    d["metrics"]["goodput"] = {"allocated_s": allocated, "kernel_busy_s": busy, "useful_s": useful,
                               "badput_s": {"compile": compile_s}}
    return mr.loads(json.dumps(d))


def test_each_goodput_fraction_is_its_own_column():
    rs = mr.ReceiptSet([with_goodput("a", 10, 6, 4, 3), with_goodput("b", 20, 10, 5, 2)])
    df = rs.to_pandas()
    assert "metrics.goodput" not in df.columns  # one column for three fractions held the last one
    assert list(df["metrics.goodput.useful_fraction"]) == pytest.approx([0.4, 0.25])
    assert list(df["metrics.goodput.kernel_busy_fraction"]) == pytest.approx([0.6, 0.5])
    assert list(df["metrics.goodput.badput_fraction"]) == pytest.approx([0.3, 0.1])
    # the documented names select them
    picked = rs.to_pandas(columns=["metrics.goodput.useful_fraction", "metrics.goodput.badput_fraction"])
    assert list(picked["metrics.goodput.badput_fraction"]) == pytest.approx([0.3, 0.1])


def test_the_paths_docs_metrics_md_says_pandas_has_are_its_columns():
    """Issue 47 item 16: the sentence of docs/metrics.md that says "pandas has one
    column each" is read, and each path it names is a column of to_pandas() (the
    CLI side of the same sentence: tests/cli/doc_figures_test.py)."""
    import re

    doc = " ".join((EXAMPLES.parents[1] / "docs" / "metrics.md").read_text(encoding="utf-8").split())
    m = re.search(r"each at its own path \((.*?)\), so pandas has one column each", doc)
    assert m, "docs/metrics.md no longer says which paths pandas has"
    named, last = [], ""
    for name in re.findall(r"`([\w.]+)`", m.group(1)):
        name = last.rsplit(".", 1)[0] + name if name.startswith(".") else name
        named.append(name)
        last = name
    assert len(named) == 3
    df = mr.ReceiptSet([with_goodput("a", 10, 6, 4, 3)]).to_pandas()
    assert [n for n in named if n not in df.columns] == []


def test_goodput_seconds_are_not_a_metric_to_compare():
    a, b = with_goodput("a", 10, 6, 4, 3), with_goodput("b", 20, 10, 5, 2)
    with pytest.raises(mr.Error, match="name goodput.useful_fraction"):
        mr.compare(a, b, metric="goodput.useful_s")
    assert mr.compare(a, b, metric="goodput.useful_fraction").metric["name"] == "goodput.useful_fraction"


# ---- item 15: the PyTorch recorder's first receipts can be compared ----------------------

def _record(inputs_given: bool, declared: dict | None = None):
    torch = pytest.importorskip("torch", reason="the torch recorder needs PyTorch (the [torch] extra)")
    from mcpp_receipts import torch as mrt

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(64, 16), torch.nn.Linear(16, 64))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    rec = mrt.Recorder(lane={"name": "tiny", "pattern": "A", "depth": 1, "workload.data.path": "synthetic",
                             **(declared or {})}, model=model,
                       warmup=1, measure=3, profile=False)
    batch = torch.randint(0, 64, (4, 32))
    while not rec.done:
        with (rec.step(inputs=batch) if inputs_given else rec.step(tokens=batch.numel())):
            loss = model(batch).logsumexp(-1).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
    return rec


def test_the_recorder_observes_batch_and_sequence_from_the_step_inputs():
    import warnings

    runs = []
    for _ in range(2):
        rec = _record(inputs_given=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing a comparison needs is missing: no warning
            runs.append(rec.finish())
    a, b = runs
    assert (a["workload.micro_batch"], a["workload.seq_len"], a["workload.tokens_per_step"]) == (4, 32, 128)
    assert mr.compare(a, b).verdict != "insufficient"


def test_finish_names_what_a_comparison_is_missing_and_how_to_declare_it():
    rec = _record(inputs_given=False)
    with pytest.warns(UserWarning, match=r"can never be compared: not stated: .*batch \(workload.micro_batch"):
        r = rec.finish()
    assert "batch" in rec.missing_for_comparison(r)
    declared = _record(inputs_given=False, declared={"workload.micro_batch": 4, "workload.seq_len": 32})
    assert declared.missing_for_comparison(declared.finish()) == {}
