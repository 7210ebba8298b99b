#!/usr/bin/env bash
# hostile_strings_test.sh — every command x output format on receipts and
# policies whose strings carry terminal escapes (OSC title, CSI colour/clear,
# BEL, the C1 CSI U+009B), markdown breakers (backticks, pipes, newlines) and
# HTML/JS injections. Each run must exit with its expected code and:
#   - hold no raw ESC, BEL or C1 control (stdout and stderr, every format);
#   - text/markdown: show the hostile string escaped (it reached the output);
#   - markdown: no raw "<script", "<img", unescaped "](" link or backtick from
#     the input (no code span, link or HTML can be opened);
#   - JSON: parse, and give back the hostile strings exactly.
# `policy test` runs hostile.cases.json, whose case name carries escapes and
# whose expectation fails, so the case and its rows are printed.
# `report` writes HTML: no raw control byte, no markup from a receipt.
# The escaping rules are in docs/output-safety.md.
#
# usage: hostile_strings_test.sh CLI CORPUS_DIR WORK_DIR
set -u
cli=$1 dir=$2 work=$3
mkdir -p "$work"
a=$dir/run1.json b=$dir/run2.json c=$dir/run3.json pol=$dir/hostile_strings.lua bad=$dir/hostile_error.lua
fail=0 count=0
raw_controls() { LC_ALL=C grep -c $'[\x1b\x07]\|\xc2[\x80-\x9f]' "$1"; }
not_ok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
# JSON that parses and holds, decoded, a string with the raw ESC sequences.
json_round_trips() {
  python3 - "$1" <<'PY'
import json, sys
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, dict):
        for k, x in v.items(): yield k; yield from strings(x)
    elif isinstance(v, list):
        for x in v: yield from strings(x)
text = open(sys.argv[1], encoding="utf-8").read()
try:
    docs = [json.loads(text)]
except ValueError:  # JSON lines (store ls)
    docs = [json.loads(line) for line in text.splitlines() if line.strip()]
sys.exit(0 if any("\x1b]0;pwned\x07" in s or "\x1b[31m" in s for d in docs for s in strings(d)) else 1)
PY
}
check_output() { # NAME FORMAT
  local name=$1 format=$2 out=$work/out.txt err=$work/err.txt
  if [ "$(( $(raw_controls "$out") + $(raw_controls "$err") ))" -ne 0 ]; then
    not_ok "$name" "raw terminal control bytes in the output"; return
  fi
  case $format in
  text|markdown)
    if ! grep -qF '\x1B' "$out" "$err"; then not_ok "$name" "no escaped hostile string in the output"; return; fi ;;
  esac
  if [ "$format" = markdown ]; then
    if grep -q '<script\|<img' "$out"; then not_ok "$name" "raw HTML in markdown"; return; fi
    if grep -q '[^\\]](' "$out"; then not_ok "$name" "an unescaped link in markdown"; return; fi
    if grep -qF 'x` ' "$out"; then not_ok "$name" "a backtick from a receipt is not escaped"; return; fi
  fi
  if [ "$format" = json ] && ! json_round_trips "$out"; then
    not_ok "$name" "JSON does not parse or lost the hostile strings"; return
  fi
  echo "ok - $name"
}
run() { # NAME FORMAT EXPECTED_EXIT ARGS...
  local name=$1 format=$2 want=$3; shift 3
  count=$((count + 1))
  "$cli" "$@" >"$work/out.txt" 2>"$work/err.txt"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    not_ok "$name" "exit $got, expected $want: $(head -c 300 "$work/err.txt" | LC_ALL=C tr -c '[:print:]\n' '?')"
    return
  fi
  check_output "$name" "$format"
}
for f in text json markdown; do
  run "compare --format $f" $f 0 compare "$a" "$b" --format $f
  run "compare --policy --format $f" $f 0 compare "$a" "$b" --policy "$pol" --format $f
  run "frontier --format $f" $f 0 frontier "$a" "$b" "$c" --format $f
  run "frontier --policy --format $f" $f 0 frontier "$a" "$b" "$c" --policy "$pol" --format $f
  run "gate --format $f" $f 0 gate --baseline "$a" --candidate "$b" --policy "$pol" --format $f
  run "claim --format $f" $f 0 claim --lane "family=NAM56R" --value 395000 "$a" "$b" "$c" --format $f
done
for f in text json; do
  run "validate --format $f" $f 0 validate --format $f "$a"
done
for f in text json yaml; do
  run "show --format $f" $f 0 show --format $f "$a"
done
run "policy check" text 0 policy check "$pol"
run "policy check (rule error)" text 3 policy check "$bad"
run "compare (rule error)" text 3 compare "$a" "$b" --policy "$bad"
run "policy test (failing case)" text 1 policy test "$pol" "$dir/hostile.cases.json"
db=$work/hostile.db
rm -f "$db"
if "$cli" store init "$db" >/dev/null && "$cli" store add "$db" "$a" "$b" "$c" >/dev/null; then
  for f in text json markdown; do
    run "history --format $f" $f 0 history --store "$db" --format $f
  done
  for f in text json; do
    run "store ls --format $f" $f 0 store ls "$db" --format $f
  done
else
  count=$((count + 1)); not_ok "store add" "could not store the hostile receipts"
fi
# the HTML report: no raw control byte, and no markup from a receipt survives
count=$((count + 1))
if "$cli" report "$a" "$b" "$c" --out "$work/report.html" >"$work/out.txt" 2>"$work/err.txt"; then
  if [ "$(raw_controls "$work/report.html")" -ne 0 ]; then not_ok "report html" "raw terminal control bytes"
  elif grep -q '<script\|<img' "$work/report.html"; then not_ok "report html" "raw HTML from a receipt"
  elif ! grep -qF '&lt;script&gt;' "$work/report.html"; then not_ok "report html" "the hostile markup did not reach the page"
  else echo "ok - report html"; fi
else
  not_ok "report html" "exit $?"
fi
echo "$((count - fail)) of $count command x format runs escape hostile strings; $fail failed"
[ "$fail" -eq 0 ]
