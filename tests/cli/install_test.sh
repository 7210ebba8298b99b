#!/usr/bin/env bash
# install_test.sh — installs the build into a temporary prefix and builds the
# external harness (examples/c-harness) against that install twice: with
# find_package(mcpp_receipts) and with pkg-config. Both binaries must run,
# print an id, and write a receipt the built CLI accepts.
#
# usage: install_test.sh BUILD_DIR HARNESS_SRC CLI WORK_DIR CC [SANITIZE]
set -u
build=$1 harness=$2 cli=$3 work=$4 cc=$5 sanitize=${6:-OFF}
prefix=$work/prefix
rm -rf "$work" && mkdir -p "$work"
fail=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; fail=$((fail + 1)); }

# A sanitized library needs the sanitizer runtime in whatever links it.
extra_flags=""
case "$sanitize" in ON|on|1|TRUE|true|YES|yes) extra_flags="-fsanitize=address,undefined" ;; esac

if cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  ok "cmake --install into $prefix"
else
  bad "cmake --install failed:"; sed 's/^/    /' "$work/install.log"
  echo "0 passed, $fail failed"; exit 1
fi
libdir=$(find "$prefix" -name 'mcpp_receipts.pc' -printf '%h\n' | head -n1)
libdir=${libdir%/pkgconfig}
for f in include/mcpp_receipts.h include/mcpp_receipts/receipt.h; do
  [ -f "$prefix/$f" ] && ok "installed $f" || bad "missing $prefix/$f"
done
# every installed public header (the generated version.h too) compiles alone
if out=$(bash "$(dirname "$0")/header_test.sh" "$prefix/include" "$cc" "$work/headers" 2>&1); then
  ok "installed headers compile alone ($(echo "$out" | tail -n1))"
else
  bad "installed headers:"; echo "$out" | grep -v '^ok' | sed 's/^/    /'
fi
[ -f "$prefix/include/mcpp_receipts/version.h" ] && ok "installed the generated version.h" \
  || bad "missing $prefix/include/mcpp_receipts/version.h"
# the exported targets name their dependencies, never a path of the build machine
targets=$(find "$prefix" -name 'mcpp_receiptsTargets*.cmake' -print)
if [ -n "$targets" ] && ! grep -l '/libcjson\|/libyaml\|/liblua' $targets >/dev/null; then
  ok "exported CMake targets hold no absolute dependency paths"
else
  bad "exported CMake targets name absolute library paths:"; grep -n '/lib[a-z0-9.]*\.so' $targets | sed 's/^/    /'
fi
[ -n "$libdir" ] && [ -f "$libdir/pkgconfig/mcpp_receipts.pc" ] && ok "installed pkg-config file" \
  || bad "no mcpp_receipts.pc under $prefix"
[ -f "$libdir/cmake/mcpp_receipts/mcpp_receiptsConfig.cmake" ] && ok "installed CMake package config" \
  || bad "no mcpp_receiptsConfig.cmake under $libdir/cmake/mcpp_receipts"

run_harness() { # label binary output
  local label=$1 bin=$2 out=$3 id
  if id=$(LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 30 "$bin" "$out" 2>"$work/$label.err"); then
    [ -n "$id" ] && ok "$label harness ran and printed id '$id'" || bad "$label harness printed no id"
  else
    bad "$label harness failed:"; sed 's/^/    /' "$work/$label.err"; return
  fi
  if "$cli" validate "$out" >"$work/$label.validate" 2>&1; then
    grep -qF "ok $out (id $id," "$work/$label.validate" && ok "$label receipt validates with id $id" \
      || { bad "$label: validate did not report id $id:"; sed 's/^/    /' "$work/$label.validate"; }
  else
    bad "$label receipt does not validate:"; sed 's/^/    /' "$work/$label.validate"
  fi
}

# pkg-config must point into the prefix the files were installed to (a .pc
# file configured with the build-time prefix breaks `cmake --install --prefix`)
pc_includedir=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --variable=includedir mcpp_receipts 2>&1)
if [ -f "$pc_includedir/mcpp_receipts.h" ]; then ok "pkg-config includedir ($pc_includedir) holds the installed headers"
else bad "pkg-config says includedir=$pc_includedir, but the headers are in $prefix/include (the .pc file is not relocated by --prefix)"; fi

# 1. CMake: find_package(mcpp_receipts CONFIG REQUIRED)
if cmake -S "$harness" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
     -DCMAKE_C_FLAGS="$extra_flags" -DCMAKE_EXE_LINKER_FLAGS="$extra_flags" >"$work/cmake.log" 2>&1 &&
   cmake --build "$work/cmake-build" >>"$work/cmake.log" 2>&1; then
  ok "harness builds with find_package(mcpp_receipts)"
  run_harness cmake "$work/cmake-build/harness" "$work/from_cmake.json"
else
  bad "harness does not build with CMake:"; tail -n 30 "$work/cmake.log" | sed 's/^/    /'
fi

# 1b. A user of the shared library only: none of its dependencies' development
# packages (pkg-config finds no module at all) must be needed to find and link it.
mkdir -p "$work/no-pc"
if PKG_CONFIG_LIBDIR="$work/no-pc" PKG_CONFIG_PATH="" \
     cmake -S "$harness" -B "$work/cmake-shared-only" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
     -DCMAKE_C_FLAGS="$extra_flags" -DCMAKE_EXE_LINKER_FLAGS="$extra_flags" >"$work/cmake-shared.log" 2>&1 &&
   cmake --build "$work/cmake-shared-only" >>"$work/cmake-shared.log" 2>&1; then
  ok "harness links the shared library with find_package when no dependency's dev package is found"
  run_harness cmake-shared-only "$work/cmake-shared-only/harness" "$work/from_cmake_shared.json"
else
  bad "shared-library harness needs the dependencies' dev packages:"; tail -n 30 "$work/cmake-shared.log" | sed 's/^/    /'
fi
# ... and asking for the static library then says what is missing.
mkdir -p "$work/static-user" && cat >"$work/static-user/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(static_user LANGUAGES C)
find_package(mcpp_receipts CONFIG REQUIRED COMPONENTS static)
CM
if PKG_CONFIG_LIBDIR="$work/no-pc" PKG_CONFIG_PATH="" cmake -S "$work/static-user" -B "$work/static-user/b" \
     -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" >"$work/static-user.log" 2>&1; then
  bad "COMPONENTS static configured without the dependencies"
elif grep -q "development packages of" "$work/static-user.log" && grep -q "libcjson, yaml-0.1" "$work/static-user.log"; then
  ok "COMPONENTS static without the dependencies fails naming them"
else
  bad "COMPONENTS static failed without naming the missing packages:"; tail -n 20 "$work/static-user.log" | sed 's/^/    /'
fi
if cmake -S "$work/static-user" -B "$work/static-user/b2" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
     >"$work/static-user2.log" 2>&1; then
  ok "COMPONENTS static is found where the dependencies are installed"
else
  bad "COMPONENTS static not found with the dependencies installed:"; tail -n 20 "$work/static-user2.log" | sed 's/^/    /'
fi
# 1c. A harness author linking the static library: the harness itself against
# mcpp_receipts::mcpp_receipts_static, built, run, and its receipt validated.
# Every dependency the archive needs (zstd too) must come from the package config.
mkdir -p "$work/static-harness" && cp "$harness/harness.c" "$work/static-harness/"
cat >"$work/static-harness/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(static_harness LANGUAGES C)
find_package(mcpp_receipts CONFIG REQUIRED COMPONENTS static)
add_executable(harness harness.c)
set_target_properties(harness PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
target_link_libraries(harness PRIVATE mcpp_receipts::mcpp_receipts_static)
CM
if cmake -S "$work/static-harness" -B "$work/static-harness/b" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra_flags" -DCMAKE_EXE_LINKER_FLAGS="$extra_flags" \
     >"$work/static-harness.log" 2>&1 && cmake --build "$work/static-harness/b" >>"$work/static-harness.log" 2>&1; then
  ok "harness builds against mcpp_receipts::mcpp_receipts_static"
  if ldd "$work/static-harness/b/harness" 2>/dev/null | grep -q 'libmcpp_receipts\.so'; then
    bad "the static harness loads libmcpp_receipts.so"
  else
    run_harness static "$work/static-harness/b/harness" "$work/from_static.json"
  fi
else
  bad "harness does not build against the static library:"; tail -n 30 "$work/static-harness.log" | sed 's/^/    /'
fi

# 2. pkg-config, through the harness's own Makefile (copied: the source tree stays clean)
mkdir -p "$work/make-build" && cp "$harness/harness.c" "$harness/Makefile" "$work/make-build/"
if PKG_CONFIG_PATH="$libdir/pkgconfig" make -C "$work/make-build" CC="$cc" \
     CFLAGS="-O1 -std=c11 -Wall -Wextra -Werror $extra_flags" LDFLAGS="$extra_flags" \
     >"$work/make.log" 2>&1; then
  ok "harness builds with pkg-config --cflags --libs mcpp_receipts"
  run_harness pkg-config "$work/make-build/harness" "$work/from_pkg_config.yaml"
else
  bad "harness does not build with pkg-config:"; tail -n 30 "$work/make.log" | sed 's/^/    /'
fi

echo "$fail failed"
[ "$fail" -eq 0 ]
