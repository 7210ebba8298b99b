#!/usr/bin/env python3
"""api_tiers_test.py — the public API says which calls are stable.

mcpp_receipts.h defines two tiers, as zstd does: STABLE (everything not marked)
and EXPERIMENTAL (the declarations between the EXPERIMENTAL API markers). This
test checks that

  - every public header under lib/include states its tier ("API tier:");
  - the markers pair up, do not nest, and each block declares an MCPP_API call;
  - a header with no block says "stable", one with blocks names the markers;
  - the CLI (scripts/cli) and the kernels (kernels/) call no experimental
    function, so what the tools do rests on the stable tier only.

usage: api_tiers_test.py SOURCE_ROOT
"""
import os
import re
import sys

BEGIN = "/* ==== EXPERIMENTAL API:"
END = "/* ==== end of EXPERIMENTAL API ==== */"
DECL_RE = re.compile(r"MCPP_API\b[^;(]*?\b(mcpp_[a-z0-9_]+)\s*\(")
STABLE_USERS = ["scripts/cli", "kernels"]


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
            (experimental if inside else stable).add(m.group(1))
            block_decls += inside
    if inside:
        problems.append("%s:%d: EXPERIMENTAL block never ends" % (path, start))
    if "API tier" not in text:
        problems.append("%s: its first comment does not say its API tier" % path)
    elif experimental and "EXPERIMENTAL API" not in text.split("*/", 1)[0]:
        problems.append("%s: has EXPERIMENTAL blocks but its first comment does not name them" % path)
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


def main(root):
    problems, stable, experimental = [], set(), set()
    for h in headers(root):
        s, e = tiers_of(h, problems)
        stable |= s
        experimental |= e
    if not stable or not experimental:
        problems.append("found %d stable and %d experimental calls: expected some of each"
                        % (len(stable), len(experimental)))
    for where, name in uses(root, experimental):
        problems.append("%s calls %s, which is EXPERIMENTAL: the CLI and the kernels use only the "
                        "stable tier (mark it stable in its header, or use a stable call)" % (where, name))
    for p in problems:
        print("FAIL:", p)
    if problems:
        return 1
    print("ok: %d stable and %d experimental public calls; %s use only stable ones"
          % (len(stable), len(experimental), " and ".join(STABLE_USERS)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
