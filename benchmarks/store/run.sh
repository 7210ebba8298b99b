#!/bin/sh
# run.sh — the receipt store benchmarks, each with its baseline from the same run:
# adding N receipts in one call (vs plain SQLite inserting the same JSON), frontier
# --store (vs the frontier over the same receipts in memory), the history site
# (vs the history it shows), and loading into Python (vs load_dir of the same
# receipts as files). Prints markdown tables.
#
# usage: benchmarks/store/run.sh [BUILD_DIR] [SIZES] [PYTHON_COUNT]
#   BUILD_DIR     default build/release; needs benchmarks/store/bench_store built
#   SIZES         default 100000,1000000 (receipts per C run)
#   PYTHON_COUNT  default 100000; 0 skips the Python part (needs .venv-py)
set -e
BUILD=${1:-build/release}
SIZES=${2:-100000,1000000}
PYCOUNT=${3:-100000}
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=$BUILD/benchmarks/store/bench_store
[ -x "$BENCH" ] || { echo "run.sh: $BENCH not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$BENCH" --sizes "$SIZES" --dir "$tmp" >"$tmp/c.txt"
value() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

echo "## adding N receipts in one call (wall time; cpu = the process's CPU seconds)"
echo
echo "| receipts | store add s | receipts/s | cpu s | plain SQLite s (floor) | plain receipts/s | store / plain | store bytes/receipt | plain bytes/receipt |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
grep '^add ' "$tmp/c.txt" | while read -r line; do
    printf '| %s | %s | %s | %s | %s | %s | %sx | %s | %s |\n' "$(value n "$line")" "$(value add_s "$line")" \
        "$(value per_s "$line")" "$(value cpu_s "$line")" "$(value raw_sqlite_s "$line")" \
        "$(value raw_per_s "$line")" "$(value ratio "$line")" "$(value bytes_per_receipt "$line")" \
        "$(value raw_bytes_per_receipt "$line")"
done
echo
echo "An add stores no receipt image; the first read makes them (docs/store.md). Bytes per receipt once"
echo "every row was read:"
echo
echo "| receipts | store bytes/receipt with images |"
echo "|---:|---:|"
grep '^images ' "$tmp/c.txt" | while read -r line; do
    printf '| %s | %s |\n' "$(value n "$line")" "$(value bytes_per_receipt "$line")"
done
echo
echo "## frontier --store (from the store's lane summaries) vs the frontier of the same receipts in memory"
echo
echo "| receipts | lanes | frontier --store s | in memory s (baseline) | store / in memory | the first frontier after the add (saves the summaries) s | read every receipt + build s (before the summaries) | that read (makes the images) s | read again (from the images) s |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
grep '^frontier ' "$tmp/c.txt" | while read -r line; do
    printf '| %s | %s | %s | %s | %sx | %s | %s | %s | %s |\n' "$(value n "$line")" "$(value lanes "$line")" \
        "$(value store_total_s "$line")" "$(value memory_build_s "$line")" "$(value ratio "$line")" \
        "$(value first_after_add_s "$line")" "$(value read_all_s "$line")" "$(value read_s "$line")" \
        "$(value read_again_s "$line")"
done
echo
echo "## site (the history site) vs the history it shows (history --store --format json)"
echo
echo "Again with nothing new: the median of 5, alternated with 5 where the gate page's inputs were"
echo "forgotten (the gate made again, as the build before did every time; no page written either)."
echo
echo "| receipts | history s (baseline) | first site s | pages | site / history | again, nothing new s | again / history | gate made again s | again / gate made (wall, CPU) | pages written | after 100 new receipts s | pages written |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
grep '^site ' "$tmp/c.txt" | while read -r line; do
    printf '| %s | %s | %s | %s | %sx | %s | %sx | %s | %sx, %sx | %s | %s | %s |\n' "$(value n "$line")" \
        "$(value history_s "$line")" "$(value first_s "$line")" "$(value pages "$line")" "$(value ratio "$line")" \
        "$(value unchanged_s "$line")" "$(value again_ratio "$line")" "$(value regate_s "$line")" \
        "$(value skip_ratio "$line")" "$(value skip_cpu_ratio "$line")" "$(value written_again "$line")" \
        "$(value after_add_s "$line")" "$(value written_after_add "$line")"
done
echo
if [ "$PYCOUNT" != 0 ]; then
    PY=${PYTHON:-$HERE/../../.venv-py/bin/python}
    "$PY" "$HERE/bench_store.py" --count "$PYCOUNT"
fi
