#!/usr/bin/env python3
"""pg_store_test.py — the store in PostgreSQL against a real server.

Each mode starts a throwaway cluster (pg_cluster.py: initdb in a temporary
directory, a Unix socket there, an unprivileged user), and stops and removes
it at the end.

  same        one set of receipts (report_set.py's lanes and the two history
              lanes, hostile strings included) added to a SQLite file and to a
              PostgreSQL database: every reading command gives the same
              answer from both (store ls with lane, key=value, where, since,
              limit; export; history with the default and a named metric;
              frontier with the default and another policy; gate with a
              history; report; claim; compare; the site's pages) once the store's name is
              taken out; then removal and tombstones, a conflicting id (the
              whole add refused, nothing kept), `check` (ok; a column changed
              behind the store's back is named, --repair mends it), a newer
              schema refused, a database with other tables refused; history
              refuses a row copied under a new id and one its columns file
              under another lane (it read the columns), as store ls does;
              check names forged tombstones (live, another receipt's body); the
              summaries' mark names the rows' digest, and frontier --store
              after a row deleted behind the library's back equals the
              frontier rebuilt from the receipts.
  concurrent  8 writers add 300 receipts each at once through `store add URL -`
              (JSON lines), 40 of them the same in every writer, while a ninth
              adds a batch whose last receipt clashes with one stored before:
              nothing is lost (count = 8 x 260 + 40 + 1), the clashing batch
              left nothing, `check` finds
              every column and lane summary equal to what the bodies give, the
              summaries' mark names the rows' digest as a scan finds it, and
              the frontier equals the SQLite store's over the same receipts.

  lane_keys   the lane columns in this build's lane key format (issue 48 item 5): a
              store written in this format is not rewritten by a read-write open
              (every row's xmin as before); a store forged as an older build left
              it (schema version 1, every row's lane columns in an old text, no
              recorded format) answers `store ls --lane`, `history` and
              `gate --history` as the SQLite store does, read-only without
              writing (xmin, no format recorded; `check` names the stale
              columns; a role without TEMP, or whose transactions are read-only as
              on a hot standby, reads the stored columns), and after one read-write open (5 at once, with an add)
              holds the fresh columns, rewritten in one transaction, this
              build's format and stale summaries; a read-only handle kept open
              on old columns (both backends) sees a run added after it opened; an
              empty store without a format gets it recorded.

Exit 77 (skip) with the reason when no PostgreSQL server can be started here;
scripts/install-deps.sh installs it.

usage: pg_store_test.py same|concurrent|lane_keys CLI EXAMPLE_RECEIPT WORK_DIR
"""

from __future__ import annotations

import copy
import html
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "report"))
from pg_cluster import Cluster  # noqa: E402
from report_html_test import SKIP, check, failures  # noqa: E402
from report_set import write_history, write_set  # noqa: E402


def run(cli: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([cli, *args], capture_output=True, text=True, input=stdin, timeout=600)


def both(cli: str, db: str, url: str, args: list[str], what: str, normalize=None) -> None:
    """Runs `args` with STORE replaced by each store; the outputs must be equal."""
    outs = []
    for store in (db, url):
        p = run(cli, *[store if a == "STORE" else a for a in args])
        text = (p.stdout + "\nexit %d" % p.returncode).replace(store, "STORE")
        outs.append(normalize(text) if normalize else text)
        if p.returncode not in (0, 1, 2):
            print(f"  {store[:40]}: {p.stderr.strip()[:300]}")
    same = outs[0] == outs[1]
    if not same:
        for i, (a, b) in enumerate(zip(outs[0].splitlines(), outs[1].splitlines())):
            if a != b:
                print(f"  first difference, line {i + 1}:\n    sqlite: {a[:200]}\n    pg:     {b[:200]}")
                break
    check(same and "exit 3" not in outs[0], f"{what}: the same answer from SQLite and PostgreSQL")


def fill(cli: str, example: str, work: pathlib.Path, url: str) -> tuple[str, pathlib.Path]:
    shutil.rmtree(work, ignore_errors=True)
    inputs = work / "receipts"
    write_history(pathlib.Path(example), inputs / "history")
    write_set(pathlib.Path(example), inputs / "lanes", 12)
    db = str(work / "store.db")
    for store in (db, url):
        p = run(cli, "store", "init", store)
        check(p.returncode == 0, f"store init {store[:30]} ({p.stderr.strip()})")
        p = run(cli, "store", "add", store, str(inputs))
        check(p.returncode == 0 and "added 84" in p.stdout, f"store add: {p.stdout.strip()} {p.stderr.strip()}")
    return db, inputs


def check_mark(pg: Cluster, database: str, when: str) -> None:
    """The lane summaries' mark names the rows as a scan of them finds them: the count and
    the sum mod 2^64 of the server's hash of each id and body (an add adds its rows' part)."""
    count, total = pg.psql(database, "SELECT count(*), coalesce(sum(hashtextextended(id || body, 0)), 0)"
                                     " FROM receipts").split("|")
    scan = f"{int(count)}/{int(total) % 2**64:016x}"
    mark = pg.psql(database, "SELECT value FROM store_meta WHERE name = 'lane_summaries'")
    check(mark.endswith(" rows/" + scan), f"{when}: the summaries' mark names the rows as they are "
                                          f"({mark[-30:]} vs {scan})")


def same(cli: str, example: str, work: pathlib.Path, pg: Cluster) -> None:
    url = pg.new_store_url()
    db, inputs = fill(cli, example, work, url)
    check_mark(pg, url.split("///")[1].split("?")[0], "after an add")
    short = json.loads(run(cli, "history", "--store", db, "--format", "json").stdout)["lanes"][0]["short_key"]
    strip_dates = lambda t: re.sub(r'"removed_at": "[^"]*"', '"removed_at": T', t)  # noqa: E731
    for args, what in (
        (["store", "ls", "STORE", "--format", "json"], "store ls"),
        (["store", "ls", "STORE", "--lane", short, "--format", "json"], "store ls --lane SHORT_KEY"),
        (["store", "ls", "STORE", "--lane", "seq_len=1024", "--format", "json"], "store ls --lane seq_len=1024"),
        (["store", "ls", "STORE", "--where", "git_commit=<b>c0,name=x", "--format", "json"], "store ls --where (none)"),
        (["store", "ls", "STORE", "--where", "git_commit=9f3c2e1a", "--format", "json"], "store ls --where commit prefix"),
        (["store", "ls", "STORE", "--since", "2026-04-10T00:00:00Z", "--until", "2026-04-20T00:00:00Z"], "--since --until"),
        (["store", "ls", "STORE", "--since", "2026-04-10", "--until", "2026-04-20"], "--since --until dates (whole days)"),
        (["store", "ls", "STORE", "--limit", "5", "--newest"], "store ls --limit 5 --newest"),
        (["store", "export", "STORE", "--format", "jsonl"], "store export"),
        (["history", "--store", "STORE", "--format", "json"], "history"),
        (["history", "--store", "STORE", "--metric", "tokens_per_s", "--format", "json"], "history --metric (bodies)"),
        (["frontier", "--store", "STORE", "--format", "json"], "frontier --store (summaries)"),
        (["frontier", "--store", "STORE", "--policy", str(HERE.parents[1] / "policy" / "strict.lua"), "--format",
          "json"], "frontier --store --policy strict.lua"),
        (["gate", "--store", "STORE", "--baseline", "name=NAM56R MoE s1024 top1", "--candidate",
          "name=NAM56R MoE s2048 top1", "--history", "STORE", "--format", "json"], "gate --history"),
        # the selectors above find no candidate; this candidate's lane has 19 earlier runs in the store
        (["gate", "--baseline", str(inputs / "history" / "history-step-000.json"), "--candidate",
          str(inputs / "history" / "history-step-023.json"), "--history", "STORE", "--format", "json"],
         "gate FILES --history (a lane with history)"),
        (["report", "--store", "STORE", "--out", str(work / "report.html")], "report --store"),
        (["store", "ls", "STORE", "--from-commit", "<b>c0mmit</b>&'005", "--to-commit", "<b>c0mmit</b>&'009"],
         "store ls --from-commit --to-commit"),
        (["claim", "--store", "STORE", "--lane", "seq_len=2048,top_k=8", "--value", "400000"], "claim --store"),
        (["compare", "--store", "STORE", "history-flat-003", "history-flat-004"], "compare --store"),
    ):
        both(cli, db, url, args, what)
    # a where value no row has, in another case than a stored name: refused naming it, by both
    slips = [run(cli, "store", "ls", store, "--where", "name=nam56r moe s2048 top2") for store in (db, url)]
    check(all(p.returncode == 3 and p.stderr.endswith(": no stored receipt has name = 'nam56r moe s2048 top2'; "
                                                       "did you mean 'NAM56R MoE s2048 top2'?\n") for p in slips),
          f"store ls --where a name in another case is refused by both, naming it ({slips[1].stderr.strip()})")
    # a metric no stored receipt states is a misspelling, named by both
    slips = [run(cli, "history", "--store", store, "--metric", "tokens_per_sec") for store in (db, url)]
    check(all(p.returncode == 3 and "no receipt states the metric 'tokens_per_sec'; did you mean 'tokens_per_s'?"
              in p.stderr for p in slips) and slips[0].stderr == slips[1].stderr,
          f"history --metric tokens_per_sec is refused by both, naming tokens_per_s ({slips[1].stderr.strip()[:120]})")
    pages = {}
    for name, store in (("sqlite", db), ("pg", url)):
        p = run(cli, "site", "--store", store, "--out", str(work / f"site-{name}"))
        check(p.returncode == 0, f"site from {name} ({p.stderr.strip()})")
        pages[name] = {str(f.relative_to(work / f"site-{name}")):
                       f.read_text(encoding="utf-8").replace(html.escape(store), "STORE").replace(store, "STORE")
                       for f in (work / f"site-{name}").rglob("*.html")}
    check(pages["sqlite"] == pages["pg"] and len(pages["pg"]) > 10,
          f"the site's {len(pages['pg'])} pages are the same from both backends")

    for store in (db, url):
        p = run(cli, "store", "rm", store, "history-flat-003", "--reason", "throttled <node>")
        check(p.returncode == 0, f"store rm ({p.stderr.strip()})")
        p = run(cli, "store", "add", store, str(inputs / "history" / "history-flat-003.json"))
        check("skipped 1 removed earlier" in p.stdout, f"a removed id is not added again ({p.stdout.strip()})")
    both(cli, db, url, ["store", "removed", "STORE"], "store removed", strip_dates)
    both(cli, db, url, ["frontier", "--store", "STORE", "--format", "json"], "frontier after a removal")
    both(cli, db, url, ["store", "check", "STORE"], "store check",
         lambda t: re.sub(r"schema version \d+", "schema version N", t))  # each backend numbers its own

    base = json.loads((inputs / "lanes" / "lane00-run0.json").read_text(encoding="utf-8"))
    new, clash = copy.deepcopy(base), copy.deepcopy(base)
    new["id"], clash["metrics"]["tokens_per_s"] = "a-new-run", 1.0
    batch = json.dumps(new) + "\n" + json.dumps(clash) + "\n"
    for store in (db, url):
        p = run(cli, "store", "add", store, "-", stdin=batch)
        check(p.returncode == 3 and "conflict: receipt 'lane00-run0'" in p.stderr, f"a conflicting id is refused ({p.stderr.strip()[:120]})")
        p = run(cli, "store", "ls", store, "--where", "id=a-new-run")
        check("a-new-run" not in p.stdout, "and the whole add keeps nothing")

    database = url.split("///")[1].split("?")[0]
    pg.psql(database, "UPDATE receipts SET lane_label = 'forged' WHERE id = 'lane03-run2'")
    p = run(cli, "store", "check", url)
    check(p.returncode == 3 and "row lane03-run2: column lane_label is 'forged'" in p.stdout,
          f"check names a column changed behind the store's back ({p.stdout.strip()[:160]})")
    p = run(cli, "store", "check", url, "--repair")
    check(p.returncode == 0 and p.stdout.rstrip().endswith("ok") or "ok\n" in p.stdout,
          f"--repair rewrites it from the body ({p.stdout.strip()[:160]})")
    check(run(cli, "store", "check", url).returncode == 0, "and check is ok again")
    pg.psql(database, "UPDATE lane_summaries SET summary = replace(summary, 'lane03-run2', 'lane03-runX')")
    p = run(cli, "store", "check", url)
    check(p.returncode == 3 and "lane summary lane-" in p.stdout, f"check names a forged lane summary ({p.stdout.strip()[:120]})")
    run(cli, "store", "check", url, "--repair")

    # Forged tombstones (issue 48 item 5): check judges them as SQLite's check does
    pg.psql(database, "INSERT INTO tombstones SELECT id, 'forged', '2026-01-01T00:00:00Z', body FROM receipts"
                      " WHERE id = 'lane00-run1'; INSERT INTO tombstones SELECT 'gone-run', 'forged',"
                      " '2026-01-01T00:00:00Z', body FROM receipts WHERE id = 'lane00-run2'")
    p = run(cli, "store", "check", url)
    check(p.returncode == 3 and "tombstone lane00-run1: the receipt is removed and live at once" in p.stdout
          and "tombstone gone-run: its body holds another receipt" in p.stdout,
          f"check names a tombstone of a live receipt and one holding another receipt ({p.stdout.strip()[-200:]})")
    pg.psql(database, "DELETE FROM tombstones WHERE reason = 'forged'")
    check(run(cli, "store", "check", url).returncode == 0, "and is ok once they are gone")

    # Forged rows (issue 48 item 5): history reads each run from its verified receipt in
    # PostgreSQL too, as store ls does and as SQLite does; before, it read the columns and
    # showed a row copied under a new id as one more run, exit 0.
    runs = lambda store: sum(len(l["runs"]) for l in json.loads(  # noqa: E731
        run(cli, "history", "--store", store, "--format", "json").stdout or '{"lanes": []}')["lanes"])
    before = runs(url)
    check(before > 0 and before == runs(db), f"history reads {before} runs from both backends")
    copy_row = ("CREATE TEMP TABLE forged AS SELECT * FROM receipts WHERE id = 'lane03-run2';"
                " UPDATE forged SET id = 'forged-copy'; INSERT INTO receipts SELECT * FROM forged;")
    pg.psql(database, copy_row)
    sqlite = subprocess.run(["sqlite3", db, copy_row], capture_output=True, text=True)
    check(sqlite.returncode == 0, f"the same row copied in SQLite ({sqlite.stderr.strip()[:120]})")
    for name, store in (("sqlite", db), ("pg", url)):
        for args in (["history", "--store", store], ["store", "ls", store]):
            p = run(cli, *args)
            check(p.returncode == 3 and "forged-copy" in p.stderr,
                  f"{name}: {args[0]} refuses a row copied under a new id (exit {p.returncode}: "
                  f"{p.stderr.strip()[:160]})")
    pg.psql(database, "DELETE FROM receipts WHERE id = 'forged-copy'")
    check(runs(url) == before, "and reads its runs again once the copy is gone")
    pg.psql(database, "UPDATE receipts SET (lane_key, lane_short) = (SELECT lane_key, lane_short FROM receipts"
                      " WHERE id = 'lane00-run0') WHERE id = 'lane03-run2'")
    p = run(cli, "history", "--store", url)
    check(p.returncode == 3 and "stored receipt 'lane03-run2' is filed under another lane than its own" in p.stderr,
          f"pg: history refuses a row its columns file under another lane ({p.stderr.strip()[:160]})")
    run(cli, "store", "check", url, "--repair")
    check(runs(url) == before, "and reads its runs again once check --repair has mended the row")

    # The lane summaries are valid for a digest of the rows (issue 48 item 5), in PostgreSQL
    # too: the mark an add leaves names the rows as a scan finds them, and a row deleted
    # behind the library's back makes frontier --store rebuild from the receipts (it kept
    # the summaries, marked valid by the version alone, and showed the deleted run).
    check_mark(pg, database, "after check --repair")
    frontier = lambda *extra: run(cli, "frontier", "--store", url, *extra, "--format", "json")  # noqa: E731
    from_summaries = frontier().stdout
    pg.psql(database, "DELETE FROM receipts WHERE id = 'lane03-run2'")
    cached, rebuilt = frontier(), frontier("--policy", str(HERE.parents[1] / "policy" / "default.lua"))
    check(cached.returncode == 0 and cached.stdout == rebuilt.stdout and cached.stdout != from_summaries,
          "frontier --store after a row deleted behind the library equals the frontier rebuilt from the receipts"
          f" (exit {cached.returncode}, {'same' if cached.stdout == rebuilt.stdout else 'differs'})")

    pg.psql(database, "INSERT INTO store_schema VALUES (99, 'later')")
    p = run(cli, "store", "ls", url)
    check(p.returncode == 3 and "newer" in p.stderr, f"a newer schema is refused ({p.stderr.strip()[:120]})")
    other = pg.new_database()
    pg.psql(other, "CREATE TABLE orders(id int)")
    p = run(cli, "store", "init", pg.url(other))
    check(p.returncode == 3 and "not a receipt store" in p.stderr, f"a database with other tables is refused ({p.stderr.strip()[:120]})")
    p = run(cli, "store", "ls", pg.url(pg.new_database()))
    check(p.returncode == 3 and "no receipt store" in p.stderr, f"an empty database without init is named ({p.stderr.strip()[:120]})")
    p = run(cli, "store", "ls", "postgresql:///nosuchdb?host=/nonexistent-dir&user=mcpp&password=secret")
    check(p.returncode == 3 and "cannot connect" in p.stderr and "secret" not in p.stderr,
          f"an unreachable server is an error without the password ({p.stderr.strip()[:140]})")


def receipt_lines(example: str, writer: int, count: int, shared: int) -> list[str]:
    base = json.loads(pathlib.Path(example).read_text(encoding="utf-8"))
    base["workload"].pop("useful_tokens_per_step", None)
    lines = []
    for i in range(count):
        r = copy.deepcopy(base)
        own = i >= shared
        r["id"] = f"w{writer}-{i:05d}" if own else f"shared-{i:05d}"
        r["created_at"] = f"2026-05-{1 + i % 28:02d}T{(i // 28) % 24:02d}:{i % 60:02d}:{writer if own else 0:02d}Z"
        r["source"]["git_commit"] = f"{i // 10:040x}"
        r["workload"]["seq_len"] = 512 * (1 + i % 8)
        r["metrics"]["tokens_per_s"] = 400000.0 + (i * 37 + writer * 11 if own else i) % 997
        lines.append(json.dumps(r))
    return lines


def concurrent(cli: str, example: str, work: pathlib.Path, pg: Cluster) -> None:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    url, writers, count, shared = pg.new_store_url(), 8, 300, 40
    check(run(cli, "store", "init", url).returncode == 0, "store init")
    batches = [receipt_lines(example, w, count, shared) for w in range(writers)]
    seed = receipt_lines(example, 8, 1, 0)[0]  # stored before the writers start: the ninth batch clashes with it
    check(run(cli, "store", "add", url, "-", stdin=seed + "\n").returncode == 0, "a first receipt is stored")
    bad = receipt_lines(example, 9, 20, 0)
    clash = json.loads(seed)
    clash["metrics"]["tokens_per_s"] = 1.0
    bad.append(json.dumps(clash))
    procs = [subprocess.Popen([cli, "store", "add", url, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(writers + 1)]
    for p, lines in zip(procs, batches + [bad]):
        p.stdin.write("\n".join(lines) + "\n")
        p.stdin.close()
    results = [(p.wait(timeout=600), p.stdout.read(), p.stderr.read()) for p in procs]
    check(all(rc == 0 for rc, _, _ in results[:writers]), f"the {writers} writers all succeed "
          f"({[r[2].strip()[:80] for r in results[:writers] if r[0]]})")
    added = sum(int(re.search(r"added (\d+)", out).group(1)) for _, out, _ in results[:writers] if "added" in out)
    check(added == writers * (count - shared) + shared, f"each receipt was added once ({added})")
    check(results[writers][0] == 3 and "conflict" in results[writers][2],
          f"the batch with a conflicting id is refused ({results[writers][2].strip()[:160]})")
    p = run(cli, "store", "ls", url, "--where", "id=w9-00000")
    check("w9-00000" not in p.stdout, "and left nothing")
    # the writers' adds each added their rows' digest to the mark, under the write lock:
    # it names every row (else the summaries below would be rebuilt, not the kept ones)
    check_mark(pg, url.split("///")[1].split("?")[0], "after 8 concurrent writers")
    p = run(cli, "store", "check", url)
    want = writers * (count - shared) + shared + 1
    check(p.returncode == 0 and f"{want} receipts" in p.stdout,
          f"check: {want} receipts, every column and lane summary as the bodies say ({p.stdout.strip()[-80:]})")
    db = str(work / "same.db")
    run(cli, "store", "init", db)
    run(cli, "store", "add", db, "-", stdin="\n".join(sum(batches, [seed])) + "\n")
    outs = [run(cli, "frontier", "--store", s, "--format", "json").stdout.replace(s, "STORE") for s in (db, url)]
    check(outs[0] == outs[1] and outs[0], "the frontier from the concurrently kept summaries equals SQLite's")


def lane_keys(cli: str, example: str, work: pathlib.Path, pg: Cluster) -> None:
    url = pg.new_store_url()
    database = url.split("///")[1].split("?")[0]
    db, inputs = fill(cli, example, work, url)
    sqlite = lambda sql: subprocess.run(["sqlite3", db, sql], capture_output=True, text=True).stdout.strip()  # noqa: E731
    fmt = sqlite("SELECT value FROM store_meta WHERE name = 'lane_key_format'")
    recorded = lambda: pg.psql(database, "SELECT value FROM store_meta WHERE name = 'lane_key_format'")  # noqa: E731
    check(fmt.startswith("lanes/") and recorded() == fmt, f"a new store records this build's format ({recorded()} vs SQLite {fmt})")
    columns = "SELECT string_agg(concat_ws('|', id, lane_key, lane_short, lane_label), E'\\n' ORDER BY id) FROM receipts"
    fresh = pg.psql(database, columns)
    versions = lambda: pg.psql(database, "SELECT string_agg(id || ':' || xmin::text, ',' ORDER BY id) FROM receipts"  # noqa: E731
                                         " UNION ALL SELECT xmin::text FROM store_meta WHERE name = 'lane_key_format'")

    # In this build's format: a read-write open and the readers rewrite nothing.
    before = versions()
    for args in (["store", "init", url], ["store", "ls", url], ["history", "--store", url]):
        p = run(cli, *args)
        check(p.returncode == 0, f"{' '.join(args[:2])} on a current store ({p.stderr.strip()[:120]})")
    check(versions() == before, "a store in this build's format is not rewritten (every row's xmin as before)")

    # As an older build left it: schema version 1, the lane columns in another text, no format.
    old_text = ("UPDATE receipts SET lane_key = 'old-format ' || lane_key, lane_label = 'old ' || lane_label,"
                " lane_short = 'lane-' || substr(md5(lane_key), 1, 8);"
                " DELETE FROM store_meta WHERE name = 'lane_key_format'; DELETE FROM store_schema WHERE version > 1")
    pg.psql(database, old_text)
    forged = versions()
    short = json.loads(run(cli, "history", "--store", db, "--format", "json").stdout)["lanes"][0]["short_key"]
    # a candidate of the history-step lane, whose 19 earlier runs the gate reads from --history
    history_gate = ["gate", "--baseline", str(inputs / "history" / "history-step-000.json"), "--candidate",
                    str(inputs / "history" / "history-step-023.json"), "--history", "STORE", "--format", "json"]
    p = run(cli, *[db if a == "STORE" else a for a in history_gate])
    check("19 earlier runs of the lane" in p.stdout, "the gate's candidate has a history in the store")
    for args, what in (
        (history_gate, "gate --history (old columns)"),
        (["store", "ls", "STORE", "--lane", short, "--format", "json"], "store ls --lane SHORT_KEY (old columns)"),
        (["store", "ls", "STORE", "--lane", "seq_len=1024", "--format", "json"], "store ls --lane seq_len=1024 (old columns)"),
        (["history", "--store", "STORE", "--format", "json"], "history (old columns)"),
        (["history", "--store", "STORE", "--lane", short, "--format", "json"], "history --lane (old columns)"),
        (["gate", "--store", "STORE", "--baseline", "name=NAM56R MoE s1024 top1", "--candidate",
          "name=NAM56R MoE s2048 top1", "--history", "STORE", "--format", "json"], "gate --history (old columns)"),
    ):
        both(cli, db, url, args, what)
    check(versions() == forged and recorded() == "", "read-only opens wrote nothing (every row's xmin as forged, no format)")
    p = run(cli, "store", "check", url)
    check(p.returncode == 3 and "column lane_key is 'old-format " in p.stdout,
          f"read-only check names the stored (stale) columns, not the derived ones ({p.stdout.strip()[:120]})")

    # A role that may not make temporary tables (REVOKE TEMPORARY) reads the stored columns
    # as they are, without an error (docs/store.md says what it then misses).
    pg.psql(database, "CREATE ROLE reader LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;"
                      f" REVOKE TEMPORARY ON DATABASE {database} FROM PUBLIC")
    p = run(cli, "store", "ls", url.replace("user=mcpp", "user=reader"), "--format", "json")
    check(p.returncode == 0 and len(p.stdout.splitlines()) == 84 and versions() == forged,
          f"without TEMP a read-only open reads the stored columns, writes nothing ({p.stderr.strip()[:160]})")
    # So does a server where every transaction is read-only, as on a hot standby (SQLSTATE 25006).
    pg.psql(database, "CREATE ROLE standby LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO standby;"
                      f" GRANT TEMPORARY ON DATABASE {database} TO standby;"
                      " ALTER ROLE standby SET default_transaction_read_only = on")
    p = run(cli, "store", "ls", url.replace("user=mcpp", "user=standby"), "--format", "json")
    check(p.returncode == 0 and len(p.stdout.splitlines()) == 84 and versions() == forged,
          f"with read-only transactions a read-only open reads the stored columns ({p.stderr.strip()[:160]})")

    # One read-write open re-derives them, under the write lock: 5 at once and an add.
    extra = json.loads((inputs / "lanes" / "lane00-run0.json").read_text(encoding="utf-8"))
    extra["id"] = "lane00-extra"
    procs = [subprocess.Popen([cli, "store", "init", url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(5)]
    procs.append(subprocess.Popen([cli, "store", "add", url, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True))
    procs[-1].stdin.write(json.dumps(extra) + "\n")
    procs[-1].stdin.close()
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    check(all(rc == 0 for rc, _ in results), f"5 read-write opens and an add at once succeed ({[e[:80] for rc, e in results if rc]})")
    check(recorded() == fmt, f"store_meta holds this build's format afterwards ({recorded()})")
    check(pg.psql(database, "SELECT max(version) FROM store_schema") == "2", "the store was migrated to version 2")
    rewritten = pg.psql(database, "SELECT count(*), count(DISTINCT xmin::text) FROM receipts WHERE id <> 'lane00-extra'")
    check(rewritten.endswith("|1"), f"every old row was rewritten in one transaction (rows|transactions: {rewritten})")
    pg.psql(database, "DELETE FROM receipts WHERE id = 'lane00-extra'")
    check(pg.psql(database, columns) == fresh, "the columns are those of a fresh store")
    check(pg.psql(database, "SELECT count(*) FROM store_meta WHERE name = 'lane_summaries'") == "0",
          "a changed key marked the lane summaries stale")
    for args, what in (
        (["store", "ls", "STORE", "--lane", short, "--format", "json"], "store ls --lane SHORT_KEY (re-derived)"),
        (["history", "--store", "STORE", "--format", "json"], "history (re-derived)"),
        (history_gate, "gate --history (re-derived)"),
        (["gate", "--store", "STORE", "--baseline", "name=NAM56R MoE s1024 top1", "--candidate",
          "name=NAM56R MoE s2048 top1", "--history", "STORE", "--format", "json"], "gate --history (re-derived)"),
        (["frontier", "--store", "STORE", "--format", "json"], "frontier --store (summaries rebuilt)"),
    ):
        both(cli, db, url, args, what)
    p = run(cli, "store", "check", url)
    check(p.returncode == 0, f"check: every column as the bodies say ({p.stdout.strip()[-80:]})")

    # A read-only handle kept open (tests/store/store_read_only_handle.c) while a writer of
    # this build adds a run to a forged store, on both backends: the handle sees it, in its
    # lane too (its view joined the derived columns with an inner join: the new row, which
    # has none, stayed hidden from it for as long as it was open).
    helper = os.environ.get("MCPP_READ_ONLY_HANDLE")
    if not helper:
        print("SKIP (read-only handle): MCPP_READ_ONLY_HANDLE is not set (ctest sets it)")
    else:
        lane00 = json.loads(run(cli, "store", "ls", db, "--where", "id=lane00-run0", "--format", "json").stdout)
        late = json.loads((inputs / "lanes" / "lane00-run0.json").read_text(encoding="utf-8"))
        late["id"] = "lane00-late"
        (work / "late.json").write_text(json.dumps(late), encoding="utf-8")
        handle_db, handle_url = str(work / "handle.db"), pg.new_store_url()
        subprocess.run(["sqlite3", db, f".backup '{handle_db}'"], check=True)
        run(cli, "store", "init", handle_url)
        run(cli, "store", "add", handle_url, str(inputs))
        subprocess.run(["sqlite3", handle_db, "UPDATE receipts SET lane_key = 'old-format ' || lane_key,"
                        " lane_label = 'old ' || lane_label, lane_short = 'lane-0ld' || substr(lane_short, 9);"
                        " DELETE FROM store_meta WHERE name = 'lane_key_format'"], check=True)
        pg.psql(handle_url.split("///")[1].split("?")[0], old_text)
        for name, store in (("sqlite", handle_db), ("pg", handle_url)):
            p = run(helper, store, lane00["short_key"], cli, "store", "add", store, str(work / "late.json"))
            seen = [int(v) for v in p.stdout.splitlines()[-1].split()] if p.returncode == 0 else []
            check(seen == [84, 3, 85, 4], f"{name}: a read-only handle on old columns sees a run added after it "
                                          f"opened (receipts, lane runs before and after: {seen} {p.stderr.strip()[:160]})")

    # An empty store an older build made gets the format recorded by the first read-write open.
    empty = pg.new_database()
    run(cli, "store", "init", pg.url(empty))
    pg.psql(empty, "DELETE FROM store_meta WHERE name = 'lane_key_format'; DELETE FROM store_schema WHERE version > 1")
    run(cli, "store", "ls", pg.url(empty))
    check(pg.psql(empty, "SELECT count(*) FROM store_meta WHERE name = 'lane_key_format'") == "0",
          "read-only: an empty store is left as it is")
    p = run(cli, "store", "init", pg.url(empty))
    check(p.returncode == 0 and pg.psql(empty, "SELECT value FROM store_meta WHERE name = 'lane_key_format'") == fmt,
          "read-write: an empty store records this build's format")


def main() -> int:
    modes = {"same": same, "concurrent": concurrent, "lane_keys": lane_keys}
    if len(sys.argv) != 5 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    mode, cli, example, work = sys.argv[1], sys.argv[2], sys.argv[3], pathlib.Path(sys.argv[4])
    why = Cluster.missing()
    if why:
        print(f"SKIP: {why}")
        return SKIP
    with Cluster() as pg:
        modes[mode](cli, example, work, pg)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
