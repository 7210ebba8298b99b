#!/usr/bin/env bash
# hostile_cli_test.sh — `mcpp-receipts policy check` refuses every hostile
# policy with exit 3 within 2 seconds, never by a signal (a timeout is 124, a
# signal 128+N), and a good policy still checks ok afterwards.
#
# usage: hostile_cli_test.sh CLI HOSTILE_DIR GOOD_POLICY WORK_DIR
set -u
cli=$1 hostile=$2 good=$3 work=$4
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
if ! timeout 2 "$cli" policy check "$good" >/dev/null; then
  echo "not ok - the good policy $good no longer checks"
  fail=$((fail + 1))
fi
echo "$((count - fail)) of $count hostile policies refused with exit 3; $fail failed"
[ "$fail" -eq 0 ]
