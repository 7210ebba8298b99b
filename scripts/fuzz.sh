#!/usr/bin/env bash
# fuzz.sh — builds the libFuzzer targets of tests/fuzz with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer (build/fuzz) and runs each
# for a bounded time, seeded from tests/fuzz/corpus and the repository's own
# inputs (example receipts, hostile CLI inputs, shipped and hostile policies),
# with its dictionary. New interesting inputs go to build/fuzz/corpus/TARGET,
# crashes to build/fuzz/artifacts/. Exit 1 when any target found a failure,
# after printing its seed, its first error lines and the input (base64, when
# under 16 KiB), so a failure seen only in a CI log can be reproduced.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [TARGET...]
#   TARGET: json yaml policy diff store import (default: all six; diff = the
#   direct JSON reader against the cJSON tree path, fuzz_json_diff; store =
#   tampered rows, images and lane summaries of a real store, fuzz_store;
#   import = every importer of the registry, fuzz_import)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json yaml policy diff store import)
if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz.sh: clang is not installed (scripts/install-deps.sh installs it)" >&2
  exit 2
fi

build=build/fuzz
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPP_FUZZ=ON -DMCPP_SANITIZE=ON \
  -DMCPP_CUDA=OFF -DMCPP_BUILD_TESTS=OFF -DMCPP_BUILD_BENCHMARKS=OFF -DMCPP_WERROR=OFF >/dev/null
names=()
target_name() { case $1 in diff) echo fuzz_json_diff ;; store) echo fuzz_store ;; import) echo fuzz_import ;; *) echo "fuzz_${1}_load" ;; esac; }
for t in "${targets[@]}"; do names+=("$(target_name "$t")"); done
cmake --build "$build" -j"$(nproc)" --target "${names[@]}" >/dev/null

seeds_for() {
  case $1 in
    json | diff) echo tests/fuzz/corpus/json examples/receipts examples/receipts/gpu examples/receipts/schema2 tests/cli/hostile ;;
    yaml) echo tests/fuzz/corpus/yaml examples/receipts tests/cli/hostile ;;
    policy) echo tests/fuzz/corpus/policy policy tests/lua/hostile tests/lua/hostile/rules tests/lua/hostile/gate ;;
    store) echo tests/fuzz/corpus/store ;;
    import) echo tests/fuzz/corpus/import tests/data/hyperfine tests/data/pyperf tests/data/go tests/data/asv/base/results/vm \
                 tests/data/mlperf-inference/scenarios/inference_results_v6.0/closed/mcpp/results/toy-cpu/sort2000/Server/performance/run_1 ;;
  esac
}
dict_for() { case $1 in json | diff | import) echo json ;; yaml) echo yaml ;; policy) echo lua ;; store) echo store ;; esac; }
# The store target forges image frames that claim up to 256 MiB: no allocation
# of the loader may exceed what a receipt's image or body may hold (16 MiB), so
# one that does is reported (libFuzzer: out-of-memory (malloc(N))).
malloc_limit_for() { case $1 in store) echo 64 ;; *) echo 2048 ;; esac; }

status=0
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  mkdir -p "$corpus" "$build/artifacts"
  name=$(target_name "$t")
  echo "==> $name for ${seconds}s"
  started=$build/artifacts/.started-$t
  touch "$started"
  # shellcheck disable=SC2046
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      "$build/tests/fuzz/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -malloc_limit_mb="$(malloc_limit_for "$t")" -max_len=65536 -dict="tests/fuzz/$(dict_for "$t").dict" -artifact_prefix="$build/artifacts/${t}-" \
      -print_final_stats=1 "$corpus" $(seeds_for "$t") >"$build/fuzz_${t}.log" 2>&1; then
    echo "$name FOUND A FAILURE (log: $build/fuzz_${t}.log, input: $build/artifacts/${t}-*)"
    # What reproduces it where only this output survives (a CI log): the seed,
    # the first lines the target printed on failure, and a small input in base64.
    grep -m1 "INFO: Seed:" "$build/fuzz_${t}.log" || true
    grep -m1 -A3 -E "^(==[0-9]+==ERROR|.*runtime error:|a loaded receipt|a written receipt)" \
      "$build/fuzz_${t}.log" | cut -c1-400 || true
    find "$build/artifacts" -name "${t}-*" -newer "$started" -size -16k | while read -r input; do
      echo "input $input, as base64 (base64 -d > input; $build/tests/fuzz/$name input):"
      base64 -w 120 "$input"
    done
    tail -n 40 "$build/fuzz_${t}.log"
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE" "$build/fuzz_${t}.log" | tr '\n' ' '
  echo
done
exit $status
