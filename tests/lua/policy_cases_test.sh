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
# ok - WHAT when the command before exited 0 (RC) and $work/NAME.txt, its
# output, matches every PATTERN (grep basic regexps); else not ok, with the output.
exit0_and_prints() {
  local rc=$1 name=$2 what=$3 pattern missing=""
  shift 3
  for pattern in "$@"; do grep -q -- "$pattern" "$work/$name.txt" || missing="$missing '$pattern'"; done
  if [ "$rc" -eq 0 ] && [ -z "$missing" ]; then
    echo "ok - $what"
  else
    echo "not ok - $what: exit $rc, missing:${missing:- none}"; cat "$work/$name.txt"; fail=1
  fi
}
for p in default strict cross_hardware shared_cpu micro_benchmark mlperf; do
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
"$cli" policy check "$dir/default.lua" "$dir/strict.lua" "$dir/cross_hardware.lua" "$dir/shared_cpu.lua" \
  "$dir/micro_benchmark.lua" "$dir/mlperf.lua" >"$work/check.txt"
exit0_and_prints $? check "shipped policies check clean, but for cross_hardware's stated weakening" \
  'default.lua: ok (0 warnings)' 'strict.lua: ok (0 warnings)' 'mlperf.lua: ok (0 warnings)' \
  "cross_hardware.lua: warning: built-in dimension 'hardware' is weakened from must_match to qualify" \
  'cross_hardware.lua: ok (1 warning)'
# policy_weakening_a_builtin_dimension_is_a_warning (issue 27): a redefinition
# or a weaker role of a built-in dimension is named with what it allows, and
# --strict refuses it.
printf 'return { include = { "default.lua" }, name = "redef",\n  dimensions = { define = { data = { "extra.team" } } } }\n' >"$work/redef.lua"
printf 'return { include = { "default.lua" }, name = "weak", dimensions = { ignore = { "data" } } }\n' >"$work/weak.lua"
cp "$dir/default.lua" "$work/default.lua"
"$cli" policy check "$work/redef.lua" "$work/weak.lua" >"$work/redef.txt"
exit0_and_prints $? redef "policy_weakening_a_builtin_dimension_is_a_warning" \
  "redef.lua: warning: built-in dimension 'data' is redefined without workload.data.path, workload.data.dataset: receipts that differ only there now match" \
  "weak.lua: warning: built-in dimension 'data' is weakened from must_match to ignore" 'redef.lua: ok (1 warning)'
# A suite figure under a name no importer writes (a typo of pytest-benchmark)
# is named, and the figures every suite gets are printed.
printf 'return { include = { "default.lua" }, name = "typo",\n  noise = { suites = { pytest = { run_to_run = 0.08 } } } }\n' >"$work/typo.lua"
"$cli" policy check "$work/typo.lua" >"$work/typo.txt"
exit0_and_prints $? typo "a suite no importer writes is a warning; every suite's figure is printed" \
  "typo.lua: warning: noise.suites names 'pytest', which no importer writes as benchmark.suite" \
  'suite pytest: run_to_run 0.08 (df 20)' 'suite pytest-benchmark: run_to_run 0.05 (df 20)' \
  'suite google-benchmark: run_to_run 0.05 (df 20)' 'typo.lua: ok (1 warning)'
"$cli" policy check --strict "$work/redef.lua" >/dev/null; rc=$?
if [ "$rc" -eq 3 ]; then echo "ok - --strict refuses a redefined built-in dimension (exit 3)"
else echo "not ok - --strict on a redefinition: exit $rc"; fail=1; fi
# A multi-metric gate: check lists every metric with its own allowance.
printf 'return { dimensions = { must_match = { "pattern" } }, gate = { allow_point_comparisons = true,\n  metrics = { { name = "tokens_per_s", max_regression = 0.02 },\n    { name = "peak_memory_gib", max_regression = 0.05 } } } }\n' >"$work/multi.lua"
"$cli" policy check "$work/multi.lua" >"$work/multi.txt"
exit0_and_prints $? multi "policy check lists every gate metric" \
  "gate        tokens_per_s, direction as its receipts state it, max_regression 0.02" \
  "^              peak_memory_gib, direction as its receipts state it, max_regression 0.05"
# A typo in a case file is invalid input (3), not a failing case (1).
printf '{"cases": [{"base": "a.json", "cand": "b.json", "expect": "comparble"}]}\n' >"$work/typo1.json"
printf '{"cases": [{"base": "a.json", "cand": "b.json", "expct": "comparable"}]}\n' >"$work/typo2.json"
for c in typo1 typo2; do
  "$cli" policy test "$dir/default.lua" "$work/$c.json" >/dev/null 2>"$work/$c.err"; rc=$?
  if [ "$rc" -eq 3 ]; then echo "ok - $c in a case file exits 3: $(cat "$work/$c.err")"
  else echo "not ok - $c exit $rc"; fail=1; fi
done
# Warnings: exit 0 normally, 3 with --strict; usage errors are 3.
printf 'return { dimensions = { must_match = { "pattern" } }, noise = { min_runs = 1 } }\n' >"$work/partial.lua"
"$cli" policy check "$work/partial.lua" >"$work/partial.txt"
exit0_and_prints $? partial "lint warnings are printed and do not fail without --strict" \
  "default dimension 'hardware' has no role" "min_runs = 1"
"$cli" policy check --strict "$work/partial.lua" >/dev/null; rc=$?
if [ "$rc" -eq 3 ]; then echo "ok - --strict makes warnings fail (exit 3)"; else echo "not ok - --strict exit $rc"; fail=1; fi
# --format json: one document for tools (a CI step reading the warnings), with the same exit code.
"$cli" policy check --format json "$dir/default.lua" "$work/partial.lua" "$work/bad.lua" "$work/multi.lua" \
  >"$work/check.json" 2>/dev/null; rc=$?
if python3 - "$work/check.json" "$rc" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "mcpp.policy-check/1" and doc["exit_code"] == int(sys.argv[2]) == 3, doc["exit_code"]
d, partial, bad, multi = doc["policies"]
assert (d["status"], d["warnings"], d["name"], d["error"]) == ("ok", [], "default", None), d
assert "hardware" in d["dimensions"]["must_match"] and d["noise"]["min_runs"] == 3
assert d["gate"] == [{"metric": "primary", "max_regression": 0.03, "confidence": 0.95}], d["gate"]
assert partial["status"] == "ok" and any("min_runs = 1" in w for w in partial["warnings"]), partial
assert bad["status"] == "invalid" and "nosie" in bad["error"] and "dimensions" not in bad, bad
assert [g["metric"] for g in multi["gate"]] == ["tokens_per_s", "peak_memory_gib"], multi["gate"]
PY
then echo "ok - policy check --format json reports each policy, its warnings and errors, exit 3"
else echo "not ok - policy check --format json (exit $rc):"; cat "$work/check.json"; fail=1; fi
"$cli" policy check --strict --format=json "$work/partial.lua" >"$work/strict.json"; rc=$?
if [ "$rc" -eq 3 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['policies'][0]['status']=='refused' and d['exit_code']==3" "$work/strict.json"
then echo "ok - --strict --format=json marks the policy refused (exit 3)"; else echo "not ok - --strict json exit $rc"; fail=1; fi
"$cli" policy check --format yaml "$dir/default.lua" >/dev/null 2>&1; rc=$?
if [ "$rc" -eq 3 ]; then echo "ok - an unknown --format is a usage error"; else echo "not ok - --format yaml exit $rc"; fail=1; fi
for args in "" "check" "frobnicate x"; do
  "$cli" policy $args >/dev/null 2>&1; rc=$?
  if [ "$rc" -eq 3 ]; then echo "ok - 'policy $args' is a usage error (exit 3)"; else echo "not ok - 'policy $args' exit $rc"; fail=1; fi
done
exit $fail
