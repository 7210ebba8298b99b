#!/usr/bin/env python3
"""api_tiers_test.py — the public API says which calls are stable, and promises little.

mcpp_receipts.h defines two tiers, as zstd does: STABLE (declared MCPP_API) and
EXPERIMENTAL (declared MCPP_EXPERIMENTAL: a caller must define
MCPP_RECEIPTS_EXPERIMENTAL to use one, as zstd's ZSTD_STATIC_LINKING_ONLY). This
test checks that

  - every public header under lib/include states its tier ("API tier:");
  - the EXPERIMENTAL API markers pair up, do not nest, and declare only
    MCPP_EXPERIMENTAL calls;
  - the stable tier holds at most MAX_STABLE calls (0.1 promises what the
    documented C use, the kernels and examples/ need, not everything exported);
  - the kernels and examples/ (callers outside what ships with the library) call
    no experimental function and do not opt in; the CLI and the bindings, which
    ship with it, opt in in their CMakeLists.txt;
  - every exported call (tests/cli/exported_symbols.txt) is called by a C test
    under tests/, or is listed in FRONT_END_TESTED with the test that reaches it
    through a front end (a file that must exist and name the front end's spelling).

usage: api_tiers_test.py SOURCE_ROOT
"""
import os
import re
import sys

BEGIN = "/* ==== EXPERIMENTAL API:"
END = "/* ==== end of EXPERIMENTAL API ==== */"
DECL_RE = re.compile(r"\b(MCPP_API|MCPP_EXPERIMENTAL)\b[^;(]*?\b(mcpp_[a-z0-9_]+)\s*\(")
STABLE_USERS = ["kernels", "examples"]
OPTED_IN = ["scripts/CMakeLists.txt", "bindings/python/CMakeLists.txt", "bindings/lua/CMakeLists.txt"]
MAX_STABLE = 120

# Exported calls no C test calls, each with the test that reaches it through a front end
# and what that test must contain (the CLI command or the binding's name for it).
FRONT_END_TESTED = {
    "mcpp_comparison_gate_metric_reason": ("tests/python/test_gate_report.py", "metrics"),
    "mcpp_comparison_gate_metric_result": ("tests/python/test_gate_report.py", "metrics"),
    "mcpp_comparison_gate_metric_skipped": ("tests/python/test_gate_report.py", "metrics"),
    "mcpp_gate_report_entry_differences_omitted": ("tests/python/test_gate_report.py", "differences"),
    "mcpp_gate_report_input_error_message": ("tests/python/test_gate_report.py", "input"),
    "mcpp_history_lane_key": ("tests/python/test_store.py", "history"),
    "mcpp_history_run_created_at": ("tests/python/test_store.py", "history"),
    "mcpp_history_run_id": ("tests/python/test_store.py", "history"),
    "mcpp_history_run_value": ("tests/python/test_store.py", "history"),
    "mcpp_import_files_at_commit": ("tests/python/test_import.py", "commit="),
    "mcpp_import_files_to_dir": ("tests/python/test_import.py", "out="),
    "mcpp_import_files_to_dir_at_commit": ("tests/import/import_test.sh", "--commit"),
    "mcpp_import_write_dir": ("tests/python/test_import.py", "write"),
    "mcpp_store_query_each": ("tests/python/test_store.py", "query"),
}


def headers(root):
    inc = os.path.join(root, "lib", "include")
    yield os.path.join(inc, "mcpp_receipts.h")
    sub = os.path.join(inc, "mcpp_receipts")
    for name in sorted(os.listdir(sub)):
        if name.endswith(".h"):
            yield os.path.join(sub, name)


def tiers_of(path, problems):
    """(stable, experimental) function names declared in one header."""
    stable, experimental = set(), set()
    inside, block_decls, start = False, 0, 0
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith(BEGIN):
            if inside:
                problems.append("%s:%d: EXPERIMENTAL block opened inside another (from line %d)" % (path, n, start))
            inside, block_decls, start = True, 0, n
            continue
        if line.startswith(END):
            if not inside:
                problems.append("%s:%d: end of EXPERIMENTAL block without a start" % (path, n))
            elif block_decls == 0:
                problems.append("%s:%d: EXPERIMENTAL block (from line %d) declares no MCPP_API call" % (path, n, start))
            inside = False
            continue
        m = DECL_RE.search(line)
        if m:
            if inside and m.group(1) != "MCPP_EXPERIMENTAL":
                problems.append("%s:%d: %s is inside an EXPERIMENTAL block but declared MCPP_API"
                                % (path, n, m.group(2)))
            (experimental if m.group(1) == "MCPP_EXPERIMENTAL" else stable).add(m.group(2))
            block_decls += inside
    if inside:
        problems.append("%s:%d: EXPERIMENTAL block never ends" % (path, start))
    if "API tier" not in text:
        problems.append("%s: its first comment does not say its API tier" % path)
    elif experimental and "MCPP_EXPERIMENTAL" not in text.split("*/", 1)[0]:
        problems.append("%s: declares MCPP_EXPERIMENTAL calls but its first comment does not say so" % path)
    elif not experimental and path.endswith(".h") and "mcpp_receipts/" in path \
            and "API tier: stable" not in text:
        problems.append("%s: has no EXPERIMENTAL block but does not say 'API tier: stable'" % path)
    return stable, experimental


def uses(root, names):
    """(file, name) for every experimental name used under STABLE_USERS."""
    pattern = re.compile(r"\b(%s)\b" % "|".join(sorted(names))) if names else None
    for top in STABLE_USERS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h", ".cu")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        for hit in pattern.findall(line) if pattern else []:
                            yield "%s:%d" % (os.path.relpath(path, root), n), hit


def untested(root):
    """Exported calls that no C test calls and no front-end test is named for."""
    with open(os.path.join(root, "tests", "cli", "exported_symbols.txt")) as f:
        exported = [l.strip() for l in f if l.strip()]
    called = set()
    for dirpath, dirs, files in os.walk(os.path.join(root, "tests")):
        dirs[:] = [d for d in dirs if d != "data"]
        for name in files:
            if name.endswith((".c", ".h")):
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                    called |= set(re.findall(r"\b(mcpp_[a-z0-9_]+)\s*\(", f.read()))
    problems = []
    for name in exported:
        if name in called:
            if name in FRONT_END_TESTED:
                problems.append("%s is called by a C test now: remove it from FRONT_END_TESTED" % name)
            continue
        if name not in FRONT_END_TESTED:
            problems.append("%s is exported but no test calls it (add a C test, e.g. in "
                            "tests/compare/test_public_calls.c)" % name)
            continue
        test, spelling = FRONT_END_TESTED[name]
        path = os.path.join(root, test)
        if not os.path.exists(path) or spelling not in open(path, encoding="utf-8").read():
            problems.append("%s: %s, named as its test, does not exist or never says %r" % (name, test, spelling))
    return problems


def main(root):
    problems, stable, experimental = [], set(), set()
    for h in headers(root):
        s, e = tiers_of(h, problems)
        stable |= s
        experimental |= e
    if not stable or not experimental:
        problems.append("found %d stable and %d experimental calls: expected some of each"
                        % (len(stable), len(experimental)))
    if len(stable) > MAX_STABLE:
        problems.append("the stable tier has %d calls, more than %d: declare what callers outside the "
                        "project need no more MCPP_EXPERIMENTAL" % (len(stable), MAX_STABLE))
    for where, name in uses(root, experimental):
        problems.append("%s calls %s, which is EXPERIMENTAL: the kernels and examples/ use only the "
                        "stable tier (mark it stable in its header, or use a stable call)" % (where, name))
    for top in STABLE_USERS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                path = os.path.join(dirpath, name)
                if name.endswith((".c", ".h", ".cu", ".txt", ".cmake")) and \
                        "MCPP_RECEIPTS_EXPERIMENTAL" in open(path, encoding="utf-8", errors="replace").read():
                    problems.append("%s opts in to the experimental tier: %s/ is a caller outside what "
                                    "ships with the library" % (os.path.relpath(path, root), top))
    for rel in OPTED_IN:
        if "add_compile_definitions(MCPP_RECEIPTS_EXPERIMENTAL)" not in open(os.path.join(root, rel)).read():
            problems.append("%s does not opt in to the experimental tier it uses" % rel)
    problems += untested(root)
    for p in problems:
        print("FAIL:", p)
    if problems:
        return 1
    print("ok: %d stable (at most %d) and %d experimental public calls; %s use only stable ones; "
          "every exported call has a test (%d through a front end)"
          % (len(stable), MAX_STABLE, len(experimental), " and ".join(STABLE_USERS), len(FRONT_END_TESTED)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
