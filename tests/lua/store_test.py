#!/usr/bin/env python3
"""store_test.py — mr.store(location) of the Lua module, on SQLite and on PostgreSQL.

Writes the receipts test_store.lua reads (tests/report/report_set.py: two
history lanes of 24 daily runs with hostile commits, 12 lanes of 3 runs; a new
run and one whose id clashes with a stored receipt), then runs
test_store.lua in lua5.4 (LUA_CPATH points at the module):

  sqlite      on a SQLite file
  postgresql  on a SQLite file and on a database of a throwaway PostgreSQL
              cluster (tests/store/pg_cluster.py: initdb in a temporary
              directory, a Unix socket, an unprivileged user; stopped and
              removed at the end): the same calls, and every answer the same
              from both backends

Then, in each mode, one column of one row is changed behind the store's back
in every store (SQLite through Python's sqlite3, PostgreSQL through psql) and
test_store.lua --damaged checks that check() raises a "consistency" error
naming it and check(true) mends it.

Exit 77 (skip) with the reason when no PostgreSQL server can be started here;
scripts/install-deps.sh installs it.

usage: store_test.py sqlite|postgresql LUA TEST_STORE_LUA EXAMPLE_RECEIPT WORK_DIR
"""

from __future__ import annotations

import copy
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "store"))
sys.path.insert(0, str(HERE.parent / "report"))
from pg_cluster import Cluster  # noqa: E402
from report_set import write_history, write_set  # noqa: E402

SKIP = 77


def prepare(example: pathlib.Path, work: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    shutil.rmtree(work, ignore_errors=True)
    receipts, extra = work / "receipts", work / "extra"
    write_history(example, receipts / "history")
    write_set(example, receipts / "lanes", 12)
    extra.mkdir(parents=True)
    base = json.loads((receipts / "lanes" / "lane00-run0.json").read_text(encoding="utf-8"))
    new, clash = copy.deepcopy(base), copy.deepcopy(base)
    new["id"] = "a-new-run"
    clash["metrics"]["tokens_per_s"] = 1.0  # the id of a stored receipt, other content
    (extra / "a-new-run.json").write_text(json.dumps(new), encoding="utf-8")
    (extra / "clash.json").write_text(json.dumps(clash), encoding="utf-8")
    return receipts, extra


# A column changed behind the store's back: `check` must name it, `check --repair` mend it.
FORGE = "UPDATE receipts SET lane_label = 'forged' WHERE id = 'lane03-run2'"


def damage_sqlite(db: str) -> None:
    with sqlite3.connect(db) as con:
        con.execute(FORGE)
    con.close()


def run_lua(lua: str, script: str, receipts: pathlib.Path, extra: pathlib.Path, work: pathlib.Path,
            *locations: str, damaged: bool = False) -> int:
    # MCPP_LUA_ENV_NAME=value is NAME=value for the interpreter only (the
    # sanitizer runtimes it must preload: tests/lua/CMakeLists.txt)
    env = dict(os.environ)
    env.update({k[len("MCPP_LUA_ENV_"):]: v for k, v in os.environ.items() if k.startswith("MCPP_LUA_ENV_")})
    flag = ["--damaged"] if damaged else []
    proc = subprocess.run([lua, script, *flag, str(receipts), str(extra), str(work), *locations], env=env, timeout=600)
    return proc.returncode


def main() -> int:
    if len(sys.argv) != 6 or sys.argv[1] not in ("sqlite", "postgresql"):
        sys.exit(__doc__)
    mode, lua, script, example, work = sys.argv[1], sys.argv[2], sys.argv[3], pathlib.Path(sys.argv[4]), \
        pathlib.Path(sys.argv[5])
    receipts, extra = prepare(example, work)
    db = str(work / "store.db")
    if mode == "sqlite":
        rc = run_lua(lua, script, receipts, extra, work, db)
        damage_sqlite(db)
        return rc or run_lua(lua, script, receipts, extra, work, db, damaged=True)
    missing = Cluster.missing()
    if missing:
        print(f"skip - mr.store on PostgreSQL: {missing}")
        return SKIP
    with Cluster() as pg:
        url = pg.new_store_url()
        rc = run_lua(lua, script, receipts, extra, work, db, url)
        damage_sqlite(db)
        pg.psql(url.split("///")[1].split("?")[0], FORGE)
        return rc or run_lua(lua, script, receipts, extra, work, db, url, damaged=True)


if __name__ == "__main__":
    sys.exit(main())
