#!/usr/bin/env bash
# install-deps.sh — installs what a fresh Debian machine lacks to build and test
# mcpp_receipts (apt only; Python packages go into a virtualenv in test.sh).
# Idempotent: does nothing when everything is present.
set -euo pipefail
PACKAGES=(build-essential cmake pkg-config libcjson-dev libyaml-dev libsqlite3-dev sqlite3 libzstd-dev liblz4-dev liblua5.4-dev lua5.4
          libpq-dev postgresql # a store in PostgreSQL: libpq the client, the server for tests/store's throwaway cluster
          libopenblas-dev python3-venv python3-dev libbenchmark-dev
          libbenchmark-tools # Google Benchmark's compare.py: the gate's peer in benchmarks/scale/bench_scale.py
          clang libclang-rt-14-dev # clang + its libFuzzer runtime: tests/fuzz (scripts/fuzz.sh)
          clang-format # git clang-format: scripts/check-format.sh (test.sh) checks the changed lines
          libtsan2 # gcc's ThreadSanitizer runtime: test.sh runs the thread tests under it (build/tsan)
          chromium python3-pil python3-yaml python3-lxml # headless Chromium renders HTML to PNG (tests/python, tests/report);
                                            # PIL reads the PNGs, PyYAML reads action.yml (tests/ci)
          hyperfine golang-go # real hyperfine and go test -bench output: tests/import, tests/data/make_import_data.sh
          time # GNU time -f %M: a child's peak RSS (tests/import memory bound, benchmarks/cli/bench_import_memory.py)
          locales) # de_DE.UTF-8 (comma decimal point): the locale tests (docs/output-safety.md)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "==> installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The locale tests need a comma-decimal locale; Debian ships the definitions
# (package locales) but generates none by default.
if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
  echo "==> generating the de_DE.UTF-8 locale"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO localedef -i de_DE -f UTF-8 de_DE.UTF-8
fi
