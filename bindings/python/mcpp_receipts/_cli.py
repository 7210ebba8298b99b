"""The ``mcpp-receipts`` command of a pip install: the wheel carries the C CLI
(built from scripts/cli by the same CMake project as the extension) in
``mcpp_receipts/bin/``, and this console entry point execs it, so the command
documented for a C install works the same after ``pip install``.

The packaged CLI is linked statically against the core, like the extension;
``include = {"default.lua"}`` in a team policy finds the policies shipped in
the package (``mcpp_receipts/policies``) through MCPP_POLICY_PATH, after any
directories the user already put there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def cli_path() -> Path:
    """The packaged ``mcpp-receipts`` executable. Raises FileNotFoundError
    when this install has none (a plain CMake build of the extension only)."""
    exe = _PACKAGE / "bin" / "mcpp-receipts"
    if not exe.is_file():
        raise FileNotFoundError(f"{exe}: this install of mcpp_receipts has no packaged CLI "
                                "(`pip install .` builds it; a C install puts it in its bin/)")
    return exe


def cli_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: os.environ) with the package's policies on MCPP_POLICY_PATH."""
    env = dict(os.environ if env is None else env)
    shipped = str(_PACKAGE / "policies")
    entries = [p for p in env.get("MCPP_POLICY_PATH", "").split(":") if p]
    if shipped not in entries:
        entries.append(shipped)
    env["MCPP_POLICY_PATH"] = ":".join(entries)
    return env


def main() -> None:
    """Console entry point: replaces this process with the packaged CLI."""
    try:
        exe = cli_path()
    except FileNotFoundError as e:
        print(f"mcpp-receipts: {e}", file=sys.stderr)
        sys.exit(4)
    os.execve(exe, ["mcpp-receipts", *sys.argv[1:]], cli_environment())
