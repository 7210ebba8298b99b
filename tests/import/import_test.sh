#!/usr/bin/env bash
# import_test.sh — `mcpp-receipts import` from the outside: the MLPerf v3.1
# fixtures (real submissions) and Google Benchmark output produced here by the
# real library; every field checked against the input it came from; re-import
# gives identical bytes; malformed input is exit 3 naming FILE:LINE with
# nothing written.
# usage: import_test.sh MCPP_RECEIPTS MLPERF_FIXTURES WORK_DIR GBENCH_SOURCE CXX
set -u
BIN=$1 FIX=$2 WORK=$3 GBSRC=$4 CXX=$5
fails=0
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1

ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; fails=$((fails + 1)); }
# check NAME COMMAND...: passes when the command succeeds
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
# field FILE PYTHON_EXPR: prints the value of a field (via python3's json)
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
one() { ls "$WORK/$1"/$2 2>/dev/null | head -1; }

# ---- MLPerf: the whole fixtures tree -------------------------------------------------
"$BIN" import mlperf "$FIX" --out "$WORK/mlperf" >"$WORK/out" 2>&1
check "mlperf_tree_imports_exit_0" test $? -eq 0
n_logs=$(find "$FIX" -name 'result_*.txt' | wc -l)
# A check that finds no input proves nothing: zero logs is a failure, not "ok (0)".
check "mlperf_fixtures_are_present ($FIX: $n_logs logs)" test "$n_logs" -gt 0
check "mlperf_one_receipt_per_result_log ($n_logs)" test "$(ls "$WORK/mlperf" | wc -l)" -eq "$n_logs"
"$BIN" validate -q "$WORK"/mlperf/*.json
check "mlperf_receipts_validate" test $? -eq 0

dell=$(one mlperf 'mlperf-Dell-*-r0-*.json')
log="$FIX/Dell/results/2xXE8640x4H100-SXM-80GB/dlrm_dcnv2/result_0.txt"
want_ttt=$(python3 - "$log" <<'PY'
import json, sys
t = {}
for line in open(sys.argv[1]):
    if line.startswith(":::MLLOG"):
        e = json.loads(line[8:])
        if e["key"] in ("run_start", "run_stop"):
            t[e["key"]] = e["time_ms"]
print(repr((t["run_stop"] - t["run_start"]) / 1000))
PY
)
check "mlperf_time_to_train_is_run_stop_minus_run_start ($want_ttt)" \
    test "$(field "$dell" "repr(r['metrics']['named'][0]['value'])")" = "$want_ttt"
check "mlperf_multi_node_count_is_nodes_times_per_node (2 x 4)" \
    test "$(field "$dell" "(r['topology']['nodes'], r['hardware']['observed']['per_node'], r['hardware']['observed']['count'])")" = "(2, 4, 8)"
check "mlperf_accelerator_declared_from_system_json" \
    test "$(field "$dell" "(r['hardware']['observed']['accelerator'], r['hardware']['observed']['source'])")" = "('NVIDIA H100-SXM5-80GB', 'declared')"
check "mlperf_software_stack_given_as_a_list_is_read (Dell)" \
    test "$(field "$dell" "(r['software']['components']['nccl_version'], r['hardware']['observed']['driver'])")" = "('2.18.5', '535.104.12')"
check "mlperf_benchmark_identity" \
    test "$(field "$dell" "[r['benchmark'][k] for k in ('suite','suite_version','name','submitter','system','division')]")" = "['mlperf-training', '3.1', 'dlrm_dcnv2', 'Dell', '2xXE8640x4H100-SXM-80GB', 'closed']"
check "mlperf_run_index_of_result_files" test "$(field "$dell" "(r['run']['index'], r['run']['of'])")" = "(1, 3)"
check "mlperf_throughput_block_metric_from_tracked_stats" \
    test "$(field "$dell" "[(m['name'], m['sample_kind'], m['direction']) for m in r['metrics']['named']][1]")" = "('throughput', 'block', 'higher')"
check "mlperf_quality_achieved_is_last_eval_accuracy" \
    test "$(field "$dell" "(r['quality']['metric'], r['quality']['achieved'] == r['extra']['mlperf']['eval'][-1]['value'])")" = "('eval_accuracy', True)"
check "mlperf_source_not_recorded_sections" \
    test "$(field "$dell" "'compile' in r['source']['not_recorded'] and 'startup' in r['source']['not_recorded']")" = "True"
check "mlperf_hyperparameters_kept_in_extra" \
    test "$(field "$dell" "r['extra']['mlperf']['hyperparameters']['opt_name']")" = "adagrad"
ail=$(one mlperf 'mlperf-Ailiverse-*.json')
check "mlperf_seed_and_open_division (Ailiverse)" \
    test "$(field "$ail" "(r['run']['seed'], r['benchmark']['division'], r['topology']['nodes'])")" = "(6919, 'open', 1)"
nv=$(one mlperf 'mlperf-NVIDIA-*-r0-*.json')
check "mlperf_no_seed_in_log_is_marked_not_recorded (NVIDIA)" \
    test "$(field "$nv" "('seed' in r.get('run', {}), 'run.seed' in r['extra']['mlperf']['not_recorded_fields'])")" = "(False, True)"

# ---- deterministic, idempotent -----------------------------------------------------
"$BIN" import mlperf "$FIX" --out "$WORK/mlperf2" -q
check "mlperf_reimport_gives_the_same_names_and_bytes" diff -r "$WORK/mlperf" "$WORK/mlperf2"
"$BIN" import mlperf "$FIX" "$log" --out "$WORK/mlperf" -q
check "mlperf_input_given_twice_and_reimport_into_same_dir_changes_nothing" diff -r "$WORK/mlperf" "$WORK/mlperf2"

# A write that fails half way (a directory squats on the third file's name) takes back
# the files this import had already written; exit 4, as any output that cannot be
# written (an input that cannot be read is 3).
mkdir -p "$WORK/squat/$(ls "$WORK/mlperf" | sed -n 3p)"
"$BIN" import mlperf "$FIX" --out "$WORK/squat" >"$WORK/out" 2>"$WORK/err"
rc=$?
check "failed_write_exits_4_and_removes_the_files_it_wrote ($(tail -n 1 "$WORK/err"))" \
    test "$rc-$(ls "$WORK/squat" | wc -l)-$(grep -c "could not write the receipts to $WORK/squat (nothing was written)" "$WORK/err")" = "4-1-1"

# --out with missing parents, as the README writes it (`--out receipts/py` in a fresh
# checkout has no receipts/): every missing directory is created, like mkdir -p.
mkdir -p "$WORK/fresh"
(cd "$WORK/fresh" && "$BIN" import mlperf "$FIX" --out receipts/py -q) >"$WORK/out" 2>&1
rc=$?
check "out_dir_with_a_missing_parent_is_created (exit $rc: $(head -c 200 "$WORK/out"))" \
    test "$rc-$(ls "$WORK/fresh/receipts/py" 2>/dev/null | wc -l)" = "0-$n_logs"
"$BIN" import mlperf "$FIX" --out "$WORK/deep/a/b//c/" -q
check "out_dir_with_several_missing_parents_and_doubled_slashes" \
    diff -r "$WORK/mlperf" "$WORK/deep/a/b/c"
# A parent that is a file: exit 4 naming the directory it could not create.
: >"$WORK/plainfile"
"$BIN" import mlperf "$FIX" --out "$WORK/plainfile/x/y" >"$WORK/out" 2>"$WORK/err"
rc=$?
check "out_dir_under_a_file_exits_4_naming_it ($(cat "$WORK/err"))" \
    test "$rc-$(grep -c "plainfile: cannot create the directory: it exists and is not a directory" "$WORK/err")" = "4-1"

# ---- :::SYSJSON inline system description -------------------------------------------
mkdir -p "$WORK/loose"
{ printf ':::SYSJSON '; python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))" \
    "$FIX/ASUSTeK/systems/ESC-N8-E11.json"; cat "$FIX/ASUSTeK/results/ESC-N8-E11/dlrm_dcnv2/result_0.txt"; } \
    >"$WORK/loose/result_0.txt"
"$BIN" import mlperf "$WORK/loose/result_0.txt" --out "$WORK/sysjson" -q
check "mlperf_log_outside_the_layout_uses_its_SYSJSON_line" \
    test "$(field "$(one sysjson '*.json')" "r['hardware']['observed']['count']")" = "8"

# ---- malformed input: exit 3, FILE:LINE, nothing written ----------------------------
# expect_invalid NAME PATTERN INPUT...: import must exit 3, stderr must hold PATTERN,
# and --out must not come into existence (a good input listed first included).
expect_invalid() {
    local name=$1 pattern=$2 format=$3; shift 3
    "$BIN" import "$format" "$@" --out "$WORK/never" >"$WORK/out" 2>"$WORK/err"
    local rc=$?
    if [ $rc -ne 3 ]; then not_ok "$name: exit $rc, expected 3"; cat "$WORK/err"; return; fi
    if ! grep -qF -- "$pattern" "$WORK/err"; then not_ok "$name: stderr lacks '$pattern'"; cat "$WORK/err"; return; fi
    if [ -e "$WORK/never" ]; then not_ok "$name: --out was written"; rm -rf "$WORK/never"; return; fi
    ok "$name"
}
damaged() { # damaged NAME: a copy of the ASUSTeK tree to break
    rm -rf "$WORK/$1" && mkdir -p "$WORK/$1" && cp -r "$FIX/ASUSTeK" "$WORK/$1/" && chmod -R u+w "$WORK/$1"
    echo "$WORK/$1/ASUSTeK/results/ESC-N8-E11/dlrm_dcnv2/result_0.txt"
}
good="$FIX/Dell"
bad=$(damaged truncated)
lines=$(wc -l <"$bad")
head -c $(( $(head -n 40 "$bad" | wc -c) - 30 )) "$bad" >"$bad.cut" && mv "$bad.cut" "$bad"
expect_invalid "truncated_log_names_file_and_line_40" "result_0.txt:40:223: the log ends inside this line's JSON" mlperf "$good" "$bad"
bad=$(damaged no_stop)
grep -v '"key": "run_stop"' "$bad" >"$bad.new" && mv "$bad.new" "$bad"
expect_invalid "log_without_run_stop_is_refused" "no run_stop event: the log ends at line $((lines - 1))" mlperf "$good" "$bad"
bad=$(damaged no_system)
rm "$WORK/no_system/ASUSTeK/systems/ESC-N8-E11.json"
expect_invalid "absent_system_file_is_named" "systems/ESC-N8-E11.json: the system description" mlperf "$good" "$bad"
bad=$(damaged bad_system)
printf '{"accelerators_per_node": "eight",\n "number_of_nodes": "1"}\n' >"$WORK/bad_system/ASUSTeK/systems/ESC-N8-E11.json"
expect_invalid "system_file_with_a_bad_count_names_line_1" "ESC-N8-E11.json:1:27: accelerators_per_node: expected a positive whole number" mlperf "$bad"
expect_invalid "mlperf_directory_without_logs_is_refused" "no MLPerf result logs" mlperf "$FIX/Dell/systems"
deep="$WORK/deep"; for i in $(seq 1 33); do deep="$deep/d"; done; mkdir -p "$deep"
expect_invalid "mlperf_directories_nested_deeper_than_32_are_refused_naming_the_33rd" \
    "deep$(printf '/d%.0s' $(seq 1 33)): directories nested deeper than 32" mlperf "$WORK/deep"
rm -rf "$WORK/deep"; deep="$WORK/deep"; for i in $(seq 1 32); do deep="$deep/d"; done; mkdir -p "$deep"
expect_invalid "mlperf_directories_32_deep_are_walked" "no MLPerf result logs" mlperf "$WORK/deep"
rm -rf "$WORK/deep"
# '_' never names a format (import.h): a real-looking name would break when it is registered
expect_invalid "unknown_format_is_a_usage_error" "unknown import format 'no_such_format'" no_such_format "$log"
expect_invalid "missing_input_file" "cannot open" mlperf "$WORK/does-not-exist.txt"

# ---- Google Benchmark, produced by the real library ---------------------------------
if ! "$CXX" -O2 -o "$WORK/gbench" "$GBSRC" -lbenchmark -lpthread 2>"$WORK/cxx.err"; then
    not_ok "google_benchmark_program_builds (libbenchmark-dev)"; cat "$WORK/cxx.err"
else
    "$WORK/gbench" --benchmark_repetitions=3 --benchmark_min_time=0.01 \
        --benchmark_out="$WORK/gb.json" --benchmark_out_format=json >/dev/null 2>&1
    "$BIN" import google-benchmark "$WORK/gb.json" --out "$WORK/gb" -q
    check "gbench_import_exit_0_one_receipt_per_run_name" test "$(ls "$WORK/gb" | wc -l)" -eq 4
    check "gbench_primary_is_cpu_time_unless_real_time_was_measured" \
        test "$(python3 -c "
import glob, json
print(sorted((r['benchmark']['name'], r['metrics']['primary']) for r in map(lambda f: json.load(open(f)), glob.glob('$WORK/gb/*.json'))))")" = \
             "[('BM_Accumulate', 'cpu_time_s'), ('BM_Accumulate/real_time', 'real_time_s'), ('BM_Sort/256', 'cpu_time_s'), ('BM_Sort/4096', 'cpu_time_s')]"
    check "gbench_receipt_says_why_its_primary_metric" \
        grep -q 'primary_metric_reason.*cpu_time_s: the benchmark measured neither real nor manual time' "$(one gb 'gbench-BM_Sort_256-*.json')"
    sort1=$(one gb 'gbench-BM_Sort_256-*.json')
    check "gbench_repetitions_are_samples_aggregates_are_not" \
        test "$(field "$sort1" "[(m['name'], len(m['samples']), m['sample_kind']) for m in r['metrics']['named']]")" = "[('real_time_s', 3, 'repetition'), ('cpu_time_s', 3, 'repetition'), ('items_per_second', 3, 'repetition')]"
    want=$(python3 -c "
import json, statistics
rows = [b for b in json.load(open('$WORK/gb.json'))['benchmarks'] if b['run_name'] == 'BM_Sort/256' and b['run_type'] == 'iteration']
print(repr(statistics.median(b['real_time'] * 1e-9 for b in rows)))")
    check "gbench_real_time_s_is_median_of_repetitions_in_seconds" \
        test "$(field "$sort1" "repr(r['metrics']['named'][0]['value'])")" = "$want"
    check "gbench_counter_without_direction_kept_in_extra" \
        test "$(field "$sort1" "(r['extra']['google_benchmark']['counters']['elements'] == [256] * 3, sorted(r['extra']['google_benchmark']['aggregates']))")" = "(True, ['cv', 'mean', 'median', 'stddev'])"
    commit=0123456789abcdef0123456789abcdef01234567
    "$BIN" import google-benchmark "$WORK/gb.json" --commit "$commit" --out "$WORK/gbc" -q
    check "import_commit_is_every_receipts_source_git_commit" \
        test "$(python3 -c "
import glob, json
print(sorted({json.load(open(f))['source']['git_commit'] for f in glob.glob('$WORK/gbc/*.json')}))")" = "['$commit']"
    check "import_commit_changes_the_ids" test -z "$(comm -12 <(ls "$WORK/gb") <(ls "$WORK/gbc"))"
    "$WORK/gbench" --benchmark_repetitions=2 --benchmark_min_time=0.01 --benchmark_context=git_commit=abc123 \
        --benchmark_out="$WORK/gb_named.json" --benchmark_out_format=json >/dev/null 2>&1
    expect_invalid "import_commit_other_than_the_inputs_is_refused" \
        "gb_named.json: source.git_commit: the input names commit 'abc123', the import was told '$commit'" \
        google-benchmark "$WORK/gb_named.json" --commit "$commit"
    "$BIN" import google-benchmark "$WORK/gb.json" --out "$WORK/gbx" --commit >"$WORK/out" 2>&1
    rc=$?
    check "import_commit_without_a_value_is_a_usage_error (exit $rc)" \
        test $rc -eq 3 -a ! -e "$WORK/gbx" -a -n "$(grep -- "--commit needs a commit" "$WORK/out")"
    expect_invalid "pytest_benchmark_reader_refuses_google_benchmark_json" \
        "gb.json:1:1: not pytest-benchmark JSON output" pytest-benchmark "$WORK/gb.json"
    head -c 700 "$WORK/gb.json" >"$WORK/gb_cut.json"
    expect_invalid "truncated_google_benchmark_json_names_its_line" "gb_cut.json:" google-benchmark "$WORK/gb_cut.json"    # The library writes a non-finite counter as a bare Infinity or NaN (a rate over a time it
    # measured as zero: 150,000 repetitions of 1 us each did so now and then, and the whole file
    # was refused as invalid JSON). Its own output with two repetitions' rates written as it
    # writes them then (BM_Sort/256's first two repetitions: its rate keeps the third), and a
    # context string holding the same words, which must stay as it is.
    python3 - "$WORK/gb.json" "$WORK/gb_nonfinite.json" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rates = list(re.finditer(r'"items_per_second": [0-9.e+-]+', text))
text = (text[:rates[0].start()] + '"items_per_second": Infinity' + text[rates[0].end():rates[1].start()]
        + '"items_per_second": NaN' + text[rates[1].end():])
open(sys.argv[2], "w").write(text.replace('"executable": "', '"executable": "NaN, Infinity: ', 1))
PY
    "$BIN" import google-benchmark "$WORK/gb_nonfinite.json" --out "$WORK/gbn" -q
    rc=$?
    check "gbench_nonfinite_counters_import (exit $rc)" test $rc -eq 0 -a "$(ls "$WORK/gbn" | wc -l)" -eq 4
    check "gbench_nonfinite_counters_receipts_validate" "$BIN" validate "$WORK/gbn"/*.json
    check "gbench_nonfinite_counters_are_left_out_and_said" test "$(python3 -c "
import glob, json
rs = [json.load(open(f)) for f in glob.glob('$WORK/gbn/*.json')]
said = sorted(c for r in rs for c in r['status'].get('caveats', []) if 'NaN or Infinity' in c)
rates = sorted(len(m['samples']) for r in rs for m in r['metrics']['named'] if m['name'] == 'items_per_second')
names = {r['source']['command'][:15] for r in rs}
print(said, rates, names)")" = "['2 counter values were NaN or Infinity (as Google Benchmark writes a rate over a zero time): left out'] [1, 3] {'NaN, Infinity: '}"
fi

echo "# $fails failed"
[ "$fails" -eq 0 ]
