"""The example notebook runs end to end, and what its text says is what its
cells print (issue 29, item 5): a notebook that runs but whose prose no longer
matches its outputs misleads more than one that fails."""

from __future__ import annotations

import re
import tomllib

import pytest

import mcpp_receipts as mr
from conftest import REPO

NOTEBOOK = REPO / "examples" / "notebooks" / "frontier.ipynb"


@pytest.fixture(scope="module")
def executed():
    nbformat = pytest.importorskip("nbformat", reason="nbformat is a test dependency (scripts/test-python.sh)")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is a test dependency (scripts/test-python.sh)")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return nb


def printed(nb, needle: str) -> str:
    """The text printed by the one code cell whose source contains `needle`."""
    cells = [c for c in nb.cells if c.cell_type == "code" and needle in c.source]
    assert len(cells) == 1, f"{len(cells)} cells contain {needle!r}"
    return "".join(o.get("text", "") for o in cells[0].outputs if o.get("output_type") == "stream")


def markdown(nb) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_the_notebook_executes_without_an_error_and_shows_its_tables_and_plot(executed):
    outputs = [o for cell in executed.cells if cell.cell_type == "code" for o in cell.outputs]
    errors = [o for o in outputs if o.get("output_type") == "error"]
    assert not errors, errors[0].get("evalue") if errors else ""
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert "mcpp-frontier" in html and "mcpp-comparison" in html
    assert any("image/png" in o.get("data", {}) for o in outputs), "the frontier plot is shown"


def test_unique_drops_the_yaml_twins_and_nothing_fails_to_load(executed):
    m = re.search(r"(\d+) files -> (\d+) distinct receipts, (\d+) errors", printed(executed, "unique()"))
    assert m, printed(executed, "unique()")
    files, distinct, errors = map(int, m.groups())
    assert files == 2 * distinct and errors == 0  # every example ships as JSON and YAML


def test_a_fallen_back_backend_makes_the_pair_not_comparable(executed):
    assert "A backend that fell back (padded → jagged) makes\nthe pair **not comparable**" in markdown(executed)
    assert printed(executed, "cmp = mr.compare(padded, jagged)").strip() == "not_comparable - differs in: ['backend']"


def test_a_different_startup_state_only_qualifies(executed):
    assert "a different startup state only **qualifies** it" in markdown(executed)
    assert printed(executed, "cold_cmp = ").strip() == "qualified - qualified by: ['startup']"


def test_the_padded_lane_is_stable_and_the_h200_request_is_excluded(executed):
    out = printed(executed, "fr.stable")
    assert re.search(r"^1 stable lane\(s\): \['NAM56R hybrid MoE lane'\]$", out, re.M), out
    assert "'nam56r-padded-h200-requested-2026-03-18'" in out, out


def test_the_quoted_number_is_contradicted_and_traced_to_the_jagged_lane(executed):
    text = markdown(executed)
    assert "the check contradicts it and says where the\nnumber really came from" in text
    assert "`moe=padded` alone matches the padded lane and its\nsynthetic-data neighbour" in text
    out = printed(executed, "quoted = jagged.metrics.tokens_per_s").splitlines()
    assert out[0] == "moe=padded alone: ambiguous", out
    assert out[1].startswith("contradicted - the number came from: ['NAM56R hybrid MoE lane (") and "moe=jagged" in out[1]


def test_the_pytest_benchmark_suite_becomes_two_receipts(executed):
    out = printed(executed, "import_results")
    assert re.match(r"2 receipts from (a live pytest-benchmark run|bench_demo\.json)", out), out
    # the recorded output the notebook falls back on without pytest-benchmark imports the same way
    shipped = mr.import_results("pytest-benchmark", NOTEBOOK.parent / "bench_demo.json")
    assert sorted(r["benchmark.name"].split("::")[-1] for r in shipped) == ["test_sorted", "test_sum"]


def test_the_documented_install_has_what_the_notebook_needs_unguarded():
    """`pip install ".[pandas,plot]"`: pandas (to_pandas) and matplotlib (plot) are
    those extras; pytest-benchmark is only used behind find_spec."""
    nbformat = pytest.importorskip("nbformat", reason="nbformat is a test dependency (scripts/test-python.sh)")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert 'pip install ".[pandas,plot]"' in nb.cells[0].source
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert "pandas" in extras["pandas"] and "matplotlib" in extras["plot"]
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert 'find_spec("pytest_benchmark")' in code
    assert "check=True, capture_output=True" not in code  # pytest's own error is shown
