#!/usr/bin/env bash
# policy_install_test.sh — the shipped policies are installed into
# PREFIX/share/mcpp_receipts/policy, and a policy file outside the source tree
# that says `include = {"default.lua"}` finds one: next to itself first, then
# in the installed directory (through an install moved by --prefix, for the
# installed program and the installed shared library), then in MCPP_POLICY_PATH.
#
# usage: policy_install_test.sh BUILD_DIR BUILD_CLI WORK_DIR [SANITIZE]
set -u
build=$1 build_cli=$2 work=$3 sanitize=${4:-OFF}
prefix=$work/prefix
rm -rf "$work" && mkdir -p "$work/outside" "$work/pathdir"
fail=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; fail=$((fail + 1)); }

if ! cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  bad "cmake --install failed:"; sed 's/^/    /' "$work/install.log"; exit 1
fi
installed=$prefix/share/mcpp_receipts/policy
for p in default strict cross_hardware shared_cpu micro_benchmark mlperf; do
  [ -f "$installed/$p.lua" ] && ok "installed $p.lua" || bad "missing $installed/$p.lua"
done
cli=$prefix/bin/mcpp-receipts
unset MCPP_POLICY_PATH

# A policy outside the source tree, including the shipped default by name.
printf 'return { include = {"default.lua"}, name = "mine" }\n' >"$work/outside/mine.lua"
# Marks: each candidate default.lua changes min_runs, so the output says which one was used.
printf 'return { include = {"strict.lua"}, name = "own", noise = { min_runs = 7 } }\n' \
  >"$work/own_default.lua"
printf 'return { name = "from_path", dimensions = { must_match = { "pattern" } }, noise = { min_runs = 9 } }\n' >"$work/pathdir/default.lua"

check_policy() { # label expected-min_runs env... -- command...
  local label=$1 want=$2; shift 2
  local out rc
  out=$(env "$@" 2>&1); rc=$?
  if [ "$rc" -eq 0 ] && grep -q "min_runs $want," <<<"$out"; then ok "$label (min_runs $want)"
  else bad "$label: exit $rc, wanted min_runs $want:"; sed 's/^/    /' <<<"$out"; fi
}

check_policy "installed CLI finds default.lua in the moved install prefix" 3 \
  "$cli" policy check "$work/outside/mine.lua"
check_policy "build-tree CLI finds default.lua through MCPP_POLICY_PATH" 9 \
  MCPP_POLICY_PATH="/nonexistent::$work/pathdir" "$build_cli" policy check "$work/outside/mine.lua"
check_policy "the installed directory comes before MCPP_POLICY_PATH" 3 \
  MCPP_POLICY_PATH="$work/pathdir" "$cli" policy check "$work/outside/mine.lua"
cp "$work/own_default.lua" "$work/outside/default.lua"
check_policy "the including policy's own directory comes first (and its include resolves onward)" 7 \
  MCPP_POLICY_PATH="$work/pathdir" "$cli" policy check "$work/outside/mine.lua"
rm "$work/outside/default.lua"

# Not found anywhere: exit 3, a located message listing where it looked.
out=$("$build_cli" policy check "$work/outside/mine.lua" 2>&1); rc=$?
if [ "$rc" -eq 3 ] && grep -q "mine.lua:1: include: policy 'default.lua' not found; searched" <<<"$out" \
   && grep -q "MCPP_POLICY_PATH" <<<"$out"; then
  ok "an include found nowhere exits 3 naming the file, line and the directories searched"
else bad "include found nowhere: exit $rc:"; sed 's/^/    /' <<<"$out"; fi

# The installed shared library finds the policies relative to itself too.
case "$sanitize" in ON|on|1|TRUE|true|YES|yes)
  echo "ok - # SKIP shared-library check: a sanitized library cannot be loaded by an uninstrumented python3"
  echo "$fail failed"; [ "$fail" -eq 0 ]; exit ;;
esac
lib=$(find "$prefix" -name 'libmcpp_receipts.so' | head -n1)
got=$(python3 - "$lib" <<'EOF' 2>&1
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
out = ctypes.c_void_p()
assert lib.mcpp_policy_install_dir(ctypes.byref(out)) == 0
print(ctypes.string_at(out.value).decode())
lib.mcpp_free(out)
EOF
)
if [ "$(readlink -f "$got")" = "$(readlink -f "$installed")" ]; then
  ok "the installed shared library reports $installed"
else bad "installed shared library reports '$got', not $installed"; fi

echo "$fail failed"
[ "$fail" -eq 0 ]
