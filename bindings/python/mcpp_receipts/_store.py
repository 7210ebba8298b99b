"""The receipt store: receipts kept in one SQLite file (:class:`Store`), and a
lane's history over time with its change points (:class:`History`).

The work runs in C (``mcpp_store_*``, ``mcpp_history_*``) with the GIL
released; the file is plain SQLite, so Python's ``sqlite3`` can read it too.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, NamedTuple, Sequence, Union

from . import _core
from ._extras import require
from ._receipt import Receipt, ReceiptSet, _computed_metrics, rounded_repr
from ._results import Frontier

PathLike = Union[str, "os.PathLike[str]"]


class AddResult(NamedTuple):
    """What one :meth:`Store.add` call did."""

    added: int
    unchanged: int
    skipped_removed: int


class Run(NamedTuple):
    """One run of a lane's history."""

    id: str
    created_at: str | None
    git_commit: str | None
    value: float
    segment: int

    def __repr__(self) -> str:
        return rounded_repr(self)


class Change(NamedTuple):
    """A change point: ``run`` is the index of the first run after the shift."""

    run: int
    id: str
    created_at: str | None
    before_commit: str | None
    after_commit: str | None
    before_median: float
    after_median: float
    rel_change: float

    def __repr__(self) -> str:
        return rounded_repr(self)


class LaneHistory(NamedTuple):
    """One lane of a :class:`History`: its runs and change points, and the
    runs its series set aside as ``(id, reason)``: without the metric, or kept
    out of the lane's headline as the frontier keeps them (a request not met)."""

    key: str
    short_key: str
    label: str | None
    runs: list[Run]
    changes: list[Change]
    set_aside: list[tuple[str, str]]


_PLOT_HINT = ("History.plot() needs matplotlib, which is not installed: "
              "pip install matplotlib  (or: pip install 'mcpp_receipts[plot]')")


class History:
    """The history of one or more lanes (``Store.history``): runs in
    ``created_at`` order with their commits and values, and change points."""

    def __init__(self, data: dict[str, Any], render):
        self._data = data
        self._render = render
        self.metric: str = data["metric"]
        self.method: str = data["method"]
        self.lanes: list[LaneHistory] = [
            LaneHistory(lane["key"], lane["short_key"], lane["label"],
                        [Run(**run) for run in lane["runs"]],
                        [Change(**c) for c in lane["changes"]],
                        [(a["id"], a["reason"]) for a in lane["set_aside"]])
            for lane in data["lanes"]]

    def to_dict(self) -> dict[str, Any]:
        """The history as the dict of its JSON (schema mcpp.history/1)."""
        return self._data

    def to_json(self) -> str:
        """The JSON rendering (the C library's)."""
        return self._render("json")

    def to_text(self) -> str:
        """The text rendering, as ``mcpp-receipts history`` prints it."""
        return self._render("text")

    def to_markdown(self) -> str:
        """The markdown rendering: a table of runs per lane and the changes."""
        return self._render("markdown")

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        changes = sum(len(lane.changes) for lane in self.lanes)
        return (f"<History {len(self.lanes)} lanes of {_core.escape_text(str(self.metric))}, "
                f"{changes} change points>")

    def to_pandas(self):  # -> pandas.DataFrame
        """One row per run: lane, created_at, git_commit, value, segment, id."""
        pd = require("pandas")

        rows = [{"lane": lane.short_key, "created_at": run.created_at, "git_commit": run.git_commit,
                 "value": run.value, "segment": run.segment, "id": run.id}
                for lane in self.lanes for run in lane.runs]
        return pd.DataFrame(rows, columns=["lane", "created_at", "git_commit", "value", "segment", "id"])

    def plot(self, ax=None):
        """Draws each lane's values over its runs with matplotlib, a dashed
        line at each change point and each segment's median. One panel per
        metric (the lanes' own metric, "tokens_per_s", not the policy's word
        "primary"); each lane its own colour, however many lanes; legend
        entries lead with what tells the lanes apart ("backend=…jagged…"),
        then the label and short key. Returns the Axes, or a list of Axes for
        several metrics (``ax`` draws one metric only). Raises ImportError
        naming the package to install when matplotlib is missing."""
        try:
            require("plot")
            import matplotlib.pyplot as plt
        except ImportError as e:
            raise ImportError(_PLOT_HINT) from e
        from ._plot import distinct_colours, history_labels

        panels: dict[str, list[LaneHistory]] = {}
        for lane, metric in zip(self.lanes, self._lane_metrics()):
            panels.setdefault(metric, []).append(lane)
        if not panels:
            panels[self.metric] = []
        if ax is not None and len(panels) > 1:
            raise ValueError(f"the lanes state {len(panels)} metrics ({', '.join(panels)}), one panel each: "
                             "pass ax=None")
        if ax is None:
            _, axes = plt.subplots(len(panels), 1, figsize=(11, 3.6 * len(panels)), squeeze=False)
            axes = [a for row in axes for a in row]
        else:
            axes = [ax]
        for a, (metric, lanes) in zip(axes, panels.items()):
            colours = distinct_colours(len(lanes))
            for lane, colour, text in zip(lanes, colours, history_labels(lanes)):
                self._draw_lane(a, lane, colour, text)
            from matplotlib.ticker import MaxNLocator

            a.xaxis.set_major_locator(MaxNLocator(integer=True))
            a.set_xlabel("run (created_at order)")
            a.set_ylabel(metric)
            if lanes:
                a.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                         ncol=1 if len(lanes) <= 16 else 2)
        if axes[0].figure is not None:
            axes[0].figure.tight_layout()
        return axes[0] if len(axes) == 1 else axes

    def _lane_metrics(self) -> list[str]:
        """Each lane's metric as the history JSON names it (a "primary" history
        resolves it per lane)."""
        return [lane.get("metric") or self.metric for lane in self._data["lanes"]]

    @staticmethod
    def _draw_lane(ax, lane: LaneHistory, colour, text: str) -> None:
        xs = list(range(len(lane.runs)))
        ax.plot(xs, [r.value for r in lane.runs], marker="o", markersize=3, color=colour, label=text)
        starts = [0] + [c.run for c in lane.changes] + [len(lane.runs)]
        for c in lane.changes:
            ax.axvline(c.run - 0.5, color=colour, linestyle="--", linewidth=1)
            ax.annotate(f"{c.rel_change:+.1%}", (c.run - 0.5, c.after_median), fontsize=8,
                        xytext=(3, 3), textcoords="offset points", color=colour)
        for a, b in zip(starts, starts[1:]):
            values = sorted(r.value for r in lane.runs[a:b])
            if values:
                mid = values[len(values) // 2] if len(values) % 2 else \
                    0.5 * (values[len(values) // 2 - 1] + values[len(values) // 2])
                ax.hlines(mid, a, b - 1, colors=[colour], alpha=0.4, linewidth=3)


def _without_password(location: str) -> str:
    """The location as ``repr`` and error messages show it: the library's
    rule (``mcpp_store_location_shown``), a ``postgresql://`` URL without its
    password, since notebook output and CI logs are read by others."""
    return _core._store_location_shown(location)


_PG_SCHEMES = ("postgresql://", "postgres://")


def _query_args(lane, where, since, until, limit, newest) -> tuple:
    """A query's arguments as the C calls take them (docs/store.md)."""
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be 0 (all) or more, got {limit}")
    if isinstance(where, dict):
        where = ",".join(f"{k}={v}" for k, v in where.items())
    return lane, where, since, until, int(limit or 0), bool(newest)


class Store:
    """A durable receipt store: one SQLite file, or a PostgreSQL database.

    ``Store(path)`` creates the file on the first :meth:`add`; reading a
    missing store raises :class:`FileError`. ``Store("postgresql://...")``
    (a libpq URL) keeps the receipts in PostgreSQL, shared by many writers;
    every method answers as for the file (docs/store.md). A receipt's id is its identity:
    adding the same receipt again is a no-op, the same id with other content
    raises :class:`ValidationError` and the whole call adds nothing. Each
    ``add`` is one transaction, durable when it returns.
    """

    def __init__(self, path: PathLike):
        self.path = os.fspath(path)

    def __repr__(self) -> str:
        return f"<Store {_without_password(self.path)!r}>"

    # ---- writing ------------------------------------------------------------------

    def add(self, receipts: Iterable[Receipt] | PathLike | Receipt) -> AddResult:
        """Adds receipts (a Receipt, an iterable of them, or a file or
        directory path) in one transaction."""
        from . import _as_receipts

        if isinstance(receipts, _core.Receipt):
            items: Sequence[Receipt] = (receipts,)
        elif (isinstance(receipts, (list, tuple)) and not os.fsdecode(self.path).startswith(_PG_SCHEMES)
              and all(isinstance(r, _core.Receipt) for r in receipts)):
            # the file store keeps one row an id and names an id given twice
            # with other content itself (_as_receipts' pass over the ids was
            # 4% of adding 10^5 receipts)
            items = receipts
        else:
            items = _as_receipts(receipts)[0]
        return AddResult(*_core._store_add(self.path, items))

    def remove(self, id: str, reason: str) -> None:
        """Removes a receipt, keeping a tombstone with ``reason``; a removed
        id is not added again by later adds."""
        _core._store_remove(self.path, id, reason)

    # ---- reading ------------------------------------------------------------------

    def query(self, lane: str | None = None, where: str | dict[str, str] | None = None,
              since: str | None = None, until: str | None = None, limit: int | None = None,
              newest: bool = False) -> ReceiptSet:
        """The stored receipts that match, oldest first (``created_at``, id).

        ``lane``: a lane selector as for :func:`claim`; ``where``:
        ``"column=value,..."`` or a dict over id, tool, git_commit (a prefix
        of 4+ characters matches), name, lane_label, metric; ``since`` /
        ``until``: created_at bounds, RFC 3339 or a date, month or year
        standing for all of itself (``until="2026-11-30"`` keeps that day);
        ``limit`` (0: all) with ``newest`` keeps the newest ones.
        """
        return ReceiptSet(_core._store_query(self.path, *_query_args(lane, where, since, until, limit, newest)),
                          _ids_checked=True)  # the store's id is its primary key

    def __len__(self) -> int:
        return _core._store_count(self.path)[0]

    def removed(self) -> list[dict[str, str]]:
        """Tombstones: ``{"id", "reason", "removed_at"}`` dicts."""
        return [json.loads(line) for line in _core._store_removed(self.path).splitlines() if line]

    def check(self, repair: bool = False) -> str:
        """Checks the store against its receipts' bodies (the truth): SQLite's
        integrity check, every body loads, every row's columns and image and
        every lane summary are what the bodies give (docs/store.md). With
        ``repair``, rewrites what differs from the bodies first (as
        ``store check --repair``). Returns the report (``"ok\\n"`` at its end
        when healthy); raises :class:`ValidationError` with the report when
        the store is damaged (after a repair: when what is left cannot be
        repaired)."""
        ok, report = _core._store_check(self.path, bool(repair))
        if not ok:
            raise _core.ValidationError(f"{_without_password(self.path)}: the store is damaged:\n{report}")
        return report

    def export(self, format: str = "jsonl", *, lane: str | None = None, where: str | dict[str, str] | None = None,
               since: str | None = None, until: str | None = None, limit: int | None = None,
               newest: bool = False) -> str:
        """The selected receipts (the arguments of :meth:`query`) as "json"
        (array), "jsonl" or "yaml" text. A misspelt argument raises TypeError:
        it was ignored, and the export held every receipt."""
        return _core._store_export(self.path, format, *_query_args(lane, where, since, until, limit, newest))

    def to_pandas(self, **query: Any):  # -> pandas.DataFrame
        """One row per selected receipt: id, created_at, git_commit, lane
        (short key), label, the receipt's primary metric (its name, value and
        unit) and tokens_per_s, the values the library computes (a receipt
        with only step samples has its derived tokens_per_s, as history and
        the gate use it). Takes the arguments of :meth:`query`."""
        pd = require("pandas")

        rows = []
        for r in self.query(**query):
            _, short = _core.lane_key(r)
            primary = r.primary_metric
            metric = {m["name"]: m for m in r.metric_list()}.get(primary or "")
            stated = {p: r.get(p) for p in ("metrics.tokens_per_s", "metrics.step_time_s.median")}
            tokens = stated["metrics.tokens_per_s"] or _computed_metrics(r, stated).get("metrics.tokens_per_s")
            rows.append({"id": r.id, "created_at": r.get("created_at"),
                         "git_commit": r.get("source.git_commit"), "lane": short,
                         "label": r.get("lane.name"), "metric": primary,
                         "value": metric.get("value") if metric else None,
                         "unit": metric.get("unit") if metric else None,
                         "tokens_per_s": tokens})
        df = pd.DataFrame(rows, columns=["id", "created_at", "git_commit", "lane", "label", "metric", "value",
                                         "unit", "tokens_per_s"])
        for c in ("value", "tokens_per_s"):
            df[c] = df[c].astype("float64")
        return df

    # ---- analyses -------------------------------------------------------------------

    def frontier(self, policy=None, **query: Any):
        """:func:`frontier` over the selected receipts. Over the whole store
        under the default policy it is built from the lane summaries the
        store keeps, without loading the receipts (the same frontier)."""
        from . import frontier

        if policy is None and not query:
            codes = {"j": "json", "t": "text", "m": "markdown"}
            path = self.path
            data = json.loads(_core._store_frontier(path, "json"))
            return Frontier(data, lambda f: _core._store_frontier(path, codes[f]))
        return frontier(self.query(**query), policy=policy)

    def claim(self, *, lane: str, value: float, metric: str | None = None, policy=None, **query: Any):
        """:func:`claim` against the selected receipts."""
        from . import claim

        return claim(self.query(**query), lane=lane, value=value, metric=metric, policy=policy)

    def lane_history(self, receipts, runs: int = 20) -> list:
        """The newest ``runs`` stored receipts of each lane among ``receipts``
        (lanes under the default policy, as the store keeps them): the
        history :func:`gate` takes to measure run-to-run noise."""
        from . import lane_key

        shorts = dict.fromkeys(lane_key(r)[1] for r in receipts)
        return [r for short in shorts for r in self.query(lane=short, limit=runs, newest=True)]

    def gate(self, baseline: str | dict[str, str], candidate: str | dict[str, str], policy=None, *,
             history: int = 0):
        """:func:`gate` with the receipts ``where=baseline`` as baselines and
        ``where=candidate`` as candidates; ``history=N`` adds the newest N
        stored runs of each candidate's lane as the run-to-run noise source."""
        from . import gate

        cands = self.query(where=candidate)
        earlier = self.lane_history(cands, history) if history > 0 else None
        return gate(self.query(where=baseline), cands, policy=policy, history=earlier)

    def compare(self, base_id: str, cand_id: str, policy=None):
        """:func:`compare` of two stored receipts by id."""
        from . import compare

        base, cand = self.query(where={"id": base_id}), self.query(where={"id": cand_id})
        for wanted, found in ((base_id, base), (cand_id, cand)):
            if not found:
                raise KeyError(f"{_without_password(self.path)}: no stored receipt has id {wanted!r}")
        return compare(base[0], cand[0], policy=policy)

    def history(self, lane: str | None = None, metric: str | None = None, *,
                penalty: float = 6.0, min_change: float = 0.01, min_segment: int = 4) -> History:
        """The runs of the lanes ``lane`` selects (all lanes when None) over
        time, with change points of ``metric`` (default: the gate metric).
        See docs/store.md for the method and its settings."""
        args = (self.path, lane, metric)
        tail = (float(penalty), float(min_change), int(min_segment))
        data = json.loads(_core._store_history(*args, "json", *tail))
        return History(data, lambda fmt: _core._store_history(*args, fmt, *tail))

    def site(self, dir: PathLike, *, title: str | None = None, commit_url: str | None = None) -> dict[str, int]:
        """Writes the store's history site into ``dir`` (as ``mcpp-receipts
        site``): index.html, a page per lane with its plot, frontier.html and
        gate.html, static and self-contained. Only pages whose content changed
        are written. ``commit_url``: e.g.
        ``"https://github.com/ORG/REPO/commit/{commit}"``. Returns the counts
        ``{"pages", "written", "unchanged", "removed"}``."""
        counts = _core._store_site(self.path, os.fspath(dir), title, commit_url)
        return dict(zip(("pages", "written", "unchanged", "removed"), counts))
