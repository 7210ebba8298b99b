#!/usr/bin/env bash
# policy_cases_test.sh — the shipped policies pass their shipped cases through
# `mcpp-receipts policy test` (exit 0), a case with a wrong expectation fails
# with exit 1 and says FAIL, and an invalid policy exits 3.
#
# usage: policy_cases_test.sh CLI POLICY_DIR WORK_DIR
set -u
cli=$1 dir=$2 work=$3
mkdir -p "$work"
fail=0
for p in default strict cross_hardware; do
  if "$cli" policy test "$dir/$p.lua" "$dir/tests/$p.cases.json"; then
    echo "ok - $p.lua passes its cases"
  else
    echo "not ok - $p.lua fails its cases"; fail=1
  fi
done
# The same cases under the wrong policy must fail: the cases can catch a change.
"$cli" policy test "$dir/cross_hardware.lua" "$dir/tests/default.cases.json" >"$work/wrong.txt"
rc=$?
if [ "$rc" -eq 1 ] && grep -q '^FAIL' "$work/wrong.txt"; then
  echo "ok - default cases fail under cross_hardware.lua (exit 1)"
else
  echo "not ok - default cases under cross_hardware.lua: exit $rc"; cat "$work/wrong.txt"; fail=1
fi
printf 'return { nosie = {} }\n' >"$work/bad.lua"
"$cli" policy test "$work/bad.lua" "$dir/tests/default.cases.json" >/dev/null 2>&1
rc=$?
if [ "$rc" -eq 3 ]; then echo "ok - invalid policy exits 3"; else echo "not ok - invalid policy exit $rc"; fail=1; fi
printf '{"cases": [{"base": "missing.json", "cand": "missing.json", "expect": "comparable"}]}\n' >"$work/bad_cases.json"
"$cli" policy test "$dir/default.lua" "$work/bad_cases.json" >/dev/null 2>&1
rc=$?
if [ "$rc" -eq 3 ]; then echo "ok - unreadable receipt in a case exits 3"; else echo "not ok - bad case exit $rc"; fail=1; fi
"$cli" policy check "$dir/default.lua" "$dir/strict.lua" "$dir/cross_hardware.lua" >"$work/check.txt"
rc=$?
if [ "$rc" -eq 0 ] && grep -q '0 warnings' "$work/check.txt"; then
  echo "ok - shipped policies check clean"
else
  echo "not ok - policy check of shipped policies: exit $rc"; cat "$work/check.txt"; fail=1
fi
exit $fail
