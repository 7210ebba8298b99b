"""Policy: the C policy type plus the Lua policies shipped with the package
(policy/*.lua of the repository, installed as mcpp_receipts/policies/)."""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any

from . import _core

POLICY_DIR = pathlib.Path(__file__).resolve().parent / "policies"


class Policy(_core.Policy):
    """A comparability policy: which dimensions must match, which only qualify,
    required fields, noise bounds and the merge gate.

    Make one with ``Policy.default()`` (built in), ``Policy.shipped("strict")``
    (a Lua policy that ships with the package), ``Policy.from_file(path)`` or
    ``Policy.from_string(text)``; Lua policies run sandboxed.
    """

    __slots__ = ()

    @staticmethod
    def shipped_names() -> list[str]:
        """Names of the Lua policies that ship with the package."""
        return sorted(p.stem for p in POLICY_DIR.glob("*.lua"))

    @classmethod
    def shipped(cls, name: str) -> Policy:
        """The shipped Lua policy `name` ("default", "strict", "cross_hardware", ...)."""
        path = POLICY_DIR / f"{name}.lua"
        if "/" in name or not path.is_file():
            raise ValueError(f"no shipped policy {name!r}; shipped: {', '.join(cls.shipped_names())}")
        return cls.from_file(path)  # type: ignore[return-value]

    def test_file(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """Runs the cases of a case file (schema ``mcpp.policy-cases/1``: receipt
        pairs with the verdict each must get) under this policy, as
        ``mcpp-receipts policy test`` does. Returns the report with the keys of
        its JSON form: ``total``, ``passed``, ``failed`` and ``cases`` (each
        ``name``, ``number``, ``passed``, ``verdict``, ``failures``, ``rows``).
        A failing case is not an exception; an invalid case file is."""
        report: dict[str, Any] = json.loads(self._test_file(path, "json"))
        return report

    def test_file_text(self, path: str | os.PathLike[str]) -> str:
        """The same report as the text ``mcpp-receipts policy test`` prints."""
        text: str = self._test_file(path, "text")
        return text
