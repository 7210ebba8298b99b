"""The frontier plot (matplotlib): lanes with their intervals, stable vs unstable
marked, adjacency drawn. Kept apart so importing mcpp_receipts never imports
matplotlib."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ._results import Frontier

STABLE_COLOUR = "#2e7d32"
UNSTABLE_COLOUR = "#ef6c00"


def plot_frontier(frontier: Frontier, ax=None, annotate: bool = True):
    """See :meth:`Frontier.plot`."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch

    lanes = frontier.lanes
    if ax is None:
        _, ax = plt.subplots(figsize=(8, max(2.0, 0.55 * len(lanes) + 1.2)))

    index = {lane.key: i for i, lane in enumerate(lanes)}
    points: dict[int, tuple[float, float]] = {}
    metric = None
    for i, lane in enumerate(lanes):
        h = lane.headline
        colour = STABLE_COLOUR if lane.stable else UNSTABLE_COLOUR
        if h is None or h.median is None:
            ax.annotate("no headline", (0, i), xycoords=("axes fraction", "data"),
                        xytext=(4, 0), textcoords="offset points", va="center",
                        color=colour, fontsize=8)
            continue
        metric = metric or h.metric
        low = h.low if h.low is not None else h.median
        high = h.high if h.high is not None else h.median
        ax.errorbar(
            [h.median], [i], xerr=[[h.median - low], [high - h.median]],
            fmt="o" if lane.stable else "D", color=colour, ecolor=colour, capsize=4,
            markersize=7, markerfacecolor=colour if lane.stable else "white", linewidth=1.5,
        )
        points[i] = (h.median, i)
        if annotate:
            text = f"n={h.n}" if lane.stable else f"n={h.n}  {lane.blocker or ''}"
            ax.annotate(text[:60], (high, i), xytext=(6, 0), textcoords="offset points",
                        va="center", fontsize=8, color=colour)

    # Adjacency: one grey arc per adjacent pair, labelled with what differs.
    drawn = set()
    for i, lane in enumerate(lanes):
        for adj in lane.adjacent:
            j = index.get(adj.key)
            if j is None or (min(i, j), max(i, j)) in drawn:
                continue
            drawn.add((min(i, j), max(i, j)))
            if i not in points or j not in points:
                continue
            arc = FancyArrowPatch(points[i], points[j], arrowstyle="-", linestyle="--",
                                  color="#9e9e9e", connectionstyle="arc3,rad=0.3",
                                  linewidth=1, zorder=0)
            ax.add_patch(arc)
            if annotate and adj.differs_in:
                mx = (points[i][0] + points[j][0]) / 2
                my = (points[i][1] + points[j][1]) / 2
                ax.annotate(adj.differs_in, (mx, my), fontsize=7, color="#757575",
                            ha="center", va="center")

    ax.margins(x=0.3)  # room for the n= and blocker notes right of each interval
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([f"{lane.label} ({lane.short_key})" for lane in lanes], fontsize=8)
    ax.set_ylim(-0.7, len(lanes) - 0.3)
    ax.invert_yaxis()
    ax.set_xlabel(metric or "headline")
    ax.set_title("Frontier: each number belongs to its lane only")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(
        handles=[
            Line2D([], [], marker="o", color=STABLE_COLOUR, linestyle="", label="stable"),
            Line2D([], [], marker="D", color=UNSTABLE_COLOUR, markerfacecolor="white",
                   linestyle="", label="unstable"),
            Line2D([], [], color="#9e9e9e", linestyle="--", label="adjacent"),
        ],
        loc="best", fontsize=8,
    )
    return ax
