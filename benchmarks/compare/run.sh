#!/bin/sh
# run.sh — the comparison-engine benchmark: pair comparisons per second,
# frontier time / memory for growing receipt counts, each next to a pure-Python
# implementation timed on the same receipts in the same run, and the gate's
# time for the same counts (the scaling curve). Prints the tables.
#
# usage: benchmarks/compare/run.sh [BUILD_DIR] [SIZES] [PYTHON_MAX]
#   BUILD_DIR   default build; needs benchmarks/compare/bench_compare built
#   SIZES       default 1000,10000,100000,1000000
#   PYTHON_MAX  largest size also run in Python (default 100000: the JSON lines
#               file of 10^6 receipts is several GB)
set -e
BUILD=${1:-build}
SIZES=${2:-1000,10000,100000,1000000}
PYMAX=${3:-100000}
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=$BUILD/benchmarks/compare/bench_compare
[ -x "$BENCH" ] || { echo "run.sh: $BENCH not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$BENCH" --sizes "$SIZES" --jsonl-dir "$tmp" --jsonl-max "$PYMAX" --seconds 1 >"$tmp/c.txt"

# value KEY LINE: the value of key=value in LINE.
value() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

echo "## pair comparisons (default policy, one core, CPU time)"
echo
echo "explained: mcpp_compare (verdict, metric, interval, gate outcome); rows and the gate's"
echo "reason are made when first read: rows_read reads them all, json_rendered renders the"
echo "JSON. Baseline: the verdict alone (mcpp_compare_verdict) on the same pairs, run in"
echo "batches interleaved with each explained row (the verdict rows run on their own)."
echo
echo "| what | comparisons/s | verdict alone, same pairs, comparisons/s | / verdict |"
echo "|---|---:|---:|---:|"
grep '^pairs ' "$tmp/c.txt" | while read -r line; do
    rate=$(value per_s "$line")
    base=$(value verdict_per_s "$line")
    if [ -n "$base" ]; then
        ratio=$(python3 -c "print('%.2fx' % ($rate / max($base, 1)))")
    else
        base="–" ratio="–"
    fi
    printf '| %s | %s | %s | %s |\n' "$(value kind "$line")" "$rate" "$base" "$ratio"
done
echo
echo "## frontier (default policy; C time is after loading; CPU time)"
echo
echo "| receipts | lanes | stable | C frontier s | µs/receipt | C extra memory | bytes/receipt | loaded bytes/receipt | Python frontier s | Python load s | Python / C |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
grep '^frontier ' "$tmp/c.txt" | while read -r line; do
    n=$(value n "$line")
    cs=$(value build_s "$line")
    py="–" pyload="–" ratio="–"
    if [ -f "$tmp/receipts_$n.jsonl" ]; then
        out=$(python3 "$HERE/pure_python_frontier.py" "$tmp/receipts_$n.jsonl")
        py=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["frontier_s"])')
        pyload=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["load_s"])')
        pylanes=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["lanes"], d["stable"])')
        if [ "$pylanes" != "$(value lanes "$line") $(value stable "$line")" ]; then
            echo "run.sh: Python and C disagree on lanes/stable for n=$n: $pylanes" >&2
            exit 1
        fi
        ratio=$(python3 -c "print('%.1fx' % ($py / max($cs, 1e-9)))")
        rm -f "$tmp/receipts_$n.jsonl"
    fi
    kib=$(value extra_kib "$line")
    loaded=$(python3 -c "print('%.0f' % ($(value receipts_kib "$line") * 1024 / $n))")
    per=$(python3 -c "print('%.2f' % ($cs * 1e6 / $n))")
    printf '| %s | %s | %s | %s | %s | %s MiB | %s | %s | %s | %s | %s |\n' "$n" "$(value lanes "$line")" \
        "$(value stable "$line")" "$cs" "$per" "$(python3 -c "print('%.1f' % ($kib / 1024))")" \
        "$(value extra_bytes_per_receipt "$line")" "$loaded" "$py" "$pyload" "$ratio"
done
echo
echo "## gate (default policy; 16 candidates against all other receipts as baselines; CPU time)"
echo
echo "many_lanes: the frontier's receipts (up to 1000 lanes); one_lane: the history of one lane,"
echo "every baseline comparable with every candidate (sizes up to 10^5)."
echo
echo "| receipts | kind | baselines | gate s | ns per candidate-baseline pair | outcome |"
echo "|---:|---|---:|---:|---:|---:|"
grep '^gate ' "$tmp/c.txt" | while read -r line; do
    printf '| %s | %s | %s | %s | %s | %s |\n' "$(value n "$line")" "$(value kind "$line")" "$(value baselines "$line")" \
        "$(value gate_s "$line")" "$(value ns_per_pair "$line")" "$(value outcome "$line")"
done
