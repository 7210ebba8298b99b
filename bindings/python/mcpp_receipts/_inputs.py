"""Receipts from many inputs, and what happens to the ones that do not load.

Every interface fails on an invalid input by default (``errors="raise"``):
one bad file, or two different runs sharing one id, raises. With
``errors="skip"`` the rest is used, and every skipped input is listed in the
result itself: in ``.errors``, in ``to_dict()["skipped"]`` and in the text and
Markdown reports, never only on stderr.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Sequence

from . import _core

ERRORS = ("raise", "skip")


def check_errors_arg(errors: str) -> None:
    if errors not in ERRORS:
        raise ValueError(f'errors must be "raise" or "skip", got {errors!r}')


def _conflict(receipt, other) -> BaseException:
    where = receipt.filename or "(built in memory)"
    there = other.filename or "(built in memory)"
    exc = _core.ValidationError(
        f"{where}: conflict: receipt '{receipt.id}' in {where} has other content than the receipt "
        f"with the same id in {there} (two different runs cannot share an id)")
    exc.path, exc.field, exc.kind = where, "id", "consistency"
    return exc


def without_id_conflicts(receipts: Sequence[Any]) -> tuple[list, list[BaseException]]:
    """The receipts, keeping the first of each id; a later receipt with that id
    and other canonical content is a conflict (the same content is the same
    run loaded twice, say as JSON and YAML, and stays)."""
    first: dict[str, Any] = {}
    kept, conflicts = [], []
    for r in receipts:
        other = first.setdefault(r.id, r)
        if other is not r and other != r:
            conflicts.append(_conflict(r, other))
        else:
            kept.append(r)
    return kept, conflicts


def settle(receipts: Sequence[Any], errors_found: Sequence[BaseException], errors: str,
           ids_checked: bool = False):
    """Applies the errors choice: raises the first failure under "raise".
    ``ids_checked``: the receipts are known to share no id with other content."""
    kept, conflicts = (list(receipts), []) if ids_checked else without_id_conflicts(receipts)
    failures = list(errors_found) + conflicts
    if failures and errors == "raise":
        first = failures[0]
        if len(failures) > 1 and hasattr(first, "add_note"):
            first.add_note(f"{len(failures) - 1} more input(s) failed too; "
                           'pass errors="skip" to use the rest (they are listed in the report)')
        raise first
    return kept, failures


def gather(objs: Iterable[Any] | str | os.PathLike, errors: str,
           load_dir: Callable[..., Any], load: Callable[[Any], Any]) -> tuple[tuple, list[BaseException]]:
    """Receipts from a directory, a file or an iterable of receipts/paths."""
    check_errors_arg(errors)
    if isinstance(objs, (str, os.PathLike)):
        if os.path.isdir(objs):
            rs = load_dir(objs, errors="skip")  # its ids are checked, conflicts are in rs.errors
            kept, failures = settle(rs._items, rs.errors, errors, ids_checked=True)
            return tuple(kept), failures
        return (load(objs),), []
    if isinstance(objs, _core.Receipt):
        raise TypeError("expected several receipts (a list, a ReceiptSet or a directory)")
    # A ReceiptSet's .errors were skipped by its maker (load_dir(errors="skip")):
    # they are listed in the report, never raised again here.
    items, already_skipped = [], list(getattr(objs, "errors", []))
    if getattr(objs, "_ids_checked", False):  # checked when the set was made: not again
        return tuple(objs._items), already_skipped
    for obj in objs:
        if isinstance(obj, _core.Receipt):
            items.append(obj)
        elif isinstance(obj, (str, os.PathLike)):
            items.append(load(obj))
        else:
            raise TypeError(f"expected a Receipt or a path, got {type(obj).__name__}")
    kept, failures = settle(items, [], errors)
    return tuple(kept), already_skipped + failures


def _skipped_entries(failures: Sequence[BaseException]) -> list[dict[str, str]]:
    return [{"path": str(getattr(e, "path", None) or ""), "error": str(e)} for e in failures]


def _skipped_text(failures: Sequence[BaseException], markdown: bool) -> str:
    if not failures:
        return ""
    n = len(failures)
    head = (f"\n**{n} file{'s' if n != 1 else ''} skipped** (not part of this report):\n\n" if markdown
            else f"\nskipped   {n} file{'s' if n != 1 else ''} (not part of this report):\n")
    lines = [(f"- `{s['path']}`: {s['error']}\n" if markdown else f"          {s['path']}: {s['error']}\n")
             for s in _skipped_entries(failures)]
    return head + "".join(lines)


def with_skipped(data: dict[str, Any], render: Callable[[str], str],
                 failures: Sequence[BaseException]) -> tuple[dict[str, Any], Callable[[str], str]]:
    """The report's JSON and renderer with the skipped inputs listed in them,
    as the CLI's --skip-invalid lists them (only when some were skipped)."""
    if not failures:
        return data, render
    data["skipped"] = _skipped_entries(failures)
    return data, lambda f: render(f) + _skipped_text(failures, f == "m")
