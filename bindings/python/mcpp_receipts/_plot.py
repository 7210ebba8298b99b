"""The frontier plot (matplotlib): lanes with their intervals, stable vs unstable
marked, adjacency drawn. Kept apart so importing mcpp_receipts never imports
matplotlib."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._extras import require

if TYPE_CHECKING:  # pragma: no cover
    from ._results import Frontier, Lane

STABLE_COLOUR = "#2e7d32"
UNSTABLE_COLOUR = "#ef6c00"
ADJACENT_COLOUR = "#9e9e9e"


def ellipsize(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _ordered(lanes: list[Lane], sort: str | None) -> list[Lane]:
    if sort != "metric":
        return list(lanes)

    def rank(lane: Lane):
        h = lane.headline
        if h is None or h.median is None:
            return (1, 0.0)
        return (0, -h.median if h.higher_is_better else h.median)

    return sorted(lanes, key=rank)


def _n_legend(lanes: list[Lane]) -> str:
    """What n counts, said once when all lanes agree, per kind when they do not."""
    kinds = {lane.headline.from_steps for lane in lanes if lane.headline is not None}
    if kinds == {True}:
        return "n = steps of one run"
    if kinds == {False}:
        return "n = runs"
    if kinds:
        return "n = runs, or steps of one run where marked \"steps\""
    return "no headlines"


def _draw_adjacency(ax, lanes: list[Lane], points: dict[int, tuple[float, float]], annotate: bool):
    from matplotlib.patches import FancyArrowPatch

    index = {lane.key: i for i, lane in enumerate(lanes)}
    drawn = set()
    for i, lane in enumerate(lanes):
        for adj in lane.adjacent:
            j = index.get(adj.key)
            pair = (min(i, j), max(i, j)) if j is not None else None
            if pair is None or pair in drawn or i not in points or j not in points:
                continue
            drawn.add(pair)
            ax.add_patch(FancyArrowPatch(points[i], points[j], arrowstyle="-", linestyle="--",
                                         color=ADJACENT_COLOUR, connectionstyle="arc3,rad=0.3",
                                         linewidth=1, zorder=0))
            if annotate and adj.differs_in:
                mx = (points[i][0] + points[j][0]) / 2
                my = (points[i][1] + points[j][1]) / 2
                ax.annotate(adj.differs_in, (mx, my), fontsize=7, color="#757575",
                            ha="center", va="center")


def plot_frontier(frontier: Frontier, ax=None, annotate: bool = True, adjacency: bool = True,
                  sort: str | None = None, label_width: int = 48):
    """See :meth:`Frontier.plot`."""
    require("plot")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    lanes = _ordered(frontier.lanes, sort)
    if ax is None:
        _, ax = plt.subplots(figsize=(10, max(2.0, 0.45 * len(lanes) + 1.4)))

    points: dict[int, tuple[float, float]] = {}
    metric = None
    for i, lane in enumerate(lanes):
        h = lane.headline
        colour = STABLE_COLOUR if lane.stable else UNSTABLE_COLOUR
        if h is None or h.median is None:
            ax.annotate("no headline", (1.01, i), xycoords=("axes fraction", "data"),
                        va="center", color=colour, fontsize=8, annotation_clip=False)
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
            # right of the axes, in axes coordinates: never over a point, never clipped
            n = f"n={h.n}" + (" steps" if h.from_steps else "")
            note = n if lane.stable else f"{n}  {ellipsize(lane.blocker or '', 40)}"
            ax.annotate(note, (1.01, i), xycoords=("axes fraction", "data"), va="center",
                        fontsize=8, color=colour, annotation_clip=False)

    if adjacency:
        _draw_adjacency(ax, lanes, points, annotate)

    ax.margins(x=0.08)
    ax.set_yticks(range(len(lanes)))
    # the short key always shows whole: it is how the lane is found again
    ax.set_yticklabels([f"{ellipsize(lane.display_label or lane.label, label_width - len(lane.short_key) - 3)}"
                        f" ({lane.short_key})" for lane in lanes], fontsize=8)
    ax.set_ylim(-0.7, len(lanes) - 0.3)
    ax.invert_yaxis()
    ax.set_xlabel(metric or "headline")
    ax.set_title("Frontier: each number belongs to its lane only")
    ax.grid(axis="x", alpha=0.3)
    handles = [
        Line2D([], [], marker="o", color=STABLE_COLOUR, linestyle="", label="stable"),
        Line2D([], [], marker="D", color=UNSTABLE_COLOUR, markerfacecolor="white",
               linestyle="", label="unstable"),
    ]
    if adjacency:
        handles.append(Line2D([], [], color=ADJACENT_COLOUR, linestyle="--", label="adjacent"))
    handles.append(Line2D([], [], linestyle="", label=_n_legend(lanes)))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.12 if len(lanes) < 8 else -0.06),
              ncol=len(handles), fontsize=8, frameon=False)
    if ax.figure is not None:
        ax.figure.tight_layout()
    return ax
