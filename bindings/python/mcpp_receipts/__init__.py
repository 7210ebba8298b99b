"""mcpp_receipts — honest receipts for ML-training benchmark numbers.

A throughput number is evidence only with a *receipt*: the exact lane it was
measured on (pattern, routing, sequence length, compile posture, backend and
hardware requested *and* observed, topology, data path, startup state,
caveats). This package reads and validates receipts, says whether two are
comparable and why, compares their numbers with honest statistics, labels the
frontier of stable and unstable lanes, and checks quoted claims::

    import mcpp_receipts as mr

    receipts = mr.load_dir("examples/receipts")
    cmp = mr.compare(receipts[0], receipts[1])
    cmp.verdict            # 'comparable' | 'qualified' | 'not_comparable' | 'insufficient'
    fr = mr.frontier(receipts)
    fr.to_pandas(); fr.plot()

The heavy work (parsing, validation, comparison, frontier) runs in C with
the GIL released.
"""

from __future__ import annotations

import os
import warnings
from typing import Iterable, Union

from . import _core, _errors, _inputs  # noqa: F401 (_errors: FileError pickling)
from ._core import (
    SCHEMA,
    ArgumentError,
    Builder,
    Error,
    FieldTypeError,
    FileError,
    ParseError,
    PolicyError,
    UnknownFieldError,
    ValidationError,
    lane_key,
    library_version,
)
from ._lanes import LaneSummary
from ._policy import Policy, as_policy, with_gate_metric
from ._receipt import FIELDS, Receipt, ReceiptSet, Section
from ._store import AddResult, Change, History, LaneHistory, Run, Store
from ._results import (
    VERDICTS,
    Adjacent,
    ClaimResult,
    Comparison,
    Frontier,
    Gate,
    GateReport,
    Headline,
    Lane,
    Row,
    _report_document,
)

__version__ = _core.__version__

__all__ = [
    "SCHEMA", "VERDICTS", "FIELDS",
    "Error", "ParseError", "ValidationError", "PolicyError", "FileError", "ArgumentError",
    "FieldTypeError", "UnknownFieldError",
    "Receipt", "Section", "ReceiptSet", "Builder", "Policy",
    "Comparison", "Row", "Gate", "Frontier", "Lane", "Headline", "Adjacent",
    "ClaimResult", "GateReport", "LaneSummary",
    "Store", "History", "LaneHistory", "Run", "Change", "AddResult",
    "load", "loads", "load_dir", "import_results", "compare", "frontier", "claim", "gate",
    "lane_key", "library_version",
]

PathLike = Union[str, "os.PathLike[str]"]
# a Policy, a shipped policy's name ("strict") or a .lua file's path; None: the default
PolicyLike = Union[Policy, str, "os.PathLike[str]", None]


def __getattr__(name: str):
    """``mr.torch`` (the PyTorch recorder) is imported on first use, so that
    importing mcpp_receipts never imports PyTorch."""
    if name == "torch":
        import importlib

        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load(path: PathLike) -> Receipt:
    """Loads and validates one receipt file (JSON or YAML, by extension).

    Raises :class:`ParseError` or :class:`ValidationError` (both also
    ``ValueError``) with ``.path``, ``.line``, ``.column`` and ``.field``, or
    :class:`FileError` (also ``OSError``) when the file cannot be read.
    """
    return _core.load(path)


def loads(text: str | bytes, format: str = "json", *, name: str | None = None) -> Receipt:
    """Parses a receipt from text. ``format`` is "json", "yaml" or "auto";
    ``name`` is the file name used in error messages."""
    return _core.loads(text, format, name)


def load_dir(path: PathLike, recursive: bool = True, *, threads: int | None = None,
             errors: str = "raise") -> ReceiptSet:
    """Loads every ``*.json``, ``*.yaml`` and ``*.yml`` under ``path``.

    Files are parsed and validated in C on ``threads`` threads (None: one per
    CPU, at most 8) with the GIL released; the result is in sorted path order
    whatever the thread count, and hidden entries are skipped. A file that
    fails, or a receipt with the id of an earlier one and other content (two
    runs claiming one id), raises its error (``errors="raise"``, the default);
    with ``errors="skip"`` the others are returned and the failures are listed
    in ``.errors`` of the :class:`ReceiptSet` as exception instances with their
    locations. Raises :class:`FileError` when ``path`` itself cannot be read.
    """
    _inputs.check_errors_arg(errors)
    receipts, found = _core.load_dir(path, recursive, threads)
    kept, failures = _inputs.settle(receipts, found, errors)
    return ReceiptSet(kept, failures, _ids_checked=True)


def import_results(format: str, paths: PathLike | Iterable[PathLike], *,
                   out: PathLike | None = None, commit: str | None = None) -> ReceiptSet:
    """Turns other tools' benchmark results into receipts, one per run.

    ``format`` names an importer of the library's registry, such as "mlperf"
    or "pytest-benchmark" (``mcpp-receipts import --help`` lists them all and
    what each takes; docs/import.md has each mapping). All or nothing: a
    malformed input raises :class:`ParseError`, :class:`ValidationError` or
    :class:`FileError` naming the file and line, and nothing is written. With
    ``out``, the receipts are also written there as ``<id>.json`` (each file
    atomically; the same inputs give the same ids and bytes).

    ``commit`` is the commit the inputs measured (``git rev-parse HEAD``),
    recorded as ``source.git_commit`` of every receipt: :func:`gate` pools a
    side's runs of one commit and judges runs that name none one by one.
    Google Benchmark, hyperfine, pyperf, go test and MLPerf results never
    name it; an input naming another commit raises :class:`ValidationError`.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    names = [os.fspath(p) for p in paths]
    receipts = _core._import_results(format, names, None if out is None else os.fspath(out), commit or None)
    return ReceiptSet(receipts, _ids_checked=True)  # one receipt per id (the importer drops repeats)


def _as_receipt(obj: Receipt | PathLike) -> Receipt:
    if isinstance(obj, _core.Receipt):
        return obj  # type: ignore[return-value]
    if isinstance(obj, (str, os.PathLike)):
        return load(obj)
    raise TypeError(f"expected a Receipt or a path, got {type(obj).__name__}")


def _as_receipts(objs: Iterable[Receipt] | PathLike, errors: str = "raise"):
    """The receipts and the failures skipped under errors="skip"."""
    return _inputs.gather(objs, errors, load_dir, load)


def _check_metric(metric: str | None, receipts, policy: Policy | None = None) -> None:
    """A metric name no receipt states is almost always a misspelling
    ("tokens_per_sec"): without this check it gives a report in which no lane
    has a value. Raises ArgumentError naming the close matches and the names
    the receipts state. "primary" and schema paths are always accepted.
    Without ``metric``, each metric the policy (a policy file) gates on is
    checked alike, the message naming the policy."""
    if metric is None and policy is not None:
        several = len(policy.gate["metrics"]) > 1
        for m in dict.fromkeys(g["metric"] for g in policy.gate["metrics"]):
            # of several, one no stated name is close to is another suite's: skipped by the gate
            _check_metric_named(m, receipts, f"policy {policy.name!r} gates on the metric {m!r}, "
                                              "which no receipt states", misspelt_only=several)
        return
    _check_metric_named(metric, receipts, f"no receipt states the metric {metric!r}")


def _check_metric_named(metric: str | None, receipts, lead: str, misspelt_only: bool = False) -> None:
    if metric is None or metric == "primary" or metric in FIELDS or not receipts:
        return
    stated: dict[str, None] = {}
    for r in receipts:
        names = [m["name"] for m in r.metric_list()]
        if metric in names:
            return
        stated.update(dict.fromkeys(names))
    import difflib

    close = difflib.get_close_matches(metric, list(stated), n=3, cutoff=0.6)
    if misspelt_only and not close:
        return
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    exc = ArgumentError(f"{lead}{hint} "
                        f"(metrics stated: {', '.join(sorted(stated)) or 'none'}; "
                        "or 'primary', or a schema path such as 'metrics.tokens_per_s')")
    exc.kind, exc.field = "unknown_metric", metric
    raise exc


def _parse(texts: tuple[str, ...]):
    import json

    return json.loads(texts[0])


def compare(base: Receipt | PathLike, cand: Receipt | PathLike,
            policy: PolicyLike = None, *, metric: str | None = None) -> Comparison:
    """Compares a candidate receipt against a base under ``policy`` (default:
    ``Policy.default()``): a verdict with one row per dimension, and, when the
    verdict allows it, the headline metric's relative delta with an interval
    and the merge-gate outcome. Receipts may be given as paths. ``metric``
    (default: the policy's gate metric, "primary") names the metric to compare:
    "time_to_train_s", "tokens_per_s", "BM_Sort/1024.real_time", ..."""
    policy = with_gate_metric(as_policy(policy), metric)
    b, c = _as_receipt(base), _as_receipt(cand)
    _check_metric(metric, [b, c], policy)
    data = _parse(_core._compare(b, c, policy, "j"))
    return Comparison(data, lambda f: _core._compare(b, c, policy, f)[0])


def _result(cls, data, render, failures):
    data, render = _inputs.with_skipped(data, render, failures)
    result = cls(data, render)
    result.errors = tuple(failures)
    return result


def frontier(receipts: Iterable[Receipt] | PathLike, policy: PolicyLike = None, *,
             errors: str = "raise", metric: str | None = None) -> Frontier:
    """Groups receipts into lanes (by their must-match dimensions) and labels
    each stable, unstable or insufficient, with reasons, excluded runs,
    headline intervals and adjacent lanes. ``receipts`` may be a ReceiptSet,
    any iterable of receipts, or a directory path. An input that fails raises;
    with ``errors="skip"`` it is listed in the report (``.errors`` and
    ``to_dict()["skipped"]``) instead. ``metric`` names the headline metric
    (default: the policy's gate metric)."""
    policy = with_gate_metric(as_policy(policy), metric)
    items, failures = _as_receipts(receipts, errors)
    _check_metric(metric, items, policy)
    # The frontier stays in C; a lane becomes Python objects when it is read.
    report = _core._frontier_report(items, policy)
    return _result(Frontier, _report_document(report, "lanes"), report.render, failures)


def claim(receipts: Iterable[Receipt] | PathLike, *, lane: str, value: float,
          metric: str | None = None, policy: PolicyLike = None, errors: str = "raise",
          unit: str | None = None) -> ClaimResult:
    """Checks a quoted number: is ``value`` of ``metric`` (default: the policy's
    gate metric) backed by a stable lane matching the selector ``lane``?

    ``lane`` is a lane key, a short key ("lane-…") or terms such as
    "family=NAM56R,seq_len=4096,moe=jagged". The result names the lane the
    number really came from when it is not supported; a selector matching
    more than one lane is "ambiguous". ``errors`` as for :func:`frontier`.
    ``unit`` states the claim's unit: a lane stating the metric in another
    unit refuses the claim (an Error, not a verdict).
    """
    policy = as_policy(policy)
    items, failures = _as_receipts(receipts, errors)
    _check_metric(metric, items, policy)
    data = _parse(_core._claim(items, lane, metric, float(value), policy, "j", unit))
    return _result(ClaimResult, data,
                   lambda f: _core._claim(items, lane, metric, float(value), policy, f, unit)[0], failures)


def _warn_if_the_same(baselines, candidates) -> None:
    """gate(rs, rs) or gate("runs", "runs") by mistake: a run is never its own
    baseline, so each candidate meets only the others; said once here. An
    identity test, not a pass over the ids: the gate's report stays in C."""
    same = baselines is candidates or (isinstance(baselines, (str, os.PathLike)) and
                                       isinstance(candidates, (str, os.PathLike)) and
                                       os.fspath(baselines) == os.fspath(candidates))
    if same:
        warnings.warn("the baselines and the candidates are the same receipts: a run is never its own baseline, "
                      "so each candidate is compared only with the others", UserWarning, stacklevel=3)


def gate(baselines: Iterable[Receipt] | PathLike, candidates: Iterable[Receipt] | PathLike,
         policy: PolicyLike = None, *, errors: str = "raise", metric: str | None = None,
         history: Iterable[Receipt] | PathLike | None = None) -> GateReport:
    """The pre-merge gate: each candidate against the comparable baselines;
    fails on an established regression beyond the policy's threshold, and is
    undetermined when comparability cannot be established. ``errors`` as for
    :func:`frontier`. ``metric`` gates on that one metric instead of the
    policy's (default "primary": each receipt's headline metric); each
    candidate's ``metrics`` lists every gate metric's decision. ``history``:
    earlier runs of the lanes (``Store.query(...)``, say), which inform only
    the run-to-run noise (docs/statistics.md)."""
    policy = with_gate_metric(as_policy(policy), metric)
    _warn_if_the_same(baselines, candidates)
    (b, fb), (c, fc) = _as_receipts(baselines, errors), _as_receipts(candidates, errors)
    h = _as_receipts(history, errors)[0] if history is not None else None
    _check_metric(metric, [*b, *c], policy)
    # Skipped inputs go into the C report itself, so every format lists them
    # as the CLI's --skip-invalid does (to_dict()["skipped"], text, markdown).
    skipped = [(str(getattr(e, "path", None) or "") or None, str(e)) for e in fb + fc]
    # As for frontier: the report stays in C, a candidate is parsed when read.
    report = _core._gate_report(b, c, policy, skipped, h)
    result = GateReport(_report_document(report, "candidates"), report.render)
    result.errors = tuple(fb + fc)
    return result
