#!/usr/bin/env python3
"""ci_test.py — the GitHub Actions integration, tested without GitHub and
without network: scripts/ci/mcpp_ci.py against a fake comment API served on
127.0.0.1 (http.server) with fake GITHUB_* files, action.yml run step by step
by a small emulator of composite actions, and the pre-commit hook entry.

usage: ci_test.py CLI REPO_ROOT WORK_DIR   (unittest; -v names every case)
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CLI = REPO = WORK = pathlib.Path()
TOKEN = "ghs_fake_token_never_printed"


class FakeGitHub:
    """Issue comments of one pull request, the way the REST API serves them:
    GET .../issues/N/comments?per_page&page, POST there, PATCH .../issues/comments/ID.
    `fail` maps a method to the HTTP status it answers with."""

    def __init__(self, repo: str = "acme/models", number: int = 7) -> None:
        self.prefix = f"/repos/{repo}/issues"
        self.number = number
        self.comments: list[dict] = []
        self.requests: list[tuple[str, str, str | None]] = []
        self.fail: dict[str, int] = {}
        self.next_id = 1000
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _answer(self, status: int, payload: object) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                fake.requests.append((method, self.path, self.headers.get("Authorization")))
                if method in fake.fail:
                    self._answer(fake.fail[method], {"message": "Resource not accessible by integration"})
                    return
                status, payload = fake.route(method, self.path, body)
                self._answer(status, payload)

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def do_PATCH(self):
                self._handle("PATCH")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def add(self, body: str) -> dict:
        self.next_id += 1
        c = {"id": self.next_id, "body": body, "user": {"login": "someone"}}
        self.comments.append(c)
        return c

    def route(self, method: str, path: str, body: dict | None) -> tuple[int, object]:
        list_path = f"{self.prefix}/{self.number}/comments"
        m = re.fullmatch(re.escape(list_path) + r"\?per_page=(\d+)&page=(\d+)", path)
        if method == "GET" and m:
            per, page = int(m.group(1)), int(m.group(2))
            return 200, self.comments[(page - 1) * per: page * per]
        if method == "POST" and path == list_path and body:
            return 201, self.add(body["body"])
        m = re.fullmatch(re.escape(self.prefix) + r"/comments/(\d+)", path)
        if method == "PATCH" and m and body:
            for c in self.comments:
                if c["id"] == int(m.group(1)):
                    c["body"] = body["body"]
                    return 200, c
        return 404, {"message": "Not Found"}

    def marked(self, marker: str = "gate") -> list[dict]:
        return [c for c in self.comments if f"<!-- mcpp-receipts:{marker} -->" in c["body"]]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def event_file(directory: pathlib.Path, number: int | None) -> pathlib.Path:
    path = directory / "event.json"
    event = {"pull_request": {"number": number}} if number is not None else {"ref": "refs/heads/main"}
    path.write_text(json.dumps(event), encoding="utf-8")
    return path


def ci(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full.update(env)
    return subprocess.run([sys.executable, str(REPO / "scripts/ci/mcpp_ci.py"), *args], env=full,
                          capture_output=True, text=True, timeout=120)


def receipts(tmp: pathlib.Path, slower: float | None = None) -> tuple[pathlib.Path, pathlib.Path]:
    """Baselines: two runs of the padded lane; candidate: the third (slower by
    the factor when given)."""
    ex = REPO / "examples/receipts"
    base, cand = tmp / "base", tmp / "cand"
    base.mkdir()
    cand.mkdir()
    for name in ("nam56r_padded.json", "nam56r_padded_run2.json"):
        shutil.copy(ex / name, base / name)
    run3 = json.loads((ex / "nam56r_padded_run3.json").read_text(encoding="utf-8"))
    if slower:
        run3["id"] = "candidate-slower"
        run3["metrics"]["tokens_per_s"] *= slower
        run3["metrics"]["step_time_s"]["samples"] = [s / slower for s in run3["metrics"]["step_time_s"]["samples"]]
        for key in ("median", "p10", "p90"):
            run3["metrics"]["step_time_s"][key] /= slower
    (cand / "run3.json").write_text(json.dumps(run3), encoding="utf-8")
    return base, cand


class CommentTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = pathlib.Path(tempfile.mkdtemp(dir=WORK))
        self.gh = FakeGitHub()
        self.body = self.tmp / "body.md"
        self.body.write_text("<!-- mcpp-receipts:gate -->\n## gate: passed\n", encoding="utf-8")
        self.env = {"GITHUB_API_URL": self.gh.url, "GITHUB_REPOSITORY": "acme/models", "GITHUB_TOKEN": TOKEN,
                    "GITHUB_EVENT_PATH": str(event_file(self.tmp, 7))}

    def tearDown(self) -> None:
        self.gh.close()

    def comment(self, *extra: str, body: pathlib.Path | None = None) -> subprocess.CompletedProcess:
        return ci(["comment", "--body", str(body or self.body), *extra], self.env)

    def test_creates_the_comment_when_none_has_the_marker(self):
        self.gh.add("LGTM")
        self.gh.add("<!-- mcpp-receipts:other -->\nanother gate")
        r = self.comment()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("created comment", r.stdout)
        self.assertEqual(len(self.gh.marked()), 1)
        self.assertEqual(len(self.gh.comments), 3)
        self.assertEqual([m for m, _, _ in self.gh.requests], ["GET", "POST"])
        self.assertTrue(all(auth == f"Bearer {TOKEN}" for _, _, auth in self.gh.requests))

    def test_updates_the_marked_comment_found_on_a_later_page(self):
        for i in range(120):
            self.gh.add(f"comment {i}")
        old = self.gh.add("<!-- mcpp-receipts:gate -->\n## gate: failed\n")
        for i in range(30):
            self.gh.add(f"later {i}")
        r = self.comment()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"updated comment {old['id']}", r.stdout)
        self.assertEqual(len(self.gh.comments), 151)
        self.assertEqual(self.gh.marked(), [old])
        self.assertIn("gate: passed", old["body"])
        self.assertNotIn("POST", [m for m, _, _ in self.gh.requests])
        self.assertEqual(sum(1 for m, _, _ in self.gh.requests if m == "GET"), 2)

    def test_running_twice_keeps_one_comment_and_other_markers_coexist(self):
        for _ in range(2):
            self.assertEqual(self.comment().returncode, 0)
        self.assertEqual(self.comment("--marker", "nightly").returncode, 0)
        self.assertEqual(len(self.gh.marked()), 1)
        self.assertEqual(len(self.gh.marked("nightly")), 1)
        self.assertEqual(len(self.gh.comments), 2)

    def test_a_body_without_the_marker_gets_it(self):
        plain = self.tmp / "plain.md"
        plain.write_text("no marker here\n", encoding="utf-8")
        self.assertEqual(self.comment(body=plain).returncode, 0)
        self.assertEqual(len(self.gh.marked()), 1)

    def test_forbidden_fails_with_status_and_hint_and_never_prints_the_token(self):
        self.gh.fail["POST"] = 403
        r = self.comment()
        self.assertEqual(r.returncode, 1)
        self.assertIn("::error", r.stdout)
        self.assertIn("HTTP 403", r.stdout)
        self.assertIn("pull-requests: write", r.stdout)
        self.assertNotIn(TOKEN, r.stdout + r.stderr)
        self.assertEqual(self.gh.comments, [])

    def test_soft_fail_turns_an_api_failure_into_a_warning(self):
        self.gh.fail["GET"] = 500
        r = self.comment("--soft-fail")
        self.assertEqual(r.returncode, 0)
        self.assertIn("::warning", r.stdout)
        self.assertIn("HTTP 500", r.stdout)

    def test_server_error_while_listing_fails(self):
        self.gh.fail["GET"] = 502
        r = self.comment()
        self.assertEqual(r.returncode, 1)
        self.assertIn("HTTP 502", r.stdout)

    def test_an_unreachable_api_fails_with_a_message(self):
        self.gh.close()
        self.env["GITHUB_API_URL"] = self.gh.url  # the port is closed now
        r = self.comment()
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot reach the API", r.stdout)
        self.gh = FakeGitHub()  # for tearDown

    def test_a_push_event_writes_no_comment(self):
        self.env["GITHUB_EVENT_PATH"] = str(event_file(self.tmp, None))
        r = self.comment()
        self.assertEqual(r.returncode, 0)
        self.assertIn("not a pull request", r.stdout)
        self.assertEqual(self.gh.requests, [])

    def test_a_missing_token_fails(self):
        self.env["GITHUB_TOKEN"] = ""
        r = self.comment()
        self.assertEqual(r.returncode, 1)
        self.assertIn("GITHUB_TOKEN is empty", r.stdout)


class RunTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = pathlib.Path(tempfile.mkdtemp(dir=WORK))
        self.summary = self.tmp / "summary.md"
        self.outputs = self.tmp / "outputs.txt"
        self.env = {"GITHUB_STEP_SUMMARY": str(self.summary), "GITHUB_OUTPUT": str(self.outputs)}

    def run_gate(self, *args: str, cli: str | None = None) -> dict[str, str]:
        r = ci(["run", "--cli", cli or str(CLI), "--body", str(self.tmp / "body.md"), *args], self.env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return dict(line.split("=", 1) for line in self.outputs.read_text(encoding="utf-8").splitlines())

    def test_passing_gate_writes_body_summary_and_outputs(self):
        base, cand = receipts(self.tmp)
        out = self.run_gate("--policy", str(REPO / "policy/default.lua"),
                            "--cases", str(REPO / "policy/tests/default.cases.json"),
                            "--baseline", str(base), "--candidate", str(cand))
        self.assertEqual((out["exit-code"], out["outcome"]), ("0", "passed"))
        body = pathlib.Path(out["body"]).read_text(encoding="utf-8")
        self.assertTrue(body.startswith("<!-- mcpp-receipts:gate -->\n"))
        for row in ("| policy check | ok |", "| policy test | ok |", "| gate | ok |", "Merge gate: **inconclusive**"):
            self.assertIn(row, body)
        self.assertIn(body.strip(), self.summary.read_text(encoding="utf-8"))

    def test_a_regression_records_exit_1_failed(self):
        base, cand = receipts(self.tmp, slower=0.85)
        out = self.run_gate("--baseline", str(base), "--candidate", str(cand))
        self.assertEqual((out["exit-code"], out["outcome"]), ("1", "failed"))
        self.assertIn("| gate | exit 1 |", pathlib.Path(out["body"]).read_text(encoding="utf-8"))

    def test_an_invalid_policy_records_exit_3_and_skips_the_gate(self):
        base, cand = receipts(self.tmp)
        bad = self.tmp / "bad.lua"
        bad.write_text("return { nosie = {} }\n", encoding="utf-8")
        out = self.run_gate("--policy", str(bad), "--baseline", str(base), "--candidate", str(cand))
        self.assertEqual((out["exit-code"], out["outcome"]), ("3", "policy check failed"))
        body = pathlib.Path(out["body"]).read_text(encoding="utf-8")
        self.assertIn("The gate did not run", body)
        self.assertIn("nosie", body)  # the check's message, in its details block

    def test_a_huge_report_is_cut_to_the_comment_limit_but_kept_whole_in_the_summary(self):
        fake = self.tmp / "fake-cli"
        fake.write_text("#!/bin/sh\nyes '| row | of | a | very | long | gate | table |' | head -n 5000\n")
        fake.chmod(0o755)
        out = self.run_gate("--baseline", "b", "--candidate", "c", cli=str(fake))
        body = pathlib.Path(out["body"]).read_text(encoding="utf-8")
        self.assertLessEqual(len(body), 65000)
        self.assertIn("cut to fit", body)
        self.assertGreater(len(self.summary.read_text(encoding="utf-8")), 5000 * 40)

    def test_a_cli_that_cannot_run_exits_4(self):
        r = ci(["run", "--cli", str(self.tmp / "missing"), "--policy", "p.lua", "--body", str(self.tmp / "b.md")],
               self.env)
        self.assertEqual(r.returncode, 4)
        self.assertIn("cannot run", r.stderr)


class ActionEmulator:
    """Runs action.yml's composite steps the way the runner does for the
    expression forms the action uses: ${{ }} in env values and step `if`s,
    with inputs, steps.*.outputs, runner.temp, github.token and event_name."""

    TOKEN_RE = re.compile(r"\s*(?:('[^']*')|(==|!=|&&|\|\||\(|\))|([A-Za-z_][\w.-]*))")

    def __init__(self, action: dict, inputs: dict[str, str], env: dict[str, str], temp: pathlib.Path,
                 action_path: pathlib.Path | None = None, workspace: pathlib.Path | None = None,
                 step_timeout: int = 120) -> None:
        self.action = action
        self.action_path, self.workspace, self.step_timeout = action_path or REPO, workspace, step_timeout
        self.inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
        self.inputs.update(inputs)
        self.env, self.temp = env, temp
        self.outputs: dict[str, dict[str, str]] = {}
        self.ctx = {"runner.temp": str(temp), "github.token": TOKEN, "github.event_name": "pull_request"}

    def lookup(self, name: str) -> str:
        if name.startswith("inputs."):
            return self.inputs[name[7:]]
        if name.startswith("steps."):
            step, _, key = name[6:].partition(".outputs.")
            return self.outputs.get(step, {}).get(key, "")
        if name in self.ctx:
            return self.ctx[name]
        raise ValueError(f"expression names {name!r}, which this emulator does not know")

    def evaluate(self, expr: str) -> object:
        py, pos = [], 0
        while pos < len(expr.rstrip()):
            m = self.TOKEN_RE.match(expr, pos)
            if not m:
                raise ValueError(f"cannot read expression {expr!r} at {pos}")
            lit, op, name = m.groups()
            py.append(repr(lit[1:-1]) if lit else {"&&": "and", "||": "or"}.get(op, op) if op
                      else f"_lookup({name!r})")
            pos = m.end()
        return eval(" ".join(py), {"_lookup": self.lookup})  # noqa: S307 - tokens checked above

    def substitute(self, text: str) -> str:
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(self.evaluate(m.group(1))), text)

    def run(self) -> tuple[int, str]:
        log = []
        for i, step in enumerate(self.action["runs"]["steps"]):
            if "if" in step and not self.evaluate(step["if"]):
                log.append(f"skipped {step['name']}")
                continue
            out_file = self.temp / f"step{i}.out"
            out_file.write_text("")
            env = dict(self.env, GITHUB_ACTION_PATH=str(self.action_path), GITHUB_OUTPUT=str(out_file))
            env.update({k: self.substitute(str(v)) for k, v in step.get("env", {}).items()})
            proc = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True,
                                  timeout=self.step_timeout, cwd=self.workspace)
            log.append(f"{step['name']}: exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
            if "id" in step:
                self.outputs[step["id"]] = dict(
                    line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line)
            if proc.returncode != 0:
                return proc.returncode, "\n".join(log)
        return 0, "\n".join(log)


def load_yaml(path: pathlib.Path):
    import yaml  # PyYAML: Debian's python3-yaml (scripts/install-deps.sh)

    return yaml.safe_load(path.read_text(encoding="utf-8"))


class ActionTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = pathlib.Path(tempfile.mkdtemp(dir=WORK))
        self.gh = FakeGitHub()
        self.action = load_yaml(REPO / "action.yml")
        self.summary = self.tmp / "summary.md"
        self.env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"),
                    "GITHUB_API_URL": self.gh.url, "GITHUB_REPOSITORY": "acme/models",
                    "GITHUB_EVENT_PATH": str(event_file(self.tmp, 7)), "GITHUB_STEP_SUMMARY": str(self.summary)}

    def tearDown(self) -> None:
        self.gh.close()

    def test_run_blocks_read_inputs_only_through_env(self):
        for step in self.action["runs"]["steps"]:
            self.assertNotIn("${{", step["run"], f"step {step['name']!r} interpolates into its script")

    def test_example_workflow_gives_the_action_only_inputs_it_declares(self):
        workflow = load_yaml(REPO / "examples/ci/workflow.yml")
        uses = [st for st in workflow["jobs"]["gate"]["steps"] if "mcpp_receipts" in st.get("uses", "")]
        self.assertEqual(len(uses), 1)
        given, declared = set(uses[0]["with"]), set(self.action["inputs"])
        self.assertLessEqual(given, declared)
        required = {k for k, v in self.action["inputs"].items() if v.get("required")}
        self.assertLessEqual(required, given)
        self.assertEqual(workflow["permissions"].get("pull-requests"), "write")

    def test_action_gates_comments_once_and_exits_with_the_gate_code(self):
        base, cand = receipts(self.tmp)
        inputs = {"cli": str(CLI), "baseline": str(base), "candidate": str(cand),
                  "policy": str(REPO / "policy/default.lua"),
                  "policy-cases": str(REPO / "policy/tests/default.cases.json")}
        code, log = ActionEmulator(self.action, inputs, self.env, self.tmp).run()
        self.assertEqual(code, 0, log)
        self.assertIn("skipped Build mcpp-receipts", log)
        self.assertIn("created comment", log)
        self.assertEqual(len(self.gh.marked()), 1)
        self.assertIn("Merge gate: **inconclusive**", self.summary.read_text(encoding="utf-8"))

        (self.tmp / "again").mkdir()
        slow_base, slow_cand = receipts(self.tmp / "again", slower=0.85)
        inputs.update(baseline=str(slow_base), candidate=str(slow_cand))
        code, log = ActionEmulator(self.action, inputs, self.env, self.tmp).run()
        self.assertEqual(code, 1, log)
        self.assertIn("updated comment", log)
        self.assertEqual(len(self.gh.comments), 1)
        self.assertIn("failed", self.gh.marked()[0]["body"])

    def test_a_comment_failure_warns_by_default_and_fails_when_asked(self):
        base, cand = receipts(self.tmp)
        self.gh.fail["POST"] = 403
        inputs = {"cli": str(CLI), "baseline": str(base), "candidate": str(cand)}
        code, log = ActionEmulator(self.action, inputs, self.env, self.tmp).run()
        self.assertEqual(code, 0, log)
        self.assertIn("::warning", log)
        inputs["comment-failure"] = "fail"
        code, log = ActionEmulator(self.action, inputs, self.env, self.tmp).run()
        self.assertEqual(code, 1, log)
        self.assertIn("::error", log)


def git(ws: pathlib.Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="ci", GIT_AUTHOR_EMAIL="ci@example.org", GIT_COMMITTER_NAME="ci",
               GIT_COMMITTER_EMAIL="ci@example.org")
    return subprocess.run(["git", "-C", str(ws), *args], capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


TEAM_POLICY = 'return { include = {"default.lua"}, name = "team", noise = { min_runs = 2 }%s }\n'


class TeamFirstWeekTest(unittest.TestCase):
    """A CI maintainer's first week (issue 49): the Action's steps in a scratch
    git repository with a team policy, as pull requests meet them: one that
    adds a benchmark, the first one with no baseline yet, one that relaxes its
    own gate policy, and a pytest-benchmark upgrade."""

    def setUp(self) -> None:
        self.tmp = pathlib.Path(tempfile.mkdtemp(dir=WORK))
        self.gh = FakeGitHub()
        self.ws = self.tmp / "repo"
        (self.ws / "policy").mkdir(parents=True)
        (self.ws / "receipts/baseline").mkdir(parents=True)
        (self.ws / "policy/team.lua").write_text(TEAM_POLICY % "", encoding="utf-8")
        ex = REPO / "examples/receipts"
        for name in ("nam56r_padded.json", "nam56r_padded_run2.json"):
            shutil.copy(ex / name, self.ws / "receipts/baseline" / name)
        git(self.ws, "init", "-q", "-b", "main")
        git(self.ws, "add", ".")
        git(self.ws, "commit", "-q", "-m", "baseline receipts and the team policy")
        self.base_sha = git(self.ws, "rev-parse", "HEAD")
        (self.ws / "receipts/candidate").mkdir()
        shutil.copy(ex / "nam56r_padded_run3.json", self.ws / "receipts/candidate/run3.json")
        self.env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"),
                    "GITHUB_API_URL": self.gh.url, "GITHUB_REPOSITORY": "acme/models",
                    "GITHUB_EVENT_PATH": str(event_file(self.tmp, 7)),
                    "GITHUB_STEP_SUMMARY": str(self.tmp / "summary.md")}

    def tearDown(self) -> None:
        self.gh.close()

    def action(self, **inputs: str) -> tuple[int, str, dict[str, str], str]:
        given = {"cli": str(CLI), "baseline": "receipts/baseline", "candidate": "receipts/candidate",
                 "policy": "policy/team.lua", **{k.replace("_", "-"): v for k, v in inputs.items()}}
        em = ActionEmulator(load_yaml(REPO / "action.yml"), given, self.env, self.tmp, workspace=self.ws)
        code, log = em.run()
        body = pathlib.Path(em.outputs["gate"]["body"]).read_text(encoding="utf-8")
        return code, log, em.outputs["gate"], body

    def test_a_pull_request_adding_a_benchmark_passes_and_reports_the_new_lane(self):
        shutil.copy(REPO / "examples/receipts/nam52_dense.json", self.ws / "receipts/candidate/dense.json")
        junit = self.tmp / "gate.xml"
        code, log, out, body = self.action(junit=str(junit))
        self.assertEqual(code, 0, log)
        self.assertEqual((out["exit-code"], out["outcome"], out["junit"]), ("0", "passed", str(junit)))
        self.assertIn("1 new lane recorded, not gated", body)
        self.assertIn("| new lane |", body)
        self.assertIn("NAM52 dense hybrid lane", body)
        self.assertEqual(len(self.gh.marked()), 1)
        import xml.etree.ElementTree as ET

        suite = ET.parse(junit).getroot().find("testsuite")
        cases = {c.get("name").split()[0]: c for c in suite.iter("testcase")}
        self.assertEqual(len(cases), 2)
        new = next(c for name, c in cases.items() if name.startswith("nam52"))
        self.assertEqual(new.find("skipped").get("type"), "new_lane")
        # the team that wants every lane gated before it merges
        code, log, out, body = self.action(new_lanes="fail")
        self.assertEqual((code, out["outcome"]), (2, "undetermined"), log)
        (self.ws / "policy/team.lua").write_text(TEAM_POLICY % ', gate = { new_lanes = "fail" }', encoding="utf-8")
        code, log, out, body = self.action()
        self.assertEqual((code, out["outcome"]), (2, "undetermined"), log)

    def test_a_changed_lane_is_not_a_new_lane(self):
        """The padded lane loses its candidate to the jagged one: undetermined, not passed as new."""
        (self.ws / "receipts/candidate/run3.json").unlink()
        shutil.copy(REPO / "examples/receipts/nam56r_jagged_graph_breaks.json", self.ws / "receipts/candidate/j.json")
        code, log, out, body = self.action()
        self.assertEqual((code, out["outcome"]), (2, "undetermined"), log)
        # the jagged example is a run its tool marked partial: it never counts, so
        # the padded lane is left without a candidate and nothing was gated
        self.assertIn("1 candidate run left out, their status.outcome not ok", body)

    def test_the_first_pull_request_without_a_baseline_passes_with_every_lane_new(self):
        shutil.rmtree(self.ws / "receipts/baseline")
        code, log, out, body = self.action()
        self.assertEqual((code, out["outcome"]), (0, "passed"), log)
        self.assertIn("No baseline yet at `receipts/baseline`: a first run", body)
        self.assertIn("1 new lane, no baseline to compare with yet", body)
        (self.ws / "receipts/baseline").mkdir()  # an empty folder: the same path
        code, log, out, body = self.action()
        self.assertEqual((code, out["outcome"]), (0, "passed"), log)
        self.assertIn("no baseline to compare with yet", body)

    def test_a_pull_request_cannot_relax_its_own_gate_policy(self):
        slow = json.loads((REPO / "examples/receipts/nam56r_padded_run3.json").read_text(encoding="utf-8"))
        slow["id"] = "candidate-slower"
        slow["metrics"]["tokens_per_s"] *= 0.85
        slow["metrics"]["step_time_s"]["samples"] = [s / 0.85 for s in slow["metrics"]["step_time_s"]["samples"]]
        for key in ("median", "p10", "p90"):
            slow["metrics"]["step_time_s"][key] /= 0.85
        (self.ws / "receipts/candidate/run3.json").write_text(json.dumps(slow), encoding="utf-8")
        (self.ws / "policy/team.lua").write_text(TEAM_POLICY % ", gate = { max_regression = 0.3 }",
                                                 encoding="utf-8")
        code, log, out, body = self.action()  # the hole: the pull request's own policy lets 15% through
        self.assertEqual(code, 0, log)
        code, log, out, body = self.action(policy_ref=self.base_sha)
        self.assertEqual((code, out["outcome"], out["policy-changed"]), (1, "failed", "true"), log)
        self.assertIn("The policy `policy/team.lua` changed in this pull request", body)
        self.assertEqual(sorted(p.name for p in (self.ws / "policy").iterdir()), ["team.lua"])  # copy removed
        # a policy with a doubtful setting fails under policy-strict
        (self.ws / "policy/team.lua").write_text(TEAM_POLICY % ", gate = { max_regression = 0.6 }",
                                                 encoding="utf-8")
        code, log, out, body = self.action(policy_strict="true")
        self.assertEqual((code, out["outcome"]), (3, "policy check failed"), log)
        self.assertIn("lose more than half", body)
        code, log, out, body = self.action(policy_ref=self.base_sha)
        self.assertEqual(out["policy-changed"], "true")
        git(self.ws, "checkout", "-q", "--", "policy/team.lua")
        code, log, out, body = self.action(policy_ref=self.base_sha)
        self.assertEqual(out["policy-changed"], "false")
        self.assertNotIn("changed in this pull request", body)

    def test_asv_results_of_a_named_machine_without_facts_are_gated(self):
        """`asv machine --yes --machine ci-runner` records no CPU (tests/data/asv/named_*,
        real runs; named_slow does 3x the work): hardware is not recorded by the
        source on either side, so the comparisons stand and the slowdown fails."""
        data = REPO / "tests/data/asv"
        shutil.rmtree(self.ws / "receipts")
        for src, dst in (("named_base", "baseline"), ("named_slow", "candidate")):
            r = subprocess.run([str(CLI), "import", "asv", str(data / src), "--out", str(self.ws / "receipts" / dst)],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
        code, log, out, body = self.action()
        self.assertEqual((code, out["outcome"]), (1, "failed"), log)
        r = subprocess.run([str(CLI), "gate", "--format", "json", "--baseline", str(self.ws / "receipts/baseline"),
                            "--candidate", str(self.ws / "receipts/candidate")], capture_output=True, text=True)
        report = json.loads(r.stdout)
        self.assertEqual(report["counts"]["undetermined"], 0, report["reason"])
        slow = [c for c in report["candidates"] if "time_sorted" in c["id"]]
        self.assertEqual(len(slow), 2)
        for c in slow:
            self.assertEqual(c["outcome"], "failed", c["reason"])

    def test_a_pytest_benchmark_upgrade_qualifies_every_comparison_instead_of_emptying_the_lanes(self):
        """Baselines from pytest-benchmark 5.3.0, candidates from 5.3.1 (tests/data/pytest-benchmark)."""
        data = REPO / "tests/data/pytest-benchmark"
        shutil.rmtree(self.ws / "receipts")
        for src, dst in (("before_5.3.0.json", "baseline"), ("base.json", "candidate")):
            r = subprocess.run([str(CLI), "import", "pytest-benchmark", str(data / src), "--out",
                                str(self.ws / "receipts" / dst)], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
        r = subprocess.run([str(CLI), "gate", "--format", "json", "--baseline", str(self.ws / "receipts/baseline"),
                            "--candidate", str(self.ws / "receipts/candidate")], capture_output=True, text=True)
        report = json.loads(r.stdout)
        self.assertEqual(len(report["candidates"]), 3)
        for c in report["candidates"]:
            self.assertIn(c["reason_code"], ("passed", "inconclusive", "regression"), c["reason"])
            versions = [d for d in c["differences"] if d["dimension"] == "suite_version"]
            self.assertEqual(len(versions), 1, c["differences"])
            self.assertTrue(versions[0]["pooled"])
            self.assertIn("5.3.0", versions[0]["base"])
            self.assertIn("5.3.1", versions[0]["cand"])


@unittest.skipUnless(os.environ.get("MCPP_CI_FRESH_CLONE") == "1",
                     "builds the whole CLI: runs as its own ctest, ci_action_from_a_fresh_clone_...")
class FreshCloneActionTest(unittest.TestCase):
    """A CI maintainer's first pull request, as examples/ci/workflow.yml and
    docs/ci.md show it: the Action from a fresh checkout of this repository
    (nothing installed, no MCPP_* variable), building its own CLI, gating a
    repository whose team policy includes the shipped default.lua."""

    def setUp(self) -> None:
        self.tmp = pathlib.Path(tempfile.mkdtemp(dir=WORK))
        self.gh = FakeGitHub()

    def tearDown(self) -> None:
        self.gh.close()

    def fresh_clone(self) -> pathlib.Path:
        """The files a checkout of this tree has (tracked, and new ones not
        ignored), without any build output."""
        listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "-co", "--exclude-standard"],
                                capture_output=True, check=True).stdout.decode().split("\0")
        clone = self.tmp / "action"
        for rel in filter(None, listed):
            src = REPO / rel
            if src.is_file():
                (clone / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, clone / rel)
        return clone

    def consumer_repo(self) -> pathlib.Path:
        ws = self.tmp / "workspace"
        (ws / "policy/tests").mkdir(parents=True)
        (ws / "receipts").mkdir()
        receipts(ws / "receipts")
        (ws / "receipts/base").rename(ws / "receipts/baseline")
        (ws / "receipts/cand").rename(ws / "receipts/candidate")
        (ws / "policy/team.lua").write_text(
            'return { include = {"default.lua"}, name = "team", noise = { min_runs = 2 } }\n', encoding="utf-8")
        cases = {"schema": "mcpp.policy-cases/1", "policy": "../team.lua", "cases": [
            {"name": "two runs of the padded lane are comparable",
             "base": "../../receipts/baseline/nam56r_padded.json",
             "cand": "../../receipts/baseline/nam56r_padded_run2.json", "expect": "comparable"}]}
        (ws / "policy/tests/team.cases.json").write_text(json.dumps(cases), encoding="utf-8")
        git(ws, "init", "-q", "-b", "main")  # the workflow's policy-ref reads the base commit's policy
        git(ws, "add", ".")
        git(ws, "commit", "-q", "-m", "receipts and the team policy")
        return ws

    def test_action_builds_and_gates_with_a_team_policy_that_includes_default_lua(self):
        if not (REPO / ".git").exists():
            self.skipTest(f"{REPO} is not a git checkout: cannot list the files a clone has")
        clone, ws = self.fresh_clone(), self.consumer_repo()
        self.assertFalse((clone / "build").exists())
        workflow = load_yaml(REPO / "examples/ci/workflow.yml")
        step = next(st for st in workflow["jobs"]["gate"]["steps"] if "mcpp_receipts" in st.get("uses", ""))
        env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"),
               "GITHUB_API_URL": self.gh.url, "GITHUB_REPOSITORY": "acme/models",
               "GITHUB_EVENT_PATH": str(event_file(self.tmp, 7)),
               "GITHUB_STEP_SUMMARY": str(self.tmp / "summary.md")}
        em = ActionEmulator(load_yaml(clone / "action.yml"), {}, env, self.tmp, action_path=clone, workspace=ws,
                            step_timeout=900)
        em.ctx["github.event.pull_request.base.sha"] = git(ws, "rev-parse", "HEAD")
        em.inputs.update({k: em.substitute(str(v)) for k, v in step["with"].items()})  # as the runner does
        code, log = em.run()
        self.assertEqual(code, 0, log)
        self.assertIn("Build mcpp-receipts: exit 0", log)
        self.assertNotIn("not found", log)
        body = (self.tmp / "summary.md").read_text(encoding="utf-8")
        for row in ("| policy check | ok |", "| policy test | ok |", "| gate | ok |", "Merge gate: **inconclusive**"):
            self.assertIn(row, body)
        self.assertEqual(len(self.gh.marked("training-throughput")), 1)
        self.assertTrue((self.tmp / "gate-junit.xml").is_file(), log)


class PreCommitHookTest(unittest.TestCase):
    def test_policy_check_hook_lints_matching_policy_files(self):
        hooks = load_yaml(REPO / ".pre-commit-hooks.yaml")
        hook = next(h for h in hooks if h["id"] == "mcpp-receipts-policy-check")
        files = re.compile(hook["files"])
        self.assertTrue(files.search("policy/default.lua") and files.search("bench/policies/team.lua"))
        self.assertFalse(files.search("scripts/tool.lua") or files.search("policy/readme.md"))
        entry = hook["entry"].split()
        self.assertEqual(entry[0], "mcpp-receipts")
        good = [str(REPO / "policy/default.lua"), str(REPO / "policy/strict.lua")]
        r = subprocess.run([str(CLI), *entry[1:], *good], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        bad = pathlib.Path(tempfile.mkdtemp(dir=WORK)) / "bad.lua"
        bad.write_text("return { nosie = {} }\n", encoding="utf-8")
        r = subprocess.run([str(CLI), *entry[1:], *good, str(bad)], capture_output=True, text=True)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)


if __name__ == "__main__":
    CLI, REPO, WORK = (pathlib.Path(p).resolve() for p in sys.argv[1:4])
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    unittest.main(argv=[sys.argv[0], "-v", *sys.argv[4:]])
