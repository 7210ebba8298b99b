#!/usr/bin/env bash
# format_check_test.sh — scripts/check-format.sh checks the lines a change touches,
# and only those, in each place it runs: a branch off main, main itself (the last
# commit), and fresh clones of one and two commits as CI makes them.
#
# usage: format_check_test.sh SOURCE_ROOT
set -euo pipefail
root=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
g() { git -c user.email=t@example.com -c user.name=t -c init.defaultBranch=main "$@"; }

mkdir -p "$tmp/repo/scripts" && cd "$tmp/repo"
g init -q
cp "$root/.clang-format" . && cp "$root/scripts/check-format.sh" scripts/
# An old badly formatted line, before any change under test: never reported.
printf 'int old(void)\n{\n    int   untouched=1;\n    return untouched;\n}\n' > old.c
printf 'int f(void)\n{\n    return 1;\n}\n' > a.c
g add . && g commit -qm base

# A branch off main: a committed badly formatted line fails and is named.
g checkout -qb feature
printf 'int f(void)\n{\n    int   x=1;\n    return x;\n}\n' > a.c
g commit -qam "bad line"
if out=$(./scripts/check-format.sh 2>&1); then fail "a misformatted committed line passed: $out"; fi
grep -q 'int   x=1;' <<<"$out" || fail "the report does not show the line: $out"
grep -q 'merge base with main' <<<"$out" || fail "the base is not the merge base: $out"
grep -q 'untouched' <<<"$out" && fail "an untouched old line was reported: $out"

# Formatted as git clang-format does it: passes, the old line still untouched.
g clang-format -q main -- a.c >/dev/null
g commit -qam "formatted"
out=$(./scripts/check-format.sh 2>&1) || fail "formatted lines failed: $out"
grep -q 'int   untouched=1;' old.c || fail "the check rewrote a file"

# Uncommitted lines count too.
printf 'int g(void){return 2;}\n' >> a.c
if out=$(./scripts/check-format.sh 2>&1); then fail "a misformatted uncommitted line passed: $out"; fi
g checkout -q a.c

# On main itself (what CI checks after a merge): the last commit's lines.
g checkout -q main && g merge -q --no-ff -m "merge feature" feature
printf 'int h(void)\n{\n    return   3;\n}\n' > h.c
g add h.c && g commit -qm "bad h"
if out=$(./scripts/check-format.sh 2>&1); then fail "the last commit's bad line passed on main: $out"; fi
grep -q 'HEAD~1' <<<"$out" || fail "on main the base is not HEAD~1: $out"

# A fresh clone of two commits: the same; of one commit: says why it cannot tell.
cd "$tmp" && git clone -q --depth 2 "file://$tmp/repo" two
(cd two && if out=$(./scripts/check-format.sh 2>&1); then fail "a 2-deep clone passed the bad line: $out"; fi)
git clone -q --depth 1 "file://$tmp/repo" one
out=$(cd one && ./scripts/check-format.sh 2>&1) || fail "a 1-deep clone failed without a base: $out"
grep -q 'no parent of HEAD' <<<"$out" || fail "a 1-deep clone did not say why it checks less: $out"
out=$(cd one && MCPP_FORMAT_BASE=HEAD ./scripts/check-format.sh 2>&1) || fail "MCPP_FORMAT_BASE=HEAD: $out"
echo "ok: changed lines are checked on a branch (merge base), on main (HEAD~1), in a 2-deep clone," \
     "uncommitted too; untouched lines never; a 1-deep clone says why it checks less"
