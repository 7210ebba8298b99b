"""Policy: the C policy type plus the Lua policies shipped with the package
(policy/*.lua of the repository, installed as mcpp_receipts/policies/)."""

from __future__ import annotations

import pathlib

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
