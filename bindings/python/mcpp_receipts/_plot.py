"""The frontier plot (matplotlib): lanes with their intervals, stable vs unstable
marked, adjacency drawn. Kept apart so importing mcpp_receipts never imports
matplotlib."""

from __future__ import annotations

import re
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
            # add_artist, not add_patch: an arrow's path is in display units, and
            # add_patch would count them as data (a 2e-5 s panel scaled to 0..0.05)
            ax.add_artist(FancyArrowPatch(points[i], points[j], arrowstyle="-", linestyle="--",
                                         color=ADJACENT_COLOUR, connectionstyle="arc3,rad=0.3",
                                         linewidth=1, zorder=0))
            if annotate and adj.differs_in:
                mx = (points[i][0] + points[j][0]) / 2
                my = (points[i][1] + points[j][1]) / 2
                ax.annotate(adj.differs_in, (mx, my), fontsize=7, color="#757575",
                            ha="center", va="center")


def distinct_colours(n: int) -> list:
    """n colours no two alike: tab10 up to 10, tab20 up to 20, then evenly
    spaced over a perceptual map (turbo), so lane 11 never repeats lane 1."""
    import matplotlib

    if n <= 10:
        return [matplotlib.colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [matplotlib.colormaps["tab20"](i) for i in range(n)]
    turbo = matplotlib.colormaps["turbo"]
    return [turbo(0.05 + 0.9 * i / (n - 1)) for i in range(n)]


def history_labels(lanes, width: int = 70) -> list[str]:
    """Legend texts for history lanes: the key dimensions whose values differ
    among them first, then the label and short key (lanes sharing one name
    otherwise read the same)."""
    from ._results import _key_dimensions

    dims = [_key_dimensions(lane.key) for lane in lanes]
    names = list(dict.fromkeys(n for d in dims for n in d))
    # per dimension, only the fields ('|'-separated) whose values differ:
    # "backend=jagged", not "backend=flash_attn_3|jagged|mamba2_triton|..."
    fields: dict[str, list[int]] = {}
    spread: dict[str, int] = {}
    for n in names:
        parts = [d.get(n, "-").split("|") for d in dims]
        width_n = max(len(p) for p in parts)
        at = [i for i in range(width_n) if len({p[i] if i < len(p) else "-" for p in parts}) > 1]
        if at:
            fields[n] = at
            spread[n] = len({"|".join(p[i] if i < len(p) else "-" for i in at) for p in parts})
    # the dimensions that split the lanes most come first: with four NAM56R lanes and
    # one NAM52, "backend=jagged" tells more lanes apart than "pattern=AEMEAEMEAEMR"
    order = sorted(fields, key=lambda n: -spread[n])
    values = [{n: "|".join((d.get(n, "-").split("|") + ["-"] * 99)[i] for i in fields[n]) for n in order}
              for d in dims]
    out = []
    for me, (lane, d) in enumerate(zip(lanes, dims)):
        # per lane, the fewest dimensions that tell it from every other lane
        # (greedy), so two lanes that differ only in data.path show data.path
        left, chosen = {j for j in range(len(lanes)) if j != me}, []
        while left:
            best = max(order, key=lambda n: sum(values[j][n] != values[me][n] for j in left))
            split = {j for j in left if values[j][best] != values[me][best]}
            if not split:
                break
            chosen.append(best)
            left -= split
        needed = [f"{n}={values[me][n]}" for n in order if n in chosen]
        shown = needed + [f"{n}={values[me][n]}" for n in order if n not in chosen]
        key = f" ({lane.short_key})"
        room = max(8, width - len(key))
        head = ", ".join(shown)
        name = lane.label or ""
        text = f"{head} · {name}" if head and name else head or name
        if len(text) > room and head:  # the name is shared: it goes first, then the parts not needed
            kept = needed or shown[:1]
            if len(", ".join(kept)) + 3 > room:  # each needed part cut on its own, its value kept
                each = max(8, (room - 3 - 2 * (len(kept) - 1)) // len(kept))
                kept = [_cut_part(part, each) for part in kept]
            for part in shown[len(kept):] if kept == needed or not needed else []:
                if len(", ".join(kept)) + 2 + len(part) + 3 > room:
                    break
                kept.append(part)
            text = ", ".join(kept) + (", …" if len(kept) < len(shown) else "")
        out.append(ellipsize(text, room) + key)
    return out


def _cut_part(part: str, width: int) -> str:
    """One "key=value" difference in ``width`` characters: the value kept whole
    where it fits (the key is shortened instead), since the value is what
    tells lanes apart ("precision=bf16" vs "precision=fp32")."""
    if len(part) <= width:
        return part
    key, eq, value = part.partition("=")
    if eq and len(value) + 2 <= width:
        return ellipsize(key, width - len(value) - 1) + "=" + value
    return ellipsize(part, width)


def lane_label(lane: Lane, width: int) -> str:
    """The tick label of a lane: what tells it from its neighbours first
    ("moe=jagged, seq_len=8192"), then its name, then its short key; cut at
    ``width`` characters from the end, so the part that differs always shows.
    The short key is kept whole: it is how the lane is found again."""
    key = f" ({lane.short_key})"
    # each difference cut on its own, so every differing dimension shows
    # ("dataset=fineweb-edu-dedu…, moe=padded"), not only the first ones
    full = [p for p in re.split(r", (?=[\w.]+=)", lane.differences or "") if p]
    parts = [_cut_part(p, 22) for p in full]  # its value kept: "backend.precis…=fp32" (issue 49)
    head = ", ".join(parts)
    room = max(8, width - len(key))
    if len(head) > room and full:
        # too many differences to name: their values alone, each given an equal share,
        # so the one that tells two neighbours apart (cold_boot, warm_cache) still shows
        share = max(6, (room - 2 * (len(full) - 1)) // len(full))
        head = ", ".join(ellipsize(p.split("=", 1)[-1], share) for p in full)
    name = lane.label if lane.label and lane.label != lane.short_key else ""
    text = f"{head} · {name}" if head and name else head or name
    return ellipsize(text, room) + key if text else lane.short_key


def _panels(lanes: list[Lane]) -> list[tuple[str, str | None, list[Lane]]]:
    """The lanes grouped by headline metric and unit, one panel each (seconds
    next to tokens/s on one axis say nothing), in first-seen order; lanes with
    no headline go to the first panel, where they are marked."""
    groups: dict[tuple[str, str | None], list[Lane]] = {}
    bare: list[Lane] = []
    for lane in lanes:
        h = lane.headline
        if h is None or h.median is None:
            bare.append(lane)
        else:
            groups.setdefault((h.metric, h.unit), []).append(lane)
    panels = [(metric, unit, members) for (metric, unit), members in groups.items()]
    if not panels:
        return [("headline", None, bare)]
    panels[0][2].extend(bare)
    return panels


def _compact(x: float, _pos=None) -> str:
    """Tick text: 396000 -> "396k", 1.2e7 -> "12M"; small numbers as they are
    (no milli prefix: "6m" would read as minutes next to a unit of seconds)."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= 10 * div:
            return f"{x / div:g}{suffix}"
    return f"{x:g}"


# Lanes whose intervals span more than this factor get a log axis: 0.5k and 35k
# tokens/s on a linear one put the small lanes on top of each other at 0.
LOG_AXIS_SPAN = 10.0


def _wants_log_axis(lanes: list[Lane]) -> bool:
    ends = [v for lane in lanes if lane.headline is not None and lane.headline.median is not None
            for v in (lane.headline.low, lane.headline.median, lane.headline.high) if v is not None]
    return bool(ends) and min(ends) > 0 and max(ends) / min(ends) > LOG_AXIS_SPAN


def _axis_label(metric: str, unit: str | None, lanes: list[Lane]) -> str:
    directions = {lane.headline.higher_is_better for lane in lanes if lane.headline is not None}
    arrow = (" — higher is better" if directions == {True} else " — lower is better" if directions == {False}
             else "")
    return f"{metric}" + (f" ({unit})" if unit else "") + arrow


def _draw_panel(ax, lanes: list[Lane], metric: str, unit: str | None, annotate: bool, adjacency: bool,
                label_width: int) -> None:
    points: dict[int, tuple[float, float]] = {}
    many = len(lanes) > 15
    fontsize = 7 if many else 8
    for i, lane in enumerate(lanes):
        h = lane.headline
        colour = STABLE_COLOUR if lane.stable else UNSTABLE_COLOUR
        if h is None or h.median is None:
            ax.annotate("no headline", (1.01, i), xycoords=("axes fraction", "data"),
                        va="center", color=colour, fontsize=fontsize, annotation_clip=False)
            continue
        low = h.low if h.low is not None else h.median
        high = h.high if h.high is not None else h.median
        ax.errorbar(
            [h.median], [i], xerr=[[h.median - low], [high - h.median]],
            fmt="o" if lane.stable else "D", color=colour, ecolor=colour, capsize=3 if many else 4,
            markersize=5 if many else 7, markerfacecolor=colour if lane.stable else "white", linewidth=1.5,
        )
        points[i] = (h.median, i)
        if annotate:
            # right of the axes, in axes coordinates: never over a point, never clipped
            n = f"n={h.n}" + (" steps" if h.from_steps else "")
            note = n if lane.stable else f"{n}  {ellipsize(lane.blocker or '', 40)}"
            ax.annotate(note, (1.01, i), xycoords=("axes fraction", "data"), va="center",
                        fontsize=fontsize, color=colour, annotation_clip=False)
    if adjacency:
        _draw_adjacency(ax, lanes, points, annotate and not many)
    ax.margins(x=0.08)
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([lane_label(lane, label_width) for lane in lanes], fontsize=fontsize)
    ax.set_ylim(-0.7, len(lanes) - 0.3)
    ax.invert_yaxis()
    log = _wants_log_axis(lanes)
    ax.set_xlabel(_axis_label(metric, unit, lanes) + (" — log scale" if log else ""), fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    # tick labels of large numbers in a compact form ("396k"), at most 6, never running together
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    if log:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, numticks=8))
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.xaxis.set_major_formatter(FuncFormatter(_compact))


def plot_frontier(frontier: Frontier, ax=None, annotate: bool = True, adjacency: bool | None = None,
                  sort: str | None = None, label_width: int = 80):
    """See :meth:`Frontier.plot`."""
    require("plot")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    panels = [(metric, unit, _ordered(members, sort)) for metric, unit, members in _panels(frontier.lanes)]
    if ax is not None and len(panels) > 1:
        raise ValueError(f"the frontier's lanes state {len(panels)} metrics or units "
                         f"({', '.join(m + (f' ({u})' if u else '') for m, u, _ in panels)}), one panel "
                         "each: pass ax=None, or plot a frontier of one metric")
    if adjacency is None:  # arcs between 20+ lanes hide the points they join
        adjacency = len(frontier.lanes) <= 20
    if ax is None:
        heights = [max(0.8, 0.28 * len(members) + 0.3) for _, _, members in panels]
        gap = 1.0  # inches between panels: the axis label of one, the top of the next
        fig, axes = plt.subplots(len(panels), 1, figsize=(16, sum(heights) + gap * (len(panels) - 1) + 1.6),
                                 gridspec_kw={"height_ratios": heights,
                                              "hspace": gap / (sum(heights) / len(heights))},
                                 squeeze=False)
        axes = [a for row in axes for a in row]
    else:
        fig, axes = ax.figure, [ax]
    for a, (metric, unit, members) in zip(axes, panels):
        _draw_panel(a, members, metric, unit, annotate, adjacency, label_width)
    handles = [
        Line2D([], [], marker="o", color=STABLE_COLOUR, linestyle="", label="stable"),
        Line2D([], [], marker="D", color=UNSTABLE_COLOUR, markerfacecolor="white",
               linestyle="", label="unstable"),
    ]
    if adjacency:
        handles.append(Line2D([], [], color=ADJACENT_COLOUR, linestyle="--", label="adjacent"))
    handles.append(Line2D([], [], linestyle="", label=_n_legend(frontier.lanes)))
    # the title and the legend above the first panel: never over an axis label
    axes[0].set_title("Frontier: each number belongs to its lane only", pad=22)
    axes[0].legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(handles),
                   fontsize=8, frameon=False, borderaxespad=0.2)
    if fig is not None and ax is None:
        # room for the longest tick label on the left and the n= notes on the right
        # (tight_layout does not count annotations outside the axes)
        longest = max((len(t.get_text()) for a in axes for t in a.get_yticklabels()), default=10)
        width = fig.get_figwidth()
        left = min(0.55, 0.02 + longest * 0.062 / width)
        fig.subplots_adjust(left=left, right=1 - 3.2 / width if annotate else 0.97,
                            top=1 - 0.9 / fig.get_figheight(), bottom=0.6 / fig.get_figheight())
    # one type always: the first panel's Axes; the others are ax.figure.axes
    return axes[0]
