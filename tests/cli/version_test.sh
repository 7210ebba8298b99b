#!/usr/bin/env bash
# version_test.sh — the version number has one source, project(VERSION) in
# CMakeLists.txt: the generated version.h, the library at run time
# (`mcpp-receipts --version` prints mcpp_version_string()) and pyproject.toml
# (which pip reads, and which cannot read CMake) must all say the same.
#
# usage: version_test.sh PROJECT_VERSION VERSION_H PYPROJECT CLI
set -u
want=$1 version_h=$2 pyproject=$3 cli=$4
fail=0
check() { # LABEL GOT
  if [ "$2" = "$want" ]; then echo "ok - $1 says $want"
  else echo "not ok - $1 says '$2', CMake project(VERSION) says '$want'"; fail=$((fail + 1)); fi
}
check "version.h MCPP_VERSION_STRING" \
  "$(sed -n 's/^#define MCPP_VERSION_STRING "\(.*\)"$/\1/p' "$version_h")"
check "pyproject.toml [project] version" \
  "$(sed -n '/^\[project\]/,/^\[/s/^version *= *"\(.*\)"$/\1/p' "$pyproject" | head -n1)"
check "mcpp-receipts --version" "$("$cli" --version 2>&1 | grep -o '[0-9][0-9.]*[0-9]' | head -n1)"
echo "$fail failed"
[ "$fail" -eq 0 ]
