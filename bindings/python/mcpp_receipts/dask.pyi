# Type stubs for mcpp_receipts.dask (the optional extra mcpp_receipts[dask]).
import os
from collections.abc import Iterable, Sequence
from typing import Literal

import dask.bag

from . import ClaimResult, Error, Frontier, GateReport, Policy, Receipt

_Source = str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | dask.bag.Bag
_Errors = Literal["raise", "skip"]

SUFFIXES: tuple[str, ...]

class PartitionError(Error):
    path: str
    message: str
    def __init__(self, path: str, message: str) -> None: ...

def receipt_files(source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[str]: ...
def frontier(source: _Source, policy: Policy | None = None, *, errors: _Errors = "raise",
             npartitions: int | None = None, split_every: int = 8) -> Frontier: ...
def claim(source: _Source, *, lane: str, value: float, metric: str | None = None,
          policy: Policy | None = None, errors: _Errors = "raise", npartitions: int | None = None,
          split_every: int = 8) -> ClaimResult: ...
def gate(baselines: _Source, candidates: Iterable[Receipt] | str | os.PathLike[str],
         policy: Policy | None = None, *, errors: _Errors = "raise", npartitions: int | None = None,
         split_every: int = 8) -> GateReport: ...
