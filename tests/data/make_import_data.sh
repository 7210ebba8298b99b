#!/usr/bin/env bash
# make_import_data.sh — makes the committed inputs of the importer tests with
# the real tools on this machine: hyperfine (apt), Go (apt golang-go), pyperf,
# asv and the MLPerf Inference LoadGen (PyPI mlcommons-loadgen). Each tool runs
# three times: base, noise (the same work again) and slow (MCPP_SLOW=3: the
# benchmark does three times the work). pytest-benchmark (PyPI) and Google
# Benchmark (apt libbenchmark-dev) run once: their base.json is the shape the
# importer memory test (tests/import/import_memory_test.py) replicates to
# megabytes. Nothing is edited by hand afterwards.
#
# usage: tests/data/make_import_data.sh VENV [TOOL...]   (TOOL: hyperfine go pyperf asv
#        mlperf-inference pytest-benchmark google-benchmark, default all; VENV has pyperf,
#        asv, mlcommons-loadgen, pytest-benchmark: python3 -m venv VENV &&
#        VENV/bin/pip install pyperf asv mlcommons-loadgen pytest-benchmark)
set -euo pipefail
venv=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shift
tools=${*:-hyperfine go pyperf asv mlperf-inference pytest-benchmark google-benchmark}
want() { [[ " $tools " == *" $1 "* ]]; }
# HOME: asv keeps its machine file there; GOCACHE: Go's build cache
export PATH="$venv/bin:$PATH" HOME="$tmp" GOCACHE="$tmp/gocache" GOFLAGS=-mod=mod GOTOOLCHAIN=local
runs="base:1 noise:1 slow:3"

# hyperfine --export-json: two commands, 10 runs each
want hyperfine && cd "$here/hyperfine" && for r in $runs; do
    MCPP_SLOW=${r#*:} hyperfine -N --runs 10 --warmup 2 --export-json "${r%%:*}.json" \
        'sh work.sh' 'sh -c "seq 50000 | wc -l"' >/dev/null
done

# go test -bench: text (-count 5) and -json (test2json)
if want go; then
    cd "$here/go/mcppbench"
    for r in $runs; do
        MCPP_SLOW=${r#*:} go test -run '^$' -bench . -count 5 -benchtime 100ms >"../${r%%:*}.txt"
    done
    MCPP_SLOW=1 go test -json -run '^$' -bench . -count 5 -benchtime 100ms >../base.jsonl
    MCPP_SLOW=3 go test -json -run '^$' -bench . -count 5 -benchtime 100ms >../slow.jsonl
    # two packages (./...: the module and sum/), each closed by its own pass event
    MCPP_SLOW=1 go test -json -run '^$' -bench . -count 3 -benchtime 20ms ./... >../multi.jsonl
fi

# pyperf: 6 worker processes (runs) of 5 values each
want pyperf && cd "$here/pyperf" && for r in $runs; do
    rm -f "${r%%:*}.json"
    MCPP_SLOW=${r#*:} python bench_sort.py --processes 6 --values 5 --warmups 1 --min-time 0.02 \
        --inherit-environ MCPP_SLOW -o "${r%%:*}.json" -q
done

# asv run --record-samples in a throwaway git repository of asv/project
want asv && for r in $runs; do
    rm -rf "$tmp/asv" "$here/asv/${r%%:*}" && cp -r "$here/asv/project" "$tmp/asv" && cd "$tmp/asv"
    git init -q && git add -A && git -c user.name=mcpp -c user.email=mcpp@example.com commit -qm bench
    asv machine --yes >/dev/null # the machine facts asv detects, under the host name
    MCPP_SLOW=${r#*:} asv run --python=same --record-samples -a repeat=5 \
        --set-commit-hash "$(git rev-parse HEAD)" >/dev/null
    mkdir -p "$here/asv/${r%%:*}" && cp -r results "$here/asv/${r%%:*}/"
done

# MLPerf Inference LoadGen: Offline and SingleStream, laid out as the public
# results repository lays out a submission (ROOT/closed/<submitter>/results/
# <system>/<model>/<scenario>/performance/run_1/); the system description is
# this machine's, written in the submission format.
# MLPerf Inference LoadGen: Offline and SingleStream (base, noise, slow), Server and
# MultiStream once (scenarios), laid out as the public results repository lays out a
# submission (ROOT/closed/<submitter>/results/<system>/<model>/<scenario>/performance/
# run_1/); the system description is this machine's, written in the submission format.
mlperf_inference() { # SET SLOW SCENARIO...
    local root="$here/mlperf-inference/$1/inference_results_v6.0/closed/mcpp" slow=$2 s
    shift 2
    rm -rf "$here/mlperf-inference/$1"
    mkdir -p "$root/systems"
    for s in "$@"; do
        out="$root/results/toy-cpu/sort2000/$s/performance/run_1"
        MCPP_SLOW=$slow python toy_sut.py "$s" "$out"
        rm -f "$out/mlperf_log_trace.json" "$out/mlperf_log_accuracy.json"
    done
    python3 - "$root/systems/toy-cpu.json" <<'PY'
import json, os, platform, sys
cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
json.dump({"submitter": "mcpp", "division": "closed", "status": "research", "system_name": "toy-cpu",
           "system_type": "datacenter", "number_of_nodes": "1", "host_processors_per_node": "1",
           "host_processor_model_name": cpu, "host_processor_core_count": str(os.cpu_count()),
           "accelerators_per_node": "0", "accelerator_model_name": "N/A",
           "framework": "python " + platform.python_version(),
           "operating_system": platform.system() + " " + platform.release()},
          open(sys.argv[1], "w"), indent=4)
PY
}
if want mlperf-inference; then
    cd "$here/mlperf-inference"
    for r in $runs; do mlperf_inference "${r%%:*}" "${r#*:}" Offline SingleStream; done
    mlperf_inference scenarios 1 Server MultiStream
fi
# pytest-benchmark: --benchmark-json with the round times (stats.data), few rounds
want pytest-benchmark && cd "$tmp" && cp "$here/pytest-benchmark/bench_cases.py" . &&
    python -m pytest -q -p no:cacheprovider bench_cases.py --benchmark-json="$here/pytest-benchmark/base.json" \
        --benchmark-min-rounds=5 --benchmark-max-time=0.005 --benchmark-disable-gc >/dev/null

# Google Benchmark: tests/import/gbench_sort.cc, 3 repetitions (with its aggregate rows)
want google-benchmark && c++ -O2 -o "$tmp/gbench" "$here/../import/gbench_sort.cc" -lbenchmark -lpthread &&
    "$tmp/gbench" --benchmark_repetitions=3 --benchmark_min_time=0.01 \
        --benchmark_out="$here/google-benchmark/base.json" --benchmark_out_format=json >/dev/null
echo "made: $tools under $here"
