#!/usr/bin/env bash
# check-format.sh — fails when a C line that a change touches is not formatted as
# .clang-format says (clang-format 14, through git clang-format). Only the changed
# lines are checked: the tree is never reformatted wholesale.
#
# "A change" is every line that differs between the working tree (committed or
# not) and a base commit:
#   MCPP_FORMAT_BASE    when set (a commit, e.g. the target branch of a pull request);
#   the merge base with main (or origin/main) when HEAD is on a branch off it;
#   HEAD~1 otherwise: on main itself, or in a CI clone of a merge commit, the last
#   commit's lines.
# A clone without the base's history (git clone --depth 1) cannot tell which lines
# changed: the check then says so and checks only uncommitted lines; fetch one more
# commit (--depth 2) or set MCPP_FORMAT_BASE.
#
# usage: scripts/check-format.sh            (from anywhere inside the repository)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

if ! command -v git-clang-format >/dev/null || ! command -v clang-format >/dev/null; then
  echo "check-format: FAIL: git-clang-format and clang-format are needed (Debian: clang-format)" >&2
  exit 2
fi

base=${MCPP_FORMAT_BASE:-}
why="MCPP_FORMAT_BASE"
if [ -z "$base" ]; then
  for main in main origin/main; do
    if git rev-parse -q --verify "$main^{commit}" >/dev/null; then
      mb=$(git merge-base HEAD "$main" 2>/dev/null || true)
      if [ -n "$mb" ] && [ "$mb" != "$(git rev-parse HEAD)" ]; then
        base=$mb; why="the merge base with $main"
      fi
      break
    fi
  done
fi
if [ -z "$base" ] && git rev-parse -q --verify 'HEAD~1^{commit}' >/dev/null; then
  base=$(git rev-parse HEAD~1); why="HEAD~1 (the last commit)"
fi
if [ -z "$base" ]; then
  echo "check-format: this clone has no parent of HEAD (a shallow or one-commit clone): committed" \
       "lines cannot be told from the rest, so only uncommitted ones are checked;" \
       "fetch one more commit or set MCPP_FORMAT_BASE"
  base=HEAD; why="HEAD (uncommitted lines only)"
fi

out=$(git clang-format --binary "$(command -v clang-format)" --extensions c,h --diff "$base" -- 2>&1)
if printf '%s\n' "$out" | grep -q '^diff '; then
  printf '%s\n' "$out"
  echo "check-format: FAIL: the lines above, changed since $why ($(git rev-parse --short "$base")), are not" \
       "formatted as .clang-format says; run: git clang-format $(git rev-parse --short "$base")" >&2
  exit 1
fi
echo "check-format: ok: the C lines changed since $why ($(git rev-parse --short "$base")) follow .clang-format"
