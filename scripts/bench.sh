#!/usr/bin/env bash
# bench.sh — runs every benchmark in benchmarks/ one after the other and prints
# each one's table (each table carries its own baseline, measured in the same
# run), then how long each took. Not a test: nothing here asserts a timing.
#
#   scripts/bench.sh            # the sizes of benchmarks/README.md (under 10 minutes
#                               # on the 2-core development VM)
#   scripts/bench.sh --quick    # small sizes: a minute or two, to see everything runs
#
# Environment: BUILD (default build/release; built here with the benchmark
# targets), VENV (default .venv-py; made by scripts/test-python.sh, needed for
# the Python benchmarks, which are skipped with a message without it),
# BENCH_CORPUS (default build/bench-corpus: the generated receipt files of
# the Python benchmark, kept between runs because writing 10^5 files takes a
# minute or two).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
build="${BUILD:-build/release}"
venv="${VENV:-.venv-py}"
corpus="${BENCH_CORPUS:-build/bench-corpus}"
quick=0
[ "${1:-}" = "--quick" ] && quick=1

if [ "$quick" = 1 ]; then
    ingest_n=5000 compare_sizes=1000,10000 compare_py=10000 lua_n=20000
    py_n=5000 store_sizes=10000 store_py=5000 dist_n=20000 scale_sizes=1000,10000 scale_check='--quick --peer 300x3'
    strict_sizes=250,500 pandas_n=2000
else
    ingest_n=100000 compare_sizes=1000,10000,100000,1000000 compare_py=100000 lua_n=200000
    py_n=100000 store_sizes=20000 store_py=20000 dist_n=100000 scale_sizes=1000,10000,100000 scale_check=
    strict_sizes=250,500,1000,4000 pandas_n=20000
fi

echo "== building the benchmarks in $build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target bench_ingest bench_compare bench_policy_rules \
    bench_strict_frontier bench_null_shape mcpp-bench-kernels-cpu bench_store mcpp-receipts >/dev/null

summary=()
# run NAME COMMAND...: runs one benchmark, keeps its wall-clock seconds.
run() {
    local name=$1
    shift
    echo
    echo "== $name: $*"
    local t0=$SECONDS
    if "$@"; then
        summary+=("| $name | $((SECONDS - t0)) s | ok |")
    else
        summary+=("| $name | $((SECONDS - t0)) s | FAILED (exit $?) |")
    fi
}
# skip NAME WHY: a benchmark that cannot run here, with the reason.
skip() {
    echo
    echo "== $1: skipped: $2"
    summary+=("| $1 | - | skipped: $2 |")
}

echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"

run ingest "$build/benchmarks/ingest/bench_ingest" --count "$ingest_n"
run compare+frontier+gate benchmarks/compare/run.sh "$build" "$compare_sizes" "$compare_py"
run lua-rules "$build/benchmarks/lua/bench_policy_rules" policy examples/receipts "$lua_n"
run strict-frontier "$build/benchmarks/lua/bench_strict_frontier" policy --sizes "$strict_sizes"
run null-shape "$build/benchmarks/stats/bench_null_shape"
run kernels-cpu "$build/benchmarks/kernels/mcpp-bench-kernels-cpu"
if [ -x "$build/benchmarks/kernels/mcpp-bench-kernels-gpu" ] && command -v nvidia-smi >/dev/null &&
    nvidia-smi >/dev/null 2>&1; then
    run kernels-gpu "$build/benchmarks/kernels/mcpp-bench-kernels-gpu"
else
    skip kernels-gpu "no CUDA build or no GPU on this machine"
fi
run cli bash benchmarks/cli/bench_cli.sh "$build/scripts/mcpp-receipts"
if [ -x "$venv/bin/python" ]; then
    mkdir -p "$corpus"
    run python-load_dir+frontier "$venv/bin/python" benchmarks/python/bench_frontier.py \
        --count "$py_n" --dir "$corpus/python-$py_n"
    run python-to_pandas "$venv/bin/python" benchmarks/python/bench_to_pandas.py --count "$pandas_n"
    PYTHON="$repo/$venv/bin/python" run store benchmarks/store/run.sh "$build" "$store_sizes" "$store_py"
    run distributed "$venv/bin/python" benchmarks/distributed/bench_distributed.py --count "$dist_n"
    # shellcheck disable=SC2086 # $scale_check is several words on purpose
    run scale "$venv/bin/python" benchmarks/scale/bench_scale.py --sizes "$scale_sizes" $scale_check
    if "$venv/bin/python" -c "import torch" 2>/dev/null; then
        torch_args=()
        [ "$quick" = 1 ] && torch_args=(--quick)
        run torch-recorder "$venv/bin/python" benchmarks/torch/bench_recorder.py "${torch_args[@]}"
    else
        skip torch-recorder "PyTorch is not installed in $venv"
    fi
else
    skip python "no $venv (make it with scripts/test-python.sh)"
    skip store "needs $venv"
    skip distributed "needs $venv"
    skip scale "needs $venv"
fi

echo
echo "== wall-clock time per benchmark (total $SECONDS s)"
echo
echo "| benchmark | wall clock | result |"
echo "|---|---:|---|"
printf '%s\n' "${summary[@]}"
