#!/usr/bin/env bash
# hostile_cli_test.sh — `mcpp-receipts policy check` refuses every hostile
# policy with exit 3 within 2 seconds, never by a signal (a timeout is 124, a
# signal 128+N), and a good policy still checks ok afterwards. Policies in
# HOSTILE_DIR/rules load fine but their rules fail on the sample pairs that
# `policy check` runs (the message names the rule); HOSTILE_DIR/gate/*.lua
# pass `policy check` but a 20x20 `gate` spends the command's total budget.
#
# usage: hostile_cli_test.sh CLI HOSTILE_DIR GOOD_POLICY WORK_DIR EXAMPLES_RECEIPTS_DIR
set -u
cli=$1 hostile=$2 good=$3 work=$4 examples=$5
mkdir -p "$work"
# A real bytecode chunk, made by luac when it is installed, else by hand.
if command -v luac5.4 >/dev/null 2>&1; then
  printf 'return {}\n' >"$work/src.lua"
  luac5.4 -o "$work/bytecode_chunk.lua" "$work/src.lua"
else
  printf '\033LuaT\000\031\223\r\n\032\n' >"$work/bytecode_chunk.lua"
fi
fail=0 count=0
for f in "$hostile"/*.lua "$work/bytecode_chunk.lua"; do
  count=$((count + 1))
  timeout 2 "$cli" policy check "$f" >"$work/out.txt" 2>"$work/err.txt"
  rc=$?
  if [ "$rc" -ne 3 ]; then
    echo "not ok - $(basename "$f"): exit $rc (want 3; 124 = timeout, >128 = signal)"
    cat "$work/err.txt"
    fail=$((fail + 1))
  elif ! grep -q "$(basename "$f")" "$work/err.txt" && [ "${f#*include_}" = "$f" ]; then
    echo "not ok - $(basename "$f"): message does not name the file: $(cat "$work/err.txt")"
    fail=$((fail + 1))
  else
    echo "ok - $(basename "$f"): $(head -c 200 "$work/err.txt")"
  fi
done
for f in "$hostile"/rules/*.lua; do
  count=$((count + 1))
  timeout 2 "$cli" policy check "$f" >"$work/out.txt" 2>"$work/err.txt"
  rc=$?
  if [ "$rc" -ne 3 ] || ! grep -q "rule '" "$work/err.txt" || ! grep -q "$(basename "$f")" "$work/err.txt"; then
    echo "not ok - rules/$(basename "$f"): exit $rc (want 3, naming the rule and file): $(cat "$work/err.txt")"
    fail=$((fail + 1))
  else
    echo "ok - rules/$(basename "$f"): $(head -c 200 "$work/err.txt")"
  fi
done
# --sample: the rules run on the given receipts instead of the built-in ones.
count=$((count + 1))
"$cli" policy check --sample "$examples/nam56r_cold_boot.json" "$hostile/rules/rule_loops.lua" \
  >"$work/out.txt" 2>"$work/err.txt"
rc=$?
if [ "$rc" -ne 3 ] || ! grep -q "sample pair nam56r-padded-cold-boot" "$work/err.txt"; then
  echo "not ok - policy check --sample: exit $rc, want 3 naming the given sample: $(cat "$work/err.txt")"
  fail=$((fail + 1))
else
  echo "ok - policy check --sample runs the rules on the given receipt"
fi
# 20 baselines and 20 candidates: 400 rule calls in one gate.
mkdir -p "$work/gate/base" "$work/gate/cand"
for i in $(seq 1 20); do
  sed "s/\"id\": \"[^\"]*\"/\"id\": \"base-$i\"/" "$examples/nam56r_padded.json" >"$work/gate/base/b$i.json"
  sed "s/\"id\": \"[^\"]*\"/\"id\": \"cand-$i\"/" "$examples/nam56r_padded.json" >"$work/gate/cand/c$i.json"
done
for f in "$hostile"/gate/*.lua; do
  count=$((count + 1))
  timeout 2 "$cli" gate --baseline "$work/gate/base" --candidate "$work/gate/cand" --policy "$f" \
    >"$work/out.txt" 2>"$work/err.txt"
  rc=$?
  if [ "$rc" -ne 3 ] || ! grep -q "rule '.*total time budget of [0-9]* ms" "$work/err.txt"; then
    echo "not ok - gate/$(basename "$f") in a 20x20 gate: exit $rc (want 3 naming the rule and the budget): $(cat "$work/err.txt")"
    fail=$((fail + 1))
  else
    echo "ok - gate/$(basename "$f") in a 20x20 gate: $(head -c 200 "$work/err.txt")"
  fi
done
if ! timeout 2 "$cli" policy check "$good" >/dev/null; then
  echo "not ok - the good policy $good no longer checks"
  fail=$((fail + 1))
fi
echo "$((count - fail)) of $count hostile policies refused with exit 3; $fail failed"
[ "$fail" -eq 0 ]
