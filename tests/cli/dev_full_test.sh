#!/usr/bin/env bash
# dev_full_test.sh — lost output never looks like success: every command run
# with stdout on /dev/full (writes fail with ENOSPC) exits 4 and says on stderr
# that the output could not be written.
#
# usage: dev_full_test.sh CLI EXAMPLES_DIR POLICY_DIR WORK_DIR
set -u
cli=$1 ex=$2 pol=$3 work=$4
mkdir -p "$work"
if [ ! -w /dev/full ]; then
  echo "SKIP: /dev/full is not writable here, so a failing stdout cannot be simulated"
  exit 77
fi
a=$ex/nam56r_padded.json b=$ex/nam56r_padded_run2.json c=$ex/nam56r_padded_run3.json
fail=0 count=0
check() {
  local name=$1; shift
  count=$((count + 1))
  "$cli" "$@" >/dev/full 2>"$work/err.txt"
  local rc=$?
  if [ "$rc" -ne 4 ]; then
    echo "not ok - $name: exit $rc with stdout on /dev/full (want 4)"; fail=$((fail + 1))
  elif ! grep -q "cannot write\|could not write" "$work/err.txt"; then
    echo "not ok - $name: exit 4 but no message: $(cat "$work/err.txt")"; fail=$((fail + 1))
  else
    echo "ok - $name: $(tail -n 1 "$work/err.txt")"
  fi
}
lane=$("$cli" frontier "$a" "$b" "$c" --format json | grep -o '"short_key": "[^"]*"' | head -n 1 | cut -d'"' -f4)
check validate validate "$a"
check validate-json validate --format json "$a"
check show show "$a"
check show-json show --format json "$a"
check show-yaml show --format yaml "$a"
check convert convert "$a" --to yaml
check compare compare "$a" "$b"
check compare-json compare "$a" "$b" --format json
check compare-markdown compare "$a" "$b" --format markdown
check compare-policy compare "$a" "$b" --policy "$pol/strict.lua"
check frontier frontier "$a" "$b" "$c"
check frontier-markdown frontier "$a" "$b" "$c" --format markdown
check gate gate --baseline "$a" --candidate "$b"
check claim claim --lane "${lane:-x}" --value 1 "$a" "$b" "$c"
check report report "$a" "$b" "$c" --out -
check policy-check policy check "$pol/default.lua"
check help --help
check version --version
echo "$((count - fail)) of $count commands exit 4 with a message on /dev/full"
[ "$fail" -eq 0 ]
