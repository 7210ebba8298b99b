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
