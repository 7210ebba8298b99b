#!/usr/bin/env bash
# locale_test.sh — the CLI writes the same bytes under a comma-decimal locale
# (LC_ALL=de_DE.UTF-8) as under C: receipts (JSON/YAML, read from YAML),
# comparisons and frontiers in every format. Exit 77 (ctest: skipped) with the
# reason when the locale is not installed (scripts/install-deps.sh makes it).
#
# usage: locale_test.sh CLI EXAMPLES_DIR WORK_DIR
set -u
cli=$1 ex=$2 work=$3
loc=de_DE.UTF-8
mkdir -p "$work"
if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
  echo "skip: locale $loc is not installed (scripts/install-deps.sh generates it)"; exit 77
fi
a=$ex/nam56r_padded.yaml b=$ex/nam56r_padded_run2.json c=$ex/nam56r_padded_run3.json
fail=0 count=0 decimals=0
same() { # NAME ARGS...
  local name=$1; shift
  count=$((count + 1))
  LC_ALL=C "$cli" "$@" >"$work/c.txt" 2>&1
  LC_ALL=$loc "$cli" "$@" >"$work/comma.txt" 2>&1
  grep -q '[0-9]\.[0-9]' "$work/c.txt" && decimals=$((decimals + 1))
  if ! cmp -s "$work/c.txt" "$work/comma.txt"; then
    echo "not ok - $name: differs under $loc"; diff "$work/c.txt" "$work/comma.txt" | head -5; fail=$((fail + 1))
  else
    echo "ok - $name"
  fi
}
for f in json yaml text; do same "show --format $f" show --format $f "$a"; done
for f in text json markdown; do
  same "compare --format $f" compare "$a" "$b" --format $f
  same "frontier --format $f" frontier "$a" "$b" "$c" --format $f
done
same "convert yaml to json" convert "$a" --to json
if [ "$decimals" -lt 5 ]; then # the comparison is only worth something with numbers in it
  echo "not ok - only $decimals of $count outputs hold a decimal number"; fail=$((fail + 1))
fi
echo "$((count - fail)) of $count CLI outputs are the same under $loc; $fail differ"
[ "$fail" -eq 0 ]
