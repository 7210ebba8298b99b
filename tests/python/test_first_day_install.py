"""`pip install .` leaves the user's source tree as it was (issue 29, item 11):
pyproject.toml asks scikit-build-core for no build folder inside the tree (it
then builds in a temporary one); only scripts/test-python.sh asks for the
incremental build-python/ folder, on its own command line."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
import zipfile

import pytest

from conftest import EXAMPLES, REPO


def test_pyproject_names_no_build_folder_inside_the_source_tree():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    skbuild = config["tool"]["scikit-build"]
    assert "build-dir" not in skbuild, f"pip install . would write {skbuild.get('build-dir')!r} into the tree"
    assert "build-dir" not in skbuild.get("build", {})


def test_the_test_script_asks_for_its_incremental_build_folder_itself():
    script = (REPO / "scripts" / "test-python.sh").read_text(encoding="utf-8")
    assert '-C "build-dir=build-python/wheel-{wheel_tag}"' in script


# ---- issue 49, item 5: the CLI and the HTML report in the wheel ---------------------------------


def run(cmd: list, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)


def test_a_fresh_venv_gets_the_cli_from_the_wheel_and_it_finds_the_shipped_policies(tmp_path):
    """`pip install` of the wheel into a fresh venv, then `mcpp-receipts --help`
    from its console entry point; a team policy that includes default.lua is
    checked and gates, and the HTML report is written from Python, all with
    nothing but that venv. The wheel is built as `pip install .` builds it
    (in scripts/test-python.sh's build folder, so only what changed rebuilds)."""
    if importlib.util.find_spec("scikit_build_core") is None:
        pytest.skip("scikit-build-core is not installed: scripts/test-python.sh installs it")
    wheels = tmp_path / "wheels"
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                 "-C", "build-dir=build-python/wheel-{wheel_tag}", "-w", wheels, REPO], cwd=REPO)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("mcpp_receipts-*.whl")
    with zipfile.ZipFile(wheel) as z:
        info = z.getinfo("mcpp_receipts/bin/mcpp-receipts")
        assert (info.external_attr >> 16) & 0o111, "the packaged CLI is not executable"
        entry_points = z.read(next(n for n in z.namelist() if n.endswith("entry_points.txt"))).decode()
    assert "mcpp-receipts = mcpp_receipts._cli:main" in entry_points
    venv = tmp_path / "venv"
    made = run([sys.executable, "-m", "venv", venv])
    assert made.returncode == 0, made.stderr
    installed = run([venv / "bin/python", "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel])
    assert installed.returncode == 0, installed.stdout + installed.stderr
    cli = venv / "bin/mcpp-receipts"
    env = {k: v for k, v in os.environ.items() if k not in ("MCPP_POLICY_PATH", "PYTHONPATH")}
    helped = run([cli, "--help"], env=env, cwd=tmp_path)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: mcpp-receipts"), helped.stderr
    team = tmp_path / "team.lua"
    team.write_text('return { include = {"default.lua"}, name = "team", noise = { min_runs = 2 } }\n')
    checked = run([cli, "policy", "check", team], env=env, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    gated = run([cli, "gate", "--policy", team, "--baseline", EXAMPLES / "nam56r_padded.json", "--baseline",
                 EXAMPLES / "nam56r_padded_run2.json", "--candidate", EXAMPLES / "nam56r_padded_run3.json"],
                env=env, cwd=tmp_path)
    assert gated.returncode == 0 and "nam56r-padded-2026-03-15-run3" in gated.stdout, gated.stdout + gated.stderr
    assert "policy team" in gated.stdout  # the team policy, with default.lua included, decided
    page = tmp_path / "report.html"
    script = ("import sys, mcpp_receipts as mr; "
              "mr.frontier(mr.load_dir(sys.argv[1], recursive=False)).write_html(sys.argv[2])")
    wrote = run([venv / "bin/python", "-c", script, EXAMPLES, page], env=env, cwd=tmp_path)
    assert wrote.returncode == 0, wrote.stderr
    assert page.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")


def test_the_html_report_of_a_frontier_and_of_a_gate_is_the_clis_page(tmp_path):
    """Frontier.to_html() / GateReport.write_html(): the page `mcpp-receipts
    report` and `gate --output html=FILE` write, from Python."""
    import mcpp_receipts as mr
    from mcpp_receipts._cli import cli_environment, cli_path

    receipts = mr.load_dir(EXAMPLES, recursive=False)
    page = mr.frontier(receipts).to_html()
    assert page.lstrip().lower().startswith("<!doctype html") and "NAM56R hybrid MoE lane" in page
    try:
        cli = cli_path()
    except FileNotFoundError as e:
        pytest.skip(f"no packaged CLI to compare with: {e}")
    out = tmp_path / "cli.html"
    made = run([cli, "report", *sorted(EXAMPLES.glob("*.json")), "--out", out], env=cli_environment())
    assert made.returncode == 0, made.stderr
    assert out.read_text(encoding="utf-8") == mr.frontier([mr.load(p) for p in sorted(EXAMPLES.glob("*.json"))]).to_html()
    base = [mr.load(EXAMPLES / n) for n in ("nam56r_padded.json", "nam56r_padded_run2.json")]
    report = mr.gate(base, [mr.load(EXAMPLES / "nam56r_padded_run3.json")])
    report.write_html(tmp_path / "gate.html")
    gate_page = (tmp_path / "gate.html").read_text(encoding="utf-8")
    assert "Merge gate" in gate_page and "nam56r-padded-2026-03-15-run3" in gate_page
    with pytest.raises(ValueError, match="unpickled"):
        import pickle

        pickle.loads(pickle.dumps(report)).to_html()
