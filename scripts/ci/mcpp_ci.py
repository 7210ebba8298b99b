#!/usr/bin/env python3
"""mcpp_ci.py — what the GitHub Actions integration (action.yml) does, kept in
one script so it can be run and tested outside GitHub (standard library only).

  run      `policy check` (--strict: warnings fail too), `policy test` and
           the gate with the mcpp-receipts CLI; writes the markdown report to
           --body (and the gate's JUnit XML to --junit), appends it to
           $GITHUB_STEP_SUMMARY and sets the step outputs exit-code, outcome,
           body, junit and policy-changed in $GITHUB_OUTPUT. Exits 0 when it
           could run everything (the action applies the recorded exit code in
           its last step, after the comment is posted), 4 when it could not.

           A first run has no baseline yet: baseline paths that do not exist
           are named in the report and left out, and with none left every
           candidate is a new lane (passed; --new-lanes fail makes them
           undetermined). --policy-ref REF (the pull request's base commit)
           gates with the policy file as it is at REF, so a pull request
           cannot relax its own gate; when the file differs there the report
           says so and policy-changed is true (the new policy is still checked
           and its cases run).
  comment  creates or updates ONE comment on the pull request of
           $GITHUB_EVENT_PATH: the comment holding the hidden marker
           <!-- mcpp-receipts:MARKER --> is edited, else one is created.
           Needs $GITHUB_TOKEN (pull-requests: write), $GITHUB_REPOSITORY and
           $GITHUB_API_URL (default https://api.github.com). An API failure
           exits 1 with the status and a hint, or with --soft-fail prints a
           workflow warning and exits 0. Not a pull request: nothing to do.

The overall exit code is the first non-zero one of policy check, policy test
and the gate (the CLI's codes: 1 regression or a failing case, 2 not
comparable, 3 invalid input or policy, 4 internal error).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

COMMENT_LIMIT = 65000  # GitHub refuses comment bodies over 65536 characters
SUMMARY_LIMIT = 1000000  # and step summaries over 1 MiB
OUTCOMES = {0: "passed", 1: "failed", 2: "undetermined", 3: "error", 4: "error"}


def marker_line(marker: str) -> str:
    return f"<!-- mcpp-receipts:{marker} -->"


# ---- run ---------------------------------------------------------------------------------


def run_cli(cli: str, args: list[str]) -> tuple[int, str, str]:
    proc = subprocess.run([cli, *args], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def details(title: str, text: str) -> str:
    fence = "````" if "```" in text else "```"
    return f"<details><summary>{title}</summary>\n\n{fence}text\n{text.rstrip()}\n{fence}\n</details>\n"


def fit(head: str, main: str, extras: list[str], limit: int) -> str:
    """head + main + as many extras as fit in `limit` characters; main is cut
    at a line boundary when even it does not fit."""
    note = "\n\n*(cut to fit: the step summary of this run has the full report)*\n"
    if len(head) + len(main) > limit:
        keep = main[: max(0, limit - len(head) - len(note))]
        main = keep[: keep.rfind("\n") + 1] + note
    body = head + main
    for extra in extras:
        if len(body) + len(extra) + 1 <= limit:
            body += "\n" + extra
    return body


def base_policy(policy: str, ref: str) -> tuple[str | None, str]:
    """The policy file as it is at git `ref`, written beside it (so its
    relative includes resolve as they do for the file itself); returns (path
    of that copy or None when the file is the same there, a note for the
    report). Raises OSError when git cannot show it."""
    path = pathlib.Path(policy).resolve()
    top = subprocess.run(["git", "-C", str(path.parent), "rev-parse", "--show-toplevel"], capture_output=True,
                         text=True)
    if top.returncode != 0:
        raise OSError(f"--policy-ref {ref}: {policy} is not in a git work tree: {top.stderr.strip()}")
    rel = path.relative_to(pathlib.Path(top.stdout.strip()).resolve()).as_posix()
    shown = subprocess.run(["git", "-C", top.stdout.strip(), "show", f"{ref}:{rel}"], capture_output=True)
    if shown.returncode != 0:
        note = (f"**The policy `{rel}` is new in this pull request** (it is not at `{ref}`): the gate used it, "
                "as there is no earlier one.\n")
        return None, note
    if shown.stdout == path.read_bytes():
        return None, ""
    copy = path.with_name(f".mcpp-base-{path.name}")
    copy.write_bytes(shown.stdout)
    note = (f"**The policy `{rel}` changed in this pull request.** The gate used it as it is at `{ref}` (the "
            "base); the change applies once merged. The new version was checked and its cases run.\n")
    return str(copy), note


def present_paths(paths: list[str]) -> tuple[list[str], list[str]]:
    """(paths that exist, those that do not)."""
    return [p for p in paths if os.path.exists(p)], [p for p in paths if not os.path.exists(p)]


def run_steps(a: argparse.Namespace) -> tuple[list[tuple[str, int, str, str]], str, str, bool]:
    """Runs the steps that apply; returns (name, code, stdout, stderr) each, the
    gate markdown, notes for the report and whether the policy changed."""
    steps: list[tuple[str, int, str, str]] = []
    notes, changed = "", False
    if a.policy:
        strict = ["--strict"] if a.strict else []
        steps.append(("policy check", *run_cli(a.cli, ["policy", "check", *strict, a.policy])))
    cases = shlex.split(a.cases)
    if cases and a.policy:
        steps.append(("policy test", *run_cli(a.cli, ["policy", "test", a.policy, *cases])))
    gate_policy = a.policy
    if a.policy and a.policy_ref:
        copy, notes = base_policy(a.policy, a.policy_ref)
        changed = copy is not None
        gate_policy = copy or a.policy
    gate_md = ""
    if any(code != 0 for name, code, _, _ in steps if name == "policy check"):
        gate_md = "The gate did not run: the policy is invalid.\n"
    elif a.candidate:
        baselines, missing = present_paths(shlex.split(a.baseline))
        if missing:
            notes += ("No baseline yet at " + ", ".join(f"`{p}`" for p in missing) + ": "
                      + ("a first run, every candidate is a new lane.\n" if not baselines else "left out.\n"))
        empty = None
        if not baselines:  # the gate needs a --baseline: an empty folder is "no baselines"
            empty = tempfile.mkdtemp(prefix="mcpp-no-baseline-")
            baselines = [empty]
        args = ["gate", "--format", "markdown"] + (["--policy", gate_policy] if gate_policy else [])
        args += ["--new-lanes", a.new_lanes] if a.new_lanes else []
        args += ["--output", f"junit={a.junit}"] if a.junit else []
        args += [x for p in baselines for x in ("--baseline", p)]
        args += [x for p in shlex.split(a.candidate) for x in ("--candidate", p)]
        try:
            code, out, err = run_cli(a.cli, args)
        finally:
            if empty:
                os.rmdir(empty)
            if gate_policy != a.policy:
                os.unlink(gate_policy)
        steps.append(("gate", code, out, err))
        gate_md = out
    return steps, gate_md, notes, changed


def outcome_of(steps: list[tuple[str, int, str, str]]) -> tuple[int, str]:
    for name, code, _, _ in steps:
        if code != 0:
            return code, OUTCOMES.get(code, "error") if name == "gate" else f"{name} failed"
    return 0, "passed" if steps else "nothing to check"


def command_run(a: argparse.Namespace) -> int:
    try:
        steps, gate_md, notes, changed = run_steps(a)
    except OSError as e:
        print(f"mcpp_ci: cannot run {a.cli}: {e}", file=sys.stderr)
        return 4
    code, outcome = outcome_of(steps)
    rows = "".join(f"| {name} | {'ok' if c == 0 else 'exit ' + str(c)} |\n" for name, c, _, _ in steps)
    head = f"{marker_line(a.marker)}\n## {a.title}: {outcome}\n\n| step | result |\n|---|---|\n{rows}\n"
    head += f"{notes}\n" if notes else ""
    extras = [details(f"{name} output", out + err) for name, c, out, err in steps if name != "gate" or err]
    body = fit(head, gate_md, extras, COMMENT_LIMIT)
    with open(a.body, "w", encoding="utf-8") as f:
        f.write(body)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(fit(head, gate_md, extras, SUMMARY_LIMIT) + "\n")
    outputs = os.environ.get("GITHUB_OUTPUT")
    if outputs:
        with open(outputs, "a", encoding="utf-8") as f:
            f.write(f"exit-code={code}\noutcome={outcome}\nbody={a.body}\njunit={a.junit}\n"
                    f"policy-changed={'true' if changed else 'false'}\n")
    print(f"mcpp_ci: {outcome} (exit code {code}); report in {a.body}")
    return 0


# ---- comment -----------------------------------------------------------------------------


class ApiError(Exception):
    pass


def api(method: str, url: str, token: str, payload: dict | None = None) -> object:
    data = json.dumps(payload).encode() if payload is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("Accept", "application/vnd.github+json")
    req.add_header("X-GitHub-Api-Version", "2022-11-28")
    req.add_header("User-Agent", "mcpp-receipts-ci")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    path = urllib.parse.urlsplit(url).path
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            text = resp.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        detail = e.read().decode("utf-8", "replace")[:300]
        hint = ""
        if e.code in (401, 403, 404):
            hint = (" (the token needs pull-requests: write; a pull request from a fork gets a"
                    " read-only token)")
        raise ApiError(f"{method} {path}: HTTP {e.code} {e.reason}{hint}: {detail}") from None
    except (urllib.error.URLError, OSError) as e:
        raise ApiError(f"{method} {path}: cannot reach the API: {e}") from None
    try:
        return json.loads(text) if text else None
    except json.JSONDecodeError:
        raise ApiError(f"{method} {path}: the answer is not JSON: {text[:200]!r}") from None


def pull_request_number(event_path: str | None) -> int | None:
    if not event_path or not os.path.isfile(event_path):
        return None
    with open(event_path, encoding="utf-8") as f:
        event = json.load(f)
    if isinstance(event.get("pull_request"), dict):
        return int(event["pull_request"]["number"])
    issue = event.get("issue")
    if isinstance(issue, dict) and issue.get("pull_request"):
        return int(issue["number"])
    return None


def find_marked_comment(base: str, token: str, marker: str) -> int | None:
    page = 1
    while True:
        comments = api("GET", f"{base}/comments?per_page=100&page={page}", token)
        if not isinstance(comments, list):
            raise ApiError(f"GET comments: expected a list, got {type(comments).__name__}")
        for c in comments:
            if marker in (c.get("body") or ""):
                return int(c["id"])
        if len(comments) < 100:
            return None
        page += 1


def upsert_comment(a: argparse.Namespace, number: int, token: str) -> str:
    api_url = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    repo = os.environ.get("GITHUB_REPOSITORY", "")
    if repo.count("/") != 1:
        raise ApiError(f"GITHUB_REPOSITORY must be OWNER/NAME, not {repo!r}")
    with open(a.body, encoding="utf-8") as f:
        body = f.read()
    marker = marker_line(a.marker)
    body = f"{marker}\n" + re.sub(r"\A<!-- mcpp-receipts:[^>]*-->\n?", "", body)  # ours, not run's
    base = f"{api_url}/repos/{repo}/issues/{number}"
    found = find_marked_comment(base, token, marker)
    if found is None:
        made = api("POST", f"{base}/comments", token, {"body": body})
        return f"created comment {made.get('id') if isinstance(made, dict) else '?'} on #{number}"
    api("PATCH", f"{api_url}/repos/{repo}/issues/comments/{found}", token, {"body": body})
    return f"updated comment {found} on #{number}"


def command_comment(a: argparse.Namespace) -> int:
    number = pull_request_number(os.environ.get("GITHUB_EVENT_PATH"))
    if number is None:
        print("mcpp_ci: not a pull request event: no comment to write")
        return 0
    token = os.environ.get("GITHUB_TOKEN", "")
    try:
        if not token:
            raise ApiError("GITHUB_TOKEN is empty")
        print(f"mcpp_ci: {upsert_comment(a, number, token)}")
        return 0
    except (ApiError, OSError) as e:
        level = "warning" if a.soft_fail else "error"
        print(f"::{level} title=mcpp-receipts comment::cannot write the pull request comment: {e}")
        return 0 if a.soft_fail else 1


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="policy check + policy test + gate; body, step summary, outputs")
    r.add_argument("--cli", default="mcpp-receipts")
    r.add_argument("--policy", default="")
    r.add_argument("--cases", default="", help="case files for policy test (shell-quoted list)")
    r.add_argument("--baseline", default="", help="baseline paths (shell-quoted list)")
    r.add_argument("--candidate", default="", help="candidate paths (shell-quoted list)")
    r.add_argument("--title", default="mcpp-receipts merge gate")
    r.add_argument("--marker", default="gate")
    r.add_argument("--body", required=True, help="where to write the markdown report")
    r.add_argument("--junit", default="", help="where to write the gate's JUnit XML (empty: none)")
    r.add_argument("--strict", action="store_true", help="policy check --strict: its warnings fail too")
    r.add_argument("--new-lanes", default="", choices=["", "pass", "fail"],
                   help="what a candidate in a lane no baseline has does (default: the policy's, pass)")
    r.add_argument("--policy-ref", default="",
                   help="git ref (the base commit) whose version of --policy the gate uses")
    c = sub.add_parser("comment", help="create or update the one marked pull request comment")
    c.add_argument("--body", required=True)
    c.add_argument("--marker", default="gate")
    c.add_argument("--soft-fail", action="store_true", help="an API failure is a warning, exit 0")
    a = p.parse_args(argv)
    return command_run(a) if a.command == "run" else command_comment(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
