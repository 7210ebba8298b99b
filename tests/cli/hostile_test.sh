#!/usr/bin/env bash
# hostile_test.sh — every hostile input must be refused by `mcpp-receipts
# validate` with exit code 3 (not 0, not 4, not a signal, not a hang), with a
# categorised message ("[KIND]") that carries the location.
#
#   hostile/MANIFEST   one line per static input: FILE KIND FRAGMENT, where
#                      FRAGMENT is text the message must contain (usually
#                      FILE:LINE or the field path); '-' for none.
#   generated here     nesting 10^5 deep (JSON and YAML), a 64 MiB file (also
#                      through stdin), a 1 MiB string, an array past the item
#                      limit, and the example receipt cut at a sample of byte
#                      offsets through stdin (every offset is covered in one
#                      process by cli_truncation_driver).
#
# The controls/ receipts the corpus was mutated from must validate (exit 0),
# so a refusal below is caused by the mutation and not by the base.
#
# usage: hostile_test.sh CLI HOSTILE_DIR WORK_DIR EXAMPLE_JSON
set -u
cli=$1 dir=$2 work=$3 example=$4
rm -rf "$work" && mkdir -p "$work"
pass=0 fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
bad() { echo "not ok - $*"; fail=$((fail + 1)); }
now_ms() { date +%s%3N; }

# expect_refusal LABEL KIND FRAGMENT CLI-ARGS... [< input via $stdin_file]
stdin_file=""
expect_refusal() {
  local label=$1 kind=$2 fragment=$3; shift 3
  local out rc t0 t1
  t0=$(now_ms)
  if [ -n "$stdin_file" ]; then
    out=$(timeout 5 "$cli" validate "$@" <"$stdin_file" 2>&1); rc=$?
  else
    out=$(timeout 5 "$cli" validate "$@" 2>&1); rc=$?
  fi
  t1=$(now_ms)
  local why=""
  if [ "$rc" -eq 124 ]; then why="timed out after 5 s"
  elif [ "$rc" -gt 128 ]; then why="killed by signal $((rc - 128))"
  elif [ "$rc" -ne 3 ]; then why="exit $rc, expected 3"
  elif [ "$kind" != "-" ] && ! grep -qF "[$kind]" <<<"$out"; then why="no [$kind] in the message"
  elif [ "$fragment" != "-" ] && ! grep -qF -- "$fragment" <<<"$out"; then why="message lacks '$fragment'"
  elif ! grep -qE '^[^ ]+:([0-9]+:)?([0-9]+:)? .*\[[a-z_]+\]$' <<<"$out"; then why="no 'FILE:[LINE:COL:] ... [kind]' line"
  fi
  if [ -z "$why" ]; then
    ok "$label: exit 3 in $((t1 - t0)) ms: $(head -n1 <<<"$out" | cut -c1-150)"
  else
    bad "$label: $why"; head -c 2000 <<<"$out" | sed 's/^/    /'
  fi
}

# ---- controls -------------------------------------------------------------------
for f in "$dir/../controls/"*; do
  if out=$(timeout 5 "$cli" validate "$f" 2>&1); then ok "control $(basename "$f") validates"
  else bad "control $(basename "$f") does not validate (exit $?)"; sed 's/^/    /' <<<"$out"; fi
done

# ---- the static corpus, by manifest ---------------------------------------------------
declare -A listed=()
while read -r file kind fragment; do
  case "$file" in ''|'#'*) continue ;; esac
  listed[$file]=1
  if [ ! -f "$dir/$file" ]; then bad "$file is in MANIFEST but missing"; continue; fi
  frag=${fragment//'{}'/$dir/$file}
  expect_refusal "$file" "$kind" "$frag" "$dir/$file"
  # the same bytes through stdin: same verdict, located in <stdin>
  stdin_file="$dir/$file" expect_refusal "$file via stdin" "$kind" "<stdin>" -
done <"$dir/MANIFEST"
for f in "$dir"/*; do
  b=$(basename "$f")
  [ "$b" = MANIFEST ] && continue
  [ -n "${listed[$b]:-}" ] || bad "$b is in hostile/ but not in MANIFEST"
done

# ---- generated inputs ------------------------------------------------------------------
python3 - "$work" <<'PY'
import sys, os
w = sys.argv[1]
n = 100000
open(os.path.join(w, "deep_100k.json"), "w").write('{"schema": "mcpp.receipt/1", "extra": ' + "[" * n + "]" * n + "}\n")
open(os.path.join(w, "deep_100k_objects.json"), "w").write('{"schema": "mcpp.receipt/1", "extra": ' + '{"a":' * n + "1" + "}" * n + "}\n")
open(os.path.join(w, "deep_100k.yaml"), "w").write("schema: mcpp.receipt/1\nextra: " + "[" * n + "]" * n + "\n")
open(os.path.join(w, "deep_100k_block.yaml"), "w").write("schema: mcpp.receipt/1\nextra:\n" + "".join(" " * i + "- \n" for i in range(0, 2000)))
with open(os.path.join(w, "big_64mib.json"), "w") as f:
    f.write('{"schema": "mcpp.receipt/1", "extra": {"pad": "')
    chunk = "a" * (1 << 20)
    for _ in range(64): f.write(chunk)
    f.write('"}}\n')
open(os.path.join(w, "long_string_1mib.json"), "w").write('{"schema": "mcpp.receipt/1", "id": "' + "x" * (1 << 20) + '"}\n')
open(os.path.join(w, "array_past_item_limit.json"), "w").write(
    '{"schema": "mcpp.receipt/1", "metrics": {"step_time_s": {"samples": [' + ",".join(["1"] * 1000001) + "]}}}\n")
PY
expect_refusal "JSON arrays nested 10^5 deep" limit "deep_100k.json:1:" "$work/deep_100k.json"
expect_refusal "JSON objects nested 10^5 deep" limit "deep_100k_objects.json:1:" "$work/deep_100k_objects.json"
expect_refusal "YAML flow sequences nested 10^5 deep" limit "deep_100k.yaml:2:" "$work/deep_100k.yaml"
expect_refusal "YAML block sequences nested 2000 deep" - "deep_100k_block.yaml:" "$work/deep_100k_block.yaml"
expect_refusal "64 MiB file" limit "big_64mib.json" "$work/big_64mib.json"
stdin_file="$work/big_64mib.json" expect_refusal "64 MiB through stdin" limit "<stdin>" -
[ -r /dev/zero ] && expect_refusal "/dev/zero, an endless stream" limit "/dev/zero: input of" /dev/zero
expect_refusal "1 MiB string" limit "long_string_1mib.json:1:" "$work/long_string_1mib.json"
expect_refusal "array of 1,000,001 samples" limit "array_past_item_limit.json:1:" "$work/array_past_item_limit.json"

# ---- truncation through the CLI at a sample of offsets ----------------------------------
size=$(wc -c <"$example")
for i in $(seq 0 24); do
  off=$((i * (size - 2) / 24))
  head -c "$off" "$example" >"$work/cut_$off.json"
  stdin_file="$work/cut_$off.json" expect_refusal "example cut at byte $off of $size (stdin)" - "<stdin>" -
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
