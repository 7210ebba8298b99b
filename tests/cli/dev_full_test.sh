#!/usr/bin/env bash
# dev_full_test.sh — lost output never looks like success: every command run
# with stdout on /dev/full (writes fail with ENOSPC) exits 4 and says on stderr
# that the output could not be written.
#
# usage: dev_full_test.sh CLI EXAMPLES_DIR POLICY_DIR WORK_DIR DATA_DIR
set -u
cli=$1 ex=$2 pol=$3 work=$4 data=$5
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
# Issue 48 item 10: an output FILE that cannot be written exits 4 as stdout
# does (it exited 3). A full disk for files: a 1 KiB file size limit with
# SIGXFSZ ignored, so a longer write fails (EFBIG) in the file and on stdout.
full_disk() { # full_disk NAME file|stdout ARGS...: the output under $work/full (stdout there, or to /dev/null)
  local name=$1 to=/dev/null; shift
  [ "$1" = stdout ] && to=$work/full/stdout.txt
  shift
  count=$((count + 1))
  rm -rf "$work/full" && mkdir -p "$work/full"
  (trap '' XFSZ; ulimit -f 1; exec "$cli" "$@" >"$to" 2>"$work/err.txt")
  local rc=$?
  if [ "$rc" -ne 4 ] || ! grep -q "write failed\|cannot write" "$work/err.txt"; then
    echo "not ok - $name: exit $rc writing a file past the limit (want 4, as stdout): $(cat "$work/err.txt")"
    fail=$((fail + 1))
  else
    echo "ok - $name: $(tail -n 1 "$work/err.txt")"
  fi
}
full_disk report-file file report "$a" "$b" "$c" --out "$work/full/report.html"
full_disk report-stdout stdout report "$a" "$b" "$c" --out -
full_disk frontier-output-file file frontier "$a" "$b" "$c" --output "json=$work/full/frontier.json"
full_disk frontier-stdout stdout frontier "$a" "$b" "$c" --format json
full_disk gate-output-file file gate --baseline "$a" --candidate "$b" --output "json=$work/full/gate.json"
# import --out DIR: receipts that cannot be written exit 4 and say so naming
# the directory (they exited 3, as an input that cannot be read still does),
# and leave no receipt behind
gb=$data/google-benchmark/base.json
full_disk import-into-a-full-disk file import google-benchmark "$gb" --out "$work/full/receipts"
count=$((count + 1))
if [ -e "$work/full/receipts" ]; then
  echo "not ok - import-into-a-full-disk-leaves-nothing: $(ls -A "$work/full/receipts" | head -n 3)"; fail=$((fail + 1))
else
  echo "ok - import-into-a-full-disk-leaves-nothing"
fi
import_exit() { # import_exit NAME WANT_EXIT WANT_MESSAGE ARGS...
  local name=$1 want=$2 message=$3; shift 3
  count=$((count + 1))
  "$cli" import "$@" >/dev/null 2>"$work/err.txt"
  local rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qF "$message" "$work/err.txt"; then
    echo "not ok - $name: exit $rc (want $want and '$message'): $(cat "$work/err.txt")"; fail=$((fail + 1))
  else
    echo "ok - $name: $(tail -n 1 "$work/err.txt")"
  fi
}
rm -rf "$work/imp" && mkdir -p "$work/imp/in" && : >"$work/imp/file"
import_exit import-out-under-a-file 4 "could not write the receipts to $work/imp/file/receipts (nothing was written)" \
  google-benchmark "$gb" --out "$work/imp/file/receipts"
import_exit import-out-is-a-file 4 "$work/imp/file: cannot create the directory: it exists and is not a directory" \
  google-benchmark "$gb" --out "$work/imp/file"
import_exit import-out-is-dev-full 4 "could not write the receipts to /dev/full" google-benchmark "$gb" --out /dev/full
import_exit import-input-that-cannot-be-read 3 "nothing was written to $work/imp/out" \
  google-benchmark "$work/imp/absent.json" --out "$work/imp/out"
import_exit import-input-inside-the-out-dir-that-cannot-be-read 3 "nothing was written to $work/imp/in" \
  google-benchmark "$work/imp/in/absent.json" --out "$work/imp/in"
echo "$((count - fail)) of $count commands exit 4 with a message on /dev/full or a full disk"
[ "$fail" -eq 0 ]
