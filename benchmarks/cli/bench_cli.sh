#!/usr/bin/env bash
# bench_cli.sh — CLI throughput (not a test: no timing is asserted anywhere).
# Validates 2000 copies of one example receipt in one process, JSON and YAML,
# against Python's json.load of the same bytes (parse only) timed in the same
# run, and prints a markdown table.  usage: benchmarks/cli/bench_cli.sh [CLI]  (from the repo root)
set -eu
cli=${1:-build/scripts/mcpp-receipts}; n=2000; d=$(mktemp -d)
for i in $(seq $n); do cp examples/receipts/nam56r_padded.json $d/$i.json; cp examples/receipts/nam56r_padded.yaml $d/$i.yaml; done
t() { local s=$(date +%s%N); "$@" >/dev/null; echo $(( ($(date +%s%N) - s) / 1000000 )); }
base=$(t python3 -c 'import json,sys; [json.load(open(f)) for f in sys.argv[1:]]' $d/*.json)
vj=$(t "$cli" validate --quiet $d/*.json)
vy=$(t "$cli" validate --quiet $d/*.yaml)
vjson=$(t "$cli" validate --format json $d/*.json)
show=$(t sh -c "for f in $d/[1-9].json $d/[1-9][0-9].json $d/[1-9][0-9][0-9].json; do \"$cli\" show \$f; done")
printf '| what | files | ms | receipts/s | vs python json.load |\n|---|---|---|---|---|\n'
for row in "python3 json.load (parse only, baseline):$base:$n" "validate --quiet, JSON:$vj:$n" "validate --quiet, YAML:$vy:$n" "validate --format json, JSON:$vjson:$n"; do
  IFS=: read -r what ms files <<<"$row"
  printf '| %s | %d | %d | %d | %.2fx |\n' "$what" "$files" "$ms" $((files * 1000 / (ms > 0 ? ms : 1))) "$(echo "$base / $ms" | bc -l)"
done
printf '| show (text), one process per file | 999 | %d | %d | - |\n' "$show" $((999 * 1000 / show))
rm -rf "$d"
