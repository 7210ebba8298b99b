"""Results of the analyses: Comparison, Frontier, ClaimResult, GateReport.

The C library renders each result as JSON (the same documents the CLI prints
with ``--format json``); these classes are typed, read-only views of that JSON
with notebook HTML, pandas tables and a frontier plot. Text and Markdown
renderings come from the same C renderers as the CLI.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import weakref
from dataclasses import dataclass, field
from collections.abc import Sequence as _SequenceABC
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Sequence

from . import _core
from ._extras import require
from ._policy import as_policy
from ._receipt import rounded_repr

#: The four comparability verdicts, in order of precedence (compare.h).
VERDICTS = ("comparable", "qualified", "not_comparable", "insufficient")

_STATUS_COLOURS = {
    "match": "#e6f4ea",
    "qualify": "#fff4d6",
    "mismatch": "#fde2e1",
    "missing": "#eeeeee",
    "stable": "#e6f4ea",
    "unstable": "#fff4d6",
    "ambiguous": "#fff4d6",
    "comparable": "#e6f4ea",
    "qualified": "#fff4d6",
    "not_comparable": "#fde2e1",
    "insufficient": "#eeeeee",
    "passed": "#e6f4ea",
    "failed": "#fde2e1",
    "undetermined": "#eeeeee",
    "inconclusive": "#fff4d6",
    "supported": "#e6f4ea",
    "unsupported": "#fde2e1",
    "contradicted": "#fde2e1",
}

_STATUS_MARKS = {"match": "✓", "qualify": "~", "mismatch": "✗", "missing": "?"}


def _t(value: Any) -> str:
    """Text from a receipt, a policy or an error, escaped as the CLI prints it
    (control characters, C1 controls and bidi overrides shown, never sent)."""
    return _core.escape_text("" if value is None else str(value))


def _e(value: Any) -> str:
    return html.escape(_t(value))


#: Text colour wherever a light status background is set: notebooks with a dark
#: theme draw light text by default, which would vanish on these backgrounds.
_INK = "#1a1a1a"


def _badge(status: str) -> str:
    colour = _STATUS_COLOURS.get(status, "#ffffff")
    return (f'<span style="background:{colour};color:{_INK};padding:0 .4em;'
            f'border-radius:3px">{_e(status)}</span>')


def _table(headers: Sequence[str], rows: Sequence[tuple[str, Sequence[Any]]]) -> str:
    """An HTML table; each row is (status used for its colour and class, cells)."""
    head = "".join(f'<th style="text-align:left">{_e(h)}</th>' for h in headers)
    body = []
    for status, cells in rows:
        colour = _STATUS_COLOURS.get(status, "")
        style = f' style="background:{colour};color:{_INK}"' if colour else ""
        tds = "".join(f'<td style="text-align:left">{c}</td>' for c in cells)
        body.append(f'<tr class="mcpp-{_e(status)}"{style}>{tds}</tr>')
    return f'<table class="mcpp"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:+.2f}%"


class _ReadOnlyList(_SequenceABC):
    """A read-only list whose items are made when read: len, indexing,
    slices (a list), iteration, ``in``, ``index``, ``count`` and equality with
    a list, as a list. An item read while an earlier read of it is still held
    somewhere is that same object (a weak cache), as a list's would be."""

    __slots__ = ("_held", "__weakref__")

    def __init__(self) -> None:
        self._held: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()

    def _make(self, i: int) -> Any:
        raise NotImplementedError

    def _get(self, i: int) -> Any:
        item = self._held.get(i)
        if item is None:
            item = self._held[i] = self._make(i)
        return item

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            return [self._get(k) for k in range(*i.indices(n))]
        i = i.__index__()
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("list index out of range")
        return self._get(i)

    def __iter__(self) -> Iterator[Any]:
        return (self._get(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, _ReadOnlyList)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))

    def __reduce__(self):
        return (list, (list(self),))


class _Entry(dict):
    """A report's JSON object read from C: a dict that a weak cache can hold."""

    __slots__ = ("__weakref__",)


class _ReportItems(_ReadOnlyList):
    """A report's lanes (a frontier) or candidates (a gate) as the JSON dicts of
    the C renderer, each rendered and parsed from the report kept in C when it
    is read. The whole report parsed at once took 5.7 KiB a lane in Python and
    its JSON text 2.7-3.9 KB more while it was handed over; the C report takes
    ~1.5-2.5 KiB a lane (benchmarks/README.md, memory per lane)."""

    __slots__ = ("_report", "_n")

    def __init__(self, report: Any):
        super().__init__()
        self._report = report
        self._n = len(report)

    def __len__(self) -> int:
        return self._n

    def __reduce__(self):
        return (list, ([self.parsed(i) for i in range(self._n)],))

    def parsed(self, i: int) -> dict[str, Any]:
        """Item i as a fresh plain dict (no cache)."""
        return json.loads(self._report.item(i))

    def _make(self, i: int) -> Any:
        return _Entry(self.parsed(i))

    def find(self, name: str) -> int:
        """The index of the lane with this key or short key, or of the first
        candidate with this id; -1 when none."""
        return self._report.find(name)


class _MadeFrom(_ReadOnlyList):
    """``make`` of each item of a _ReportItems, made when read."""

    __slots__ = ("_items", "_make_one")

    def __init__(self, items: _ReportItems, make: Callable[[dict[str, Any]], Any]):
        super().__init__()
        self._items = items
        self._make_one = make

    def __len__(self) -> int:
        return len(self._items)

    def _make(self, i: int) -> Any:
        return self._make_one(self._items.parsed(i))


def _report_document(report: Any, array: str) -> dict[str, Any]:
    """The JSON document of a report kept in C (a _core.Report), its `array`
    ("lanes", "candidates") read item by item when asked for."""
    data = json.loads(report.outline())
    data[array] = _ReportItems(report)
    return data


def _fresh_copy(value: Any) -> Any:
    """A copy of a parsed JSON document with new dicts and lists, sharing the
    strings and numbers (they cannot change). The JSON round trip it replaces
    gave the same document but held its whole text and a second copy of every
    leaf: a 10^4-pair gate's to_dict() peaked at 134 MiB against 43 MiB, and
    took 1.1 s against 0.6 s. The items of a report kept in C are parsed anew."""
    kind = type(value)
    if kind is dict:
        return {key: _fresh_copy(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_fresh_copy(item) for item in value]
    if kind is _ReportItems:
        return [value.parsed(i) for i in range(len(value))]
    return value


def _indented_chunks(data: dict[str, Any]) -> Iterator[str]:
    """The chunks of ``json.dump(data, f, indent=2)``; the array of a report
    kept in C comes one item at a time (each as json.dumps writes it at its
    depth), so the whole document never exists as Python objects."""
    if not any(type(v) is _ReportItems for v in data.values()):
        yield from json.JSONEncoder(indent=2).iterencode(data)  # what json.dump writes
        return
    yield "{"
    for k, (key, value) in enumerate(data.items()):
        yield ("\n  " if k == 0 else ",\n  ") + json.dumps(key) + ": "
        if type(value) is not _ReportItems:
            # no raw newline inside a JSON string: each one starts a line to indent
            yield json.dumps(value, indent=2).replace("\n", "\n  ")
        elif not len(value):
            yield "[]"
        else:
            for i in range(len(value)):
                item = json.dumps(value.parsed(i), indent=2).replace("\n", "\n    ")
                yield ("[\n    " if i == 0 else ",\n    ") + item
            yield "\n  ]"
    yield "\n}"


class _Frozen:
    """The renderings of a result fixed at pickling time (the live renderer
    holds receipts and cannot travel)."""

    __slots__ = ("texts",)

    def __init__(self, texts: dict[str, str]):
        self.texts = texts

    def __call__(self, code: str) -> str:
        return self.texts[code]


def _unpickle(cls: type, data: dict[str, Any], texts: dict[str, str], errors: tuple) -> Any:
    result = cls(data, _Frozen(texts))
    result.errors = errors
    return result


class _Rendered:
    """Shared plumbing: the parsed JSON plus lazily made text/Markdown renderings.

    Results pickle (for process pools, joblib and clusters) as their JSON and
    their text and Markdown renderings. ``errors`` lists what a distributed
    run skipped (mcpp_receipts.dask with errors="skip"); empty otherwise.
    """

    _data: dict[str, Any]
    _render: Callable[[str], str]
    errors: tuple = ()

    def __reduce__(self):
        texts = {code: self._render(code) for code in ("t", "m")}
        return (_unpickle, (type(self), self._data, texts, tuple(self.errors)))

    def to_dict(self) -> dict[str, Any]:
        """The result as the JSON document of the C renderer (a fresh copy)."""
        return _fresh_copy(self._data)

    def to_json(self) -> str:
        """The result as JSON text (stable keys; same as the CLI's --format json)."""
        # The same text as json.dumps(indent=2), written piece by piece into
        # one growing str: with an indent json.dumps collects every piece in a
        # list before joining them (a 10^4-lane frontier: 117 MiB for 32 MB of
        # JSON), and a StringIO's getvalue() copies its buffer (62 MiB); this
        # way the text is held once (text_join.c).
        return _core._ascii_join(_indented_chunks(self._data))

    def to_text(self) -> str:
        """The result as aligned text for people (same as the CLI's default)."""
        return self._render("t")

    def to_markdown(self) -> str:
        """The result as Markdown, for pull-request comments."""
        return self._render("m")

    def write(self, path: str | os.PathLike[str], format: str | None = None) -> None:
        """Writes the result to ``path`` atomically (a failure leaves an
        earlier file as it was): ``format`` "json", "text", "markdown" or
        "html", else from the suffix (.json, .md, .html; text otherwise). The
        JSON goes to the file as it is written, never whole in memory (the
        frontier of 10^5 lanes is ~320 MB of it, which ``to_json()`` holds
        as one str)."""
        fmt = format or {".json": "json", ".md": "markdown", ".markdown": "markdown",
                         ".html": "html", ".htm": "html"}.get(os.path.splitext(os.fsdecode(path))[1].lower(), "text")
        if fmt == "json":
            chunks: Iterable[str] = _indented_chunks(self._data)
        elif fmt in ("text", "markdown"):
            chunks = (self.to_text() if fmt == "text" else self.to_markdown(),)
        elif fmt == "html" and isinstance(self, _HtmlPage):
            chunks = (self.to_html(),)
        else:
            names = '"json", "text", "markdown" or "html"' if isinstance(self, _HtmlPage) else \
                '"json", "text" or "markdown"'
            raise ValueError(f"format must be {names}, got {fmt!r}")
        _write_atomically(path, chunks)

    def __str__(self) -> str:
        return self.to_text()


def _file_mode(target: str) -> int:
    """The permission bits the file at ``target`` keeps, or a new file's
    (0666 less the process's umask, read without changing it)."""
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        pass
    try:
        with open("/proc/self/status") as f:
            umask = next((int(line.split()[1], 8) for line in f if line.startswith("Umask:")), 0o022)
    except OSError:
        umask = 0o022
    return 0o666 & ~umask


def _write_atomically(path: str | os.PathLike[str], chunks: Iterable[str]) -> None:
    """Writes the chunks into a temporary sibling of ``path``, then puts it in
    place: a failure (or an exception from ``chunks``) leaves an earlier file
    as it was."""
    target = os.fsdecode(path)
    fd, tmp = tempfile.mkstemp(prefix=".mcpp-report-", dir=os.path.dirname(os.path.abspath(target)))
    try:
        os.fchmod(fd, _file_mode(target))  # mkstemp's is 0600
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for chunk in chunks:
                f.write(chunk)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


class _HtmlPage:
    """The HTML report page (the same self-contained page as the CLI's
    ``report`` and ``gate --output html=FILE``), for results made from
    receipts by :func:`frontier` and :func:`gate`."""

    __slots__ = ()
    _render: Callable[[str], str]

    def to_html(self) -> str:
        """The report as one self-contained HTML page (no scripts, no network)."""
        if isinstance(self._render, _Frozen):
            raise ValueError("this result was unpickled: its HTML page is made where it was computed "
                             "(call to_html() there)")
        return self._render("h")

    def write_html(self, path: str | os.PathLike[str]) -> None:
        """Writes :meth:`to_html` to ``path`` atomically (a failure leaves an
        earlier file as it was)."""
        _write_atomically(path, (self.to_html(),))


# ---- comparison ------------------------------------------------------------------


class Row(NamedTuple):
    """One dimension of a comparison: its status, both values and why."""

    name: str
    status: str  #: "match", "qualify", "mismatch" or "missing"
    base: str
    cand: str
    reason: str
    role: str = ""  #: "must_match", "qualify", ... (the policy's role for it)


class Gate(NamedTuple):
    """The merge-gate outcome: "passed", "failed" or "undetermined", and why."""

    outcome: str
    reason: str

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"


class Comparison(_Rendered):
    """Whether two receipts are comparable, dimension by dimension, and what
    their headline numbers say. Made by :func:`compare`.

    Attributes: ``verdict`` (one of :data:`VERDICTS`, a plain str), ``rows``
    (one :class:`Row` per dimension), ``metric`` (dict or None), ``delta``
    (raw relative change cand/base - 1 of the headline metric, or None; its sign
    follows the metric, not the direction), ``improvement`` (the same change
    signed so that positive is better, or None), ``change`` (it in words,
    "better by 3.1%" / "worse by 37.0%", or None), ``gate`` (:class:`Gate`).
    """

    __slots__ = ("_data", "_render", "verdict", "rows", "metric", "delta", "improvement", "change", "gate",
                 "base_id", "cand_id")

    def __init__(self, data: dict[str, Any], render: Callable[[str], str]):
        self._data = data
        self._render = render
        self.verdict: str = data["verdict"]
        self.base_id: str = data.get("base")
        self.cand_id: str = data.get("cand")
        self.rows: list[Row] = [
            Row(d.get("name", ""), d.get("status", ""), d.get("base", ""), d.get("cand", ""),
                d.get("reason", ""), d.get("role", ""))
            for d in data.get("dimensions", [])
        ]
        self.metric: dict[str, Any] | None = data.get("metric")
        self.delta: float | None = self.metric.get("rel_delta") if self.metric else None
        self.improvement: float | None = self.metric.get("improvement") if self.metric else None
        self.change: str | None = self.metric.get("change") if self.metric else None
        gate = data.get("gate") or {}
        self.gate = Gate(gate.get("outcome", "undetermined"), gate.get("reason", ""))

    @property
    def comparable(self) -> bool:
        """True for the verdicts that allow comparing numbers (comparable, qualified)."""
        return self.verdict in ("comparable", "qualified")

    def rows_with(self, status: str) -> list[Row]:
        """The rows whose status is `status` ("qualify", "mismatch", ...)."""
        return [r for r in self.rows if r.status == status]

    def to_pandas(self):  # -> pandas.DataFrame
        """The per-dimension table as a DataFrame."""
        pd = require("pandas")

        return pd.DataFrame(self.rows, columns=Row._fields)

    def __repr__(self) -> str:
        odd = [r.name for r in self.rows if r.status != "match"]
        extra = f" ({_t(', '.join(odd))})" if odd else ""
        change = f" {_t(self.change)}" if self.change else ""
        return f"<Comparison {self.verdict}{extra}{change} gate={self.gate.outcome}>"

    def _repr_html_(self) -> str:
        head = (
            f"<div><b>{_e(self.base_id)}</b> → <b>{_e(self.cand_id)}</b>: "
            f"{_badge(self.verdict)}</div>"
        )
        rows = _table(
            ["", "dimension", "status", "base", "candidate", "reason"],
            [
                (r.status, [_STATUS_MARKS.get(r.status, ""), f"<code>{_e(r.name)}</code>",
                            _e(r.status), _e(r.base), _e(r.cand), _e(r.reason)])
                for r in self.rows
            ],
        )
        m = self.metric
        if m:
            lo, hi = (m.get("improvement_interval") or [None, None])[:2]
            metric = (
                f"<div><code>{_e(m.get('name'))}</code>: {m.get('base_median'):.6g} → "
                f"{m.get('cand_median'):.6g} ({_e(self.change)}; improvement {_e(m.get('confidence'))} "
                f"interval [{_pct(lo)}, {_pct(hi)}], n={m.get('n_base')}/{m.get('n_cand')}, "
                f"noise floor {_pct(m.get('noise_floor'))}, {_e(m.get('method'))})</div>"
            )
        else:
            metric = "<div>No metric comparison (the verdict does not allow one).</div>"
        gate = f"<div>gate: {_badge(self.gate.outcome)} {_e(self.gate.reason)}</div>"
        return f'<div class="mcpp-comparison">{head}{rows}{metric}{gate}</div>'


# ---- frontier ----------------------------------------------------------------------


class Headline(NamedTuple):
    """A lane's headline number: median with an interval for the median."""

    metric: str
    higher_is_better: bool
    median: float | None  #: None when the lane's values give no median
    low: float | None
    high: float | None
    confidence: float | None
    n: int
    n_runs: int
    rel_spread: float | None
    from_steps: bool  #: True: ``n`` counts the steps of one run; False: runs
    unit: str | None = None  #: the runs' unit for the metric ("tokens/s"), None if unstated

    def __repr__(self) -> str:
        return rounded_repr(self)

    @property
    def n_text(self) -> str:
        """``n`` with what it counts: "n=16 steps of one run" or "n=3 runs"."""
        if self.from_steps:
            return f"n={self.n} steps of one run"
        return f"n={self.n} run" + ("" if self.n == 1 else "s")


class Adjacent(NamedTuple):
    """A lane whose key differs from this one in `differs_in` dimensions only."""

    key: str
    short_key: str
    status: str
    differs_in: str
    blocker: str | None


def _headline(d: dict[str, Any] | None) -> Headline | None:
    if not d:
        return None
    low, high = (d.get("interval") or [None, None])[:2]
    return Headline(d.get("metric", ""), bool(d.get("higher_is_better", True)), d.get("median"),
                    low, high, d.get("confidence"), d.get("n", 0), d.get("n_runs", 0),
                    d.get("rel_spread"), bool(d.get("from_steps", False)), d.get("unit"))


@dataclass(frozen=True)
class Lane:
    """One lane of the frontier: receipts whose must-match dimensions agree.

    ``status`` is "stable", "unstable" or "insufficient" (the lane key lacks
    what the policy requires; with ``reasons`` and a ``blocker``); the
    headline number belongs to this lane only. ``excluded`` holds the runs
    kept out of the headline as (id, reason) pairs. ``differences`` says what
    tells the lane apart from its neighbours ("moe=jagged, seq_len=8192") and
    ``display_label`` is the label with it, as every display shows the lane.
    ``adjacent`` lists the nearest adjacent lanes (per differing dimension the
    4 nearest in key order), ``adjacent_total`` counts them all, so a sweep of
    thousands of lanes stays linear in size.
    """

    key: str
    short_key: str
    label: str
    status: str
    receipts: tuple[str, ...]
    headline: Headline | None
    reasons: tuple[str, ...]
    blocker: str | None
    adjacent: tuple[Adjacent, ...] = field(default_factory=tuple)
    differences: str = ""
    display_label: str = ""
    excluded: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    adjacent_total: int = 0

    @property
    def stable(self) -> bool:
        return self.status == "stable"

    @property
    def dimensions(self) -> dict[str, str]:
        """The lane key as {dimension: value} (values of several fields joined by "|")."""
        return _key_dimensions(self.key)

    def _repr_html_(self) -> str:
        h = self.headline
        number = (f"{h.median:.6g} [{h.low:.6g}, {h.high:.6g}] ({_e(h.n_text)})"
                  if h and h.median is not None else "no headline")
        rows = [("", ["status", _badge(self.status)]), ("", ["headline", number])]
        rows += [("", ["reason", _e(r)]) for r in self.reasons]
        if self.blocker:
            rows.append(("", ["blocker", _e(self.blocker)]))
        rows += [("", ["adjacent", f"<code>{_e(a.short_key)}</code> ({_e(a.differs_in)}; {_e(a.status)})"])
                 for a in self.adjacent]
        if self.adjacent_total > len(self.adjacent):
            rows.append(("", ["adjacent", f"+{self.adjacent_total - len(self.adjacent)} more"]))
        rows += [("", [f"<code>{_e(k)}</code>", _e(v)]) for k, v in self.dimensions.items()]
        return (f'<div class="mcpp-lane"><b>{_e(self.display_label or self.label)}</b> '
                f'<code>{_e(self.short_key)}</code>{_table(["", ""], rows)}</div>')


def _key_dimensions(key: str) -> dict[str, str]:
    """Splits a lane key "dim=v|v;dim=v" at its unescaped ';' (values keep their
    '|' between fields; the key's backslash escapes are removed)."""
    out: dict[str, str] = {}
    segment: list[str] = []
    escaped = False
    for ch in key + ";":
        if escaped:
            segment.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ";":
            name, _, value = "".join(segment).partition("=")
            if name:
                out[name] = value
            segment = []
        else:
            segment.append(ch)
    return out


def _lane(d: dict[str, Any]) -> Lane:
    """A Lane from its JSON object."""
    return Lane(
        key=d.get("key", ""),
        short_key=d.get("short_key", ""),
        label=d.get("label") or d.get("short_key", ""),
        status=d.get("status", ""),
        receipts=tuple(d.get("receipts", ())),
        headline=_headline(d.get("headline")),
        reasons=tuple(d.get("reasons", ())),
        blocker=d.get("blocker"),
        adjacent=tuple(
            Adjacent(a.get("key", ""), a.get("short_key", ""), a.get("status", ""),
                     a.get("differs_in", ""), a.get("blocker"))
            for a in d.get("adjacent", ())
        ),
        differences=d.get("differences") or "",
        display_label=d.get("display_label") or d.get("label") or d.get("short_key", ""),
        excluded=tuple((e.get("id", ""), e.get("reason", "")) for e in d.get("excluded", ())),
        adjacent_total=d.get("adjacent_total", len(d.get("adjacent", ()))),
    )


def _no_lane(key: str, lanes) -> str:
    """What a look-up of a lane by a name rather than its key is told: the
    lanes whose label holds the text (case aside), with their short keys; a
    bare KeyError('nam56r') said nothing. Up to 10,000 lanes are read for it."""
    import itertools

    text = str(key).lower()
    near = [(lane.short_key, lane.display_label or lane.label) for lane in itertools.islice(lanes, 10_000)
            if text and lane.label and text in lane.label.lower()]
    hint = "; lanes whose label holds it: " + ", ".join(f"{s} ({label!r})" for s, label in near[:5]) + \
        (f" and {len(near) - 5} more" if len(near) > 5 else "") if near else ""
    return f"no lane has the key or short key {key!r} (a short key reads 'lane-' and 12 hex digits){hint}"


class Frontier(_HtmlPage, _Rendered):
    """The lanes of a set of receipts, labelled stable or unstable, with
    adjacency. Made by :func:`frontier`.
    """

    __slots__ = ("_data", "_render", "lanes", "policy", "receipt_count")

    def __init__(self, data: dict[str, Any], render: Callable[[str], str]):
        self._data = data
        self._render = render
        self.policy: str | None = data.get("policy")
        self.receipt_count: int = data.get("receipts", 0)
        lanes = data.get("lanes", [])
        # A frontier kept in C makes each Lane when it is read (_ReportItems).
        self.lanes: Sequence[Lane] = (_MadeFrom(lanes, _lane) if type(lanes) is _ReportItems
                                      else [_lane(d) for d in lanes])

    @property
    def stable(self) -> list[Lane]:
        """The stable lanes."""
        return [lane for lane in self.lanes if lane.stable]

    @property
    def unstable(self) -> list[Lane]:
        """The unstable lanes."""
        return [lane for lane in self.lanes if not lane.stable]

    @classmethod
    def from_summaries(cls, summaries: Iterable[Any], policy: Any = None, *,
                       duplicates: int = 0) -> Frontier:
        """The frontier of lane summaries (:class:`LaneSummary`, say merged
        from partitions on a cluster): summaries of one lane are merged, then
        labelled exactly as :func:`frontier` labels the lanes of receipts.
        ``policy`` defaults to the summaries' own; ``duplicates`` is how many
        receipts were left out because their lane already held their id."""
        from . import _core

        items = tuple(summaries)
        if policy is None and items:
            policy = items[0].policy
        policy = as_policy(policy)
        data = json.loads(_core._frontier_from_summaries(items, policy, duplicates, "j")[0])
        return cls(data, lambda f: _core._frontier_from_summaries(items, policy, duplicates, f)[0])

    def lane(self, key: str) -> Lane:
        """The lane with this key or short key (KeyError otherwise, naming the
        lanes whose label holds it)."""
        if isinstance(self.lanes, _MadeFrom):
            at = self.lanes._items.find(key)
            if at >= 0:
                return self.lanes[at]
        else:
            for lane in self.lanes:
                if key in (lane.key, lane.short_key):
                    return lane
        raise KeyError(_no_lane(key, self.lanes))

    def __len__(self) -> int:
        return len(self.lanes)

    def __iter__(self):
        return iter(self.lanes)

    def to_pandas(self):  # -> pandas.DataFrame
        """One row per lane: short key (``lane``), label, ``display_label`` and
        ``differences`` (what tells it from its neighbours), status, receipts,
        the headline (median, interval, ``n`` and ``n_counts``: "steps" of one
        run or "runs"), spread, blocker, reasons, adjacent lanes, one column per
        key dimension (``dim.pattern``, ``dim.routing``, ...) and the full key.
        Counts are nullable integers (``Int64``). Needs pandas."""
        pd = require("pandas")

        dims: dict[str, None] = {}
        for lane in self.lanes:
            dims.update(dict.fromkeys(lane.dimensions))
        rows = []
        for lane in self.lanes:
            h = lane.headline
            row = {
                "lane": lane.short_key,
                "label": lane.label,
                "display_label": lane.display_label,
                "differences": lane.differences,
                "status": lane.status,
                "receipts": len(lane.receipts),
                "metric": h.metric if h else None,
                "median": h.median if h else None,
                "low": h.low if h else None,
                "high": h.high if h else None,
                "confidence": h.confidence if h else None,
                "n": h.n if h else None,
                "n_counts": ("steps" if h.from_steps else "runs") if h else None,
                "rel_spread": h.rel_spread if h else None,
                "blocker": lane.blocker,
                "reasons": "; ".join(lane.reasons),
                "adjacent": ", ".join(a.short_key for a in lane.adjacent),
            }
            values = lane.dimensions
            row.update({f"dim.{d}": values.get(d) for d in dims})
            row["key"] = lane.key
            rows.append(row)
        columns = ["lane", "label", "display_label", "differences", "status", "receipts", "metric",
                   "median", "low", "high", "confidence", "n", "n_counts", "rel_spread", "blocker",
                   "reasons", "adjacent", *(f"dim.{d}" for d in dims), "key"]
        df = pd.DataFrame(rows, columns=columns)
        for column in ("receipts", "n"):
            df[column] = df[column].astype("Int64")
        for column in ("median", "low", "high", "confidence", "rel_spread"):
            df[column] = df[column].astype("float64")
        return df

    def plot(self, ax=None, *, annotate: bool = True, adjacency: bool | None = None,
             sort: str | None = None, label_width: int = 80):
        """Draws the lanes with matplotlib. Needs the ``[plot]`` extra
        (matplotlib). Returns the first panel's Axes, whatever the lanes hold:
        ``fr.plot().figure.savefig("frontier.png")`` saves every panel, and
        ``ax.figure.axes`` lists them (one per metric and unit). A panel whose
        lanes span more than 10x (0.5k to 35k tokens/s) has a log axis, said in
        its label.

        One panel per headline metric and unit (MLPerf seconds never share an
        axis with tokens/s), its axis naming the metric, unit and direction.
        One row per lane, labelled with what tells it from its neighbours
        first ("moe=jagged, seq_len=8192 · NAM56R lane (lane-…)"), so a cut
        label still tells lanes apart: the headline median with its
        interval; stable lanes as filled green circles, unstable ones as
        hollow orange diamonds. ``adjacency`` draws the grey arcs joining
        adjacent lanes (default: up to 20 lanes, where they stay readable); ``sort="metric"`` orders each panel's lanes
        by headline median (best first in that metric's direction), ``None``
        keeps key order. Labels longer than ``label_width`` characters are cut
        with an ellipsis. The n= notes sit right of the axes; the legend sits
        above the first panel, clear of every axis label, and says whether
        ``n`` counts runs or the steps of one run. ``ax`` draws into your Axes
        (one metric and unit only). Readable at 30 lanes and more: the figure
        grows with the lanes.
        """
        from ._plot import plot_frontier

        if sort not in (None, "metric"):
            raise ValueError(f"sort must be None or 'metric', got {sort!r}")
        return plot_frontier(self, ax=ax, annotate=annotate, adjacency=adjacency, sort=sort,
                             label_width=label_width)

    def __repr__(self) -> str:
        # a frontier kept in C states its count: no lane is made to count them
        stable = self._data["stable"] if isinstance(self.lanes, _MadeFrom) else len(self.stable)
        return f"<Frontier {len(self.lanes)} lanes ({stable} stable) over {self.receipt_count} receipts>"

    def _repr_html_(self) -> str:
        rows = []
        for lane in self.lanes:
            h = lane.headline
            number = (
                f"{h.median:.6g} [{h.low:.6g}, {h.high:.6g}] {_e(h.n_text)}"
                if h and h.median is not None else "—"
            )
            adjacent = "<br>".join(
                f"{_e(a.short_key)} ({_e(a.differs_in)}; {_e(a.status)}"
                + (f": {_e(a.blocker)}" if a.blocker else "") + ")"
                for a in lane.adjacent
            )
            if lane.adjacent_total > len(lane.adjacent):
                adjacent += f"{'<br>' if adjacent else ''}+{lane.adjacent_total - len(lane.adjacent)} more"
            why = "<br>".join(_e(r) for r in lane.reasons)
            rows.append((lane.status, [f"<code>{_e(lane.short_key)}</code>", _e(lane.display_label),
                                       _badge(lane.status), str(len(lane.receipts)), number,
                                       why, adjacent]))
        table = _table(["lane", "label", "status", "receipts", "headline", "reasons",
                        "adjacent"], rows)
        note = ("<div><i>Each headline number belongs to its lane only.</i></div>"
                if self.lanes else "<div>No lanes.</div>")
        return f'<div class="mcpp-frontier">{table}{note}</div>'


# ---- claims and gates ----------------------------------------------------------------


class ClaimResult(_Rendered):
    """Whether a quoted number is backed by a stable lane. Made by :func:`claim`.

    ``verdict`` is "supported", "unsupported", "contradicted" or "ambiguous"
    (the selector matched more than one lane); ``reason``
    names the lane the number really came from; ``matched`` and ``sources``
    are lists of dicts (key, short_key, status, ...).
    """

    __slots__ = ("_data", "_render", "verdict", "reason", "matched", "sources")

    def __init__(self, data: dict[str, Any], render: Callable[[str], str]):
        self._data = data
        self._render = render
        self.verdict: str = data.get("verdict", "")
        self.reason: str = data.get("reason", "")
        self.matched: list[dict[str, Any]] = list(data.get("matched", []))
        self.sources: list[dict[str, Any]] = list(data.get("sources", []))

    @property
    def supported(self) -> bool:
        return self.verdict == "supported"

    def __bool__(self) -> bool:
        return self.supported

    def __repr__(self) -> str:
        return f"<ClaimResult {self.verdict}: {_t(self.reason)}>"

    def _repr_html_(self) -> str:
        d = self._data
        head = (f"<div>claim <code>{_e(d.get('metric'))} = {_e(d.get('value'))}</code> for "
                f"<code>{_e(d.get('selector'))}</code>: {_badge(self.verdict)} "
                f"{_e(self.reason)}</div>")
        rows = [(s.get("status", ""), ["matched", f"<code>{_e(s.get('short_key'))}</code>",
                                       _e(s.get("status"))]) for s in self.matched]
        rows += [(s.get("status", ""), ["source", f"<code>{_e(s.get('short_key'))}</code>",
                                        _e(s.get("status"))]) for s in self.sources]
        return f'<div class="mcpp-claim">{head}{_table(["", "lane", "status"], rows)}</div>'


class GateReport(_HtmlPage, _Rendered):
    """The pre-merge gate over baselines and candidates. Made by :func:`gate`.

    ``outcome`` is "passed", "failed", "undetermined", "inconclusive" (no
    regression established, but one beyond the policy's gate.min_detectable not
    ruled out: each such candidate's reason says which and about how many runs
    a side would settle it) or "error" (an input could not be read);
    ``exit_code`` is the CLI's (0, 1, 2, 3; inconclusive: 0, or 1 under
    gate.on_inconclusive = "fail"). ``counts`` counts tests (a lane's pooled
    candidate runs are one): passed, failed, undetermined, inconclusive, and
    candidate_runs; ``left_out`` lists the runs whose status.outcome was not ok
    ({id, side, status}), which never count. Each entry of
    ``candidates`` is a dict with the keys of the gate JSON (docs/gate.md):
    id, path, lane {key, short_key, label, display_label}, outcome, reason_code, reason,
    baselines, verdicts, pooled [{id, path, verdict}], differences [{kind,
    dimension, status, base, cand, reason, pooled, baselines}], metric
    (the first gate metric's result, or None), metrics (one dict per gate metric:
    {name, outcome, skipped, reason, result}; docs/metrics.md). A metric's ``improvement`` is signed: positive is better, and
    ``change`` says it in words ("worse by 3.1%"). ``skipped`` lists the
    inputs that were not gated ({path, error, skipped_on_request}).
    """

    __slots__ = ("_data", "_render", "outcome", "reason", "exit_code", "candidates", "skipped", "metric",
                 "counts", "left_out")

    def __init__(self, data: dict[str, Any], render: Callable[[str], str]):
        self._data = data
        self._render = render
        # The library's gate JSON always states outcome and exit_code: the
        # exit-code table lives in C (mcpp_gate_outcome), not here.
        self.outcome: str = data["outcome"]
        self.reason: str = data.get("reason", "")
        self.exit_code: int = data["exit_code"]
        candidates = data.get("candidates", [])
        # A gate report kept in C parses each candidate when it is read (_ReportItems).
        self.candidates: Sequence[dict[str, Any]] = (candidates if type(candidates) is _ReportItems
                                                     else list(candidates))
        self.skipped: list[dict[str, Any]] = list(data.get("skipped", []))
        self.metric: str = data.get("metric", "")
        self.counts: dict[str, int] = dict(data.get("counts", {}))
        self.left_out: list[dict[str, str]] = list(data.get("left_out", []))

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    def candidate(self, id: str) -> dict[str, Any]:
        """The entry of the candidate with this id (KeyError when none, naming
        the close ids)."""
        if type(self.candidates) is _ReportItems:
            at = self.candidates.find(id)
            if at >= 0:
                return self.candidates[at]
        else:
            for c in self.candidates:
                if c.get("id") == id:
                    return c
        import difflib
        import itertools

        ids = [c.get("id") for c in itertools.islice(self.candidates, 10_000) if c.get("id")]
        close = difflib.get_close_matches(str(id), ids, n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise KeyError(f"no candidate has the id {id!r} (of {len(self.candidates):,}){hint}")

    def __repr__(self) -> str:
        return f"<GateReport {self.outcome}: {_t(self.reason)}>"

    def _repr_html_(self) -> str:
        def why(c: dict[str, Any]) -> str:
            lines = [_e(c.get("reason"))]
            lines += [f"{'qualifies' if d.get('pooled') else 'blocks'}: <code>{_e(d.get('dimension'))}</code> "
                      f"{_e(d.get('base'))} → {_e(d.get('cand'))} ({_e(d.get('baselines'))})"
                      for d in c.get("differences", [])]
            return "<br>".join(lines)
        rows = [(c.get("outcome", ""), [_e(c.get("id")), _e((c.get("lane") or {}).get("display_label")
                                                                 or (c.get("lane") or {}).get("label")),
                                        _badge(c.get("outcome", "")),
                                        _e((c.get("metric") or {}).get("change", "–")),
                                        _e(c.get("baselines")), why(c)])
                for c in self.candidates]
        rows += [("error", [_e(s.get("path")), "", _badge("skipped" if s.get("skipped_on_request") else "error"),
                            "", "", _e(s.get("error"))]) for s in self.skipped]
        head = f"<div>gate: {_badge(self.outcome)} {_e(self.reason)}</div>"
        table = _table(["candidate", "lane", "outcome", "change", "baselines", "why"], rows)
        return f'<div class="mcpp-gate">{head}{table}</div>'
