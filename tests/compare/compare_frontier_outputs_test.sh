#!/bin/sh
# compare_frontier_outputs_test.sh — what `compare` and `frontier` write and
# return (issue 13): `frontier --output FORMAT=FILE` files list the skipped
# inputs as stdout does (JSON "skipped", text and markdown lines, the HTML
# page); `compare` exits 0 when the pair is comparable and the gate is
# undetermined (a point comparison, a metric absent) — the report says
# undetermined — while `gate` over the same pair exits 2; compare refuses
# --output html.
# usage: compare_frontier_outputs_test.sh MCPP_RECEIPTS_BIN EXAMPLES_DIR
BIN=$1
EX=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
check() { # name, condition-command...
    name=$1
    shift
    if "$@"; then echo "ok - $name"; else echo "not ok - $name"; fail=1; fi
}

# ---- frontier --output carries the skipped files ----
mkdir "$W/runs"
cp "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.json" "$W/runs/"
printf '{"schema": "mcpp.receipt/1", "id": ' > "$W/runs/broken.json"
"$BIN" frontier "$W/runs" --skip-invalid --output text="$W/f.txt" --output json="$W/f.json" \
    --output markdown="$W/f.md" --output html="$W/f.html" > "$W/stdout.txt" 2> /dev/null
code=$?
check frontier_skip_invalid_exits_0 test "$code" -eq 0
check frontier_text_file_is_stdout cmp -s "$W/stdout.txt" "$W/f.txt"
check frontier_text_file_lists_the_skipped_file grep -q 'skipped   1 file (not part of this report)' "$W/f.txt"
check frontier_markdown_file_lists_the_skipped_file grep -q '^- `.*broken.json`' "$W/f.md"
check frontier_json_file_has_the_skipped_member python3 -c "
import json
d = json.load(open('$W/f.json'))
assert d['schema'] == 'mcpp.frontier/1', d['schema']
assert len(d['skipped']) == 1 and d['skipped'][0]['path'].endswith('broken.json'), d['skipped']
assert d['lanes'], 'no lanes'
"
check frontier_html_file_names_the_skipped_file grep -q 'broken.json' "$W/f.html"
check frontier_html_file_has_the_lane_table grep -q 'NAM56R hybrid MoE lane' "$W/f.html"
"$BIN" frontier "$W/runs" --output json="$W/f3.json" > /dev/null 2>&1
code=$?
check frontier_without_skip_invalid_exits_3 test "$code" -eq 3
check frontier_without_skip_invalid_still_writes_the_list python3 -c "
import json
assert len(json.load(open('$W/f3.json'))['skipped']) == 1
"

# ---- compare: exit 0 when comparable and the gate is undetermined ----
# One value a side and a policy that declares no run-to-run noise: a point.
printf 'return { name = "quiet", dimensions = { must_match = { "pattern", "sequence", "hardware" } },\n  noise = { run_to_run = 0 } }\n' > "$W/quiet.lua"
python3 -c "
import json
for src, dst, rid in (('nam56r_padded.json', 'a.json', 'pt-a'), ('nam56r_padded_run2.json', 'b.json', 'pt-b')):
    d = json.load(open('$EX/' + src))
    del d['metrics']['step_time_s']['samples']
    d['id'] = rid
    json.dump(d, open('$W/' + dst, 'w'))
"
"$BIN" compare "$W/a.json" "$W/b.json" --policy "$W/quiet.lua" --format json > "$W/point.json"
code=$?
check compare_point_comparison_exits_0 test "$code" -eq 0
check compare_point_comparison_reports_undetermined python3 -c "
import json
d = json.load(open('$W/point.json'))
assert d['verdict'] in ('comparable', 'qualified'), d['verdict']
assert d['gate']['outcome'] == 'undetermined' and 'point comparison' in d['gate']['reason'], d['gate']
"
"$BIN" gate --baseline "$W/a.json" --candidate "$W/b.json" --policy "$W/quiet.lua" > /dev/null
code=$?
check gate_on_the_same_point_pair_exits_2 test "$code" -eq 2
"$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.json" --metric no_such_metric > "$W/absent.txt" 2>&1
code=$?
# a metric neither receipt states is a misspelling or the wrong metric: exit 3, naming the stated ones
check compare_metric_no_receipt_states_exits_3 test "$code" -eq 3
check compare_metric_no_receipt_states_names_the_stated_ones grep -q "no receipt states the metric 'no_such_metric' (metrics stated: " "$W/absent.txt"
"$BIN" compare --help | tr '\n' ' ' > "$W/help.txt"
check compare_help_states_exit_0_when_undetermined grep -q 'or it is undetermined' "$W/help.txt"
"$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.json" --output html="$W/c.html" > /dev/null 2>&1
code=$?
check compare_refuses_output_html test "$code" -eq 3 -a ! -e "$W/c.html"
exit $fail
