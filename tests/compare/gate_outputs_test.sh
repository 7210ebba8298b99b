#!/bin/sh
# gate_outputs_test.sh — `mcpp-receipts gate --output FORMAT=FILE` (issue 13):
# one run writes text, JSON, markdown, JUnit and HTML of the same report; the
# JUnit parses as XML (Python's xml.etree) with one testcase per candidate;
# an unreadable candidate is named in every format and makes the outcome
# `error` (exit 3), never `passed`; a bad --output spec is refused.
# usage: gate_outputs_test.sh MCPP_RECEIPTS_BIN EXAMPLES_DIR
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

# nam52_dense is in a lane no baseline has: --new-lanes fail makes it undetermined
# (by default a new lane passes: tests/ci checks that path)
"$BIN" gate --new-lanes fail --baseline "$EX/nam56r_padded.json" --baseline "$EX/nam56r_padded_run2.json" \
    --candidate "$EX/nam56r_padded_run3.json" --candidate "$EX/nam52_dense.json" \
    --output text="$W/g.txt" --output json="$W/g.json" --output=markdown="$W/g.md" \
    --output junit="$W/g.xml" --output html="$W/g.html" > "$W/stdout.txt"
code=$?
check one_run_exits_2_for_an_undetermined_candidate test "$code" -eq 2
for f in g.txt g.json g.md g.xml g.html; do
    check "writes_$f" test -s "$W/$f"
done
check stdout_is_the_text_file cmp -s "$W/stdout.txt" "$W/g.txt"
check json_names_files_lanes_and_blockers python3 -c "
import json, sys
d = json.load(open('$W/g.json'))
assert d['schema'] == 'mcpp.gate/2' and d['outcome'] == 'undetermined' and d['exit_code'] == 2, d['outcome']
c0, c1 = d['candidates']
assert c0['path'].endswith('nam56r_padded_run3.json') and c0['lane']['label'] == 'NAM56R hybrid MoE lane'
assert sorted(p['path'].rsplit('/', 1)[1] for p in c0['pooled']) == ['nam56r_padded.json', 'nam56r_padded_run2.json']
assert [m['result'] for m in c0['metrics']] == [c0['metric']] and c0['metric']['change'].split()[0] in ('better', 'worse', 'unchanged')
assert c1['reason_code'] == 'new_lane' and c1['outcome'] == 'undetermined' and c1['differences'], c1
assert any(x['dimension'] == 'pattern' and x['status'] == 'mismatch' for x in c1['differences'])
assert d['skipped'] == []
"
check junit_parses_with_one_testcase_per_candidate python3 -c "
import xml.etree.ElementTree as ET
root = ET.parse('$W/g.xml').getroot()
cases = root.findall('.//testcase')
assert len(cases) == 2, len(cases)
assert cases[1].find('skipped') is not None and cases[0].find('failure') is None
assert cases[0].find('skipped').get('type') == 'inconclusive', cases[0].find('skipped').attrib
assert root.find('testsuite').get('skipped') == '2'  # the undetermined one, and the inconclusive one (exit 0 by default)
# the decided case is named after the metric the gate compared, not the policy's 'primary'
import json
want = json.load(open('$W/g.json'))['candidates'][0]['metric']['name']
assert want != 'primary' and cases[0].get('name').endswith(' ' + want), (cases[0].get('name'), want)
"
check markdown_folds_the_full_table grep -q '<details><summary>All 2 candidates</summary>' "$W/g.md"
check html_has_the_gate_section grep -q 'id="gate"' "$W/g.html"

# An unreadable candidate: named in every format, outcome error, exit 3.
printf '{"schema": "mcpp.receipt/1", "id": ' > "$W/broken.json"
"$BIN" gate --baseline "$EX/nam56r_padded.json" --candidate "$EX/nam56r_padded_run2.json" \
    --candidate "$W/broken.json" --format markdown \
    --output text="$W/e.txt" --output json="$W/e.json" --output junit="$W/e.xml" --output html="$W/e.html" \
    > "$W/e.md" 2> /dev/null
code=$?
check unreadable_input_exits_3 test "$code" -eq 3
check markdown_says_error_not_passed grep -q '### Merge gate: \*\*error\*\*' "$W/e.md"
for f in e.md e.txt e.json e.xml e.html; do
    check "unreadable_input_named_in_$f" grep -q 'broken.json' "$W/$f"
done
check json_outcome_is_error python3 -c "
import json
d = json.load(open('$W/e.json'))
assert d['outcome'] == 'error' and d['exit_code'] == 3 and d['skipped'][0]['path'].endswith('broken.json')
assert d['skipped'][0]['skipped_on_request'] is False
"
check junit_counts_the_error python3 -c "
import xml.etree.ElementTree as ET
root = ET.parse('$W/e.xml').getroot()
assert root.get('errors') == '1' and root.find('.//testcase/error') is not None
"
# With --skip-invalid the rest decides, and the file is still listed.
"$BIN" gate --baseline "$EX/nam56r_padded.json" --candidate "$EX/nam56r_padded_run2.json" \
    --candidate "$W/broken.json" --skip-invalid --format json > "$W/s.json" 2> /dev/null
code=$?
check skip_invalid_decides_on_the_rest test "$code" -eq 0
check skip_invalid_still_lists_the_file grep -q 'broken.json' "$W/s.json"

# Bad specs are refused before anything runs; nothing is written.
"$BIN" gate --baseline "$EX" --candidate "$EX" --output yaml="$W/x.yaml" > /dev/null 2>&1
check unknown_output_format_exits_3 test $? -eq 3
"$BIN" gate --baseline "$EX" --candidate "$EX" --output json > /dev/null 2>&1
check output_without_path_exits_3 test $? -eq 3
"$BIN" gate --baseline "$EX" --candidate "$EX" --output json="$W/x.yaml" --output markdown="$W/x.yaml" \
    > /dev/null 2> "$W/twice.err"
check one_path_for_two_formats_exits_3 test $? -eq 3
check one_path_for_two_formats_names_both grep -q "names '$W/x.yaml' twice (json and markdown)" "$W/twice.err"
check nothing_written_for_refused_specs test ! -e "$W/x.yaml"
# compare and frontier take --output too.
"$BIN" compare "$EX/nam56r_padded.json" "$EX/nam56r_padded_run2.json" --output json="$W/c.json" \
    --output markdown="$W/c.md" > /dev/null
check compare_writes_json_and_markdown python3 -c "
import json; assert json.load(open('$W/c.json'))['schema'] == 'mcpp.compare/1'"
check compare_markdown_folds_all_rows grep -q '<details><summary>All' "$W/c.md"
"$BIN" frontier "$EX" --output json="$W/f.json" > /dev/null 2>&1
check frontier_writes_json python3 -c "
import json; assert json.load(open('$W/f.json'))['schema'] == 'mcpp.frontier/1'"
# XML 1.0 forbids U+FFFE/U+FFFF and raw control characters: a receipt id that
# holds them is shown escaped, and the JUnit stays well formed (issue 28).
sed 's/"id": "[^"]*"/"id": "run3\\ufffe\\uffff\\u0085\\u001b[31m"/' "$EX/nam56r_padded_run3.json" > "$W/fffe.json"
"$BIN" gate --baseline "$EX/nam56r_padded.json" --baseline "$EX/nam56r_padded_run2.json" \
    --candidate "$W/fffe.json" --output junit="$W/fffe.xml" > /dev/null
check junit_with_xml_forbidden_characters_parses python3 -c "
import xml.etree.ElementTree as ET
names = [c.get('name') for c in ET.parse('$W/fffe.xml').getroot().iter('testcase')]
assert len(names) == 1 and names[0].startswith('run3\\\\uFFFE\\\\uFFFF\\\\u0085\\\\x1B[31m '), names
"
if python3 -c "import lxml" 2>/dev/null; then
    check junit_with_xml_forbidden_characters_parses_with_lxml python3 -c "
from lxml import etree
root = etree.parse('$W/fffe.xml').getroot()
assert len(root.findall('.//testcase')) == 1
"
else
    echo "skip - junit_with_xml_forbidden_characters_parses_with_lxml: python3-lxml is not installed (scripts/install-deps.sh installs it)"
fi
exit $fail
