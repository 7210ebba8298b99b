#!/usr/bin/env bash
# test-gpu.sh: build with CUDA and run the CUDA tests + the GPU benchmark smoke.
# Without nvcc or without a GPU it prints why and exits 0 (a clean skip).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd); BUILD=${BUILD:-$ROOT/build/gpu}
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "test-gpu: SKIP: no nvcc (CUDA toolkit) on this machine"; exit 0; fi
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "test-gpu: SKIP: no NVIDIA GPU visible (nvidia-smi missing or found no device)"; exit 0; fi
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMCPP_CUDA=ON
cmake --build "$BUILD" -j"${JOBS:-2}" --target kernels_cuda_match_reference_or_skip mcpp-bench-kernels-gpu mcpp-step
ctest --test-dir "$BUILD" -R kernels --output-on-failure
T=$(find "$BUILD" -name kernels_cuda_match_reference_or_skip -type f | head -1)
"$T"   # exit 77 (skip) is a failure here: this script is only reached with a GPU
if command -v compute-sanitizer >/dev/null; then
  compute-sanitizer --tool memcheck --error-exitcode 9 "$T"
  compute-sanitizer --tool racecheck --error-exitcode 9 "$T"
fi
"$(find "$BUILD" -name mcpp-bench-kernels-gpu -type f | head -1)" --quick
echo "test-gpu: OK"
