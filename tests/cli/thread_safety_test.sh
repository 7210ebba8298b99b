#!/usr/bin/env bash
# thread_safety_test.sh — every public type (`typedef struct mcpp_X mcpp_X;` in
# a public header) states its thread safety in the comment just above its
# typedef ("Thread safety:") and has a row in docs/thread-safety.md.
#
# usage: thread_safety_test.sh INCLUDE_DIR THREAD_SAFETY_MD
set -u
include_dir=$1 doc=$2
pass=0 fail=0
while IFS=: read -r header line type; do
  if sed -n "$((line > 12 ? line - 12 : 1)),${line}p" "$header" | grep -q "Thread safety:"; then
    echo "ok - $type states its thread safety in $(basename "$header")"; pass=$((pass + 1))
  else
    echo "not ok - $type ($(basename "$header"):$line) has no 'Thread safety:' comment above its typedef"; fail=$((fail + 1))
  fi
  if grep -q "^| \`$type\` |" "$doc"; then
    pass=$((pass + 1))
  else
    echo "not ok - $type has no row in $doc"; fail=$((fail + 1))
  fi
done < <(grep -rn -E '^typedef struct (mcpp_[a-z_]+) \1;' "$include_dir" | sed -E 's/^([^:]+):([0-9]+):typedef struct (mcpp_[a-z_]+) .*/\1:\2:\3/')
[ "$pass" -ge 20 ] || { echo "not ok - only $pass checks ran"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
