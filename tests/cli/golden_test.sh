#!/usr/bin/env bash
# golden_test.sh — the CLI on the example receipts, as a user sees it:
#   * every example (JSON and YAML) validates; the validate text output, the
#     `show` text of each example and the --format json of validate match the
#     golden files byte for byte;
#   * the examples are canonical: convert --to json gives each .json back
#     unchanged, --to yaml gives its .yaml twin, and JSON -> YAML -> JSON is
#     byte-identical;
#   * show --format json|yaml equals convert; "-" reads stdin;
#   * --help for every command; exit codes for bad usage (3), invalid input
#     (3) and a failed write to stdout (4).
#
# MCPP_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing (review
# the diff before committing it).
#
# usage: golden_test.sh CLI EXAMPLES_DIR GOLDEN_DIR WORK_DIR
set -u
# absolute paths: the checks below run from inside the examples directory
case $1 in */*) cli=$(realpath "$1") ;; *) cli=$(command -v "$1") ;; esac
examples=$2 golden=$(cd "$3" && pwd) work=$4
rm -rf "$work" && mkdir -p "$work" && work=$(cd "$work" && pwd)
pass=0 fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
bad() { echo "not ok - $*"; fail=$((fail + 1)); }

# same_bytes LABEL ACTUAL_FILE EXPECTED_FILE
same_bytes() {
  if cmp -s "$2" "$3"; then ok "$1"
  else bad "$1"; diff -u "$3" "$2" | head -n 40 | sed 's/^/    /'; fi
}
# golden LABEL ACTUAL_FILE GOLDEN_NAME
golden() {
  if [ "${MCPP_UPDATE_GOLDEN:-0}" = 1 ]; then cp "$2" "$golden/$3"; ok "$1 (golden updated)"; return; fi
  if [ ! -f "$golden/$3" ]; then bad "$1: golden file $3 is missing"; return; fi
  same_bytes "$1" "$2" "$golden/$3"
}
# expect_exit LABEL CODE CMD...   (stdout+stderr kept in $work/last.out)
expect_exit() {
  local label=$1 code=$2; shift 2
  "$@" >"$work/last.out" 2>&1; local rc=$?
  if [ "$rc" -eq "$code" ]; then ok "$label (exit $rc)"
  else bad "$label: exit $rc, expected $code"; head -n 20 "$work/last.out" | sed 's/^/    /'; fi
}
contains() { # LABEL FILE TEXT
  if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1: no '$3' in:"; head -n 20 "$2" | sed 's/^/    /'; fi
}

cd "$examples" || { bad "no examples dir $examples"; exit 1; }
jsons=(*.json)
[ "${#jsons[@]}" -ge 9 ] && ok "${#jsons[@]} example receipts" || bad "only ${#jsons[@]} example receipts"

# ---- every example validates --------------------------------------------------------
expect_exit "all JSON and YAML examples validate" 0 "$cli" validate ./*.json ./*.yaml
cp "$work/last.out" "$work/validate.txt"
golden "validate text output of the examples" "$work/validate.txt" validate_examples.txt
for f in *.json *.yaml; do
  contains "$f reported ok with its id and lane" "$work/validate.txt" "ok ./$f (id "
done
expect_exit "validate --format json of the examples" 0 "$cli" validate --format json ./*.json
cp "$work/last.out" "$work/validate.json"
golden "validate --format json output" "$work/validate.json" validate_examples.json
if command -v python3 >/dev/null; then
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["invalid"]==0 and d["valid"]==len(d["files"])' \
       "$work/validate.json" 2>"$work/py.err"; then ok "validate --format json parses and counts every file valid"
  else bad "validate --format json is not the expected JSON"; sed 's/^/    /' "$work/py.err"; fi
fi
expect_exit "validate --quiet on valid input" 0 "$cli" validate --quiet ./*.json
[ ! -s "$work/last.out" ] && ok "validate --quiet prints nothing when all are valid" \
  || { bad "validate --quiet printed:"; head -n 5 "$work/last.out"; }

# ---- a directory stands for its receipt files (as gate and frontier read it) ---------------
mkdir -p "$work/tree/sub" "$work/tree/.hidden" "$work/empty"
cp nam52_dense.json nam56r_padded.yaml "$work/tree/" && cp nam56r_padded.json "$work/tree/sub/"
cp nam52_dense.json "$work/tree/.hidden/" && echo "not a receipt" >"$work/tree/notes.txt"
expect_exit "validate DIR walks it" 0 "$cli" validate "$work/tree"
sed "s|$work/tree|T|g" "$work/last.out" | grep -o '^ok [^ ]*\|^[0-9]* files: [0-9]* valid' >"$work/tree.out"
printf 'ok T/nam52_dense.json\nok T/nam56r_padded.yaml\nok T/sub/nam56r_padded.json\n3 files: 3 valid\n' \
  >"$work/tree.want"
same_bytes "validate DIR: its receipt files in byte order, recursively, JSON and YAML; no dot entries, no .txt" \
  "$work/tree.out" "$work/tree.want"
expect_exit "validate of a directory with no receipt files" 3 "$cli" validate "$work/empty"
contains "it says the directory holds none" "$work/last.out" "a directory with no receipt files"
mkdir -p "$work/looped" && cp nam52_dense.json "$work/looped/" && ln -s . "$work/looped/a_loop"
expect_exit "validate of a directory holding a link to itself" 3 "$cli" validate "$work/looped"
contains "the loop is named as too deep" "$work/last.out" "directories nested deeper than 32"
contains "and the files past it are still read" "$work/last.out" "ok $work/looped/nam52_dense.json (id "

# ---- canonical forms and round trips ----------------------------------------------------
for f in *.json; do
  stem=${f%.json}
  "$cli" convert "$f" --to json >"$work/$stem.json" 2>"$work/err" || bad "convert $f --to json failed"
  same_bytes "$f is canonical (convert --to json gives it back byte for byte)" "$work/$stem.json" "$f"
  "$cli" convert "$f" --to yaml >"$work/$stem.yaml" 2>"$work/err" || bad "convert $f --to yaml failed"
  if [ -f "$stem.yaml" ]; then
    same_bytes "$f --to yaml is its twin $stem.yaml" "$work/$stem.yaml" "$stem.yaml"
    "$cli" convert "$stem.yaml" --to json >"$work/$stem.from_yaml.json" 2>"$work/err"
    same_bytes "$stem.yaml --to json is its twin $f" "$work/$stem.from_yaml.json" "$f"
  else
    bad "$f has no YAML twin $stem.yaml"
  fi
  "$cli" convert "$f" --to yaml | "$cli" convert - --to json >"$work/$stem.rt.json" 2>"$work/err"
  same_bytes "$f JSON -> YAML -> JSON (through stdin) is byte-identical" "$work/$stem.rt.json" "$f"
  "$cli" show "$f" --format json >"$work/$stem.show.json" 2>&1
  same_bytes "show $f --format json equals its canonical JSON" "$work/$stem.show.json" "$f"
  "$cli" show --format=yaml "$f" >"$work/$stem.show.yaml" 2>&1
  same_bytes "show $f --format=yaml equals convert --to yaml" "$work/$stem.show.yaml" "$work/$stem.yaml"
  expect_exit "show $f (text)" 0 "$cli" show "$f"
  cp "$work/last.out" "$work/$stem.show.txt"
  golden "show $f text output" "$work/$stem.show.txt" "show_$stem.txt"
  "$cli" show "$stem.yaml" 2>&1 | sed 1,2d >"$work/$stem.show_yaml.txt"
  sed 1,2d "$work/$stem.show.txt" >"$work/$stem.show_json.txt"
  same_bytes "show $stem.yaml prints what show $f prints (but the file name)" "$work/$stem.show_yaml.txt" "$work/$stem.show_json.txt"
done

# ---- schema 1 on request -----------------------------------------------------------------
"$cli" convert nam56r_padded.json --to json --schema 1 >"$work/v1.json" 2>"$work/err" \
  && ok "convert --schema 1 writes a schema-1 receipt" || bad "convert --schema 1 failed"
contains "the schema-1 text names schema 1" "$work/v1.json" '"schema": "mcpp.receipt/1"'
contains "the schema-1 text has the one precision of schema 1" "$work/v1.json" '"precision": "bf16"'
"$cli" convert "$work/v1.json" --to json >"$work/v1_back.json" 2>"$work/v1_back.err"
same_bytes "schema 2 -> schema 1 -> schema 2 gives back the example byte for byte" "$work/v1_back.json" nam56r_padded.json
contains "reading schema 1 warns that it was upgraded" "$work/v1_back.err" "read as mcpp.receipt/1 and upgraded to mcpp.receipt/2"
expect_exit "convert --schema 1 of a receipt with schema-2 fields is refused" 3 \
  "$cli" convert schema2/mlperf_llama2_70b_lora.json --to yaml --schema=1
contains "the refusal names the field" "$work/last.out" "source.not_recorded: source.not_recorded has no place in schema mcpp.receipt/1"
expect_exit "convert --schema 3 is a usage error" 3 "$cli" convert nam56r_padded.json --to json --schema 3

# ---- what the text of show says --------------------------------------------------------
"$cli" show h200_requested_h100_observed.json >"$work/h200.txt" 2>&1
contains "show marks the H200-requested/H100-observed accelerator as differing" "$work/h200.txt" "! differs"
contains "show puts requested and observed accelerators on one line" "$work/h200.txt" "NVIDIA H200"
"$cli" show nam56r_jagged_graph_breaks.json >"$work/jagged.txt" 2>&1
if grep -E '^  moe +padded +-> jagged +! differs$' "$work/jagged.txt" >/dev/null; then
  ok "show prints the MoE lane as 'padded -> jagged ! differs'"
else bad "show lacks the moe padded -> jagged line"; grep -n moe "$work/jagged.txt" | sed 's/^/    /'; fi
contains "show lists the caveats" "$work/jagged.txt" "- 3 graph breaks"
contains "show gives median, p10, p90 and n of the step time" "$work/jagged.txt" "n=16"
for s in Lane Workload Routing Compile Backend Hardware Topology Metrics Status; do
  grep -qx "$s.*" "$work/jagged.txt" && ok "show has a $s section" || bad "show has no $s section"
done
"$cli" show nam52_dense.json >"$work/nam52.txt" 2>&1
if grep -q '^Routing' "$work/nam52.txt"; then bad "show prints a Routing section for a dense lane"
else ok "show leaves out sections a receipt does not have (no Routing for NAM52 dense)"; fi

# ---- warnings: reported, but the receipt is valid ----------------------------------------
printf 'schema: mcpp.receipt/2\nid: warned\nlane:\n  family: NAM52\n  pattern: AMMM\nmetrics:\n  window:\n    measured_steps: 4\n  step_time_s:\n    samples: [1.0, 1.1, 1.2]\n' >"$work/warned.yaml"
expect_exit "a receipt with only warnings is valid" 0 "$cli" validate "$work/warned.yaml"
contains "its ok line is printed" "$work/last.out" "ok $work/warned.yaml (id warned, lane NAM52 AMMM)"
contains "its warning is printed with location, field and category" "$work/last.out" \
  "$work/warned.yaml:8:21: metrics.window.measured_steps: 4 measured steps but 3 step samples [warning: consistency]"
# (it states no shape, hardware or backend: the second warning says it can never be compared)
contains "a receipt nothing can be compared with is warned about" "$work/last.out" \
  "warned.yaml: warning: can never be compared under the default policy"
contains "the summary counts the warnings" "$work/last.out" "1 file: 1 valid, 0 invalid, 2 warnings"
expect_exit "validate --quiet hides warnings" 0 "$cli" validate --quiet "$work/warned.yaml"
[ ! -s "$work/last.out" ] && ok "validate --quiet printed nothing for a warning" || bad "--quiet printed a warning"
"$cli" show "$work/warned.yaml" >"$work/warned.show" 2>"$work/warned.err"
contains "show prints the warning on stderr, not in the document" "$work/warned.err" "[warning: consistency]"
if grep -q warning "$work/warned.show"; then bad "show put the warning on stdout"; else ok "show's stdout has no warning"; fi
contains "show says the id was given" "$work/warned.show" "warned"
printf 'schema: mcpp.receipt/1\nlane:\n  pattern: AMMM\n' | "$cli" show - >"$work/derived.show" 2>&1
contains "show marks an id the library derived from the content" "$work/derived.show" "(derived)"

# ---- terminal safety: a receipt's strings cannot drive the terminal ----------------------
printf '{"schema": "mcpp.receipt/1", "id": "evil\\u001b[31mred", "status": {"caveats": ["a\\u001b]0;title\\u0007b"]}}\n' >"$work/escape.json"
"$cli" show "$work/escape.json" >"$work/escape.show" 2>&1
"$cli" validate "$work/escape.json" >>"$work/escape.show" 2>&1
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$work/escape.show"; then bad "show/validate passed control characters to the terminal"
else ok "show and validate print no control characters from receipt strings"; fi
contains "an ESC in a string is shown as \\x1B" "$work/escape.show" 'evil\x1B[31mred'

# ---- stdin ------------------------------------------------------------------------------------
"$cli" validate - <nam52_dense.yaml >"$work/stdin.out" 2>&1
contains "validate - reads a YAML receipt from stdin" "$work/stdin.out" "ok <stdin> (id nam52-dense-2026-03-12"
"$cli" validate <(cat nam52_dense.yaml) >"$work/fifo.out" 2>&1
contains "validate reads a pipe given as a path (process substitution)" "$work/fifo.out" "(id nam52-dense-2026-03-12"
"$cli" convert - --to json <nam52_dense.yaml >"$work/stdin.json" 2>&1
same_bytes "convert - --to json from YAML on stdin gives the JSON twin" "$work/stdin.json" nam52_dense.json

# ---- help ----------------------------------------------------------------------------------------
for c in validate show convert; do
  expect_exit "$c --help" 0 "$cli" "$c" --help
  for want in "usage: mcpp-receipts $c" "exit codes:" "example:" "  mcpp-receipts $c "; do
    contains "$c --help shows '$want'" "$work/last.out" "$want"
  done
  expect_exit "$c -h" 0 "$cli" "$c" -h
done

# show heads every section with its name capitalised, the ones added in schema 2 as well
expect_exit "show a suite result" 0 "$cli" show schema2/pytest_benchmark_sorted.json
for want in "Benchmark" "Software" "Run"; do
  grep -qx -- "$want" "$work/last.out" && ok "show heads the section '$want'" || bad "show: no heading '$want'"
done

# claim --help prints the selector keys the library takes (the dimension table's), so
# the keys of the benchmark dimension are there as well
expect_exit "claim --help" 0 "$cli" claim --help
for want in "suite benchmark system submitter" "family pattern depth name" "accelerator count" "startup warmup_steps useful_tokens, or any schema path"; do
  contains "claim --help lists '$want'" "$work/last.out" "$want"
done

# ---- exit codes ------------------------------------------------------------------------------
expect_exit "validate with an unknown option" 3 "$cli" validate --frobnicate nam52_dense.json
contains "an unknown option prints the usage" "$work/last.out" "usage: mcpp-receipts validate"
contains "an unknown option is named" "$work/last.out" "unknown option '--frobnicate'"
expect_exit "show with an unknown option" 3 "$cli" show -x nam52_dense.json
contains "show's unknown option prints the usage" "$work/last.out" "usage: mcpp-receipts show"
expect_exit "convert with an unknown option" 3 "$cli" convert --from json nam52_dense.json --to yaml
contains "convert's unknown option prints the usage" "$work/last.out" "usage: mcpp-receipts convert"
# every command says what a usage slip was in its first line, then its usage and where the
# rest of the help is: never the whole help with no word of the slip (gate's is 40 lines)
slip() { # LABEL FIRST_LINE CMD...
  local label=$1 first=$2; shift 2
  "$@" >"$work/slip.out" 2>&1; local rc=$?
  if [ "$rc" -eq 3 ] && [ "$(head -n 1 "$work/slip.out")" = "$first" ] && grep -q '^usage: ' "$work/slip.out" &&
     grep -q -- "--help' for more\.$" "$work/slip.out" && [ "$(wc -l <"$work/slip.out")" -le 12 ]; then
    ok "$label"
  else
    bad "$label: exit $rc"; head -n 14 "$work/slip.out" | sed 's/^/    /'
  fi
}
slip "store without a subcommand says so" "mcpp-receipts store: name a subcommand: init, add, ls, query, export, rm, removed or check" "$cli" store
slip "store add without DB says so" "mcpp-receipts store: add needs DB: a SQLite file or a postgresql:// URL" "$cli" store add
slip "store with an unknown subcommand names it" "mcpp-receipts store: unknown subcommand 'frob'" "$cli" store frob x.db
slip "history without --store says so" "mcpp-receipts history: --store DB is required" "$cli" history
slip "report without --out says so" "mcpp-receipts report: --out FILE.html is missing: the page has to go somewhere" "$cli" report .
slip "site without --out says so" "mcpp-receipts site: --out DIR is required" "$cli" site --store x.db
slip "policy without a subcommand says so" "mcpp-receipts policy: name a subcommand: check or test" "$cli" policy
slip "policy check without a file says so" "mcpp-receipts policy: check needs at least one POLICY.lua" "$cli" policy check
slip "import without a format says so" "mcpp-receipts import: name a FORMAT (mcpp-receipts import --help lists them)" "$cli" import
slip "import with an unknown option names it" "mcpp-receipts import: unknown option '--frob'" "$cli" import --frob
slip "validate with an unknown option names it" "mcpp-receipts validate: unknown option '--frob'" "$cli" validate --frob x
# compare, frontier, gate and claim share one option parser, store has its own: each names its
# command and prints that command's usage (they printed "mcpp-receipts: unknown option" alone)
slip "gate with an unknown option names it" "mcpp-receipts gate: unknown option '--frob'" \
  "$cli" gate --baseline x --candidate y --frob
slip "frontier with an option and no value says so" "mcpp-receipts frontier: --policy needs a value" \
  "$cli" frontier x --policy
# --policy strict is the shipped policy of that name (it said "cannot open policy 'strict'")
"$cli" frontier . --policy "$(dirname "$0")/../../policy/strict.lua" --format json >"$work/strict_by_path.out" 2>&1
expect_exit "frontier --policy strict (a shipped policy's name)" 0 "$cli" frontier . --policy strict --format json
if cmp -s "$work/last.out" "$work/strict_by_path.out"; then ok "--policy strict reads policy/strict.lua"; else bad "--policy strict differs from the file"; fi
expect_exit "frontier --policy stict" 3 "$cli" frontier . --policy stict
contains "a policy that is neither a file nor shipped lists the shipped names" "$work/last.out" \
  "mcpp-receipts: --policy takes a .lua file or a shipped policy's name: ablation cross_hardware default"
slip "compare with an unknown option names it" "mcpp-receipts compare: unknown option '--frob'" "$cli" compare a b --frob
slip "claim with an unknown option names it" "mcpp-receipts claim: unknown option '--frob'" \
  "$cli" claim --lane x --value 1 --frob
slip "gate --new-lanes maybe says what it takes" "mcpp-receipts gate: --new-lanes 'maybe': expected pass or fail" \
  "$cli" gate --baseline x --candidate y --new-lanes maybe
slip "store with an unknown option names it" "mcpp-receipts store: unknown option '--limt'" "$cli" store ls x.db --limt 3
slip "store --limit 0 says what it takes" "mcpp-receipts store: --limit '0' is not a positive integer" \
  "$cli" store ls x.db --limit 0
slip "show of a directory says what takes one" \
  "mcpp-receipts show: '.' is a directory: show takes one receipt file (validate DIR checks each file in it, frontier DIR groups them into lanes)" \
  "$cli" show .
slip "store rm without --reason says what it needs" \
  "mcpp-receipts store: rm needs DB, one ID and --reason TEXT (kept with its tombstone)" "$cli" store rm x.db some-id
"$cli" convert nam52_dense.json --to yaml >"$work/as_yaml.out" 2>&1
expect_exit "convert --to yml (the files' own extension) is --to yaml" 0 "$cli" convert nam52_dense.json --to yml
if cmp -s "$work/last.out" "$work/as_yaml.out"; then ok "convert --to yml writes what --to yaml writes"; else bad "convert --to yml differs from --to yaml"; fi
expect_exit "validate with no FILE" 3 "$cli" validate
expect_exit "validate --format xml" 3 "$cli" validate --format xml nam52_dense.json
expect_exit "validate --format without a value" 3 "$cli" validate nam52_dense.json --format
expect_exit "show --format markdown" 3 "$cli" show --format markdown nam52_dense.json
expect_exit "show with two files" 3 "$cli" show nam52_dense.json nam52_dense.yaml
expect_exit "convert without --to" 3 "$cli" convert nam52_dense.json
expect_exit "convert --to toml" 3 "$cli" convert nam52_dense.json --to toml
expect_exit "validate a file that does not exist" 3 "$cli" validate "$work/no_such_receipt.json"
contains "a missing file is reported by name" "$work/last.out" "no_such_receipt.json"
printf '{"schema": "mcpp.receipt/1", "workload": {"seq_len": "long"}}\n' >"$work/bad.json"
expect_exit "validate one valid and one invalid file" 3 "$cli" validate nam52_dense.json "$work/bad.json"
contains "the valid one is still reported ok" "$work/last.out" "ok nam52_dense.json"
contains "the invalid one is reported with line and field" "$work/last.out" "bad.json:1:"
contains "the summary counts both" "$work/last.out" "2 files: 1 valid, 1 invalid"
expect_exit "validate --quiet on invalid input" 3 "$cli" validate -q "$work/bad.json"
contains "validate --quiet still prints the error" "$work/last.out" "workload.seq_len"
expect_exit "show an invalid receipt" 3 "$cli" show "$work/bad.json"
expect_exit "convert an invalid receipt" 3 "$cli" convert "$work/bad.json" --to yaml
[ -z "$(cat "$work/bad.json" | "$cli" convert - --to json 2>/dev/null)" ] \
  && ok "convert prints nothing on stdout for an invalid receipt" || bad "convert printed a document for invalid input"
expect_exit "validate --format json on invalid input" 3 "$cli" validate --format json "$work/bad.json"
contains "json output carries the diagnostic's field" "$work/last.out" '"field": "workload.seq_len"'
expect_exit "-- ends the options" 0 "$cli" validate -- nam52_dense.json
if [ -w /dev/full ]; then
  expect_exit "convert to a full disk is an internal error" 4 sh -c "\"$cli\" convert nam52_dense.json --to json >/dev/full"
  expect_exit "validate to a full disk is an internal error" 4 sh -c "\"$cli\" validate nam52_dense.json >/dev/full"
fi
expect_exit "show with stdout closed is an internal error" 4 sh -c "\"$cli\" show nam52_dense.json --format yaml >&-"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
