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
# A policy only the install has (the prefix lies inside the build tree, whose own
# code would find the source tree's policy/): what includes it must be reading
# the installed directory.
printf 'return { include = {"default.lua"}, name = "installed_mark", noise = { min_runs = 5 } }\n' \
  >"$installed/installed_mark.lua"
printf 'return { include = {"installed_mark.lua"}, name = "marked" }\n' >"$work/outside/marked.lua"

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
check_policy "installed CLI reads the installed directory" 5 \
  "$cli" policy check "$work/outside/marked.lua"
check_policy "build-tree CLI finds the shipped default.lua in the source tree, with no variable set" 3 \
  "$build_cli" policy check "$work/outside/mine.lua"
# A name that is not shipped: the build-tree CLI finds it through MCPP_POLICY_PATH.
printf 'return { include = {"team_base.lua"}, name = "team" }\n' >"$work/outside/team.lua"
cp "$work/pathdir/default.lua" "$work/pathdir/team_base.lua"
check_policy "build-tree CLI finds a policy that is not shipped through MCPP_POLICY_PATH" 9 \
  MCPP_POLICY_PATH="/nonexistent::$work/pathdir" "$build_cli" policy check "$work/outside/team.lua"
check_policy "the installed directory comes before MCPP_POLICY_PATH" 3 \
  MCPP_POLICY_PATH="$work/pathdir" "$cli" policy check "$work/outside/mine.lua"
cp "$work/own_default.lua" "$work/outside/default.lua"
check_policy "the including policy's own directory comes first (and its include resolves onward)" 7 \
  MCPP_POLICY_PATH="$work/pathdir" "$cli" policy check "$work/outside/mine.lua"
rm "$work/outside/default.lua"

# Not found anywhere: exit 3, a located message listing where it looked.
out=$("$build_cli" policy check "$work/outside/team.lua" 2>&1); rc=$?
if [ "$rc" -eq 3 ] && grep -q "team.lua:1: include: policy 'team_base.lua' not found; searched" <<<"$out" \
   && grep -q "MCPP_POLICY_PATH" <<<"$out"; then
  ok "an include found nowhere exits 3 naming the file, line and the directories searched"
else bad "include found nowhere: exit $rc:"; sed 's/^/    /' <<<"$out"; fi

# The installed shared library and the installed Lua module (which carries the
# core) find the policies relative to themselves too.
case "$sanitize" in ON|on|1|TRUE|true|YES|yes)
  echo "ok - # SKIP shared-library and Lua module checks: a sanitized library cannot be loaded by an uninstrumented python3 or lua5.4"
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

lua_module=$(find "$prefix" -path '*/lua/5.4/mcpp_receipts.so' | head -n1)
if ! command -v lua5.4 >/dev/null; then
  echo "ok - # SKIP installed Lua module check: no lua5.4 interpreter on PATH"
elif [ -z "$lua_module" ]; then
  bad "no lua/5.4/mcpp_receipts.so under $prefix (the Lua module is installed with the library)"
else
  got=$(cd "$work" && LUA_CPATH="$(dirname "$lua_module")/?.so" lua5.4 -e '
    local mr = require "mcpp_receipts"
    print(mr.policy("'"$work/outside/mine.lua"'").name, mr.policy("'"$work/outside/marked.lua"'").name)' 2>&1); rc=$?
  if [ "$rc" -eq 0 ] && [ "$got" = "$(printf 'mine\tmarked')" ]; then
    ok "the installed Lua module loads policies that include installed ones (default.lua, installed_mark.lua)"
  else bad "installed Lua module: exit $rc: $got"; fi
fi

echo "$fail failed"
[ "$fail" -eq 0 ]
