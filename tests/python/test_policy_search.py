"""Policy.shipped and Lua includes find policies by the same search: the
package's own policies, the installed directory, then MCPP_POLICY_PATH."""

from __future__ import annotations

import os
import pathlib

import pytest

from mcpp_receipts import Error, FileError, Policy
from mcpp_receipts._policy import POLICY_DIR


def test_search_path_is_the_package_policies_then_mcpp_policy_path(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPP_POLICY_PATH", f"{tmp_path / 'a'}::{tmp_path / 'b'}")
    dirs = Policy.search_path()
    assert os.path.realpath(dirs[0]) == os.path.realpath(POLICY_DIR)
    assert dirs[1:] == [str(tmp_path / "a"), str(tmp_path / "b")]


def test_a_team_policy_on_mcpp_policy_path_is_shipped_by_name(tmp_path, monkeypatch):
    (tmp_path / "team.lua").write_text(
        'return { include = {"strict.lua"}, name = "team", noise = { min_runs = 7 } }\n', encoding="utf-8")
    with pytest.raises(ValueError, match="no shipped policy 'team'"):
        Policy.shipped("team")
    monkeypatch.setenv("MCPP_POLICY_PATH", str(tmp_path))
    team = Policy.shipped("team")
    assert team.name == "team"
    assert "team" in Policy.shipped_names() and "default" in Policy.shipped_names()


def test_the_package_policies_come_before_mcpp_policy_path(tmp_path, monkeypatch):
    (tmp_path / "default.lua").write_text('return { name = "impostor" }\n', encoding="utf-8")
    monkeypatch.setenv("MCPP_POLICY_PATH", str(tmp_path))
    assert Policy.shipped("default").name == "default"


def test_a_policy_outside_the_tree_includes_shipped_ones_then_mcpp_policy_path_ones(tmp_path, monkeypatch):
    mine = tmp_path / "elsewhere" / "mine.lua"
    mine.parent.mkdir()
    mine.write_text('return { include = {"cross_hardware.lua", "team_base.lua"}, name = "mine" }\n',
                    encoding="utf-8")
    with pytest.raises(FileError) as refused:
        Policy.from_file(mine)  # cross_hardware.lua was found: the package's policies
    assert "team_base.lua' not found" in refused.value.args[0]
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "team_base.lua").write_text("return { noise = { min_runs = 9 } }\n", encoding="utf-8")
    monkeypatch.setenv("MCPP_POLICY_PATH", str(tmp_path / "lib"))
    assert Policy.from_file(mine).name == "mine"


@pytest.mark.parametrize("name", ["../default", "sub/x", "", "nope"])
def test_a_name_that_is_not_a_shipped_policy_is_a_value_error(name):
    with pytest.raises(ValueError, match="no shipped policy"):
        Policy.shipped(name)


def test_a_name_with_characters_a_file_name_may_not_have_is_refused():
    with pytest.raises(Error, match="plain file name"):
        Policy.shipped("a b")


def test_shipped_policies_still_pickle_by_name():
    import pickle

    strict = Policy.shipped("strict")
    assert pickle.loads(pickle.dumps(strict)) is strict
    assert pathlib.Path(POLICY_DIR / "strict.lua").is_file()


def test_policy_arguments_take_a_shipped_name_or_a_lua_path(tmp_path):
    """policy="strict" failed deep inside ("'str' object has no attribute
    'gate'"): every policy= takes a Policy, a shipped policy's name or a .lua
    file's path, and names what it takes otherwise."""
    import mcpp_receipts as mr

    examples = pathlib.Path(__file__).resolve().parents[2] / "examples" / "receipts"
    rs = mr.load_dir(examples)
    strict = mr.frontier(rs, policy=Policy.shipped("strict")).to_json()
    assert mr.frontier(rs, policy="strict").to_json() == strict
    team = tmp_path / "team.lua"
    team.write_text('return { include = {"strict.lua"}, name = "team" }\n', encoding="utf-8")
    assert mr.frontier(rs, policy=team).to_dict()["policy"] == "team"
    assert mr.frontier(rs, policy=str(team)).to_dict()["policy"] == "team"
    pair = (examples / "nam56r_padded.json", examples / "nam56r_padded_run2.json")
    assert mr.compare(*pair, policy="strict").to_json() == mr.compare(*pair, policy=Policy.shipped("strict")).to_json()
    assert mr.gate([pair[0]], [pair[1]], policy="strict").to_json() == \
        mr.gate([pair[0]], [pair[1]], policy=Policy.shipped("strict")).to_json()
    assert len(rs.to_pandas(policy="strict")) == len(rs)
    assert mr.LaneSummary.of_receipts(rs, policy="strict")
    with pytest.raises(ValueError, match="no shipped policy 'stict'; shipped: .*strict"):
        mr.frontier(rs, policy="stict")
    with pytest.raises(FileError):
        mr.frontier(rs, policy=tmp_path / "missing.lua")
    with pytest.raises(TypeError, match="policy must be a Policy, a shipped policy's name .* not int"):
        mr.claim(rs, lane="family=NAM56R", value=1.0, policy=3)
