#!/bin/sh
# cli_test.sh — `mcpp-receipts store`, `history` and `--store` inputs end to end.
# usage: cli_test.sh MCPP_RECEIPTS EXAMPLES_DIR
set -u
M=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the CPU-side examples (the GPU receipts have no YAML twins and other lanes)
EX=$tmp/examples
cp -r "$2" "$EX" && rm -rf "$EX/gpu"
fails=0
check() { # check NAME COMMAND-STATUS-EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (expected $2, got $3)"; fails=$((fails + 1)); fi
}
contains() { # contains NAME FILE TEXT
    if grep -q -- "$3" "$2"; then echo "ok - $1"; else echo "not ok - $1: '$3' not in:"; cat "$2"; fails=$((fails + 1)); fi
}
DB=$tmp/s.db
# one receipt per JSON file (its YAML twin has the same id and content)
N=$(find "$EX" -name "*.json" | wc -l | tr -d " ")

"$M" store init "$DB" >"$tmp/out" 2>&1; check "init exits 0" 0 $?
contains "init names the schema version" "$tmp/out" "schema version 8"
"$M" store add "$DB" "$EX" >"$tmp/out" 2>&1; check "add a directory exits 0" 0 $?
contains "add counts the new receipts (json and yaml of one receipt are one)" "$tmp/out" "added $N, unchanged $N"
"$M" store add "$DB" "$EX" >"$tmp/out" 2>&1; check "adding again exits 0" 0 $?
contains "adding again changes nothing" "$tmp/out" "added 0, unchanged $((2 * N))"

# a conflicting receipt: same id, other number; the whole add is refused
sed -e 's/"tokens_per_s": 559304.3/"tokens_per_s": 1.5/' -e '/"useful_tokens_per_step"/d' "$EX/nam52_dense.json" >"$tmp/conflict.json"
"$M" store add "$DB" "$tmp/conflict.json" >"$tmp/out" 2>&1; check "a conflict exits 3" 3 $?
contains "a conflict names the id" "$tmp/out" "conflict: receipt 'nam52-dense-2026-03-12'"

# JSON lines on stdin, and a bad line refuses the add unless --keep-going
"$M" store export "$DB" --format jsonl >"$tmp/all.jsonl"; check "export jsonl exits 0" 0 $?
check "export writes one line per receipt" "$N" "$(wc -l <"$tmp/all.jsonl" | tr -d ' ')"
"$M" store add "$tmp/b.db" - <"$tmp/all.jsonl" >"$tmp/out" 2>&1; check "add from stdin exits 0" 0 $?
contains "add from stdin adds them all" "$tmp/out" "added $N,"
printf '{"schema": "mcpp.receipt/1", "id": "broken"\n' >"$tmp/bad.jsonl"
"$M" store add "$tmp/c.db" - <"$tmp/bad.jsonl" >"$tmp/out" 2>&1; check "a bad stdin line exits 3" 3 $?
contains "a bad line is located" "$tmp/out" "<stdin>:1"
# a line over the 16 MiB input limit is refused at the limit, not read whole first (issue 28)
{ head -n 1 "$tmp/all.jsonl"; head -c 20000000 /dev/zero | tr '\0' ' '; echo; } >"$tmp/long.jsonl"
"$M" store add "$tmp/d.db" - <"$tmp/long.jsonl" >"$tmp/out" 2>&1; check "an over-long stdin line exits 3" 3 $?
contains "the message names the line and the limit" "$tmp/out" "<stdin>:2: the line is longer than the 16 MiB input limit"
"$M" store export "$DB" --format yaml >"$tmp/all.yaml"; check "export yaml exits 0" 0 $?
contains "export yaml writes documents" "$tmp/all.yaml" "^---"

"$M" store ls "$DB" --lane family=NAM56R >"$tmp/out" 2>&1; check "ls by lane selector exits 0" 0 $?
contains "ls lists the NAM56R runs" "$tmp/out" "8 receipts"
"$M" store query "$DB" --where git_commit=4e81b7c0 --format json >"$tmp/out" 2>&1; check "query by commit prefix exits 0" 0 $?
check "query by commit prefix finds the one NAM52 run" 1 "$(wc -l <"$tmp/out" | tr -d ' ')"
"$M" store ls "$DB" --from-commit 4e81b7c0 --to-commit 4e81b7c0 >"$tmp/out" 2>&1; check "commit range exits 0" 0 $?
contains "commit range selects that commit's run" "$tmp/out" "1 receipt "
"$M" store ls "$DB" --since 2026-03-17T00:00:00Z --until 2026-03-18T23:59:59Z >"$tmp/out" 2>&1
contains "a time range selects three runs" "$tmp/out" "3 receipts"
"$M" store ls "$DB" --since 2026-03-17 --until 2026-03-18 >"$tmp/out" 2>&1
contains "dates select the same runs: --until keeps its whole day" "$tmp/out" "3 receipts"
"$M" store ls "$DB" --since yesterday >"$tmp/out" 2>&1; check "a since that is no time exits 3" 3 $?
contains "it names the bound and what a time looks like" "$tmp/out" "since: 'yesterday' is not a time"

"$M" store rm "$DB" nam56r-padded-synthetic-2026-03-19 >"$tmp/out" 2>&1; check "rm without a reason exits 3" 3 $?
"$M" store rm "$DB" nam56r-padded-synthetic-2026-03-19 --reason "synthetic run" >"$tmp/out" 2>&1; check "rm exits 0" 0 $?
# issue 48 item 6: the id and reason as given reach the terminal escaped, never as controls
ESC=$(printf '\033')
no_raw_controls() { # no_raw_controls NAME FILE
    if grep -q "$ESC" "$2" || grep -q "$(printf '\007')" "$2"; then
        echo "not ok - $1: a raw control byte reached the terminal"; od -c "$2" | head -5; fails=$((fails + 1))
    else echo "ok - $1"; fi
}
CDB=$tmp/controls.db
"$M" store add "$CDB" "$EX/nam52_dense.json" >/dev/null 2>&1
"$M" store rm "$CDB" "$(grep -o '"id": *"[^"]*"' "$EX/nam52_dense.json" | head -1 | sed 's/.*"\([^"]*\)"$/\1/')" \
    --reason "$(printf 'bad node \033[2J\033]0;pwned\007')" >"$tmp/out" 2>&1
check "rm with controls in the reason exits 0" 0 $?
no_raw_controls "rm's confirmation shows the reason's controls escaped" "$tmp/out"
contains "rm's confirmation still names the reason" "$tmp/out" "bad node"
"$M" compare --store "$CDB" "$(printf 'x\033[31mred')" "$(printf 'y\033]0;t\007')" >"$tmp/out" 2>&1
check "compare --store of an unknown id exits 3" 3 $?
no_raw_controls "compare --store's unknown-id error shows the id escaped" "$tmp/out"
contains "compare --store's unknown-id error names the id" "$tmp/out" "no stored receipt has id 'x"
"$M" store removed "$DB" >"$tmp/out" 2>&1
contains "the tombstone keeps the reason" "$tmp/out" '"reason": "synthetic run"'
"$M" store add "$DB" "$EX" >"$tmp/out" 2>&1
contains "a removed id is not added back" "$tmp/out" "skipped 2 removed earlier"
"$M" store check "$DB" >"$tmp/out" 2>&1; check "check exits 0 on a healthy store" 0 $?
contains "check says ok" "$tmp/out" "^ok"

# the body is the truth: a damaged image and a tampered column are named, warned about, repaired
if command -v sqlite3 >/dev/null 2>&1; then
  cp "$DB" "$tmp/tamper.db"
  sqlite3 "$tmp/tamper.db" "UPDATE receipts SET image = X'00' WHERE rowid = (SELECT min(rowid) FROM receipts);
    UPDATE receipts SET lane_label = 'forged' WHERE rowid = (SELECT max(rowid) FROM receipts)"
  "$M" store ls "$tmp/tamper.db" >"$tmp/out" 2>"$tmp/err"; check "ls of a store with a damaged image exits 0" 0 $?
  contains "ls warns that an image was read from its body" "$tmp/err" "1 stored image failed validation"
  "$M" store check "$tmp/tamper.db" >"$tmp/out" 2>&1; check "check of a tampered store exits 3" 3 $?
  contains "check names the refused image" "$tmp/out" "^image .*: refused (truncated); loads from its body"
  contains "check names the tampered column" "$tmp/out" "^row .*: column lane_label is 'forged', its body gives"
  "$M" store check "$tmp/tamper.db" --repair >"$tmp/out" 2>&1; check "check --repair exits 0" 0 $?
  contains "the repair rewrote both rows" "$tmp/out" "repaired: 2 rows rewritten from their bodies"
  "$M" store check "$tmp/tamper.db" >"$tmp/out" 2>&1; check "check after the repair exits 0" 0 $?
  "$M" store ls "$tmp/tamper.db" >"$tmp/out" 2>"$tmp/err"
  check "ls after the repair warns of nothing" 0 "$(wc -c <"$tmp/err" | tr -d ' ')"
  # damaged stores exit 3 (invalid input), never 4 (internal), and say what is damaged
  cp "$DB" "$tmp/version.db"
  sqlite3 "$tmp/version.db" "UPDATE store_schema SET version = 2 WHERE version = (SELECT max(version) FROM store_schema)"
  "$M" store ls "$tmp/version.db" >"$tmp/out" 2>&1; check "a tampered schema version exits 3" 3 $?
  contains "the message names the schema table" "$tmp/out" "schema table is damaged"
  cp "$DB" "$tmp/column.db"
  sqlite3 "$tmp/column.db" "ALTER TABLE receipts DROP COLUMN image; DROP TABLE lane_summaries"
  "$M" store ls "$tmp/column.db" >"$tmp/out" 2>&1; check "a dropped column exits 3" 3 $?
  contains "the message says the tables do not match" "$tmp/out" "no such column: image (the file's tables"
  "$M" frontier --store "$tmp/column.db" >"$tmp/out" 2>&1; check "a dropped table exits 3" 3 $?
  # an add stores no image; the first read (here a gate) makes them and answers as every later read does
  GDB=$tmp/gate_images.db
  "$M" store add "$GDB" "$EX" >/dev/null 2>&1
  check "an add stores no image" 0 "$(sqlite3 "$GDB" "SELECT count(*) FROM receipts WHERE image IS NOT NULL")"
  "$M" gate --store "$GDB" --baseline id=nam56r-padded-2026-03-14-run1 --candidate id=nam56r-padded-2026-03-15-run3 >"$tmp/gate1" 2>&1
  check "gate --store on a store without images exits 0" 0 $?
  made=$(sqlite3 "$GDB" "SELECT count(*) FROM receipts WHERE image IS NOT NULL")
  check "the gate's read made the images of the rows it read" 1 "$([ "$made" -gt 0 ] && echo 1 || echo 0)"
  "$M" store ls "$GDB" >/dev/null 2>&1
  check "ls, reading every row, made every image" 0 "$(sqlite3 "$GDB" "SELECT count(*) FROM receipts WHERE image IS NULL")"
  "$M" gate --store "$GDB" --baseline id=nam56r-padded-2026-03-14-run1 --candidate id=nam56r-padded-2026-03-15-run3 >"$tmp/gate2" 2>&1
  if cmp -s "$tmp/gate1" "$tmp/gate2"; then echo "ok - the gate from images says what the gate from bodies said"
  else echo "not ok - the gate from images differs from the gate from bodies"; diff "$tmp/gate1" "$tmp/gate2" | head; fails=$((fails + 1)); fi
  "$M" store check "$GDB" >"$tmp/out" 2>&1; check "check of the store with the images made exits 0" 0 $?
else
  echo "skip: sqlite3 (the command-line shell) is not installed; tampered-store CLI cases not run"
fi

# analysis commands read the store
"$M" frontier --store "$DB" --format json >"$tmp/out" 2>&1; check "frontier --store exits 0" 0 $?
contains "frontier --store sees the stored receipts (all but the removed one)" "$tmp/out" "\"receipts\": $((N - 1))"
"$M" claim --store "$DB" --lane family=NAM52 --value 559304.3 >"$tmp/out" 2>&1
contains "claim --store checks against stored receipts" "$tmp/out" "selector  family=NAM52"
"$M" gate --store "$DB" --baseline id=nam56r-padded-2026-03-14-run1 --candidate id=nam56r-padded-2026-03-15-run3 >"$tmp/out" 2>&1
check "gate --store exits 0" 0 $?
contains "gate --store compares the selected receipts" "$tmp/out" "gate inconclusive"
"$M" compare --store "$DB" nam56r-padded-2026-03-14-run1 nam56r-padded-2026-03-15-run3 >"$tmp/out" 2>&1
check "compare --store exits 0" 0 $?
"$M" compare --store "$DB" no-such-id nam56r-padded-2026-03-15-run3 >"$tmp/out" 2>&1; check "compare --store with an unknown id exits 3" 3 $?

# history, in the three formats
"$M" history --store "$DB" --lane family=NAM56R >"$tmp/out" 2>&1; check "history exits 0" 0 $?
contains "history lists runs with commits" "$tmp/out" "9f3c2e1a7b4d"
contains "history says there is no change point" "$tmp/out" "no change point beyond noise"
contains "history names the primary metric it resolved" "$tmp/out" "runs of tokens_per_s (primary)"
"$M" history --store "$DB" --format json >"$tmp/out" 2>&1; check "history json exits 0" 0 $?
contains "history json has its schema" "$tmp/out" '"schema": "mcpp.history/1"'
contains "history json names each lane's primary metric" "$tmp/out" '"metric": "tokens_per_s"'
"$M" history --store "$DB" --format markdown >"$tmp/out" 2>&1; check "history markdown exits 0" 0 $?
contains "history markdown has a table" "$tmp/out" "| created_at | git_commit |"
"$M" history --lane x >"$tmp/out" 2>&1; check "history without --store exits 3" 3 $?
# report --store: the frontier page with a history section
"$M" report --store "$DB" --out "$tmp/report.html" >"$tmp/out" 2>&1; check "report --store exits 0" 0 $?
contains "report --store has a history section" "$tmp/report.html" '<section id="history">'
contains "report --store plots the runs" "$tmp/report.html" '<circle class="run"'
"$M" report --store "$DB" --lane no-such-lane --out "$tmp/report2.html" >"$tmp/out" 2>&1
check "report --store with an unknown --lane exits 3" 3 $?

# damaged and missing stores
head -c 3000 "$DB" >"$tmp/trunc.db"
"$M" store check "$tmp/trunc.db" >"$tmp/out" 2>&1; rc=$?
check "a truncated store is reported with exit 3" 3 $rc
contains "the report names the file" "$tmp/out" "trunc.db"
"$M" store ls "$tmp/missing.db" >"$tmp/out" 2>&1; check "a missing store exits 3" 3 $?
contains "a missing store is named" "$tmp/out" "missing.db"

[ $fails -eq 0 ] && echo "all store CLI checks passed" || echo "$fails store CLI checks failed"
[ $fails -eq 0 ]
