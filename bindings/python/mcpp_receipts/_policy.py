"""Policy: the C policy type plus the Lua policies shipped with the package
(policy/*.lua of the repository, installed as mcpp_receipts/policies/; found
by the same search as a Lua ``include``, see Policy.search_path), and
pickling, so policies travel to process pools and cluster workers.

A policy pickles as how it was made: the default as itself, a shipped policy
by name, any other as its Lua source text with the name or path it was
compiled under (includes resolve next to that path, so a policy that includes
other files needs them at that path on the workers). Unpickling the same
recipe twice in one process gives the same object, and in a process that
pickles a policy, its recipe unpickles to the policy pickled last: lane
summaries must share one policy object to merge, and results coming back from
workers must find the caller's policy.
"""

from __future__ import annotations

import html
import json
import os
import pathlib
import threading
from typing import Any

from . import _core

POLICY_DIR = pathlib.Path(__file__).resolve().parent / "policies"

_RECIPES: dict[tuple, "Policy"] = {}
_RECIPES_LOCK = threading.Lock()


def _make_policy(recipe: tuple) -> "Policy":
    """A fresh Policy made by `recipe`."""
    kind = recipe[0]
    if kind == "default":
        return Policy.default()
    if kind == "shipped":
        return Policy.shipped(recipe[1])
    if kind == "text":
        return Policy.from_string(recipe[1], recipe[2], **dict(recipe[3]))
    if kind == "metric":  # another policy gating on one named metric
        made = _make_policy(recipe[1])
        made._set_gate_metric(recipe[2])
        made._recipe = recipe
        return made
    raise ValueError(f"unknown policy recipe {kind!r}")


def _restore_policy(recipe: tuple) -> "Policy":
    """The Policy made by `recipe` (from Policy.__reduce__), one per process."""
    with _RECIPES_LOCK:
        known = _RECIPES.get(recipe)
    if known is not None:
        return known
    made = _make_policy(recipe)
    with _RECIPES_LOCK:
        return _RECIPES.setdefault(recipe, made)  # type: ignore[return-value]


def as_policy(policy: "Policy | str | os.PathLike[str] | None") -> "Policy | None":
    """``policy`` as a Policy: None (the default policy) and a Policy as they
    are; a file, or a path ending in ``.lua`` or holding a directory, is read
    (``Policy.from_file``); any other text names a shipped policy ("strict":
    ``Policy.shipped``, which lists them when it is none). Every function
    that takes ``policy=`` takes these; a name given where a Policy was
    wanted failed deep inside with "'str' object has no attribute 'gate'"."""
    if policy is None or isinstance(policy, _core.Policy):
        return policy
    if isinstance(policy, (str, os.PathLike)):
        text = os.fspath(policy)
        if text.endswith(".lua") or os.sep in text or os.path.exists(text):  # mcpp_policy_locate's rule
            return Policy.from_file(text)
        return Policy.shipped(text)
    raise TypeError(f"policy must be a Policy, a shipped policy's name such as \"strict\", or a .lua file's "
                    f"path, not {type(policy).__name__}")


def with_gate_metric(policy: "Policy | None", metric: str | None) -> "Policy | None":
    """`policy` (None: the default) gating on `metric` alone ("primary", a
    metric name such as "time_to_train_s", or a schema path); `policy` itself
    when metric is None. Made once per process for each policy and metric."""
    if metric is None:
        return policy
    recipe = ("default",) if policy is None else getattr(policy, "_recipe", None)
    if recipe is None:
        raise TypeError("metric= needs a Policy made by Policy.default/shipped/from_file/from_string")
    return _restore_policy(("metric", recipe, metric))


def _limits_key(limits: dict[str, Any]) -> tuple:
    """The time limits a policy was made with, hashable, as part of its recipe."""
    return tuple(sorted((k, v) for k, v in limits.items() if v is not None))


class Policy(_core.Policy):
    """A comparability policy: which dimensions must match, which only qualify,
    required fields, noise bounds and the merge gate.

    Make one with ``Policy.default()`` (built in), ``Policy.shipped("strict")``
    (a Lua policy that ships with the package), ``Policy.from_file(path)`` or
    ``Policy.from_string(text)``; Lua policies run sandboxed. Policies pickle
    (see the module documentation).
    """

    __slots__ = ("_recipe",)

    @staticmethod
    def search_path() -> list[str]:
        """Where shipped policies are looked for, in order, as a Lua ``include``
        looks after the including file's own directory: the installed
        policies (for this package, its own ``policies`` directory beside the
        extension), then each entry of ``MCPP_POLICY_PATH`` (':'-separated)."""
        dirs: str = _core._policy_search_path("")
        return dirs.split("\n")

    @staticmethod
    def shipped_names() -> list[str]:
        """Names of the Lua policies found on ``Policy.search_path()``."""
        names = set()
        for d in Policy.search_path():
            names.update(p.stem for p in pathlib.Path(d).glob("*.lua"))
        return sorted(names)

    @classmethod
    def shipped(cls, name: str) -> Policy:
        """The Lua policy `name` ("default", "strict", "cross_hardware", or a
        team's own from ``MCPP_POLICY_PATH``): the first ``NAME.lua`` on
        ``Policy.search_path()``."""
        path = _core._find_policy(f"{name}.lua", "") if "/" not in name else None
        if path is None:
            raise _core.ArgumentError(
                f"no shipped policy {name!r}; shipped: {', '.join(cls.shipped_names())}")
        made = cls.from_file(path)
        made._recipe = ("shipped", name)
        return made

    @classmethod
    def default(cls) -> Policy:
        made = super().default()
        made._recipe = ("default",)
        return made  # type: ignore[return-value]

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], **limits: Any) -> Policy:
        made = super().from_file(path, **limits)
        text = pathlib.Path(path).read_text(encoding="utf-8")
        made._recipe = ("text", text, os.fspath(path), _limits_key(limits))
        return made  # type: ignore[return-value]

    @classmethod
    def from_string(cls, text: str, name: str | None = None, **limits: Any) -> Policy:
        made = super().from_string(text, name, **limits)
        made._recipe = ("text", text, name, _limits_key(limits))
        return made  # type: ignore[return-value]

    default.__doc__ = _core.Policy.default.__doc__
    from_file.__doc__ = _core.Policy.from_file.__doc__
    from_string.__doc__ = _core.Policy.from_string.__doc__

    def __reduce__(self):
        recipe = getattr(self, "_recipe", None)
        if recipe is None:
            raise TypeError("this Policy was not made by Policy.default/shipped/from_file/from_string")
        with _RECIPES_LOCK:
            _RECIPES[recipe] = self  # what comes back here unpickles to this object
        return (_restore_policy, (recipe,))

    def _repr_html_(self) -> str:
        """Dimensions by role with their fields, then noise, gate, adjacency and
        rules; explicit text colours so dark notebook themes stay legible."""
        def e(text: str) -> str:  # escaped as the CLI prints it, then for HTML
            return html.escape(_core.escape_text(text))

        role_colours = {"must_match": "#fde2e1", "qualify": "#fff4d6", "ignore": "#eeeeee"}
        rows = []
        for name, d in self.dimensions.items():
            colour = role_colours.get(d["role"], "#ffffff")
            rows.append(f'<tr style="background:{colour};color:#1a1a1a"><td><code>{e(name)}</code></td>'
                        f"<td>{e(d['role'])}</td><td>{e(', '.join(d['fields']))}</td></tr>")
        settings = [("noise", self.noise), ("gate", self.gate),
                    ("adjacency width", self.adjacency_width),
                    ("required fields", ", ".join(self.required_fields) or "—"),
                    ("rules", ", ".join(self.rules) or "—")]
        rows += [f'<tr><td colspan="2"><b>{e(k)}</b></td><td>{e(str(v))}</td></tr>' for k, v in settings]
        source = f" <code>{e(str(self.source))}</code>" if self.source else ""
        return (f'<div class="mcpp-policy"><b>Policy {e(self.name)}</b>{source}'
                f'<table class="mcpp-policy"><thead><tr><th style="text-align:left">dimension</th>'
                f'<th style="text-align:left">role</th><th style="text-align:left">fields</th></tr>'
                f'</thead><tbody>{"".join(rows)}</tbody></table></div>')

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
