#!/usr/bin/env python3
"""test_hooks_test.py — test hooks stay out of the installed library.

Every variable lib/src declares between `#ifdef MCPP_TEST_HOOKS` and its
`#endif` is a test hook: it must be defined in the test library
(mcpp_receipts_testing) and in neither the static nor the shared library that
is installed (lib/CMakeLists.txt compiles the files holding hooks twice).

usage: test_hooks_test.py SOURCE_ROOT NM INSTALLED_LIB... -- TESTING_LIB
"""
import os
import re
import subprocess
import sys

BLOCK_RE = re.compile(r"^#ifdef MCPP_TEST_HOOKS\b(.*?)^#endif", re.M | re.S)
EXTERN_RE = re.compile(r"^\s*extern\s+[^;()]*?\b(\w+)\s*;", re.M)


def hooks(src):
    found = set()
    for root, _, files in os.walk(src):
        for name in files:
            if name.endswith(".h"):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    for block in BLOCK_RE.findall(f.read()):
                        found.update(EXTERN_RE.findall(block))
    return found


def defined(nm, lib):
    args = [nm, "-P", "-D", lib] if lib.endswith(".so") or ".so." in lib else [nm, "-P", lib]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return {f[0] for f in (line.split() for line in out.splitlines()) if len(f) >= 2 and f[1] not in "Uw"}


def main(argv):
    if len(argv) < 5 or "--" not in argv:
        print(__doc__)
        return 2
    root, nm = argv[1], argv[2]
    cut = argv.index("--")
    installed, testing = argv[3:cut], argv[cut + 1:]
    names = hooks(os.path.join(root, "lib", "src"))
    if not names:
        print("FAIL: found no test hooks under #ifdef MCPP_TEST_HOOKS in lib/src; is %s the source root?" % root)
        return 1
    bad = []
    for lib in installed:
        for sym in sorted(names & defined(nm, lib)):
            bad.append("%s defines the test hook %s" % (lib, sym))
    for lib in testing:
        for sym in sorted(names - defined(nm, lib)):
            bad.append("%s lacks the test hook %s (the tests that set it would not link)" % (lib, sym))
    for line in bad:
        print("FAIL:", line)
    if bad:
        return 1
    print("ok: %d test hooks (%s) only in the test library" % (len(names), ", ".join(sorted(names))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
