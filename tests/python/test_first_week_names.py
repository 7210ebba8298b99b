"""A misspelt metric or selector value in every front end (issue 49, item 8):
Python's frontier, compare, gate and claim raise ArgumentError with the
closest stated name, and the CLI exits 3 with the same "did you mean", where
before gate and compare returned undetermined (exit 2) and claim
"unsupported"."""

from __future__ import annotations

import subprocess

import pytest

import mcpp_receipts as mr
from conftest import EXAMPLES

PADDED = ["nam56r_padded.json", "nam56r_padded_run2.json", "nam56r_padded_run3.json"]


@pytest.fixture(scope="module")
def runs():
    return [mr.load(EXAMPLES / name) for name in PADDED]


def test_python_front_ends_refuse_a_misspelt_metric_with_a_suggestion(runs):
    calls = {
        "frontier": lambda: mr.frontier(runs, metric="tokens_per_sec"),
        "compare": lambda: mr.compare(runs[0], runs[1], metric="tokens_per_sec"),
        "gate": lambda: mr.gate(runs[:2], runs[2:], metric="tokens_per_sec"),
        "claim": lambda: mr.claim(runs, lane="family=NAM56R", value=395000, metric="tokens_per_sec"),
    }
    for name, call in calls.items():
        with pytest.raises(mr.ArgumentError, match="did you mean 'tokens_per_s'") as e:
            call()
        assert "tokens_per_sec" in str(e.value), name
    ok = mr.gate(runs[:2], runs[2:], metric="tokens_per_s")  # the right name is gated
    assert ok.exit_code == 0 and ok.candidates[0]["metric"]["name"] == "tokens_per_s"


def test_a_misspelt_selector_value_is_an_error_and_an_unmeasured_one_a_verdict(runs):
    with pytest.raises(mr.ArgumentError, match="no receipt has backend.moe.observed = 'paded'; did you mean 'padded'"):
        mr.claim(runs, lane="family=NAM56R,moe=paded", value=395000)
    # 16384 is no spelling of 4096: a claim about a lane nobody measured, answered
    assert mr.claim(runs, lane="family=NAM56R,seq_len=16384", value=395000).verdict == "unsupported"


def packaged_cli() -> str:
    from mcpp_receipts._cli import cli_path

    try:
        return str(cli_path())
    except FileNotFoundError as e:
        pytest.skip(f"no packaged CLI: {e}")


def run_cli(cli: str, args: list[str]) -> subprocess.CompletedProcess:
    from mcpp_receipts._cli import cli_environment

    return subprocess.run([cli, *args], capture_output=True, text=True, env=cli_environment(), timeout=60)


def test_the_cli_exits_3_with_the_same_suggestion():
    cli = packaged_cli()
    files = [str(EXAMPLES / n) for n in PADDED]
    commands = {
        "gate": ["gate", "--metric", "tokens_per_sec", "--baseline", files[0], "--baseline", files[1],
                 "--candidate", files[2]],
        "compare": ["compare", "--metric", "tokens_per_sec", files[0], files[1]],
        "frontier": ["frontier", "--metric", "tokens_per_sec", *files],
        "claim": ["claim", "--lane", "family=NAM56R,moe=paded", "--value", "395000", *files],
    }
    for name, args in commands.items():
        r = run_cli(cli, args)
        assert r.returncode == 3, (name, r.returncode, r.stdout, r.stderr)
        assert "did you mean" in r.stderr, (name, r.stderr)


TYPO_POLICY = ('return { include = { "default.lua" }, name = "team", '
               'gate = { metric = "tokens_per_sec", max_regression = 0.05 } }')


def test_a_policy_file_gating_on_a_misspelt_metric_gets_the_same_suggestion(runs, tmp_path):
    """Issue 49 item 8: the metric a policy file names is checked as --metric is,
    the message naming the policy, in Python and in the CLI (exit 3)."""
    path = tmp_path / "team.lua"
    path.write_text(TYPO_POLICY)
    policy = mr.Policy.from_file(path)
    calls = {
        "frontier": lambda: mr.frontier(runs, policy),
        "compare": lambda: mr.compare(runs[0], runs[1], policy),
        "gate": lambda: mr.gate(runs[:2], runs[2:], policy),
        "claim": lambda: mr.claim(runs, lane="family=NAM56R", value=395000, policy=policy),
    }
    want = "policy 'team' gates on the metric 'tokens_per_sec', which no receipt states; did you mean 'tokens_per_s'"
    for name, call in calls.items():
        with pytest.raises(mr.ArgumentError, match=want):
            call()
    # --metric (or metric=) overrides the policy's: the right name is gated
    assert mr.gate(runs[:2], runs[2:], policy, metric="tokens_per_s").exit_code == 0

    cli = packaged_cli()
    files = [str(EXAMPLES / n) for n in PADDED]
    commands = {
        "gate": ["gate", "--baseline", files[0], "--baseline", files[1], "--candidate", files[2]],
        "compare": ["compare", files[0], files[1]],
        "frontier": ["frontier", *files],
        "claim": ["claim", "--lane", "family=NAM56R", "--value", "395000", *files],
    }
    for name, args in commands.items():
        r = run_cli(cli, [*args, "--policy", str(path)])
        assert r.returncode == 3, (name, r.returncode, r.stdout, r.stderr)
        assert "policy 'team' gates on the metric 'tokens_per_sec'" in r.stderr, (name, r.stderr)
        assert "did you mean 'tokens_per_s'?" in r.stderr, (name, r.stderr)
