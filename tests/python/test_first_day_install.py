"""`pip install .` leaves the user's source tree as it was (issue 29, item 11):
pyproject.toml asks scikit-build-core for no build folder inside the tree (it
then builds in a temporary one); only scripts/test-python.sh asks for the
incremental build-python/ folder, on its own command line."""

from __future__ import annotations

import tomllib

from conftest import REPO


def test_pyproject_names_no_build_folder_inside_the_source_tree():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    skbuild = config["tool"]["scikit-build"]
    assert "build-dir" not in skbuild, f"pip install . would write {skbuild.get('build-dir')!r} into the tree"
    assert "build-dir" not in skbuild.get("build", {})


def test_the_test_script_asks_for_its_incremental_build_folder_itself():
    script = (REPO / "scripts" / "test-python.sh").read_text(encoding="utf-8")
    assert '-C "build-dir=build-python/wheel-{wheel_tag}"' in script
