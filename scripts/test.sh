#!/usr/bin/env bash
# test.sh — the README's test command: installs what is missing, builds everything
# checks the format of the C lines the change touches, and runs every test: the C/Lua/CLI suites (ctest), the same suites under
# AddressSanitizer + UndefinedBehaviorSanitizer, the thread tests under ThreadSanitizer, the libFuzzer targets for a
# short bounded time (MCPP_FUZZ_SECONDS each, default 20; 0 skips them), then
# the Python binding's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc)

echo "==> dependencies"
./scripts/install-deps.sh

echo "==> format of the lines this change touches (scripts/check-format.sh)"
./scripts/check-format.sh

echo "==> build (release; CUDA kernels compile when nvcc is present)"
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/release -j"$JOBS"

echo "==> C, CLI and Lua tests"
ctest --test-dir build/release --output-on-failure -j"$JOBS"

echo "==> the same tests under ASan + UBSan"
cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DMCPP_SANITIZE=ON -DMCPP_CUDA=OFF \
      -DMCPP_BUILD_BENCHMARKS=ON >/dev/null
cmake --build build/sanitize -j"$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/sanitize --output-on-failure -j"$JOBS"

echo "==> the thread tests under ThreadSanitizer (build/tsan: the library and the tests that start threads)"
# What docs/thread-safety.md allows, run from several threads at once; a data
# race fails them (lgamma's global signgam did, issue 48). Only their targets
# are built, so this stays short (~2 minutes on 2 cores).
cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPP_TSAN=ON -DMCPP_CUDA=OFF \
      -DMCPP_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/tsan -j"$JOBS" --target test_threads test_compare_lazy test_core_hostile test_lane_self_fast test_core_share
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build/tsan --output-on-failure -j"$JOBS" -R 'thread' -E 'thread_safety'

fuzz_seconds=${MCPP_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" -gt 0 ]; then
  echo "==> fuzzers: JSON, YAML and policy loading, JSON reader vs tree path, tampered stores, ${fuzz_seconds}s each under ASan + UBSan"
  ./scripts/fuzz.sh "$fuzz_seconds"
else
  echo "==> fuzzers skipped: MCPP_FUZZ_SECONDS=0"
fi

echo "==> Python binding tests"
./scripts/test-python.sh
