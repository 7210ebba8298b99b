#!/bin/sh
# gate_history_cli_test.sh — `gate --history DB`: the newest runs of each
# candidate's lane in a store measure the run-to-run noise (docs/statistics.md).
# One run a side under a policy that declares no noise is a point comparison
# (undetermined); with ten stored runs of the lane it is decided, the report
# names the source, and the history never moves the baseline's center.
# usage: gate_history_cli_test.sh MCPP_RECEIPTS EXAMPLES_DIR WORK_DIR
BIN=$1 EX=$2 W=$3
rm -rf "$W" && mkdir -p "$W/hist" || exit 1
fails=0 passes=0
check() {
    name=$1; shift
    if "$@"; then echo "ok - $name"; passes=$((passes + 1)); else echo "not ok - $name"; fails=$((fails + 1)); fi
}

# Runs of one lane: tokens_per_s and step times scaled together (a slower run
# is one whose steps took longer), distinct ids and times.
python3 - "$EX/nam56r_padded.json" "$W" <<'PY' || exit 1
import copy, json, sys
src, w = sys.argv[1], sys.argv[2]
r = json.load(open(src))
def run(rid, day, factor, path):
    d = copy.deepcopy(r)
    d["id"], d["created_at"] = rid, f"2026-03-{day:02d}T09:00:00Z"
    st = d["metrics"]["step_time_s"]
    st["samples"] = [s * factor for s in st["samples"]]
    for k in ("median", "p10", "p90", "mean"):
        if k in st: st[k] *= factor
    d["metrics"]["tokens_per_s"] /= factor
    json.dump(d, open(path, "w"))
for i in range(10):
    run(f"hist-{i}", i + 1, 1 + 0.004 * (i % 5 - 2), f"{w}/hist/h{i}.json")
run("base", 20, 1.0, f"{w}/base.json")
run("cand", 21, 1.0 / 0.88, f"{w}/cand.json")
PY
printf 'return { include = { "default.lua" }, name = "quiet", noise = { run_to_run = 0 } }\n' > "$W/quiet.lua"
cp "$(dirname "$0")/../../policy/default.lua" "$W/default.lua"
"$BIN" store init "$W/db.sqlite" >/dev/null && "$BIN" store add "$W/db.sqlite" "$W/hist" >/dev/null
check store_holds_the_history test $? -eq 0

"$BIN" gate --baseline "$W/base.json" --candidate "$W/cand.json" --policy "$W/quiet.lua" --format json > "$W/none.json"
check without_history_one_run_a_side_is_undetermined test $? -eq 2
"$BIN" gate --baseline "$W/base.json" --candidate "$W/cand.json" --policy "$W/quiet.lua" \
    --history "$W/db.sqlite" --format json > "$W/hist.json"
check with_history_a_12pct_regression_fails test $? -eq 1
check the_report_names_the_history_and_its_runs python3 -c "
import json
m = json.load(open('$W/hist.json'))['candidates'][0]['metric']
assert m['noise']['source'] == 'history' and m['noise']['history_runs'] == 10, m['noise']
assert abs(m['base_median'] - json.load(open('$W/base.json'))['metrics']['tokens_per_s']) < 1e-6, m
assert m['interval'][0] <= m['rel_delta'] <= m['interval'][1], m
"
"$BIN" gate --baseline "$W/base.json" --candidate "$W/cand.json" --policy "$W/quiet.lua" \
    --history "$W/db.sqlite" --history-runs 3 --format json > "$W/three.json"
check history_runs_limits_the_newest_runs python3 -c "
import json
assert json.load(open('$W/three.json'))['candidates'][0]['metric']['noise']['history_runs'] == 3
"
"$BIN" gate --baseline "$W/base.json" --candidate "$W/cand.json" --history-runs 3 2> "$W/err.txt"
check history_runs_without_history_is_a_usage_error test $? -eq 3
check the_usage_error_says_why grep -q -- '--history-runs needs --history DB' "$W/err.txt"
"$BIN" gate --baseline "$W/base.json" --candidate "$W/cand.json" --history "$W/missing.sqlite" 2> "$W/err2.txt"
check a_missing_history_store_is_an_input_error test $? -eq 3

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
