"""The optional extras of the package, and the ImportError that names them.

``pip install 'mcpp_receipts[pandas]'`` (``to_pandas()``), ``[plot]``
(``plot()``, matplotlib), ``[dask]`` (``mcpp_receipts.dask``); ``[test]`` is
what the test suite needs. The core (loading, comparing, frontiers, claims,
gates, the store) needs none of them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: extra name -> (the module it provides, what uses it)
EXTRAS: dict[str, tuple[str, str]] = {
    "pandas": ("pandas", "to_pandas()"),
    "plot": ("matplotlib", "plot()"),
    "dask": ("dask", "mcpp_receipts.dask"),
}


def require(extra: str) -> ModuleType:
    """Imports the module behind ``extra``, or raises an ImportError that says
    what to install."""
    module, used_by = EXTRAS[extra]
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"{used_by} needs {module}, which is not installed: "
            f"pip install 'mcpp_receipts[{extra}]' (or pip install {module})"
        ) from e
