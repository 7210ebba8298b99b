"""mcpp_receipts.dask — the frontier, claims and the gate over receipt files
on a Dask cluster (the optional extra ``mcpp_receipts[dask]``).

Each partition of the input (some receipt files, or a partition of a
``dask.bag.Bag``) is loaded on a worker and reduced to lane summaries
(:class:`~mcpp_receipts.LaneSummary`); the summaries are merged in a tree
(``split_every`` at a time) and labelled on the client by
:meth:`Frontier.from_summaries`. The result equals
:func:`mcpp_receipts.frontier` over all the receipts in input order: same
lanes, statuses, headlines, reasons and adjacency. A run loaded twice (the
same id in the same lane) counts once, as there: when a merge finds an id
held twice, a second pass leaves those receipts out of the partition
summaries and adds back the first occurrence only.

Inputs: a directory, a glob, a file or a list of them, local or any fsspec URL
("s3://bucket/receipts/", "gs://...", "file:///..."); files are ``*.json``,
``*.yaml``/``*.yml`` (one receipt each) or ``*.jsonl`` shards (one receipt per
line); or a Bag whose elements are such paths or Receipt objects. Policies
travel to the workers as their Lua source text (see mcpp_receipts.Policy).

Errors: with ``errors="raise"`` (the default) the first file that fails to
load stops the job with a :class:`PartitionError` naming it; with
``errors="skip"`` failed files are left out and listed in the result's
``errors``. Computation uses the active Dask scheduler: create a
``dask.distributed.Client`` first to run on a cluster.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ._extras import require

require("dask")
import dask  # noqa: E402
import dask.bag  # noqa: E402

from . import _core
from ._lanes import LaneSummary
from ._policy import as_policy
from ._results import ClaimResult, Frontier, GateReport

__all__ = ["PartitionError", "frontier", "claim", "gate", "receipt_files"]

#: Suffixes of receipt files; *.jsonl holds one receipt per line.
SUFFIXES = (".json", ".yaml", ".yml", ".jsonl")


class PartitionError(_core.Error):
    """A receipt file of a partition failed to load: ``path`` names it (for a
    JSONL shard, "PATH:LINE"), ``str()`` says where and why."""

    def __init__(self, path: str, message: str):
        super().__init__(message if message.startswith(path) else f"{path}: {message}")
        self.path = path
        self.message = message

    def __reduce__(self):
        return (PartitionError, (self.path, self.message))


# ---- inputs ----------------------------------------------------------------------------


def _hidden(path: str, root: str) -> bool:
    rel = path[len(root):] if path.startswith(root) else path
    return any(part.startswith(".") for part in rel.replace("\\", "/").split("/") if part)


def receipt_files(source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[str]:
    """The receipt files of ``source`` (directories searched recursively,
    hidden entries skipped, sorted; globs expanded), local paths or URLs."""
    import fsspec

    sources = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    files: list[str] = []
    for src in map(os.fspath, sources):
        remote = "://" in src
        fs, root = fsspec.core.url_to_fs(src)
        if fs.isdir(root):
            found = sorted(p for p in fs.find(root) if p.lower().endswith(SUFFIXES) and not _hidden(p, root))
        elif any(c in root for c in "*?["):
            found = sorted(fs.glob(root))
        elif fs.isfile(root):
            found = [root]
        else:
            raise FileNotFoundError(f"{src}: no such file or directory")
        files.extend(fs.unstrip_protocol(p) if remote else p for p in found)
    return files


def _read_text(path: str) -> str:
    if "://" not in path:
        with open(path, encoding="utf-8") as f:
            return f.read()
    import fsspec

    with fsspec.open(path, "rt", encoding="utf-8") as f:
        return f.read()


def _load_file(path: str) -> list:
    from . import load, loads

    lower = path.lower()
    if lower.endswith(".jsonl"):
        lines = _read_text(path).splitlines()
        return [loads(line, "json", name=f"{path}:{i}") for i, line in enumerate(lines, 1) if line.strip()]
    if "://" not in path:
        return [load(path)]
    return [loads(_read_text(path), "yaml" if lower.endswith((".yaml", ".yml")) else "json", name=path)]


def _load(items: Iterable[Any], errors: str) -> tuple[list, list[PartitionError]]:
    """The receipts of a partition's items (paths or Receipts), in order."""
    receipts: list = []
    failed: list[PartitionError] = []
    for item in items:
        if isinstance(item, _core.Receipt):
            receipts.append(item)
            continue
        path = os.fspath(item)
        try:
            receipts.extend(_load_file(path))
        except (_core.Error, OSError, UnicodeDecodeError) as exc:
            err = PartitionError(getattr(exc, "path", None) or path, str(exc))
            if errors == "raise":
                raise err from None
            failed.append(err)
    return receipts, failed


def _partitions(source: Any, npartitions: int | None) -> list:
    if isinstance(source, dask.bag.Bag):
        return list(source.to_delayed())
    files = receipt_files(source)
    n = max(1, min(len(files), npartitions or 64))
    return [files[i * len(files) // n:(i + 1) * len(files) // n] for i in range(n)] if files else []


# ---- the work of one partition, and merging -----------------------------------------------


@dataclass
class _Part:
    """What a partition (or a merge of partitions) reports."""

    policy: Any
    metric: str | None
    summaries: dict[str, LaneSummary] = field(default_factory=dict)
    loaded: int = 0
    errors: list = field(default_factory=list)
    failing: set | None = None  # claims: lanes whose receipts fail the selector's terms
    held: list = field(default_factory=list)  # (partition, position, key, receipt) left out
    kept: list = field(default_factory=list)  # gate: baselines comparable with a candidate
    dropped: list = field(default_factory=list)  # gate: per candidate, [not_comparable, insufficient] left out
    # claims: a receipt stating each metric name, and (the second pass) a
    # receipt per distinct content: what "did you mean" is computed from
    named: dict = field(default_factory=dict)
    samples: dict = field(default_factory=dict)


def _summarise(items, index: int, policy, metric, errors: str, selector: str | None,
               exclude: dict[str, frozenset] | None, names: bool = False) -> _Part:
    receipts, failed = _load(items, errors)
    part = _Part(policy, metric, loaded=len(receipts), errors=failed)
    kept = receipts
    if exclude:
        kept, seen = [], set()
        for pos, r in enumerate(receipts):
            key = _core.lane_key(r, policy)[0]
            rid = r.id or ""
            if rid not in exclude.get(key, ()):
                kept.append(r)
            elif (key, rid) not in seen:
                seen.add((key, rid))
                part.held.append((index, pos, key, r))
    summaries, _ = LaneSummary.of_receipts(kept, policy, metric)
    part.summaries = {s.key: s for s in summaries}
    if selector is not None:
        part.failing = _core._selector_failing_lanes(receipts, selector, policy)
    for r in receipts if names else ():
        for m in r.metric_list():
            part.named.setdefault(m["name"], r)
    return part


# What a selector term may name and a sample keeps apart: everything but the
# per-run fields, unless the selector names one of them.
_PER_RUN = ("id", "created_at", "metrics", "artifacts")


def _sample(items, errors: str, selector: str) -> _Part:
    """One receipt per distinct content (but the per-run fields): every value a
    selector term can name, so a claim over the samples finds the same "did you
    mean" as one over every receipt."""
    receipts, failed = _load(items, errors)
    part = _Part(None, None, loaded=len(receipts), errors=failed)
    keep_all = any(term.split("=", 1)[0].strip().split(".")[0] in _PER_RUN for term in selector.split(","))
    for i, r in enumerate(receipts):
        body = json.loads(r.to_json())
        if not keep_all:
            for key in _PER_RUN:
                body.pop(key, None)
        part.samples.setdefault(json.dumps(body, sort_keys=True) if not keep_all else i, r)
    return part


def _keep_baselines(items, policy, candidates: Sequence, errors: str) -> _Part:
    """Keeps the baselines comparable (or qualified) with some candidate, and
    tallies the others per candidate as the gate's reason counts them."""
    receipts, failed = _load(items, errors)
    part = _Part(policy, None, loaded=len(receipts), errors=failed)
    part.dropped = [[0, 0] for _ in candidates]
    for b in receipts:
        verdicts = _core._verdicts(b, candidates, policy)
        if any(v in ("comparable", "qualified") for v in verdicts):
            part.kept.append(b)
            continue
        for tally, v, c in zip(part.dropped, verdicts, candidates):
            if not (b.id and b.id == c.id):  # the gate never pairs a run with itself
                tally[v == "insufficient"] += 1
    return part


def _combine(parts: list[_Part]) -> _Part:
    out = _Part(parts[0].policy, parts[0].metric, failing=None if parts[0].failing is None else set())
    for p in parts:
        for key, s in p.summaries.items():
            mine = out.summaries.get(key)
            if mine is None:
                mine = out.summaries[key] = LaneSummary(s.policy, p.metric)
            mine.merge(s)
        out.loaded += p.loaded
        out.errors += p.errors
        out.held += p.held
        out.kept += p.kept
        for name, r in p.named.items():
            out.named.setdefault(name, r)
        for key, r in p.samples.items():
            out.samples.setdefault(key, r)
        if p.dropped:
            out.dropped = [[a + c, b + d] for (a, b), (c, d) in zip(out.dropped or [[0, 0]] * len(p.dropped),
                                                                  p.dropped)]
        if out.failing is not None and p.failing is not None:
            out.failing |= p.failing
    return out


def _tree(nodes: list, split_every: int):
    if not nodes:
        return dask.delayed(_Part)(None, None)
    while len(nodes) > 1:
        nodes = [dask.delayed(_combine)(nodes[i:i + split_every]) for i in range(0, len(nodes), split_every)]
    return nodes[0]


def _check_options(errors: str, split_every: int) -> None:
    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', not {errors!r}")
    if split_every < 2:
        raise ValueError("split_every must be at least 2")


def _run(source, policy, metric, errors, npartitions, split_every, selector=None, exclude=None,
         names=False) -> _Part:
    nodes = [dask.delayed(_summarise)(items, i, policy, metric, errors, selector, exclude, names)
             for i, items in enumerate(_partitions(source, npartitions))]
    (part,) = dask.compute(_tree(nodes, split_every))
    return part


def _summaries(source, policy, metric, errors, npartitions, split_every, selector=None,
               names=False) -> tuple[_Part, int]:
    """The merged summaries with each (lane, id) once, and the duplicates left
    out; with ``names``, a receipt stating each metric name (``named``)."""
    _check_options(errors, split_every)
    part = _run(source, policy, metric, errors, npartitions, split_every, selector, None, names)
    twice = {key: frozenset(ids) for key, s in part.summaries.items() if (ids := s.duplicate_ids())}
    if twice:
        again = _run(source, policy, metric, errors, npartitions, split_every, None, twice)
        seen = set()
        for _, _, key, r in sorted(again.held, key=lambda h: (h[0], h[1])):
            if (key, r.id or "") in seen:
                continue
            seen.add((key, r.id or ""))
            if key not in again.summaries:
                again.summaries[key] = LaneSummary(policy, metric)
            again.summaries[key].add(r)
        again.failing = part.failing
        again.named = part.named
        part = again
    duplicates = part.loaded - sum(s.receipt_count for s in part.summaries.values())
    return part, duplicates


# ---- the analyses ---------------------------------------------------------------------------


def frontier(source, policy=None, *, errors: str = "raise", npartitions: int | None = None,
             split_every: int = 8) -> Frontier:
    """The frontier of the receipts in ``source`` (files, URLs or a Bag),
    computed on the active Dask scheduler; equal to
    :func:`mcpp_receipts.frontier` over the same receipts. ``npartitions``:
    how many partitions the files are cut into (default: one per file, at
    most 64). ``errors``: "raise" or "skip" (skipped files are in
    ``.errors``)."""
    policy = as_policy(policy)
    from . import _check_metric

    part, duplicates = _summaries(source, policy, None, errors, npartitions, split_every, None, policy is not None)
    _check_metric(None, list(part.named.values()), policy)  # a policy file's misspelt metric: "did you mean"
    result = Frontier.from_summaries(list(part.summaries.values()), policy, duplicates=duplicates)
    result.errors = tuple(part.errors)
    return result


def claim(source, *, lane: str, value: float, metric: str | None = None, policy=None,
          errors: str = "raise", npartitions: int | None = None, split_every: int = 8) -> ClaimResult:
    """:func:`mcpp_receipts.claim` on a cluster: the frontier of ``metric``
    from partition summaries, and the selector's terms evaluated on every
    receipt by the workers (a lane holds them when all its receipts do)."""
    policy = as_policy(policy)
    value = float(value)
    _core._claim_from_summaries((), set(), lane, metric, value, policy)  # checks metric and value first
    try:
        _core._selector_failing_lanes((), lane, policy)
        selector: str | None = lane
        bad_terms = None
    except _core.Error as exc:  # no terms: the selector must be a lane key
        selector, bad_terms = None, exc
    part, duplicates = _summaries(source, policy, metric, errors, npartitions, split_every, selector, True)
    items = tuple(part.summaries.values())
    failing = part.failing if selector is not None else None
    # a misspelt metric (named here or in the policy file): the "did you mean"
    # of mcpp_receipts.claim, from a receipt stating each name
    from . import _check_metric

    _check_metric(metric, list(part.named.values()), policy)

    def render(codes: str) -> str:
        return _core._claim_from_summaries(items, failing, lane, metric, value, policy, duplicates, codes)[0]

    try:
        data = json.loads(render("j"))
    except _core.Error:
        if bad_terms is not None:
            raise bad_terms from None
        raise
    if selector is not None and data["verdict"] == "unsupported" and not data["matched"]:
        _suggest_selector_value(source, lane, metric, value, policy, errors, npartitions, split_every, part)
    result = ClaimResult(data, render)
    result.errors = tuple(part.errors)
    return result


def _suggest_selector_value(source, lane, metric, value, policy, errors, npartitions, split_every, part) -> None:
    """No lane matches the selector: raises the "did you mean" mcpp_receipts.claim
    gives for a misspelt value (``moe=paded``), checked over a sample of the
    receipts that holds every value a term can name; a value no receipt is
    near is a lane nobody measured, and the "unsupported" verdict stands."""
    nodes = [dask.delayed(_sample)(items, errors, lane) for items in _partitions(source, npartitions)]
    (sampled,) = dask.compute(_tree(nodes, split_every))
    samples = [*sampled.samples.values(), *part.named.values()]
    if samples:
        _core._claim(samples, lane, metric, value, policy, "j")


def gate(baselines, candidates, policy=None, *, errors: str = "raise", npartitions: int | None = None,
         split_every: int = 8) -> GateReport:
    """:func:`mcpp_receipts.gate` with the baselines on a cluster: workers
    keep the baselines comparable (or qualified) with some candidate, in
    input order, and tally the others per candidate; the gate runs on the
    client over the kept ones. Equal to :func:`mcpp_receipts.gate` over all
    the baselines."""
    policy = as_policy(policy)
    from . import _as_receipts, _check_metric

    _check_options(errors, split_every)
    cands = _as_receipts(candidates)[0]
    nodes = [dask.delayed(_keep_baselines)(items, policy, cands, errors)
             for items in _partitions(baselines, npartitions)]
    (part,) = dask.compute(_tree(nodes, split_every))
    kept, dropped = tuple(part.kept), part.dropped or [[0, 0]] * len(cands)
    _check_metric(None, [*cands, *kept], policy)  # a policy file's misspelt metric: "did you mean"

    def render(codes: str) -> str:
        return _core._gate_filtered(kept, cands, dropped, policy, codes)[0]

    result = GateReport(json.loads(render("j")), render)
    result.errors = tuple(part.errors)
    return result
