#!/usr/bin/env bash
# symbols_test.sh — the exported symbols of libmcpp_receipts.so are exactly
# the committed list (tests/cli/exported_symbols.txt), so that an ABI change
# (a public function added, renamed or removed, or an internal one leaking out
# of -fvisibility=hidden) is seen in review. On a mismatch the diff is printed.
#
# MCPP_UPDATE_SYMBOLS=1 rewrites the list instead (review the diff before
# committing it).
#
# usage: symbols_test.sh LIBRARY EXPECTED_LIST WORK_DIR
set -u
lib=$1 expected=$2 work=$3
mkdir -p "$work"
actual=$work/exported_symbols.txt
if ! nm -D --defined-only "$lib" >"$work/nm.out" 2>&1; then
  echo "not ok - nm -D failed on $lib:"; sed 's/^/    /' "$work/nm.out"; exit 1
fi
awk 'NF >= 3 { print $3 }' "$work/nm.out" | LC_ALL=C sort -u >"$actual"
if [ "${MCPP_UPDATE_SYMBOLS:-0}" = 1 ]; then
  cp "$actual" "$expected"; echo "ok - $(wc -l <"$actual") symbols written to $expected"; exit 0
fi
if [ "$(wc -l <"$actual")" -lt 50 ]; then
  echo "not ok - only $(wc -l <"$actual") exported symbols in $lib"; exit 1
fi
if diff -u "$expected" "$actual" >"$work/symbols.diff"; then
  echo "ok - $(wc -l <"$actual") exported symbols match $expected"
else
  echo "not ok - exported symbols differ from $expected (- committed, + built):"
  sed 's/^/    /' "$work/symbols.diff"
  echo "    (an intended API change: rerun with MCPP_UPDATE_SYMBOLS=1 and commit the list)"
  exit 1
fi
