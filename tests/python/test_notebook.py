"""The example notebook runs end to end (so it never rots)."""

from __future__ import annotations

import re

import pytest

from conftest import REPO

NOTEBOOK = REPO / "examples" / "notebooks" / "frontier.ipynb"


def test_frontier_notebook_executes_end_to_end():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "mcpp-frontier" in html and "mcpp-comparison" in html
    assert any("image/png" in o.get("data", {}) for o in outputs), "the frontier plot is shown"
    # What examples/receipts/README.md promises: the padded MoE lane is stable.
    printed = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    stable = re.search(r"(\d+) stable lane\(s\): \[(.*)\]", printed)
    assert stable and int(stable.group(1)) >= 1, printed
    assert "NAM56R hybrid MoE lane" in stable.group(2)
