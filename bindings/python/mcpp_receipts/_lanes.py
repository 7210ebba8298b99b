"""LaneSummary: a mergeable summary of one lane's receipts, the unit a
distributed frontier is built from (see mcpp_receipts.dask).

Summaries of disjoint sets of receipts merge into exactly the summary of
their union, so partitions can be summarised anywhere and merged in any
order; :meth:`Frontier.from_summaries` labels the merged lanes exactly as
:func:`mcpp_receipts.frontier` labels the receipts themselves.
"""

from __future__ import annotations

from typing import Iterable

from . import _core
from ._policy import as_policy


def _restore_summary(text: str, policy) -> "LaneSummary":
    return LaneSummary.deserialize(text, policy)  # type: ignore[return-value]


class LaneSummary(_core.LaneSummary):
    """A mergeable summary of one lane: counts, flags, reasons as sets, the
    receipt ids and the headline values themselves (exact quantiles).

    ``LaneSummary(policy=None, metric=None)`` is empty; ``add(receipt)`` and
    ``merge(other)`` grow it; ``status``, ``reasons`` and ``headline`` are
    derived; ``serialize()`` / ``LaneSummary.deserialize(text, policy)`` and
    pickling carry it between processes (the policy travels as a Policy
    does). Equal summaries compare equal and serialize to equal text.
    """

    __slots__ = ()

    @classmethod
    def of_receipts(cls, receipts: Iterable, policy=None, metric: str | None = None
                    ) -> tuple[list["LaneSummary"], int]:
        """The summaries of every lane of ``receipts`` (in lane-key order) and
        how many receipts were left out because their lane already held their
        id, as :func:`mcpp_receipts.frontier` groups them."""
        summaries, duplicates = _core._lane_summaries(tuple(receipts), as_policy(policy), metric, cls)
        return summaries, duplicates

    def __reduce__(self):
        return (_restore_summary, (self.serialize(), self.policy))

    def __repr__(self) -> str:
        return (f"<LaneSummary {_core.escape_text(self.key) or '(empty)'}: {self.receipt_count} receipts, "
                f"{self.status}>")
