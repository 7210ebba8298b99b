#!/usr/bin/env bash
# test-python.sh — builds the Python binding with `pip install .` into a virtual
# environment (created on first use, reused after) and runs the Python tests.
#
#   scripts/test-python.sh [pytest args...]
#
# Environment: PYTHON (interpreter for the venv, default python3),
#              MCPP_VENV (venv folder, default <repo>/.venv-py).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${MCPP_VENV:-$repo/.venv-py}"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
    echo "test-python: creating $venv"
    "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)

# Test dependencies first (cached after the first run), then the package itself.
# dask[distributed] and fsspec: the [dask] extra, for tests/python/test_dask.py;
# numpy: numpy scalars handed to Builder.set (tests/python/test_ergonomics.py);
# pyperf: pyperf runs made in tests/python/test_import.py (asv and mlcommons-loadgen
# are for tests/data/make_import_data.sh, which remakes the committed tool outputs);
# orjson: the plain-Python baseline of benchmarks/python/bench_frontier.py;
# mypy: the typing stubs checked as an editor reads them (test_first_day_typing.py);
# scipy: what Google Benchmark's compare.py imports (benchmarks/scale/bench_scale.py runs it).
"${pip[@]}" install pytest pytest-benchmark pandas numpy matplotlib nbclient nbformat ipykernel scikit-build-core mypy \
    "dask[distributed]" fsspec pyperf asv mlcommons-loadgen orjson scipy
# PyTorch: the [torch] extra, for tests/python/test_torch.py and examples/torch/.
# PyPI holds no CPU-only torch wheel for Linux x86_64 (those live on PyTorch's own
# index, which CI cannot reach): the PyPI wheel (~540 MB) pulls ~2.3 GB of CUDA
# libraries, which it needs even to import on a CPU. pip's cache keeps the download,
# so only a fresh machine fetches it (about a minute here, 2.8 GB). Where it cannot be
# installed the rest still runs, and the torch tests skip saying why.
"${pip[@]}" install torch || echo "test-python: PyTorch could not be installed; the torch tests will skip"
# --no-build-isolation reuses the venv's scikit-build-core, and the build folder
# build-python/ (asked for here, not in pyproject.toml: a user's `pip install .`
# must not write into the source tree), so re-runs rebuild only what changed.
"${pip[@]}" install --no-build-isolation -C "build-dir=build-python/wheel-{wheel_tag}" "$repo"

cd "$repo"
exec "$venv/bin/python" -m pytest tests/python -q -rs "$@"  # -rs: every skip prints its reason
