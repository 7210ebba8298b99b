"""Receipts as Python objects: section attributes, dict views, HTML, and ReceiptSet.

The C type ``_core.Receipt`` owns the data and does the exact work (field reads,
canonical JSON, equality, pickling); this module adds what makes it pleasant in
a notebook: ``r.routing.top_k``, ``to_dict()``, ``_repr_html_`` and a
sequence type with ``to_pandas()``.
"""

from __future__ import annotations

import html
import json
import operator
from collections.abc import Iterator, Sequence
from typing import Any, overload

from . import _core
from ._extras import require
from ._policy import as_policy


def shown_number(value: Any) -> str:
    """A float as people read it (6 significant digits: 395476, 1.33395e-05),
    anything else as str()."""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _rounded(value: Any) -> Any:
    """Free-form data (dicts, lists) with its floats at 6 significant digits, for display."""
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def rounded_repr(t: tuple) -> str:
    """repr of a NamedTuple with its floats at 6 significant digits
    (Headline(median=395476, ...), not median=395476.12345678903)."""
    fields = ", ".join(f"{k}={shown_number(v) if isinstance(v, float) else repr(v)}"
                       for k, v in zip(t._fields, t))
    return f"{type(t).__name__}({fields})"


def _h(value: Any) -> str:
    """HTML of text from a receipt: escaped as the CLI prints it (control
    characters, C1 controls and bidi overrides shown, never sent), then for HTML."""
    return html.escape(_core.escape_text(str(value)))

# ---- the schema, read once from the C library --------------------------------

#: path -> (type name, enum names or None, one-line doc)
FIELDS: dict[str, tuple[str, tuple[str, ...] | None, str | None]] = {
    path: (type_, enums, doc) for path, type_, enums, doc in _core.schema_fields()
}

# Every proper prefix of a field path is a section ("routing", "backend.moe").
_SECTIONS: set[str] = set()
for _path in FIELDS:
    _parts = _path.split(".")
    for _i in range(1, len(_parts)):
        _SECTIONS.add(".".join(_parts[:_i]))
del _path, _parts, _i

#: Top-level section names, in schema order.
TOP_LEVEL: tuple[str, ...] = tuple(dict.fromkeys(p.split(".")[0] for p in FIELDS))


def _children(prefix: str) -> list[str]:
    """Immediate child names of a section, in schema order."""
    start = prefix + "." if prefix else ""
    seen: dict[str, None] = {}
    for path in FIELDS:
        if path.startswith(start):
            seen[path[len(start):].split(".")[0]] = None
    return list(seen)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


class Section:
    """A read-only view of one section of a receipt (``r.routing``, ``r.backend.moe``).

    Attribute and item access read fields (``None`` when the receipt lacks
    them); sub-sections come back as further ``Section`` views.
    """

    __slots__ = ("_receipt", "_prefix")

    def __init__(self, receipt: Receipt, prefix: str) -> None:
        object.__setattr__(self, "_receipt", receipt)
        object.__setattr__(self, "_prefix", prefix)

    def _lookup(self, name: str) -> Any:
        path = _join(self._prefix, name)
        if path in FIELDS:
            return self._receipt[path]
        if path in _SECTIONS:
            return Section(self._receipt, path)
        raise KeyError(path)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self._lookup(name)
        except KeyError:
            known = ", ".join(_children(self._prefix))
            raise AttributeError(
                f"receipt section {self._prefix!r} has no field {name!r} (fields: {known})"
            ) from None

    def __getitem__(self, name: str) -> Any:
        return self._lookup(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("receipts are read-only; use mcpp_receipts.Builder to make one")

    def __dir__(self) -> list[str]:
        return _children(self._prefix) + ["to_dict", "keys"]

    def keys(self) -> list[str]:
        """Names of the fields and sub-sections this receipt has here."""
        return [n for n in _children(self._prefix) if self._present(_join(self._prefix, n))]

    def _present(self, path: str) -> bool:
        if path in FIELDS:
            return path in self._receipt
        start = path + "."
        return any(p.startswith(start) and p in self._receipt for p in FIELDS)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._present(_join(self._prefix, name))

    def to_dict(self) -> dict[str, Any]:
        """The section as a plain (nested) dict of the fields present."""
        out: dict[str, Any] = {}
        for name in self.keys():
            value = self._lookup(name)
            out[name] = value.to_dict() if isinstance(value, Section) else value
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Section):
            return self.to_dict() == other.to_dict()
        if isinstance(other, dict):
            return self.to_dict() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Section {self._prefix} {self.to_dict()!r}>"


class Receipt(_core.Receipt):
    """An immutable, validated ``mcpp.receipt/2``.

    Read fields by section (``r.routing.top_k``) or by dotted path
    (``r["routing.top_k"]``); absent fields read as ``None``. Equality and
    hashing use the canonical JSON; receipts pickle (as canonical JSON), so
    they can be shipped to worker processes. Made by :func:`load`,
    :func:`loads`, :func:`load_dir` or :meth:`Builder.finish`.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name in _SECTIONS:
            return Section(self, name)
        if name in FIELDS:
            return self[name]
        raise AttributeError(
            f"receipt has no section or field {name!r} (sections: {', '.join(TOP_LEVEL)})"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("receipts are read-only; use mcpp_receipts.Builder to make one")

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(TOP_LEVEL))

    def to_dict(self) -> dict[str, Any]:
        """The receipt as a nested dict (a fresh copy; mutating it changes nothing)."""
        return json.loads(self.to_json())

    def to_flat_dict(self) -> dict[str, Any]:
        """Every present field as ``{dotted path: value}`` in schema order."""
        return self._flat()

    def paths(self) -> list[str]:
        """Dotted paths of the fields this receipt has, in schema order."""
        return list(self._flat())

    def _repr_html_(self) -> str:
        """The fields grouped by top-level section: one collapsible block per
        section with its field count, so a 100+ field receipt stays readable;
        explicit text colours keep it legible under dark notebook themes."""
        groups: dict[str, list[str]] = {}
        for path, value in self._flat().items():
            shown = json.dumps(_rounded(value)) if isinstance(value, (dict, list)) else shown_number(value)
            if isinstance(value, tuple):
                shown = ", ".join(map(shown_number, value)) if len(value) <= 12 else (
                    ", ".join(map(shown_number, value[:12])) + f", … ({len(value)} values)"
                )
            # plain top-level fields (schema, id, created_at) share one block
            top = "." in path or FIELDS.get(path, ("",))[0] == "object"
            groups.setdefault(path.split(".")[0] if top else "top level", []).append(
                f'<tr><td style="text-align:left"><code>{_h(path)}</code></td>'
                f'<td style="text-align:left">{_h(str(shown))}</td></tr>'
            )
        sections = "".join(
            f'<details open><summary style="background:#e8eaf6;color:#1a1a1a;padding:0 .4em">'
            f"<b>{_h(section)}</b> ({len(rows)} field{'s' if len(rows) != 1 else ''})"
            f'</summary><table class="mcpp-receipt">{"".join(rows)}</table></details>'
            for section, rows in groups.items()
        )
        title = _h(f"Receipt {self.id}")
        return f'<div class="mcpp-receipt"><b>{title}</b>{sections}</div>'


def _section_property(name: str) -> property:
    if name in _SECTIONS:
        def get(self: Receipt) -> Any:
            return Section(self, name)
    else:
        def get(self: Receipt) -> Any:
            return self[name]
    return property(get, doc=f"The {name!r} section of the receipt." if name in _SECTIONS
                    else f"The top-level field {name!r}.")


# Top-level names as real properties: `r.routing` is then a plain descriptor
# hit rather than a failed lookup that falls back to __getattr__.
for _name in TOP_LEVEL:
    if not hasattr(Receipt, _name):
        setattr(Receipt, _name, _section_property(_name))
del _name

# load()/loads()/load_dir()/Builder.finish() make instances of this class.
_core._set_receipt_class(Receipt)


class ReceiptSet(Sequence[Receipt]):
    """An ordered, read-only collection of receipts, as :func:`load_dir` returns.

    Behaves as a sequence of :class:`Receipt`. ``errors`` lists an exception
    instance (``ParseError``, ``ValidationError``, ``FileError``, with
    ``.path``/``.line``/``.column``/``.field``) for each file that failed.
    """

    __slots__ = ("_items", "errors", "_ids_checked", "_by_id")

    def __init__(self, receipts: Sequence[Receipt] = (), errors: Sequence[BaseException] = (), *,
                 _ids_checked: bool = False):
        self._items: tuple[Receipt, ...] = tuple(receipts)
        for r in self._items:
            if not isinstance(r, _core.Receipt):
                raise TypeError(f"ReceiptSet holds receipts, not {type(r).__name__}")
        self.errors: list[BaseException] = list(errors)
        # True when no two receipts here share an id with other content (load_dir,
        # import_results and Store.query check it once; frontier/gate/claim then
        # do not check it again: a second pass was 11-18% of load_dir + frontier)
        self._ids_checked = _ids_checked
        self._by_id: dict[str, Receipt] | None = None  # made by the first look-up of an id

    @overload
    def __getitem__(self, index: int) -> Receipt: ...
    @overload
    def __getitem__(self, index: slice) -> ReceiptSet: ...
    @overload
    def __getitem__(self, index: str) -> Receipt: ...
    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        """A position, a slice (a ReceiptSet), or a receipt's id."""
        if isinstance(index, slice):
            return ReceiptSet(self._items[index], _ids_checked=self._ids_checked)
        if isinstance(index, str):
            return self._receipt_with_id(index)
        try:
            position = operator.index(index)  # an int, numpy's integers too
        except TypeError:  # the tuple inside said "tuple indices must be integers"
            raise TypeError(f"ReceiptSet indices are positions, slices or receipt ids, not {type(index).__name__}") from None
        return self._items[position]

    def _receipt_with_id(self, rid: str) -> Receipt:
        if self._by_id is None:
            self._by_id = {}
            for r in self._items:
                self._by_id.setdefault(r.id, r)  # the same run loaded twice: the first
        try:
            return self._by_id[rid]
        except KeyError:
            import difflib

            close = difflib.get_close_matches(rid, list(self._by_id), n=3)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise KeyError(f"no receipt with id {rid!r} among these {len(self._items)}{hint}") from None

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Receipt]:
        return iter(self._items)

    def __add__(self, other: Sequence[Receipt]) -> ReceiptSet:
        errors = self.errors + list(getattr(other, "errors", []))
        return ReceiptSet(self._items + tuple(other), errors)

    def __repr__(self) -> str:
        return f"<ReceiptSet {len(self._items)} receipts, {len(self.errors)} errors>"

    def unique(self) -> ReceiptSet:
        """The set without repeats (receipts equal by canonical JSON, such as the
        JSON and YAML copies of one run), first occurrence kept; errors kept."""
        return ReceiptSet(list(dict.fromkeys(self._items)), self.errors, _ids_checked=self._ids_checked)

    def to_pandas(self, columns: Sequence[str] | None = None, *, policy=None):  # -> pandas.DataFrame
        """One row per receipt: ``id``, ``filename`` (the file it was loaded
        from, None for built ones), ``lane`` (its frontier lane's short key
        under ``policy``, default: the default policy) and ``lane_label`` (the
        lane's display label), then one column per dotted field path.

        Metric columns hold what the library computes, as the frontier, gate
        and history use it: a receipt with only step samples has its derived
        ``metrics.step_time_s.median`` (and ``metrics.tokens_per_s`` where the
        useful tokens per step are known); each named metric (an imported
        receipt's ``time_to_train_s``) is a column ``metrics.NAME``.

        ``columns`` restricts the field columns to those paths (or
        ``metrics.NAME``); an unknown name raises :class:`ArgumentError` (a
        ValueError) naming the closest path. Integer fields are nullable
        ``Int64`` columns, bool fields nullable ``boolean`` ones, never object.
        The columns are there even when the set is empty. Needs pandas.
        """
        policy = as_policy(policy)
        pd = require("pandas")

        if columns is not None:
            named = None
            for c in columns:
                if c in FIELDS or c in _ROW_COLUMNS:
                    continue
                if named is None:
                    named = {f"metrics.{m['name']}" for r in self._items for m in r.metric_list()}
                if c not in named:
                    near = _core._suggest_field(c)
                    hint = f", did you mean {near!r}?" if near else ""
                    raise _core.ArgumentError(f"unknown column {c!r}: not a receipt field path{hint}")
        lanes = self._lanes(policy)
        records = []
        wanted = None if columns is None else [c for c in columns if c not in _ROW_COLUMNS]
        for r in self._items:
            lane = lanes.get(_core.lane_key(r, policy)[0])
            record = {"id": r.id, "filename": r.filename,
                      "lane": lane.short_key if lane else None,
                      "lane_label": lane.display_label if lane else None}
            if wanted is None:
                record.update(r._flat())
                record.update(_computed_metrics(r, record))
            elif wanted:
                values = {c: r.get(c) for c in wanted if c in FIELDS}
                if len(values) < len(wanted) or any(values.get(c) is None for c in wanted if c in _METRIC_PATHS):
                    values.update(_computed_metrics(r, values))
                record.update({c: values.get(c) for c in wanted})
            records.append(record)
        field_columns = wanted if wanted is not None else list(
            dict.fromkeys(p for rec in records for p in rec if p not in _ROW_COLUMNS))
        df = pd.DataFrame.from_records(records, columns=[*_ROW_COLUMNS, *field_columns])
        for c in field_columns:
            kind = FIELDS.get(c, ("",))[0]
            if kind == "int":
                df[c] = df[c].astype("Int64")
            elif kind == "bool":
                df[c] = df[c].astype("boolean")
            elif (kind == "" or c in _METRIC_PATHS) and df[c].dtype == object:
                try:  # metrics.NAME and derived values are numbers (all None: float NaN)
                    df[c] = pd.to_numeric(df[c])
                except (TypeError, ValueError):
                    pass
        return df

    def _lanes(self, policy) -> dict:
        """{lane key: Lane} of this set's frontier under ``policy``."""
        if not self._items:
            return {}
        from . import frontier

        # the set's own load errors are shown next to its lanes, not raised again
        return {lane.key: lane for lane in frontier(self, policy, errors="skip")}

    def _repr_html_(self, preview: int = 10) -> str:
        """A preview: the first ``preview`` receipts (id, file, lane, headline),
        how many lanes there are, and the files that failed to load."""
        ink = 'style="color:#1a1a1a;background:#f5f5f5;text-align:left"'
        lanes = self._lanes(None)
        by_key = {}
        for r in self._items[:preview]:
            by_key[r.id] = lanes.get(_core.lane_key(r, None)[0])
        rows = "".join(
            f"<tr><td><code>{_h(str(r.id))}</code></td>"
            f"<td>{_h(str(r.filename or '—'))}</td>"
            f"<td>{_h(by_key[r.id].display_label if by_key.get(r.id) else '—')}</td>"
            f"<td>{_h(_headline_text(r))}</td></tr>"
            for r in self._items[:preview]
        )
        more = (f"<tr><td colspan=4>… {len(self._items) - preview} more receipts</td></tr>"
                if len(self._items) > preview else "")
        table = (f'<table class="mcpp-receipt-set"><thead><tr><th {ink}>id</th><th {ink}>file</th>'
                 f"<th {ink}>lane</th><th {ink}>headline</th></tr></thead>"
                 f"<tbody>{rows}{more}</tbody></table>") if self._items else ""
        head = (f"<b>ReceiptSet</b>: {len(self._items)} receipts in {len(lanes)} "
                f"lane{'s' if len(lanes) != 1 else ''}")
        errors = ""
        if self.errors:
            items = "".join(f"<li><code>{_h(str(e))}</code></li>" for e in self.errors[:20])
            extra = f"<li>… {len(self.errors) - 20} more</li>" if len(self.errors) > 20 else ""
            errors = (f'<div style="background:#fde2e1;color:#1a1a1a;padding:.2em .4em">'
                      f"{len(self.errors)} failed to load:<ul>{items}{extra}</ul></div>")
        return f'<div class="mcpp-receipt-set">{head}{table}{errors}</div>'


#: The columns ReceiptSet.to_pandas puts before the field columns.
_ROW_COLUMNS = ("id", "filename", "lane", "lane_label")

#: The schema columns of the well-known metrics the library may compute.
_METRIC_PATHS = {"metrics.step_time_s.median", "metrics.tokens_per_s"}


def _metric_column(metric: dict) -> str | None:
    """The column of one metric of Receipt.metric_list(): its schema path for
    a well-known metric (step_time_s: the median), metrics.NAME for a named one."""
    if metric["well_known"]:
        return "metrics.step_time_s.median" if metric["name"] == "step_time_s" else metric["path"]
    column = f"metrics.{metric['name']}"
    return None if column in FIELDS else column


def _computed_metrics(r: Receipt, have: dict) -> dict:
    """The metric values the library computes for ``r`` (derived step
    statistics, tokens per second, named metrics) that ``have`` lacks."""
    out = {}
    for m in r.metric_list():
        column = _metric_column(m)
        if column and have.get(column) is None and m.get("value") is not None:
            out[column] = m["value"]
    # tokens per second from the steps, as the comparison derives it
    # (mcpp_tokens_per_s_from_steps: useful tokens per step / median step time)
    median = have.get("metrics.step_time_s.median") or out.get("metrics.step_time_s.median")
    if have.get("metrics.tokens_per_s") is None and median:
        useful = r.get("workload.useful_tokens_per_step")
        if useful:
            out["metrics.tokens_per_s"] = useful / median
    return out


def _headline_text(r: Receipt) -> str:
    name = r.primary_metric
    if not name:
        return "—"
    metric = r.metric(name)
    value = metric.get("value") if metric else None
    return f"{name} {value:.6g}" if isinstance(value, (int, float)) else str(name)
