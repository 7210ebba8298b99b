"""Plots a notebook user can read (issue 29, item 6): lane labels lead with what
tells lanes apart, one panel per metric and unit, nothing overlaps at 30 lanes,
and a store history has one legend entry and one colour per lane. The PNGs are
written to the test's tmp folder (plots/) for a person to look at."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

import mcpp_receipts as mr
from conftest import EXAMPLES, REPO

matplotlib = pytest.importorskip("matplotlib", reason="matplotlib is the [plot] extra (scripts/test-python.sh)")
matplotlib.use("Agg")
sys.path.insert(0, str(REPO / "tests" / "report"))
from report_set import write_set  # noqa: E402  (the HTML report's 30-lane set)


def axes_of(result) -> list:
    """Every panel of a plot: Frontier.plot() returns the first panel's Axes."""
    return result if isinstance(result, list) else list(result.figure.axes)


def boxes(texts, renderer):
    return [t.get_window_extent(renderer) for t in texts if t.get_text()]


def overlapping(bbs) -> list:
    return [(a, b) for i, a in enumerate(bbs) for b in bbs[i + 1:] if a.overlaps(b)]


def save(result, tmp_path, name):
    out = tmp_path / "plots"
    out.mkdir(exist_ok=True)
    fig = axes_of(result)[0].figure
    fig.savefig(out / f"{name}.png", dpi=80)
    return fig


def test_the_readme_lanes_read_apart_at_the_default_width(tmp_path):
    fr = mr.frontier(mr.load_dir(EXAMPLES, recursive=False))
    ax = axes_of(fr.plot())[0]
    save(ax, tmp_path, "readme")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(set(labels)) == len(labels) == len(fr.lanes)
    # with the short key cut off, every label still differs: what tells lanes apart comes first
    heads = [label.rsplit(" (lane-", 1)[0] for label in labels]
    assert len(set(heads)) == len(heads), heads
    by_key = {lane.short_key: lane for lane in fr.lanes}
    for label in labels:
        lane = by_key[label.rsplit(" (", 1)[-1].rstrip(")")]
        if lane.differences:
            last = lane.differences.rsplit(", ", 1)[-1]  # e.g. "moe=padded": the part cut first before
            assert last in label or last.split("=", 1)[-1] in label, (last, label)


def test_lanes_of_different_metrics_and_units_get_their_own_panels(tmp_path):
    fr = mr.frontier(mr.load_dir(EXAMPLES))
    groups = {(lane.headline.metric, lane.headline.unit) for lane in fr.lanes
              if lane.headline is not None and lane.headline.median is not None}
    assert len(groups) >= 2, groups  # the examples mix tokens/s with MLPerf's minutes
    axes = axes_of(fr.plot(sort="metric"))
    save(axes, tmp_path, "mixed")
    assert len(axes) == len(groups)
    xlabels = [a.get_xlabel() for a in axes]
    for metric, unit in groups:
        assert any(x.startswith(f"{metric} ({unit})") for x in xlabels), (metric, unit, xlabels)
    assert all("better" in x for x in xlabels)
    with pytest.raises(ValueError, match="one panel each"):
        import matplotlib.pyplot as plt

        fr.plot(ax=plt.subplots()[1])


def test_thirty_lanes_have_distinct_labels_and_nothing_overlaps(tmp_path):
    write_set(EXAMPLES / "nam56r_padded.json", tmp_path / "set", 30)
    fr = mr.frontier(mr.load_dir(tmp_path / "set"))
    axes = axes_of(fr.plot())
    fig = save(axes, tmp_path, "lanes30")
    renderer = fig.canvas.get_renderer()
    labels = [t.get_text() for a in axes for t in a.get_yticklabels()]
    assert len(set(labels)) == len(labels) == len(fr.lanes)
    for a in axes:
        assert not overlapping(boxes(a.get_yticklabels(), renderer)), "tick labels run together"
        assert not overlapping(boxes(a.get_xticklabels(), renderer)), "x tick labels run together"
        # every tick label lies inside the figure (none cut at the left edge)
        assert all(b.x0 >= 0 for b in boxes(a.get_yticklabels(), renderer))
    legend = axes[0].get_legend().get_window_extent(renderer)
    for a in axes:
        assert not legend.overlaps(a.xaxis.label.get_window_extent(renderer)), "the legend covers an axis label"
        assert not legend.overlaps(a.get_window_extent(renderer)), "the legend covers the plot"


def test_history_plot_has_one_entry_and_one_colour_per_lane_and_names_the_metric(tmp_path):
    write_set(EXAMPLES / "nam56r_padded.json", tmp_path / "set", 12)
    store = mr.Store(tmp_path / "runs.db")
    store.add(mr.load_dir(tmp_path / "set"))
    history = store.history()
    assert len(history.lanes) == 12 and history.metric == "primary"
    # lane 8 fell back from padded to jagged in every run: its series sets them
    # aside as the frontier keeps them out of its headline (issue 47 item 3), so
    # 11 lanes have runs to draw
    empty = [lane for lane in history.lanes if not lane.runs]
    assert len(empty) == 1 and len(empty[0].set_aside) == 3
    assert all(why.startswith("request not met: ") and "moe: requested padded, observed jagged" in why
               for _, why in empty[0].set_aside)
    ax = axes_of(history.plot())[0]
    save(ax, tmp_path, "history12")
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(texts) == len(set(texts)) == 11, texts
    colours = [tuple(line.get_color()) if not isinstance(line.get_color(), str) else line.get_color()
               for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert len(set(map(str, colours))) == 11
    assert ax.get_ylabel() == "tokens_per_s"


# ---- issue 49, item 6 -------------------------------------------------------------------------


def test_plot_returns_one_axes_whose_figure_saves_every_panel_with_mixed_metrics(tmp_path):
    """The documented `ax = fr.plot(); ax.figure.savefig(...)` with tokens/s and
    MLPerf minutes in one frontier (two panels)."""
    import matplotlib.axes

    fr = mr.frontier(mr.load_dir(EXAMPLES))
    ax = fr.plot()
    assert isinstance(ax, matplotlib.axes.Axes)
    assert len(ax.figure.axes) >= 2 and ax is ax.figure.axes[0]
    ax.figure.savefig(tmp_path / "mixed.png", dpi=60)
    assert (tmp_path / "mixed.png").stat().st_size > 0


def test_microsecond_lanes_fill_their_panel_on_a_log_axis_when_they_span_over_10x(tmp_path):
    """pytest-benchmark lanes at 1e-5..2e-4 s (the real runs of tests/data):
    the axis covers the points, not 0..0.05 s, and is logarithmic."""
    data = REPO / "tests" / "data" / "pytest-benchmark"
    receipts = [*mr.import_results("pytest-benchmark", data / "base.json"),
                *mr.import_results("pytest-benchmark", data / "before_5.3.0.json")]
    fr = mr.frontier(receipts)
    ends = [v for lane in fr.lanes for v in (lane.headline.low, lane.headline.high)]
    assert max(ends) / min(ends) > 10
    ax = fr.plot()
    save(ax, tmp_path, "microseconds")
    low, high = ax.get_xlim()
    assert ax.get_xscale() == "log" and "log scale" in ax.get_xlabel()
    assert low > min(ends) / 10 and high < max(ends) * 10, (low, high, ends)
    # lanes within 10x keep a linear axis
    assert mr.frontier(mr.load_dir(EXAMPLES, recursive=False)).plot().get_xscale() == "linear"


# ---- issue 49, item 7: labels say what tells lanes apart ----------------------------------------


def test_history_legend_tells_every_lane_apart_without_its_short_key(tmp_path):
    """The README's lanes in a store: four NAM56R lanes (padded, jagged, cold
    boot, another denominator) and a NAM52 one; with the short key taken off,
    every legend text still differs."""
    from mcpp_receipts._plot import history_labels

    store = mr.Store(tmp_path / "runs.db")
    store.add(mr.load_dir(EXAMPLES, recursive=False))
    labels = history_labels(store.history().lanes)
    heads = [label.rsplit(" (lane-", 1)[0] for label in labels]
    assert len(set(heads)) == len(heads) == len(labels), heads
    assert all(len(label) <= 70 for label in labels), labels


def test_a_cut_lane_label_keeps_each_differing_value():
    """A torch frontier's lanes differ in precision (backend.precision.observed,
    a long name): at every width the label shows 'bf16' and 'fp32', never a cut
    at 'backend.precision.obs…'."""
    from types import SimpleNamespace

    from mcpp_receipts._plot import lane_label

    lanes = [SimpleNamespace(short_key=f"lane-{i:012x}", label="tiny transformer lane",
                             differences=f"backend.attention.observed=sdpa_efficient, "
                                         f"backend.precision.observed={p}")
             for i, p in enumerate(("bf16", "fp32"))]
    for width in (48, 60, 80, 120):
        texts = [lane_label(lane, width) for lane in lanes]
        assert "bf16" in texts[0] and "fp32" in texts[1], texts
        assert all(len(t) <= width for t in texts), texts
