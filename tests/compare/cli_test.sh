#!/bin/sh
# cli_test.sh — `mcpp-receipts compare|frontier|gate|claim` on the example
# receipts: exit codes of cli.h and the lines a reviewer reads.
# usage: cli_test.sh MCPP_RECEIPTS_BINARY EXAMPLES_RECEIPTS_DIR
BIN=$1
EX=$2
fails=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# expect NAME WANT_EXIT PATTERN CMD...: runs CMD, checks its exit code and that
# stdout contains PATTERN (a fixed string; "" skips the check).
expect() {
    name=$1 want=$2 pattern=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "not ok - $name: exit $got, expected $want"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1)); return
    fi
    if [ -n "$pattern" ] && ! grep -qF -- "$pattern" "$tmp/out"; then
        echo "not ok - $name: output lacks '$pattern'"; cat "$tmp/out"; fails=$((fails + 1)); return
    fi
    echo "ok - $name"
}

expect same_lane_runs_are_comparable_exit_0 0 "verdict    comparable" \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.yaml"
expect cold_boot_vs_warm_cache_is_qualified_exit_0 0 "verdict    qualified" \
    "$BIN" compare "$EX/nam56r_warm_cache.json" "$EX/nam56r_cold_boot.json"
expect synthetic_vs_real_is_not_comparable_exit_2 2 "workload.data.path differs: real vs synthetic" \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_synthetic_data.json"
expect padded_vs_jagged_is_not_comparable_exit_2 2 "backend.moe.observed differs: padded vs jagged" \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_jagged_graph_breaks.json"
expect h200_requested_is_named_in_json 0 '"status": "qualify"' \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/h200_requested_h100_observed.json" --format json
expect compare_markdown_is_a_table 0 "| dimension | status | base | cand | reason |" \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.json" --format markdown
expect compare_missing_file_is_invalid_input_exit_3 3 "" \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/does_not_exist.json"
expect compare_bad_format_is_exit_3 3 "" \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.json" --format xml
expect compare_help_exit_0 0 "usage: mcpp-receipts compare" "$BIN" compare --help
expect frontier_over_a_directory_reports_lanes 0 "blocker" "$BIN" frontier "$EX"
expect frontier_json_has_lanes 0 '"lanes": [' "$BIN" frontier "$EX" --format json
expect frontier_help_exit_0 0 "usage: mcpp-receipts frontier" "$BIN" frontier --help
expect gate_same_lane_passes_exit_0 0 "gate inconclusive" \
    "$BIN" gate --baseline "$EX/nam56r_padded.json" --baseline "$EX/nam56r_padded_run2.json" \
    --candidate "$EX/nam56r_padded_run3.json"
expect gate_without_comparable_baseline_exit_2 2 "no comparable baseline" \
    "$BIN" gate --baseline "$EX/nam56r_padded.json" --candidate "$EX/nam52_dense.json"
expect gate_needs_both_sides_exit_3 3 "" "$BIN" gate --baseline "$EX"
# A usage slip is named in one line, with the usage lines and where the rest of the help is,
# not the whole help (the gate's is 40 lines) with no word of what was wrong.
says() { # NAME TEXT CMD...: exit 3, stderr holds TEXT and the usage, not the help's prose
    name=$1 text=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq 3 ] && grep -qF -- "$text" "$tmp/err" && grep -q "^usage: " "$tmp/err" &&
        grep -q -- "--help' for more" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -le 8 ]; then
        echo "ok - $name"
    else
        echo "not ok - $name: exit $got"; cat "$tmp/err"; fails=$((fails + 1))
    fi
}
says gate_names_the_missing_side "mcpp-receipts gate: --candidate PATH is missing" "$BIN" gate --baseline "$EX"
says gate_asks_which_side_a_bare_path_is "say which side it is, --baseline $EX or --candidate $EX" \
    "$BIN" gate "$EX" "$EX"
says compare_names_what_it_needs "mcpp-receipts compare: name two receipts, BASE and CAND" \
    "$BIN" compare "$EX/nam56r_padded.json"
says frontier_names_what_it_needs "mcpp-receipts frontier: name the receipts" "$BIN" frontier
says claim_names_the_missing_value "mcpp-receipts claim: --value V is missing" "$BIN" claim --lane family=NAM56R "$EX"
# The same receipts on both sides by mistake: said once, before the report (each candidate's
# reason says it too: a run is never its own baseline).
"$BIN" gate --baseline "$EX/nam56r_padded.json" --candidate "$EX/nam56r_padded.json" >"$tmp/out" 2>"$tmp/err"
got=$?
if [ "$got" -eq 2 ] && grep -qF "1 of 1 candidates are also among the baselines (the same receipts on both sides?)" \
    "$tmp/err" && grep -qF "this candidate's own run, never its baseline" "$tmp/out"; then
    echo "ok - gate_of_the_same_receipts_on_both_sides_says_so"
else
    echo "not ok - gate_of_the_same_receipts_on_both_sides_says_so: exit $got"; cat "$tmp/err"; fails=$((fails + 1))
fi
"$BIN" gate --baseline "$EX/nam56r_padded.json" --candidate "$EX/nam56r_padded_run3.json" >"$tmp/out" 2>"$tmp/err"
if [ ! -s "$tmp/err" ]; then echo "ok - a_gate_of_other_runs_notes_nothing"
else echo "not ok - a_gate_of_other_runs_notes_nothing"; cat "$tmp/err"; fails=$((fails + 1)); fi
# Named metrics (docs/metrics.md): --metric NAME in compare, gate, frontier and
# claim; unit and direction come from the receipts; claim --unit refuses another.
expect compare_metric_by_name_reads_unit_and_direction 0 "metric      step_time_s (s, lower is better)" \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.json" --metric step_time_s
expect compare_metric_by_schema_path_still_works 0 "metric      tokens_per_s (tokens/s, higher is better)" \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.json" --metric metrics.tokens_per_s
expect compare_metric_not_a_number_field_exit_3 3 "" \
    "$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.json" --metric lane.pattern
expect compare_suite_results_on_their_primary_metric 0 "metric      round_time_s (s, lower is better)" \
    "$BIN" compare "$EX/schema2/pytest_benchmark_sorted.json" "$EX/schema2/pytest_benchmark_sorted.yaml"
expect gate_json_lists_each_metric 0 '"metrics": [{"name": "primary", "outcome": "inconclusive"' \
    "$BIN" gate --baseline "$EX/nam56r_padded.json" --baseline "$EX/nam56r_padded_run2.json" \
    --candidate "$EX/nam56r_padded_run3.json" --format json
# a metric no receipt states is a misspelling or the wrong metric: exit 3, naming the stated ones
expect gate_on_a_metric_no_receipt_states_is_invalid_exit_3 3 "" \
    "$BIN" gate --baseline "$EX/nam56r_padded.json" --candidate "$EX/nam56r_padded_run3.json" \
    --metric time_to_train_s
if grep -qF "no receipt states the metric 'time_to_train_s' (metrics stated:" "$tmp/err"; then
    echo "ok - gate_on_a_metric_no_receipt_states_names_the_stated_ones"
else
    echo "not ok - gate_on_a_metric_no_receipt_states_names_the_stated_ones"; cat "$tmp/err"; fails=$((fails + 1))
fi
expect frontier_headline_names_metric_and_unit 0 '"metric": "step_time_s", "unit": "s", "higher_is_better": false' \
    "$BIN" frontier "$EX" --metric step_time_s --format json
expect claim_in_its_receipts_unit_is_checked 2 "this number came from lane" \
    "$BIN" claim --lane family=NAM56R,moe=jagged,seq_len=4096 --value 365442 --metric tokens_per_s \
    --unit tokens/s "$EX"
expect claim_in_another_unit_is_refused_exit_3 3 "" \
    "$BIN" claim --lane family=NAM56R,moe=jagged,seq_len=4096 --value 365442 --metric tokens_per_s \
    --unit tokens/min "$EX"
expect claim_from_an_unstable_lane_is_unsupported_exit_2 2 "this number came from lane" \
    "$BIN" claim --lane family=NAM56R,moe=jagged,seq_len=4096 --value 365442 "$EX"
expect claim_unknown_selector_key_exit_3 3 "" \
    "$BIN" claim --lane colour=red --value 1 "$EX"
expect claim_help_exit_0 0 "benchmark-laundering" "$BIN" claim --help

# A bad file in a directory is reported, the rest still gets a frontier, exit 3.
mkdir "$tmp/set"
cp "$EX/nam56r_padded.json" "$tmp/set/"
printf '{"schema": "mcpp.receipt/1", "lane": ' >"$tmp/set/broken.json"
expect frontier_reports_bad_files_and_exits_3 3 "frontier: 1 lane" "$BIN" frontier "$tmp/set"

# A candidate 10% slower than its baselines fails the gate: exit 1.
if command -v python3 >/dev/null 2>&1; then
    python3 - "$EX/nam56r_padded_run3.json" "$tmp/slow.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["id"] = "slow-candidate"
m = r["metrics"]
m["step_time_s"]["samples"] = [s / 0.9 for s in m["step_time_s"]["samples"]]
for k in ("median", "p10", "p90"):
    if k in m["step_time_s"]:
        m["step_time_s"][k] = m["step_time_s"][k] / 0.9
m["tokens_per_s"] = m["tokens_per_s"] * 0.9
json.dump(r, open(sys.argv[2], "w"))
PY
    expect ten_percent_slower_candidate_fails_gate_exit_1 1 "regressed" \
        "$BIN" gate --baseline "$EX/nam56r_padded.json" --baseline "$EX/nam56r_padded_run2.json" \
        --candidate "$tmp/slow.json"
fi

echo "$fails failed"
[ "$fails" -eq 0 ]
